"""What every handler shares: the :class:`Runtime`, the opening of a typed command
(:func:`command`, :func:`group_command`), answers (`say`, toasts and alerts), languages and
admin rights. Acting on a game is `bot.actions`, the way in for both front ends."""

from __future__ import annotations

import functools
import logging
import re
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass
from typing import Any, Protocol

from cachetools import TTLCache
from telegram import (
    Bot,
    CallbackQuery,
    Chat,
    InlineKeyboardMarkup,
    MaybeInaccessibleMessage,
    Message,
    Update,
    User,
)
from telegram.constants import ChatMemberStatus, ChatType
from telegram.error import TelegramError
from telegram.ext import ContextTypes

from bot import metrics, render
from bot.actions import Actions, display_name
from bot.delivery import Delivery
from bot.game_state import View, meta_of
from bot.lanes import Limiter
from bot.languages import personal
from bot.locks import KeyedLocks
from bot.notices import Notices
from bot.permissions import AdminCheck
from bot.replicas import Replica
from bot.replies import Cooldowns, Make, Replies
from bot.scheduler import Deadlines, Scheduler, StoredDeadlines
from bot.service import Command, Duplicate, GameService, Refused, Request
from bot.service_reads import StoredGame
from bot.settings import Settings
from bot.telegram_errors import Verdict
from bot.timers import TurnTimers

log = logging.getLogger(__name__)
# With replicas, another process may record that a player opened the private chat (/start):
# what delivery knows of people is read again this often.
SHARED_USER_SECONDS = 5.0
# ASCII digits only: \d (and int()) would read other scripts' digits too, «/bet ٣٠» as 30.
AMOUNT = re.compile(r"^\+?[0-9]{1,15}$")
ADMIN_TTL = 60.0
ADMIN_CACHE = 10_000  # (chat, user) pairs
Handler = Callable[[Update, ContextTypes.DEFAULT_TYPE], Coroutine[Any, Any, None]]


class HelpSections(Protocol):
    def __call__(self, lang: str, *, private: bool) -> list[tuple[str, list[tuple[str, str]]]]: ...


class Runtime:
    """Everything the handlers need, opened in post_init and closed in post_shutdown.

    The turn timers and the delivery call back into the handlers (a turn ran out, a chat was
    lost or became a supergroup), and the handlers drive them: the timers get the runtime's
    method as their callback and delivery the runtime itself (`bot.delivery.Owner`), so the
    loop is here, in the open."""

    def __init__(
        self,
        *,
        settings: Settings,
        service: GameService,
        bot: Bot,
        limiter: Limiter | None,
        help_sections: HelpSections,
        shared: bool = False,
        scheduler: Scheduler | None = None,
    ) -> None:
        self.settings = settings
        self.bot = bot
        # /help's groups of the command table's menus (`bot.commands.sections`): the table
        # refers to the handlers, so it reaches them through the runtime rather than an import.
        self.help_sections = help_sections
        # The handlers read and write through the service; the storage itself serves the
        # wiring below and bot.app's start and stop.
        self.storage = storage = service.storage
        self.service = service
        self.bot_username = bot_username = bot.username
        # Other processes may share the database (replicas behind a webhook, bot.replicas).
        # Everything done later runs on one scheduler, by one clock (`bot.scheduler`).
        self.scheduler = scheduler if scheduler is not None else Scheduler()
        self.replica = Replica(storage, None, clock=self.scheduler.clock) if shared else None
        self.timers = TurnTimers(
            self.scheduler,
            functools.partial(on_timer, self),
            storage=storage if self.replica is not None else None,
            owner=self.replica.name if self.replica is not None else "",
        )
        self.delivery = Delivery(
            bot,
            service,
            self,
            scheduler=self.scheduler,
            bot_username=bot_username,
            limiter=limiter,
            table_gap=settings.table_edit_gap,
        )
        if self.replica is not None:
            self.replica.budget = self.delivery.lanes  # the chats' writes, the bot's share
            self.delivery.replica = self.replica
            self.delivery.user_ttl = SHARED_USER_SECONDS
            self.replica.on_changed = self._changed_elsewhere
            self.replica.on_lost = self.delivery.chat_given_up
            self.replica.known_version = self.delivery.version_of
        # What must outlive the process is kept in the database (`bot.scheduler.Deadlines`).
        self.deadlines = Deadlines(
            self.scheduler,
            StoredDeadlines(storage, self.replica.name if self.replica is not None else "bot"),
        )
        self.replies = Replies(self.delivery.lanes)
        # A call to play: a table that opens is told to those who asked (`bot.notices`).
        self.notices = Notices(service, self.delivery.lanes, bot)
        self.locks = KeyedLocks()
        # Acting on a game, for the handlers and the Mini App alike (`bot.actions`).
        self.actions = Actions(service, self.locks, self.timers, self.delivery)
        # (chat, user) -> is an admin: Telegram's answer is trusted for ADMIN_TTL seconds.
        self.admin_cache: TTLCache[tuple[int, int], bool] = TTLCache(ADMIN_CACHE, ADMIN_TTL)
        self.cooldowns = Cooldowns()

    async def _changed_elsewhere(self, game_id: int) -> None:
        await self.delivery.load(game_id)

    def clock_started(self, game_id: int, deadline: float) -> None:
        self.timers.arm(game_id, deadline)

    async def chat_lost(self, chat_id: int, verdict: Verdict) -> None:
        await end_chat_games(self, chat_id, verdict.reason)

    async def chat_migrated(self, old_chat_id: int, new_chat_id: int) -> list[int]:
        """The group became a supergroup: everything moves to its new id; play goes on there."""
        moved = await self.service.migrate_chat(old_chat_id, new_chat_id)
        log.info("chat=%s migrated to %s: %d games moved", old_chat_id, new_chat_id, len(moved))
        self.admin_cache.clear()
        return moved


def runtime(context: ContextTypes.DEFAULT_TYPE) -> Runtime:
    rt: Runtime = context.application.bot_data["runtime"]
    return rt


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
        return (await rt.service.chat(chat_id)).language
    return await person_language(rt, user, chat_id)


async def person_language(
    rt: Runtime, user: User | None, chat_id: int, *, game_id: int | None = None
) -> str:
    """What ``user`` reads where only he reads (his private chat, alerts, toasts): his /lang,
    else Telegram's language for him, else the language of the chat it is about — ``chat_id``
    when a group, else the group of ``game_id``, else of the one game he sits in — else the
    bot's default (`bot.languages`)."""
    known = await rt.service.user(user.id) if user is not None else None
    own = personal(known, user.language_code if user is not None else None)
    if own is not None:
        return own
    if chat_id < 0:
        return (await rt.service.chat(chat_id)).language
    if game_id is None and user is not None:
        seated = await rt.service.seated_games(user.id)
        game_id = seated[-1] if seated else None
    view = rt.delivery.views().get(game_id) if game_id is not None else None
    if view is not None:
        return view.chat.language
    stored = await rt.service.stored_game(game_id) if game_id is not None else None
    if stored is not None:
        return (await rt.service.chat(stored.chat_id)).language
    return rt.settings.default_language


async def private_reachable(rt: Runtime, user_id: int) -> bool:
    """Whether an answer to this person goes to his private chat (`bot.replies`)."""
    known = await rt.service.user(user_id)
    return known is not None and known.private_opened and not rt.delivery.lanes.is_closed(user_id)


def _command_of(update: Update) -> str:
    """The command a message is (``/help@bot args`` -> ``help``), for de-duplication."""
    message = update.effective_message
    text = (message.text or message.caption or "") if message is not None else ""
    head = text.split(maxsplit=1)[0] if text.strip() else ""
    return head.lstrip("/").split("@", 1)[0].lower()


def text_sender(rt: Runtime, content: str, buttons: InlineKeyboardMarkup | None) -> Make:
    """The send of a text answer, made when the chat's lane gets to it."""

    async def send(target: int, thread: int | None) -> object:
        return await rt.bot.send_message(
            target,
            content,
            reply_markup=buttons,
            message_thread_id=thread,
            **rt.delivery.lanes.send_args(),
        )

    return send


async def answer_command(rt: Runtime, update: Update, make: Make, *, in_group: bool = False) -> str:
    """Queue ``make``, the send of a command's answer, where `bot.replies` places it (with the
    group's pointer to a private answer); returns where it went."""
    chat, user = update.effective_chat, update.effective_user
    assert chat is not None
    private_ok = False
    lang: str = rt.settings.default_language
    if user is not None and is_group(chat) and not in_group:
        known = await rt.service.user(user.id)
        private_ok = known is not None and known.private_opened
        lang = (await rt.service.chat(chat.id)).language  # the pointer is the group's
    name = display_name(user) if user is not None else ""
    return rt.replies.answer(
        chat_id=chat.id,
        thread_id=thread_of(update.effective_message),
        user_id=user.id if user is not None else None,
        command=_command_of(update),
        make=make,
        private_ok=private_ok,
        in_group=in_group,
        pointer=lambda: text_sender(rt, render.text("reply-pointer", lang, name=name), None),
    )


@dataclass(frozen=True, slots=True)
class Asked:
    """A typed command (or a private message): who asked, where, and the language of the
    answer (`language_for`)."""

    update: Update
    context: ContextTypes.DEFAULT_TYPE
    rt: Runtime
    chat: Chat
    user: User
    message: Message
    lang: str

    @property
    def args(self) -> list[str]:
        return list(self.context.args or ())

    @property
    def in_group(self) -> bool:
        return is_group(self.chat)

    @property
    def thread(self) -> int:
        return thread_of(self.message)

    async def say(
        self, text: str, markup: InlineKeyboardMarkup | None = None, *, in_group: bool = False
    ) -> None:
        """Answer without waiting: in a group, privately when the asker's chat with the bot is
        open (``in_group`` keeps it in the group), else in the group at most once a minute per
        person and per command (`bot.replies`)."""
        send = text_sender(self.rt, text[:4096], markup)
        await answer_command(self.rt, self.update, send, in_group=in_group)

    def admin(self) -> AdminCheck:
        return admin_check(self.rt, self.chat.id, self.user.id)


Body = Callable[[Asked], Awaitable[None]]


def command(body: Body) -> Handler:
    """The handler of a command whose answer is written by ``body``; the service's refusal is
    said, an update seen already left alone. Every command message has a chat, a sender and
    the message itself (the Bot API leaves the sender out only in channels, where no command
    is handled); an update without them is left alone."""

    @functools.wraps(body)
    async def handler(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        chat, user = update.effective_chat, update.effective_user
        message = update.effective_message
        if chat is None or user is None or message is None:
            return
        rt = runtime(context)
        lang = await language_for(rt, chat.id, user)
        asked = Asked(update, context, rt, chat, user, message, lang)
        try:
            await body(asked)
        except Refused as refused:
            await asked.say(render.refusal(refused.code, refused.params, asked.lang))
        except Duplicate:
            return

    return handler


def group_command(body: Body) -> Handler:
    """As :func:`command`, for a command that belongs to a group: elsewhere it says so."""

    async def in_group_only(asked: Asked) -> None:
        if not asked.in_group:
            await asked.say(render.text("group_only", asked.lang))
            return
        await body(asked)

    return command(functools.wraps(body)(in_group_only))


@dataclass(frozen=True, slots=True)
class Pressed:
    """A button pressed on a message still in reach: who pressed, where, and the language of
    his alerts and toasts (read by him alone, `person_language`)."""

    update: Update
    context: ContextTypes.DEFAULT_TYPE
    rt: Runtime
    query: CallbackQuery
    message: MaybeInaccessibleMessage
    user: User
    chat_id: int
    lang: str

    def admin(self) -> AdminCheck:
        return admin_check(self.rt, self.chat_id, self.user.id)


def pressed(body: Callable[[Pressed], Awaitable[None]]) -> Handler:
    """The handler of a button whose answer is written by ``body``; a press on a message out
    of reach is left alone."""

    @functools.wraps(body)
    async def handler(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        query = update.callback_query
        if query is None or query.message is None:
            return
        rt, message, user = runtime(context), query.message, query.from_user
        lang = await person_language(rt, user, message.chat.id)
        await body(Pressed(update, context, rt, query, message, user, message.chat.id, lang))

    return handler


def admin_check(rt: Runtime, chat_id: int, user_id: int) -> AdminCheck:
    """How the service learns, when a rule needs it, whether the person is an admin of the
    group (`bot.permissions`): getChatMember, its answer cached briefly."""

    async def is_admin() -> bool:
        key = (chat_id, user_id)
        cached = rt.admin_cache.get(key)
        if cached is not None:
            return cached
        try:
            member = await rt.bot.get_chat_member(chat_id, user_id)
            admin = member.status in (ChatMemberStatus.ADMINISTRATOR, ChatMemberStatus.OWNER)
        except TelegramError as error:
            log.warning("getChatMember failed chat=%s user=%s: %s", chat_id, user_id, error)
            admin = False
        rt.admin_cache[key] = admin
        return admin

    return is_admin


def parse_amount(raw: list[str] | None) -> int | None:
    if not raw or len(raw) != 1 or not AMOUNT.match(raw[0]):
        return None
    value = int(raw[0])
    return value if value >= 1 else None


async def stored_view(rt: Runtime, stored: StoredGame) -> View:
    """A view of a game read outside an action (its engine decoded once, shared)."""
    chat = await rt.service.chat(stored.chat_id)
    return View(stored, rt.service.game(stored), meta_of(stored), chat)


async def end_chat_games(rt: Runtime, chat_id: int, why: str) -> None:
    """The chat can no longer show its games: end them, stakes back, banks to their bankers."""
    games = {g for g, v in rt.delivery.views().items() if v.stored.chat_id == chat_id}
    active = await rt.service.active_game(chat_id, 0)
    if active is not None:
        games.add(active.game_id)
    for game_id in sorted(games):
        try:
            await rt.actions.perform(Request(game_id, None, Command("end")))
            log.info("game=%s chat=%s event=ended_unreachable why=%s", game_id, chat_id, why)
        except Refused:
            continue


async def on_timer(rt: Runtime, game_id: int) -> None:
    try:
        await rt.actions.perform(Request(game_id, None, Command("timeout")))
    except Refused:
        # Someone acted since the timer was set: follow the stored deadline instead.
        stored = await rt.service.stored_game(game_id)
        if stored is not None and stored.status != "finished":
            rt.timers.arm(game_id, stored.deadline)


async def command_game(asked: Asked, *, none_text: str = "private-no_game") -> StoredGame | None:
    """The game a typed command means: the group's (topic's) game, or in the private chat the
    one game the person sits in. Answers why when there is none and returns None."""
    rt, lang = asked.rt, asked.lang
    if asked.in_group:
        stored = await rt.service.active_game(asked.chat.id, asked.thread)
    else:
        games = await rt.service.seated_games(asked.user.id)
        if len(games) != 1:
            key = "private_several" if len(games) > 1 else none_text
            await asked.say(render.text(key, lang))
            return None
        stored = await rt.service.stored_game(games[0])
    if stored is None:
        await asked.say(render.refusal("no_game", {}, lang))
    return stored


async def answer(
    query: CallbackQuery, text: str | None = None, *, url: str | None = None, alert: bool = False
) -> None:
    try:
        # show_alert is left out of a plain answer, as the Bot API's default.
        await query.answer(text=text[:200] if text else None, url=url, show_alert=alert or None)
    except TelegramError as error:
        log.info("answerCallbackQuery failed: %s", error)
    else:
        metrics.press_answered()
