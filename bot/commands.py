"""Every command the bot answers, in one table, and every handler registered in order.

The handlers (:func:`register`), the command menus (`bot.app`, setMyCommands per scope and
language) and /help (`bot.render.help_text`) are all built from :data:`COMMANDS`, so a command
cannot be listed without being handled, or handled without being listed. The table refers to
the handlers, so the handlers never import it (nor register themselves): the imports go one way.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any

from telegram import Update
from telegram.ext import (
    Application,
    CallbackQueryHandler,
    ChatMemberHandler,
    CommandHandler,
    MessageHandler,
    TypeHandler,
    filters,
)

from bot.handlers import chats, endgame, game, info, notices, private
from bot.handlers.chat_settings import cmd_settings, on_setting_button
from bot.handlers.common import Handler
from bot.i18n import t


class Where(enum.Flag):
    """Where a command works, and so in which menus and /help it is listed."""

    GROUP = enum.auto()
    PRIVATE = enum.auto()
    BOTH = GROUP | PRIVATE


class Section(enum.Enum):
    """The group of /help a command is listed under (catalog id ``help-section-<value>``)."""

    TABLE = "table"  # opening, joining, starting and ending a table
    TURN = "turn"  # what one does on one's turn
    CHIPS = "chips"  # chips, the leaderboard and the deck's check
    OTHER = "other"  # the rules, the settings, the language, this help


@dataclass(frozen=True, slots=True)
class BotCommandSpec:
    """``where`` it works (elsewhere it is answered with where it does); listed in the menus
    and /help of ``menu`` (by default where it works)."""

    name: str
    where: Where
    handler: Handler
    # Older or shorter names that keep working; never listed, so the menu stays one per action.
    aliases: tuple[str, ...] = ()
    menu: Where | None = None
    section: Section = Section.OTHER

    @property
    def help_key(self) -> str:
        """The catalog id of the one-line description (menu and /help)."""
        return f"cmd-{self.name}"

    def describe(self, lang: str, *, private: bool) -> str:
        """The one-line description in a menu: the private chat's own where the group's would
        be wrong there («send my cards to the private chat», sent in it)."""
        key = PRIVATE_HELP.get(self.name, self.help_key) if private else self.help_key
        return t(key, lang)

    def names(self) -> tuple[str, ...]:
        return (self.name, *self.aliases)


# The private chat's own descriptions of commands whose group text points to the private chat.
PRIVATE_HELP = {"hand": "cmd-hand-private", "odds": "cmd-odds-private"}

G, P, BOTH = Where.GROUP, Where.PRIVATE, Where.BOTH
TABLE, TURN, CHIPS = Section.TABLE, Section.TURN, Section.CHIPS


def _game(
    name: str,
    kind: str,
    where: Where,
    section: Section,
    *,
    amount: bool = False,
    aliases: tuple[str, ...] = (),
) -> BotCommandSpec:
    """A move or a table action: `bot.service` command ``kind`` on the game the command means
    (with ``amount``, one whole number: /bet 50)."""
    handler = game.game_command(kind, needs_amount=amount)
    return BotCommandSpec(name, where, handler, aliases, section=section)


# In the menu's order, which is /help's, section by section: a table from its start to its end,
# a turn, the chips, then the rest.
COMMANDS: tuple[BotCommandSpec, ...] = (
    # In a group /start shows the help (people type it there too), but it belongs to the
    # private chat, where it opens the chat for hands.
    BotCommandSpec("start", BOTH, private.cmd_start, menu=P, section=TABLE),
    BotCommandSpec("newgame", G, game.cmd_newgame, section=TABLE),
    _game("join", "join", G, TABLE),
    _game("leave", "leave", BOTH, TABLE),
    _game("deal", "start", G, TABLE),
    _game("cancel", "cancel", G, TABLE),
    _game("next", "next", G, TABLE),
    BotCommandSpec("table", G, game.cmd_table, section=TABLE),
    BotCommandSpec("endgame", G, endgame.cmd_endgame, section=TABLE),
    BotCommandSpec("notify", G, notices.cmd_notify, section=TABLE),
    _game("bank", "bank", BOTH, TURN, amount=True),
    _game("bet", "bet", BOTH, TURN, amount=True),
    _game("hit", "hit", BOTH, TURN),
    _game("stand", "stand", BOTH, TURN),
    _game("dark", "dark", BOTH, TURN),
    # The bank's own word first: «pass» alone reads like passing one's turn.
    _game("passbank", "pass", BOTH, TURN, aliases=("pass",)),
    BotCommandSpec("odds", BOTH, info.cmd_odds, section=TURN),
    BotCommandSpec("hand", BOTH, info.cmd_hand, section=TURN),
    BotCommandSpec("balance", BOTH, info.cmd_balance, section=CHIPS),
    BotCommandSpec("top", G, info.cmd_top, section=CHIPS),
    BotCommandSpec("stats", G, info.cmd_stats, section=CHIPS),
    BotCommandSpec("chart", G, info.cmd_chart, section=CHIPS),
    BotCommandSpec("verify", BOTH, info.cmd_verify, section=CHIPS),
    BotCommandSpec("rules", BOTH, info.cmd_rules),
    BotCommandSpec("settings", G, cmd_settings),
    BotCommandSpec("lang", BOTH, private.cmd_lang),
    BotCommandSpec("help", BOTH, info.cmd_help),
)


def listed(*, private: bool) -> list[BotCommandSpec]:
    """The commands of the private chat's menu, or of a group's."""
    scope = Where.PRIVATE if private else Where.GROUP
    return [c for c in COMMANDS if (c.where if c.menu is None else c.menu) & scope]


def menu(lang: str, *, private: bool) -> list[tuple[str, str]]:
    """(command, one-line description) of a menu, for /help and setMyCommands."""
    return [(c.name, c.describe(lang, private=private)) for c in listed(private=private)]


def sections(lang: str, *, private: bool) -> list[tuple[str, list[tuple[str, str]]]]:
    """/help's groups: (the section's title, its (command, description) pairs), the menu's
    commands in the menu's order."""
    grouped: list[tuple[str, list[tuple[str, str]]]] = []
    last: Section | None = None
    for c in listed(private=private):
        if c.section is not last:
            grouped.append((t(f"help-section-{c.section.value}", lang), []))
            last = c.section
        grouped[-1][1].append((c.name, c.describe(lang, private=private)))
    return grouped


def register(application: Application[Any, Any, Any, Any, Any, Any]) -> None:
    """Every handler, in order: for every name of every command a handler in the chats where it
    works, and for the chats where it does not an answer saying where it does. Commands answer
    new messages only: an edited message must not run its command again."""
    new = filters.UpdateType.MESSAGE
    private_chat = filters.ChatType.PRIVATE
    application.add_handler(TypeHandler(Update, private.remember_language), group=-2)
    application.add_handler(TypeHandler(Update, chats.reopen_chat), group=-1)
    # Each scope's chats, and the answer there to a command that works only elsewhere.
    scopes = {
        Where.GROUP: (filters.ChatType.GROUPS, private.answer_with("private_only")),
        Where.PRIVATE: (private_chat, private.answer_with("group_only")),
    }
    for command in COMMANDS:
        for scope, (chat_filter, elsewhere) in scopes.items():
            callback = command.handler if command.where & scope else elsewhere
            handler = CommandHandler(command.names(), callback, filters=new & chat_filter)
            application.add_handler(handler)
    # Any other command in the private chat: say so and point to /help (in a group it may be
    # another bot's, so it is left alone).
    unknown = private.answer_with("private-unknown_command")
    application.add_handler(MessageHandler(private_chat & filters.COMMAND & new, unknown))
    application.add_handler(CallbackQueryHandler(on_setting_button, pattern=r"^s:"))
    application.add_handler(CallbackQueryHandler(endgame.on_end_button, pattern=r"^e:"))
    application.add_handler(CallbackQueryHandler(notices.on_notice_button, pattern=r"^n:"))
    # The game's buttons (g:…), and any other press: a button it cannot read is stale.
    application.add_handler(CallbackQueryHandler(game.on_game_button))
    application.add_handler(MessageHandler(filters.StatusUpdate.MIGRATE, chats.on_migration))
    membership = ChatMemberHandler.MY_CHAT_MEMBER
    application.add_handler(ChatMemberHandler(chats.on_my_membership, membership))
    # A member who leaves a group leaves its call to play (the service message, or the
    # chat_member update Telegram sends where the bot is an admin).
    left = filters.StatusUpdate.LEFT_CHAT_MEMBER
    application.add_handler(MessageHandler(left, notices.on_member_left))
    others = ChatMemberHandler.CHAT_MEMBER
    application.add_handler(ChatMemberHandler(notices.on_member_left, others))
    # Plain private text opens the chat for hands as /start does, and gets the help.
    text = private_chat & filters.TEXT & ~filters.COMMAND & new
    application.add_handler(MessageHandler(text, private.cmd_start))
    application.add_error_handler(chats.on_error)
