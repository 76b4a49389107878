"""Telegram handlers: parse → service → render. Every handler is registered in :func:`register`.

Game actions run under the game's lock and commit before the bot answers; what the chat sees
is shown by delivery afterwards (`bot.delivery`).
"""

from __future__ import annotations

import asyncio
import calendar
import logging
import re
import time
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, replace
from typing import Any

from telegram import (
    CallbackQuery,
    Chat,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    LinkPreviewOptions,
    Message,
    ReplyParameters,
    Update,
    User,
)
from telegram.constants import ChatMemberStatus, ChatType, ParseMode
from telegram.error import TelegramError
from telegram.ext import (
    Application,
    CallbackQueryHandler,
    ChatMemberHandler,
    ContextTypes,
    MessageHandler,
    TypeHandler,
    filters,
)

from bot import chart, render, settings_options
from bot.callbacks import Act, GameButton, parse_end, parse_game, parse_setting
from bot.delivery import Delivery, View
from bot.languages import from_telegram, personal
from bot.locks import KeyedLocks
from bot.replies import Cooldowns, Replies, pointer_text
from bot.service import (
    Actor,
    AlreadyDone,
    Command,
    Duplicate,
    GameService,
    Outcome,
    Refilled,
    Refused,
    meta_of,
)
from bot.settings import Settings
from bot.telegram_errors import Verdict
from bot.timers import TurnTimers
from rules.errors import RulesError
from rules.game import Game
from rules.odds import odds_for
from rules.variants import PRESETS
from storage import Storage, StorageError, StoredGame

log = logging.getLogger(__name__)
NAME_LIMIT = 64
AMOUNT = re.compile(r"^\+?\d{1,15}$")
ADMIN_TTL = 60.0
NO_PREVIEW = LinkPreviewOptions(is_disabled=True)
END_CONFIRM_SECONDS = 30  # how long «end the game?» waits for its asker's press
Handler = Callable[[Update, ContextTypes.DEFAULT_TYPE], Coroutine[Any, Any, None]]

ACT_COMMANDS = {
    Act.JOIN: "join",
    Act.LEAVE: "leave",
    Act.START: "start",
    Act.CANCEL: "cancel",
    Act.BANK: "bank",
    Act.PASS: "pass",
    Act.BET: "bet",
    Act.HIT: "hit",
    Act.STAND: "stand",
    Act.DARK: "dark",
    Act.NEXT: "next",
    Act.RESUME: "resume",
}


@dataclass
class Runtime:
    """Everything the handlers need, opened in post_init and closed in post_shutdown."""

    settings: Settings
    storage: Storage
    service: GameService
    delivery: Delivery
    replies: Replies
    timers: TurnTimers
    locks: KeyedLocks
    bot_username: str
    admin_cache: dict[tuple[int, int], tuple[bool, float]]
    cooldowns: Cooldowns

    def deep_link(self, game_id: int) -> str:
        return f"https://t.me/{self.bot_username}?start=g{game_id}"


def runtime(context: ContextTypes.DEFAULT_TYPE) -> Runtime:
    rt: Runtime = context.application.bot_data["runtime"]
    return rt


# -------------------------------------------------------------------- small helpers


def display_name(user: User) -> str:
    name = " ".join(user.full_name.split()) or (user.username or str(user.id))
    cleaned = "".join(ch for ch in name if ch.isprintable())
    return cleaned[:NAME_LIMIT] or str(user.id)


def actor_of(user: User) -> Actor:
    return Actor(user.id, display_name(user))


def thread_of(message: Message | None) -> int:
    if message is not None and message.is_topic_message and message.message_thread_id:
        return message.message_thread_id
    return 0


def is_group(chat: Chat | None) -> bool:
    return chat is not None and chat.type in (ChatType.GROUP, ChatType.SUPERGROUP)


async def language_for(rt: Runtime, chat_id: int, user: User | None) -> str:
    """The language of the answer to a command ``user`` typed in ``chat_id``: in a group, the
    chat's when the answer is posted there, the person's when it goes to his private chat
    (as `say` decides); in the private chat, the person's (`person_language`)."""
    if chat_id < 0 and (user is None or not await private_reachable(rt, user.id)):
        return (await rt.storage.get_chat(chat_id)).language
    return await person_language(rt, user, chat_id)


async def person_language(
    rt: Runtime, user: User | None, chat_id: int, *, game_id: int | None = None
) -> str:
    """What ``user`` reads where only he reads (his private chat, alerts, toasts): his /lang,
    else Telegram's language for him, else the language of the chat it is about — ``chat_id``
    when a group, else the group of ``game_id``, else of the one game he sits in — else the
    bot's default (`bot.languages`)."""
    known = await rt.storage.get_user(user.id) if user is not None else None
    own = personal(known, user.language_code if user is not None else None)
    if own is not None:
        return own
    if chat_id < 0:
        return (await rt.storage.get_chat(chat_id)).language
    if game_id is None and user is not None:
        seated = await rt.storage.seated_games(user.id)
        game_id = seated[-1] if seated else None
    view = rt.delivery.views().get(game_id) if game_id is not None else None
    if view is not None:
        return view.chat.language
    stored = await rt.storage.load_game(game_id) if game_id is not None else None
    if stored is not None:
        return (await rt.storage.get_chat(stored.chat_id)).language
    return rt.settings.default_language


async def private_reachable(rt: Runtime, user_id: int) -> bool:
    """Whether an answer to this person goes to his private chat (`bot.replies`)."""
    known = await rt.storage.get_user(user_id)
    return known is not None and known.private_opened and not rt.delivery.lanes.is_closed(user_id)


async def remember_language(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Keep the language Telegram reports for the person (when the bot speaks it): messages
    sent to him without an update of his (his cards, a turn warning) are written in it too."""
    user = update.effective_user
    if user is None or user.is_bot:
        return
    rt = runtime(context)
    reported = from_telegram(user.language_code)
    known = await rt.storage.get_user(user.id)
    if (known.client_language if known is not None else None) == reported:
        return
    if known is None and reported is None:
        return
    try:
        async with rt.storage.transaction() as tx:
            await tx.upsert_user(user.id, display_name(user), client_language=reported)
    except StorageError as error:  # the update itself still gets its answer
        log.warning("language of user %s not saved: %s", user.id, error)
        return
    rt.delivery.forget_user(user.id)


def _command_of(update: Update) -> str:
    """The command a message is (``/help@bot args`` -> ``help``), for de-duplication."""
    message = update.effective_message
    text = (message.text or message.caption or "") if message is not None else ""
    head = text.split(maxsplit=1)[0] if text.strip() else ""
    return head.lstrip("/").split("@", 1)[0].lower()


async def say(
    update: Update,
    context: ContextTypes.DEFAULT_TYPE,
    text: str,
    markup: InlineKeyboardMarkup | None = None,
    *,
    in_group: bool = False,
) -> None:
    """Answer a command without waiting: in a group, privately when the asker's chat with the
    bot is open (``in_group`` keeps it in the group), else in the group at most once a minute
    per person and per command (`bot.replies`)."""
    rt = runtime(context)
    if update.effective_chat is None:
        return
    await _answer_command(
        rt,
        update,
        _text_sender(rt, context, text[:4096], markup),
        in_group=in_group,
        pointer_make=lambda line: _text_sender(rt, context, line, None),
    )


def _text_sender(
    rt: Runtime,
    context: ContextTypes.DEFAULT_TYPE,
    content: str,
    buttons: InlineKeyboardMarkup | None,
) -> Callable[[int, int | None], Coroutine[Any, Any, object]]:
    """The send of a text answer, made when the chat's lane gets to it (`bot.replies.Make`)."""

    async def send(target: int, thread: int | None) -> object:
        return await context.bot.send_message(
            target,
            content,
            parse_mode=ParseMode.HTML,
            reply_markup=buttons,
            message_thread_id=thread,
            link_preview_options=NO_PREVIEW,
            **rt.delivery.lanes.send_args(),
        )

    return send


async def _answer_command(
    rt: Runtime,
    update: Update,
    make: Any,
    *,
    in_group: bool = False,
    pointer_make: Any = None,
) -> str:
    chat, user = update.effective_chat, update.effective_user
    assert chat is not None
    private_ok = False
    lang: str = rt.settings.default_language
    if user is not None and is_group(chat) and not in_group:
        known = await rt.storage.get_user(user.id)
        private_ok = known is not None and known.private_opened
        lang = (await rt.storage.get_chat(chat.id)).language  # the pointer is the group's
    name = display_name(user) if user is not None else ""
    return rt.replies.answer(
        chat_id=chat.id,
        thread_id=thread_of(update.effective_message),
        user_id=user.id if user is not None else None,
        command=_command_of(update),
        make=make,
        private_ok=private_ok,
        in_group=in_group,
        pointer=lambda: pointer_text(name, lang),
        pointer_make=pointer_make,
    )


async def group_context(
    update: Update, context: ContextTypes.DEFAULT_TYPE
) -> tuple[Runtime, Chat, User, str] | None:
    """(runtime, chat, user, language) for a command that belongs to a group; in a private
    chat it answers so and returns None."""
    rt = runtime(context)
    chat, user = update.effective_chat, update.effective_user
    if chat is None or user is None:
        return None
    lang = await language_for(rt, chat.id, user)
    if not is_group(chat):
        await say(update, context, render.text("group_only", lang))
        return None
    return rt, chat, user, lang


async def is_admin(
    rt: Runtime, context: ContextTypes.DEFAULT_TYPE, chat_id: int, user_id: int
) -> bool:
    """Group admin rights via getChatMember, cached briefly."""
    key = (chat_id, user_id)
    cached = rt.admin_cache.get(key)
    now = time.monotonic()
    if cached is not None and cached[1] > now:
        return cached[0]
    try:
        member = await context.bot.get_chat_member(chat_id, user_id)
        admin = member.status in (ChatMemberStatus.ADMINISTRATOR, ChatMemberStatus.OWNER)
    except TelegramError as error:
        log.warning("getChatMember failed chat=%s user=%s: %s", chat_id, user_id, error)
        admin = False
    if len(rt.admin_cache) > 10_000:
        rt.admin_cache.clear()
    rt.admin_cache[key] = (admin, now + ADMIN_TTL)
    return admin


def parse_amount(raw: list[str] | None) -> int | None:
    if not raw or len(raw) != 1 or not AMOUNT.match(raw[0]):
        return None
    value = int(raw[0])
    return value if value >= 1 else None


# -------------------------------------------------------------------- acting on a game


async def perform(
    rt: Runtime,
    game_id: int,
    actor: Actor | None,
    command: Command,
    *,
    update_id: int | None = None,
    button_version: int | None = None,
    origin: int | None = None,
) -> Outcome:
    """Run one command under the game's lock; refresh views and timers after it committed."""
    async with rt.locks.hold(game_id):
        outcome = await rt.service.act(
            game_id,
            actor,
            command,
            update_id=update_id,
            button_version=button_version,
            origin=origin,
        )
    rt.timers.arm(game_id, outcome.stored.deadline)
    await rt.delivery.committed(view_of(outcome))
    for event in outcome.events:
        log.info(
            "game=%s chat=%s event=%s",
            game_id,
            outcome.stored.chat_id,
            event.kind,
        )
    return outcome


def view_of(outcome: Outcome) -> View:
    return View(outcome.stored, outcome.game, outcome.meta, outcome.chat)


async def stored_view(rt: Runtime, stored: StoredGame) -> View:
    """A view of a game read outside an action (its engine decoded once, shared)."""
    chat = await rt.storage.get_chat(stored.chat_id)
    return View(stored, rt.service.game(stored), meta_of(stored), chat)


async def end_chat_games(rt: Runtime, chat_id: int, why: str) -> None:
    """The chat can no longer show its games: end them, stakes back, banks to their bankers."""
    games = {g for g, v in rt.delivery.views().items() if v.stored.chat_id == chat_id}
    active = await rt.storage.load_active_game(chat_id, 0)
    if active is not None:
        games.add(active.game_id)
    for game_id in sorted(games):
        try:
            await perform(rt, game_id, None, Command("end"))
            log.info("game=%s chat=%s event=ended_unreachable why=%s", game_id, chat_id, why)
        except Refused:
            continue


async def migrate_chat(rt: Runtime, old_chat_id: int, new_chat_id: int) -> list[int]:
    """The group became a supergroup: everything moves to its new id; play goes on there."""
    moved = await rt.service.migrate_chat(old_chat_id, new_chat_id)
    log.info("chat=%s migrated to %s: %d games moved", old_chat_id, new_chat_id, len(moved))
    rt.admin_cache.clear()
    return moved


async def on_timer(rt: Runtime, game_id: int) -> None:
    try:
        await perform(rt, game_id, None, Command("timeout"))
    except Refused:
        # Someone acted since the timer was set: follow the stored deadline instead.
        stored = await rt.storage.load_game(game_id)
        if stored is not None and stored.status != "finished":
            rt.timers.arm(game_id, stored.deadline)


async def command_game(
    update: Update,
    context: ContextTypes.DEFAULT_TYPE,
    rt: Runtime,
    lang: str,
    *,
    none_text: str = "private-no_game",
) -> StoredGame | None:
    """The game a typed command means: the group's (topic's) game, or in the private chat the
    one game the person sits in. Answers why when there is none and returns None."""
    chat, user, message = update.effective_chat, update.effective_user, update.effective_message
    assert chat is not None and user is not None
    if is_group(chat):
        stored = await rt.service.active_game(chat.id, thread_of(message))
    else:
        games = await rt.storage.seated_games(user.id)
        if len(games) != 1:
            key = "private_several" if len(games) > 1 else none_text
            await say(update, context, render.text(key, lang))
            return None
        stored = await rt.storage.load_game(games[0])
    if stored is None:
        await say(update, context, render.refusal("no_game", {}, lang))
    return stored


async def _group_game_command(
    update: Update, context: ContextTypes.DEFAULT_TYPE, kind: str, *, needs_amount: bool = False
) -> None:
    rt = runtime(context)
    message, user, chat = update.effective_message, update.effective_user, update.effective_chat
    if message is None or user is None or chat is None:
        return
    lang = await language_for(rt, chat.id, user)
    # Lobby and table management stay in the group, where everyone sees them happen: the
    # command table (`bot.commands`) does not route those here from a private chat.
    stored = await command_game(update, context, rt, lang)
    if stored is None:
        return
    # A missing or unusable amount goes to the service too: the engine says what is wrong
    # with it there (not your turn, no bank to name now, or the range of a bank or a stake).
    amount = parse_amount(context.args) if needs_amount else None
    if kind == "end" and not await _may_end(rt, context, stored, user.id):
        await say(update, context, render.refusal("not_allowed", {}, lang))
        return
    try:
        outcome = await perform(
            rt, stored.game_id, actor_of(user), Command(kind, amount), update_id=update.update_id
        )
    except Refused as refused:
        await say(update, context, render.refusal(refused.code, refused.params, lang))
    except Duplicate:
        log.info("duplicate update %s ignored", update.update_id)
    else:
        await _say_refilled(update, context, outcome, lang)
        if kind == "join" and joined_mid_round(outcome, user.id):
            await say(update, context, render.text("joined_next", lang))


def joined_mid_round(outcome: Outcome, user_id: int) -> bool:
    """The person was seated while a round is played: he sits in from the next one."""
    game = outcome.game
    return game.in_round and game.is_seated(user_id) and user_id not in game.hands


async def cmd_endgame(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """/endgame asks first: a slip of the finger must not end a whole evening. The question goes
    to the group (where the game is), and only its asker's press, within
    :data:`END_CONFIRM_SECONDS`, ends the game (`on_end_button`)."""
    found = await group_context(update, context)
    if found is None:
        return
    rt, chat, user, lang = found
    stored = await command_game(update, context, rt, lang)
    if stored is None:
        return
    if not await _may_end(rt, context, stored, user.id):
        await say(update, context, render.refusal("not_allowed", {}, lang))
        return
    message = update.effective_message
    group_lang = (await rt.storage.get_chat(chat.id)).language
    name, game_id = display_name(user), stored.game_id
    asks = _end_asks(context)

    async def send() -> object:
        # The clock starts when the question is shown, not when it was queued.
        expires = int(rt.service.clock()) + END_CONFIRM_SECONDS
        shown = render.end_confirm(name, game_id, user.id, expires, END_CONFIRM_SECONDS, group_lang)
        sent = await context.bot.send_message(
            chat.id,
            shown.text,
            parse_mode=ParseMode.HTML,
            reply_markup=shown.markup,
            message_thread_id=thread_of(message) or None,
            reply_parameters=(
                ReplyParameters(message.message_id, allow_sending_without_reply=True)
                if message is not None
                else None
            ),
            **rt.delivery.lanes.send_args(),
        )
        key = (chat.id, sent.message_id)
        # Unanswered, the question says so and loses its buttons (one edit, at the lowest
        # priority: never before the game's own messages).
        asks[key] = asyncio.get_running_loop().call_later(
            END_CONFIRM_SECONDS,
            lambda: _close_end_ask(rt, context, key, render.text("endgame-expired", group_lang)),
        )
        return sent

    rt.delivery.lanes.post(chat.id, send, "end confirmation")


def _end_asks(context: ContextTypes.DEFAULT_TYPE) -> dict[tuple[int, int], asyncio.TimerHandle]:
    """The open «end the game?» questions: (chat, message) -> the timer that closes it."""
    asks: dict[tuple[int, int], asyncio.TimerHandle] = context.application.bot_data.setdefault(
        "end_asks", {}
    )
    return asks


def _close_end_ask(
    rt: Runtime, context: ContextTypes.DEFAULT_TYPE, key: tuple[int, int], note: str | None
) -> None:
    """The question is answered or expired: edit it to ``note`` (no buttons), or with no note
    delete it (the game's summary follows it)."""
    timer = _end_asks(context).pop(key, None)
    if timer is not None:
        timer.cancel()
    chat_id, message_id = key

    async def close() -> object:
        try:
            if note is None:
                return await context.bot.delete_message(
                    chat_id, message_id, **rt.delivery.lanes.send_args()
                )
            return await context.bot.edit_message_text(
                note,
                chat_id=chat_id,
                message_id=message_id,
                parse_mode=ParseMode.HTML,
                reply_markup=None,
                **rt.delivery.lanes.send_args(),
            )
        except TelegramError as error:
            # Already closed (edited, deleted) by an earlier press or a previous run.
            log.info("end question chat=%s message=%s not closed: %s", chat_id, message_id, error)
            return None

    rt.delivery.lanes.post(chat_id, close, "end question closed")


async def on_end_button(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """The answer to «end the game?»: only the asker's, only in time."""
    rt = runtime(context)
    query = update.callback_query
    if query is None or query.message is None:
        return
    user = query.from_user
    chat_id = query.message.chat.id
    lang = await language_for(rt, chat_id, user)
    button = parse_end(query.data)
    if button is None:
        await _alert(query, render.refusal("stale_button", {}, lang))
        return
    key = (chat_id, query.message.message_id)
    group_lang = (await rt.storage.get_chat(chat_id)).language if chat_id < 0 else lang
    if user.id != button.user_id:
        asker = await rt.storage.get_user(button.user_id)
        await _alert(query, render.end_not_yours(asker.name if asker is not None else "?", lang))
        return
    if not button.yes:
        await _answer(query)
        kept = render.text("endgame-kept", group_lang, name=display_name(user))
        _close_end_ask(rt, context, key, kept)
        return
    if rt.service.clock() > button.expires:
        await _alert(query, render.text("endgame-expired", lang))
        _close_end_ask(rt, context, key, render.text("endgame-expired", group_lang))
        return
    stored = await rt.storage.load_game(button.game_id)
    if stored is None or stored.status == "finished" or stored.chat_id != chat_id:
        await _alert(query, render.text("endgame-over", lang))
        _close_end_ask(rt, context, key, None)
        return
    if not await _may_end(rt, context, stored, user.id):
        await _alert(query, render.refusal("not_allowed", {}, lang))
        return
    try:
        await perform(
            rt,
            button.game_id,
            actor_of(user),
            Command("end"),
            update_id=update.update_id,
            origin=chat_id,
        )
    except Refused as refused:
        await _alert(query, render.refusal(refused.code, refused.params, lang))
        return
    except Duplicate:
        await _answer(query)
        return
    await _answer(query)
    _close_end_ask(rt, context, key, None)


async def _may_end(
    rt: Runtime, context: ContextTypes.DEFAULT_TYPE, stored: StoredGame, user_id: int
) -> bool:
    game = rt.service.game(stored)
    creator = stored.state["meta"]["creator_id"]
    if user_id in (creator, game.banker):
        return True
    return await is_admin(rt, context, stored.chat_id, user_id)


def game_command(kind: str, *, needs_amount: bool = False) -> Handler:
    async def handler(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        await _group_game_command(update, context, kind, needs_amount=needs_amount)

    handler.__name__ = f"cmd_{kind}"
    return handler


# -------------------------------------------------------------------- commands


async def cmd_newgame(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    found = await group_context(update, context)
    if found is None:
        return
    rt, chat, user, lang = found
    message = update.effective_message
    preset_name = context.args[0].lower() if context.args else None
    if preset_name is not None and preset_name not in PRESETS:
        await say(
            update,
            context,
            render.text("unknown_preset", lang, name=preset_name[:32], known=", ".join(PRESETS)),
        )
        return
    try:
        outcome = await rt.service.open_lobby(
            chat.id,
            thread_of(message),
            actor_of(user),
            preset_name,
            update_id=update.update_id,
            chat_title=chat.title or "",
        )
    except Refused as refused:
        await say(update, context, render.refusal(refused.code, refused.params, lang))
        return
    except Duplicate:
        return
    log.info("game=%s chat=%s event=lobby_opened", outcome.stored.game_id, chat.id)
    await rt.delivery.committed(view_of(outcome))
    await _say_refilled(update, context, outcome, lang)


def refill_of(outcome: Outcome) -> Refilled | None:
    """The chips a broke player was given back as he sat down in this action, if any."""
    return next((e for e in outcome.events if isinstance(e, Refilled)), None)


async def _say_refilled(
    update: Update, context: ContextTypes.DEFAULT_TYPE, outcome: Outcome, lang: str
) -> None:
    """A typed /join or /newgame that refilled the player says so (his chips came back)."""
    refill, user = refill_of(outcome), update.effective_user
    if refill is None or user is None:
        return
    line = render.text(
        "refill-done", lang, name=display_name(user), amount=refill.amount, balance=refill.balance
    )
    await say(update, context, line)


async def cmd_table(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Post the table anew (the old message may be far up the chat)."""
    rt = runtime(context)
    message, user, chat = update.effective_message, update.effective_user, update.effective_chat
    if message is None or chat is None:
        return
    lang = await language_for(rt, chat.id, user)
    stored = await rt.service.active_game(chat.id, thread_of(message))
    if stored is None:
        await say(update, context, render.refusal("no_game", {}, lang))
        return
    try:
        async with rt.locks.hold(stored.game_id):
            outcome = await rt.service.repost_table(stored.game_id)
    except Refused as refused:
        await say(update, context, render.refusal(refused.code, refused.params, lang))
        return
    await rt.delivery.committed(view_of(outcome))


async def cmd_hand(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    rt = runtime(context)
    message, user, chat = update.effective_message, update.effective_user, update.effective_chat
    if message is None or user is None or chat is None:
        return
    lang = await language_for(rt, chat.id, user)
    stored = await command_game(update, context, rt, lang, none_text="hand_in_group")
    if stored is None:
        return
    if not rt.service.game(stored).is_seated(user.id):
        await say(update, context, render.refusal("not_seated", {}, lang))
        return
    known = await rt.storage.get_user(user.id)
    if known is None or not known.private_opened:
        button = InlineKeyboardButton(
            render.text("btn-open_private", lang), url=rt.deep_link(stored.game_id)
        )
        await say(
            update,
            context,
            render.refusal("private_needed", {}, lang),
            InlineKeyboardMarkup([[button]]),
        )
        return
    rt.delivery.resend_hand(stored.game_id, user.id)
    if stored.game_id not in rt.delivery.views():
        await rt.delivery.load(stored.game_id)


def odds_text(game: Game, player: int, lang: str) -> str | None:
    """The 💡 odds of ``player`` in ``game``, or None when he is not drawing now."""
    found = odds_for(game, player)
    return None if found is None else render.odds_alert(found, lang)


async def cmd_odds(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """/odds: the next-card odds of whoever is drawing, only ever where he alone reads them."""
    rt = runtime(context)
    message, user, chat = update.effective_message, update.effective_user, update.effective_chat
    if message is None or user is None or chat is None:
        return
    lang = await language_for(rt, chat.id, user)
    stored = await command_game(update, context, rt, lang)
    if stored is None:
        return
    found = odds_text(rt.service.game(stored), user.id, lang)
    if not is_group(chat):
        await say(update, context, found or render.text("odds-not_drawing", lang))
        return
    if found is None:
        await say(update, context, render.text("odds-not_drawing", lang))
        return
    # Never into the group: the odds tell what the hand holds.
    known = await rt.storage.get_user(user.id)
    if known is not None and known.private_opened and not rt.delivery.lanes.is_closed(user.id):

        async def send_odds() -> object:
            return await context.bot.send_message(
                user.id, found, link_preview_options=NO_PREVIEW, **rt.delivery.lanes.send_args()
            )

        rt.delivery.lanes.post(user.id, send_odds, "odds")
        return
    await say(update, context, render.text("odds-press_button", lang))


async def cmd_start(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Private /start: the user opened the chat, so hands can come here from now on."""
    rt = runtime(context)
    user, chat = update.effective_user, update.effective_chat
    if user is None or chat is None:
        return
    if is_group(chat):
        await cmd_help(update, context)
        return
    async with rt.storage.transaction() as tx:
        await tx.upsert_user(user.id, display_name(user), private_opened=True)
    rt.delivery.forget_user(user.id)
    payload = context.args[0] if context.args else ""
    match = re.fullmatch(r"g([1-9]\d{0,11})", payload)
    lang = await person_language(rt, user, user.id, game_id=int(match.group(1)) if match else None)
    if match:
        game_id = int(match.group(1))
        stored = await rt.storage.load_game(game_id)
        if stored is not None and rt.service.game(stored).is_seated(user.id):
            await say(update, context, render.text("private-opened", lang))
            await rt.delivery.load(game_id)
            return
    await say(update, context, render.help_text(lang, private=True))


async def cmd_help(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    rt = runtime(context)
    chat, user = update.effective_chat, update.effective_user
    if chat is None:
        return
    lang = await language_for(rt, chat.id, user)
    await say(update, context, render.help_text(lang, private=not is_group(chat)))


async def cmd_rules(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    rt = runtime(context)
    chat, user = update.effective_chat, update.effective_user
    if chat is None:
        return
    lang = await language_for(rt, chat.id, user)
    name = context.args[0].lower() if context.args else None
    if name is None:
        # Without a name: the rules being played here — the running game's (the private chat:
        # of the one game its person sits in), else what the chat's next game would be.
        stored: StoredGame | None = None
        if is_group(chat):
            stored = await rt.service.active_game(chat.id, thread_of(update.effective_message))
        elif user is not None:
            seated = await rt.storage.seated_games(user.id)
            stored = await rt.storage.load_game(seated[0]) if len(seated) == 1 else None
        if stored is not None and stored.status != "finished":
            variant = rt.service.game(stored).variant
            await say(update, context, render.rules_text(variant.name, lang, variant, running=True))
            return
        if is_group(chat):
            settings = await rt.storage.get_chat(chat.id)
            try:
                chats = rt.service.variant_for(settings, None)
            except Refused:  # overrides a newer version refuses: the preset as it is
                chats = PRESETS.get(settings.preset, PRESETS["classic36"])
            await say(update, context, render.rules_text(chats.name, lang, chats))
            return
        name = "classic36"
    if name not in PRESETS:
        await say(
            update,
            context,
            render.text("unknown_preset", lang, name=name[:32], known=", ".join(PRESETS)),
        )
        return
    await say(update, context, render.rules_text(name, lang))


async def cmd_balance(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    chat = update.effective_chat
    if chat is not None and not is_group(chat):
        await _private_balances(update, context)
        return
    found = await group_context(update, context)
    if found is None:
        return
    rt, chat, user, lang = found
    player = await rt.storage.get_player(chat.id, user.id)
    amount = player.balance if player is not None else rt.settings.starting_balance
    bank = await rt.storage.held_bank(chat.id, user.id)  # a banker's chips are in it too
    line = render.balance(display_name(user), amount + bank, lang, bank)
    # A broke player learns how his chips come back (they do as he sits down).
    outlook = await rt.service.refill_outlook(
        chat.id, thread_of(update.effective_message), user.id, amount + bank
    )
    if outlook is not None:
        code, params = outlook
        line += "\n" + render.text(f"refill-balance_{code}", lang, **params)
    await say(update, context, line)


BALANCE_CHATS = 10  # chats listed by a private /balance (one getChat each, for its title)


async def _private_balances(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Private /balance: the person's chips in every chat he plays in (a balance belongs to
    its chat), named by the chats' titles."""
    rt = runtime(context)
    user = update.effective_user
    if user is None:
        return
    lang = await language_for(rt, user.id, user)
    seats = (await rt.storage.player_chats(user.id))[:BALANCE_CHATS]

    async def title(chat_id: int) -> str | None:
        try:
            found = await context.bot.get_chat(chat_id)
        except TelegramError as error:  # the bot was removed, the chat is gone
            log.info("getChat %s for /balance failed: %s", chat_id, error)
            return None
        return found.title or None

    titles = await asyncio.gather(*(title(seat.chat_id) for seat in seats))
    rows = [(name, seat.balance) for name, seat in zip(titles, seats, strict=True)]
    await say(update, context, render.balances(rows, lang))


def month_start(now: float) -> float:
    """The unix time of 00:00 UTC on the first day of the month of ``now`` (in UTC)."""
    day = time.gmtime(now)
    return float(calendar.timegm((day.tm_year, day.tm_mon, 1, 0, 0, 0)))


async def cmd_top(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    found = await group_context(update, context)
    if found is None:
        return
    rt, chat, _, lang = found
    period = "month" if context.args and context.args[0].lower() in ("month", "месяц") else "all"
    since = month_start(rt.service.clock()) if period == "month" else None
    rows = await rt.storage.leaderboard(chat.id, since=since, limit=10)
    await say(update, context, render.leaderboard(rows, lang, period=period))


async def cmd_stats(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    found = await group_context(update, context)
    if found is None:
        return
    rt, chat, user, lang = found
    stats = await rt.storage.player_stats(chat.id, user.id)
    await say(update, context, render.stats(stats, display_name(user), lang))


def reply_target(message: Message | None, user: User) -> User:
    """Whom a command is about: the author of the message it replies to (a person, not a bot),
    else the caller."""
    reply = message.reply_to_message if message is not None else None
    if message is None or reply is None or reply.from_user is None or reply.from_user.is_bot:
        return user
    # In a forum topic a plain message "replies" to the topic's first message.
    if message.is_topic_message and reply.message_id == message.message_thread_id:
        return user
    return reply.from_user


async def cmd_chart(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """A PNG of a player's balance over time in this chat: the caller's, or as a reply the
    replied-to person's. Rendered in a worker thread."""
    found = await group_context(update, context)
    if found is None:
        return
    rt, chat, user, lang = found
    if await _cooling(rt, update, context, user.id, "chart", lang):
        return
    message = update.effective_message
    target = reply_target(message, user)
    name = display_name(target)
    player = await rt.storage.get_player(chat.id, target.id)
    history = await rt.storage.balance_history(chat.id, target.id) if player else []
    if player is None or not history:
        await say(update, context, render.text("chart-none", lang, name=name))
        return
    try:
        png = await chart.render_balance_chart_async(
            history, title=render.chart_title(name, lang), lang=lang
        )
    except Exception:
        log.exception("chart failed chat=%s user=%s", chat.id, target.id)
        await say(update, context, render.text("chart-failed", lang))
        return
    caption = render.chart_caption(name, player.balance, history[0][1], lang)

    async def send_chart(target_chat: int, thread: int | None) -> object:
        return await context.bot.send_photo(
            target_chat,
            photo=png,
            filename="balance.png",
            caption=caption,
            parse_mode=ParseMode.HTML,
            message_thread_id=thread,
            **rt.delivery.lanes.send_args(),
        )

    await _answer_command(
        rt, update, send_chart, pointer_make=lambda line: _text_sender(rt, context, line, None)
    )


async def _cooling(
    rt: Runtime,
    update: Update,
    context: ContextTypes.DEFAULT_TYPE,
    user_id: int,
    name: str,
    lang: str,
) -> bool:
    """A costly command asked again too soon: say when it can be run (True), else count it."""
    wait = rt.cooldowns.wait(user_id, name)
    if wait:
        await say(update, context, render.text("cooldown", lang, seconds=wait))
    return bool(wait)


async def cmd_verify(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """/verify [round]: the revealed deck of a settled round of the current game (the group's,
    or in private the user's own), checked with rules.fairness. A round still being played is
    refused: its salt and order stay secret until the showdown."""
    rt = runtime(context)
    message, user, chat = update.effective_message, update.effective_user, update.effective_chat
    if message is None or chat is None:
        return
    lang = await language_for(rt, chat.id, user)
    if user is not None and await _cooling(rt, update, context, user.id, "verify", lang):
        return
    stored: StoredGame | None = None
    if is_group(chat):
        stored = await rt.service.active_game(chat.id, thread_of(message))
    elif user is not None:
        for game_id in sorted(await rt.storage.seated_games(user.id), reverse=True):
            stored = await rt.storage.load_game(game_id)
            if stored is not None:
                break
    if stored is None:
        await say(update, context, render.text("verify-no_game", lang))
        return
    game = rt.service.game(stored)
    last_settled = game.round_no - 1 if game.in_round else game.round_no
    raw = context.args[0] if context.args else None
    if raw is None and last_settled < 1:
        await say(update, context, render.text("verify-none_yet", lang))
        return
    round_no = last_settled if raw is None else int(raw) if raw.isdigit() and len(raw) < 9 else 0
    if round_no == game.round_no and game.in_round:
        await say(update, context, render.text("verify-not_revealed", lang, round=round_no))
        return
    shuffles = None
    if 1 <= round_no <= last_settled:
        archived = await rt.storage.archived_log(stored.game_id) if game.log_base else []
        # A long evening's log takes a while to replay: off the event loop.
        shuffles = await asyncio.to_thread(game.revealed_round, round_no, archived)
    if shuffles is None:
        await say(
            update,
            context,
            render.text("verify-no_round", lang, round=round_no, played=max(last_settled, 0)),
        )
        return
    text_ = await asyncio.to_thread(render.verify, round_no, shuffles, lang)
    await say(update, context, text_)


async def cmd_lang(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    rt = runtime(context)
    chat, user = update.effective_chat, update.effective_user
    if chat is None or user is None:
        return
    lang = await language_for(rt, chat.id, user)
    choice = context.args[0].lower() if context.args else ""
    if choice not in ("ru", "en"):
        await say(update, context, render.text("lang-usage", lang))
        return
    if is_group(chat):
        if not await is_admin(rt, context, chat.id, user.id):
            await say(update, context, render.refusal("admins_only", {}, lang))
            return
        settings = await rt.storage.get_chat(chat.id)
        async with rt.storage.transaction() as tx:
            await tx.save_chat_settings(replace(settings, language=choice))
    else:
        async with rt.storage.transaction() as tx:
            await tx.upsert_user(user.id, display_name(user), language=choice, private_opened=True)
        rt.delivery.forget_user(user.id)
    await say(update, context, render.text("lang-switched", choice))


async def cmd_settings(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    found = await group_context(update, context)
    if found is None:
        return
    rt, chat, user, lang = found
    if not await is_admin(rt, context, chat.id, user.id):
        await say(update, context, render.refusal("admins_only", {}, lang))
        return
    settings = await rt.storage.get_chat(chat.id)
    menu = render.settings_menu(settings, settings.language)
    await say(update, context, menu.text, menu.markup, in_group=True)


async def on_private_text(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Any private message opens the chat for hands; plain text gets the help."""
    rt = runtime(context)
    user = update.effective_user
    if user is None:
        return
    async with rt.storage.transaction() as tx:
        await tx.upsert_user(user.id, display_name(user), private_opened=True)
    rt.delivery.forget_user(user.id)
    lang = await person_language(rt, user, user.id)
    await say(update, context, render.help_text(lang, private=True))


async def on_unknown_command(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """A command the bot does not know, typed in the private chat: say so, with the help."""
    rt = runtime(context)
    user = update.effective_user
    if user is None:
        return
    lang = await person_language(rt, user, user.id)
    await say(update, context, render.text("private-unknown_command", lang))


def answer_with(key: str) -> Handler:
    """A handler that only answers with the text ``key`` (a command typed where it does not
    work: «this command works in a group»)."""

    async def handler(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        rt = runtime(context)
        chat = update.effective_chat
        if chat is None:
            return
        lang = await language_for(rt, chat.id, update.effective_user)
        await say(update, context, render.text(key, lang))

    handler.__name__ = f"answer_{key}"
    return handler


# -------------------------------------------------------------------- buttons


async def on_game_button(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    rt = runtime(context)
    query = update.callback_query
    if query is None:
        return
    user = query.from_user
    origin = query.message.chat.id if query.message is not None else user.id
    button = parse_game(query.data)
    # A toast or an alert is read by the presser alone: in his language.
    lang = await person_language(
        rt, user, origin, game_id=button.game_id if button is not None else None
    )
    if button is None:
        await _alert(query, render.refusal("stale_button", {}, lang))
        return
    if button.act in (Act.PEEK, Act.ODDS):
        await _show_own(rt, query, button, origin, lang)
        return
    # An action is judged inside its transaction (game over, foreign chat, stale button): no
    # read of the game before it.
    kind = ACT_COMMANDS[button.act]
    try:
        try:
            outcome = await perform(
                rt,
                button.game_id,
                actor_of(user),
                Command(kind, button.amount),
                update_id=update.update_id,
                button_version=button.version,
                origin=origin,
            )
        except Refused as refused:
            if not (kind == "cancel" and refused.code == "not_allowed"):
                raise
            # Not the lobby's creator: an admin of the group may still close it.
            if origin >= 0 or not await is_admin(rt, context, origin, user.id):
                raise
            kind = "end"
            outcome = await perform(
                rt,
                button.game_id,
                actor_of(user),
                Command(kind),
                update_id=update.update_id,
                button_version=button.version,
                origin=origin,
            )
    except Refused as refused:
        await _alert(query, render.refusal(refused.code, refused.params, lang))
        return
    except Duplicate:
        await _answer(query)
        return
    except AlreadyDone as done:
        # A double tap, or the press delivered twice: say so with the hand as it is now.
        view = await stored_view(rt, done.stored)
        text_ = render.text("pressed-done", lang)
        if done.game.is_seated(user.id):
            text_ += " " + render.peek(rt.delivery.snapshot(view, lang), user.id, lang)
        await _answer(query, text_)
        return
    await _acknowledge(rt, query, outcome, kind, lang)


async def _show_own(
    rt: Runtime, query: CallbackQuery, button: GameButton, origin: int, lang: str
) -> None:
    """👁 and 💡: the presser's own cards or odds, in an alert only he sees."""
    user = query.from_user
    stored = await rt.storage.load_game(button.game_id)
    if stored is None or stored.status == "finished":
        await _alert(query, render.refusal("game_over", {}, lang))
        return
    if origin not in (stored.chat_id, user.id):
        await _alert(query, render.refusal("foreign_game", {}, lang))
        return
    if button.act is Act.PEEK:
        snap = rt.delivery.snapshot(await stored_view(rt, stored), lang)
        await _alert(query, render.peek(snap, user.id, lang))
        return
    found = odds_text(rt.service.game(stored), user.id, lang)
    await _alert(query, found or render.text("odds-not_drawing", lang))


async def _acknowledge(
    rt: Runtime, query: CallbackQuery, outcome: Outcome, kind: str, lang: str
) -> None:
    user = query.from_user
    if kind == "join":
        known = await rt.storage.get_user(user.id)
        if known is None or not known.private_opened:
            # A bot cannot write first: this opens the private chat with a deep link.
            await _answer(query, url=rt.deep_link(outcome.stored.game_id))
            return
        refill = refill_of(outcome)
        if refill is not None:
            await _answer(query, render.text("refill-toast", lang, amount=refill.amount))
            return
        joined = "joined_next" if joined_mid_round(outcome, user.id) else "joined"
        await _answer(query, render.text(joined, lang))
        return
    if kind in ("hit", "dark", "stand", "bet", "bank") and outcome.game.is_seated(user.id):
        snap = rt.delivery.snapshot(view_of(outcome), lang)
        await _answer(query, render.peek(snap, user.id, lang))
        return
    await _answer(query)


async def _answer(query: CallbackQuery, text: str | None = None, *, url: str | None = None) -> None:
    try:
        await query.answer(text=text[:200] if text else None, url=url)
    except TelegramError as error:
        log.info("answerCallbackQuery failed: %s", error)


async def _alert(query: CallbackQuery, text: str) -> None:
    try:
        await query.answer(text=text[:200], show_alert=True)
    except TelegramError as error:
        log.info("answerCallbackQuery failed: %s", error)


async def on_setting_button(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    rt = runtime(context)
    query = update.callback_query
    if query is None or query.message is None:
        return
    user = query.from_user
    chat_id = query.message.chat.id
    lang = await person_language(rt, user, chat_id)
    button = parse_setting(query.data)
    if (
        button is None
        or button.chat_id != chat_id
        or not settings_options.valid(button.key, button.value)
    ):
        await _alert(query, render.refusal("stale_button", {}, lang))
        return
    if not await is_admin(rt, context, chat_id, user.id):
        await _alert(query, render.refusal("admins_only", {}, lang))
        return
    settings = await rt.storage.get_chat(chat_id)
    if button.key == settings_options.CLOSE:
        await _answer(query)
        _edit_later(rt, query, render.text("settings-saved", settings.language), None)
        return
    try:
        updated = settings_options.apply(settings, button.key, button.value)
    except RulesError:
        # The catalog's words for what does not go together, never the engine's English.
        await _alert(query, render.setting_refusal(button.key, lang))
        return
    async with rt.storage.transaction() as tx:
        await tx.save_chat_settings(updated)
    lang = await person_language(rt, user, chat_id)  # the chat's may have just changed
    await _answer(query, render.text("settings-saved", lang))
    menu = render.settings_menu(updated, updated.language)
    _edit_later(rt, query, menu.text, menu.markup)


def _edit_later(
    rt: Runtime, query: CallbackQuery, text_: str, markup: InlineKeyboardMarkup | None
) -> None:
    """Edit the settings menu through the chat's lane: the handler never waits for the
    group's flood budget."""
    message = query.message
    if message is None:
        return

    async def edit() -> object:
        try:
            return await query.edit_message_text(
                text_,
                parse_mode=ParseMode.HTML,
                reply_markup=markup,
                **rt.delivery.lanes.send_args(),
            )
        except TelegramError as error:
            if "not modified" not in str(error).lower():
                raise
            return None

    rt.delivery.lanes.post(message.chat.id, edit, "settings menu")


async def on_unknown_button(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    rt = runtime(context)
    query = update.callback_query
    if query is None:
        return
    origin = query.message.chat.id if query.message is not None else query.from_user.id
    lang = await person_language(rt, query.from_user, origin)
    await _alert(query, render.refusal("stale_button", {}, lang))


async def on_error(update: object, context: ContextTypes.DEFAULT_TYPE) -> None:
    log.error(
        "unhandled error in update %s", getattr(update, "update_id", "?"), exc_info=context.error
    )
    if isinstance(update, Update) and update.callback_query is not None:
        query = update.callback_query
        lang = "ru"
        try:
            rt = runtime(context)
            lang = rt.settings.default_language
            origin = query.message.chat.id if query.message is not None else query.from_user.id
            lang = await person_language(rt, query.from_user, origin)
        except Exception:  # the error may be the storage itself: answer all the same
            log.debug("no language for the error alert", exc_info=True)
        await _alert(query, render.text("error-internal", lang))


# -------------------------------------------------------------------- registration


async def on_migration(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Both service messages of a group's upgrade (either may come first; the second finds
    nothing left to move)."""
    rt = runtime(context)
    message = update.effective_message
    if message is None:
        return
    if message.migrate_to_chat_id:
        old, new = message.chat.id, int(message.migrate_to_chat_id)
    elif message.migrate_from_chat_id:
        old, new = int(message.migrate_from_chat_id), message.chat.id
    else:
        return
    await rt.delivery.chat_migrated(old, new)
    rt.delivery.lanes.move(old, new)


LOST_STATUSES = frozenset({ChatMemberStatus.BANNED, ChatMemberStatus.LEFT})


async def on_my_membership(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """The bot was removed from a chat (or may no longer write there): its games end, stakes
    back, and nothing more is sent there until it is back."""
    rt = runtime(context)
    change = update.my_chat_member
    if change is None or change.chat.id > 0:
        return
    member = change.new_chat_member
    muted = member.status == ChatMemberStatus.RESTRICTED and not getattr(
        member, "can_send_messages", True
    )
    chat_id = change.chat.id
    if member.status in LOST_STATUSES or muted:
        why = f"membership {member.status}"
        rt.delivery.lanes.close(chat_id, why)
        await end_chat_games(rt, chat_id, why)
    else:
        rt.delivery.lanes.reopen(chat_id)


async def reopen_chat(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Any update from a chat shows it may hear us again (rights restored, bot unblocked)."""
    chat = update.effective_chat
    if chat is not None and update.my_chat_member is None:
        runtime(context).delivery.lanes.reopen(chat.id)


async def on_lost_chat(rt: Runtime, chat_id: int, verdict: Verdict) -> None:
    await end_chat_games(rt, chat_id, verdict.reason)


def register(application: Application[Any, Any, Any, Any, Any, Any]) -> None:
    """Every handler, in order, in one place. Commands answer new messages only: an edited
    message must not run its command again."""
    # The command table refers to the handlers of this module: imported once they exist.
    from bot import commands

    new = filters.UpdateType.MESSAGE
    application.add_handler(TypeHandler(Update, remember_language), group=-2)
    application.add_handler(TypeHandler(Update, reopen_chat), group=-1)
    commands.register(application)
    application.add_handler(CallbackQueryHandler(on_game_button, pattern=r"^g:"))
    application.add_handler(CallbackQueryHandler(on_setting_button, pattern=r"^s:"))
    application.add_handler(CallbackQueryHandler(on_end_button, pattern=r"^e:"))
    application.add_handler(CallbackQueryHandler(on_unknown_button))
    application.add_handler(MessageHandler(filters.StatusUpdate.MIGRATE, on_migration))
    application.add_handler(ChatMemberHandler(on_my_membership, ChatMemberHandler.MY_CHAT_MEMBER))
    application.add_handler(
        MessageHandler(
            filters.ChatType.PRIVATE & filters.TEXT & ~filters.COMMAND & new, on_private_text
        )
    )
    application.add_error_handler(on_error)
