"""What the fake Telegram knows: bots, users, chats, messages, callback queries, request log.

These objects are the tests' view of the world. Users act through `await user.send(...)` and
`await user.press(...)`; chats expose their messages as currently edited; everything the bot asked
for is in `BotApiServer.requests`. All mutation happens on the server's event loop.

One module of some 560 lines, on purpose: these objects are one web (a message's chat, a chat's
people, bots and messages, a query's message and bot, each with its Bot API object), and tests
and benchmarks import each of them from here by name.
"""

from __future__ import annotations

import asyncio
import copy
import time
from collections.abc import Callable
from dataclasses import KW_ONLY, dataclass, field
from typing import TYPE_CHECKING, Any

from .entities import Entity, utf16_slice

if TYPE_CHECKING:
    from .world import World

JSON = dict[str, Any]
Button = tuple[str, str | None]
"""(text, callback_data or url) — what a person sees and what pressing it sends or opens."""


@dataclass(frozen=True)
class MessageVersion:
    """A message's content before an edit."""

    date: int
    text: str | None
    entities: list[Entity]
    reply_markup: JSON | None


@dataclass(eq=False)
class Message:
    """A message in a chat, as currently edited; `history` keeps the earlier versions."""

    chat: Chat
    message_id: int
    date: int
    sender: JSON
    """The `from` User object."""
    bot: FakeBot | None
    """The bot that sent it, None for a user's message."""
    text: str | None = None
    entities: list[Entity] = field(default_factory=list)
    reply_markup: JSON | None = None
    thread_id: int | None = None
    reply_to: Message | None = None
    caption: str | None = None
    caption_entities: list[Entity] = field(default_factory=list)
    photo: list[JSON] | None = None
    photo_bytes: bytes | None = None
    edit_date: int | None = None
    history: list[MessageVersion] = field(default_factory=list)
    deleted: bool = False
    options: JSON = field(default_factory=dict)
    """Accepted send options: disable_notification, link_preview_options, protect_content, …"""
    service: JSON = field(default_factory=dict)
    """A service message's own fields (migrate_to_chat_id, new_chat_members, …); such a
    message has no text."""

    @property
    def from_bot(self) -> bool:
        return self.bot is not None

    @property
    def edit_count(self) -> int:
        return len(self.history)

    @property
    def content(self) -> str:
        """Text or caption, whichever the message has ("" for neither)."""
        return self.text if self.text is not None else (self.caption or "")

    @property
    def texts(self) -> list[str]:
        """Every version of the text a chat member could have seen, oldest first."""
        versions = [v.text for v in self.history if v.text is not None]
        return [*versions, self.content]

    @property
    def inline_keyboard(self) -> list[list[JSON]]:
        if not self.reply_markup:
            return []
        rows: list[list[JSON]] = self.reply_markup.get("inline_keyboard", [])
        return rows

    @property
    def buttons(self) -> list[list[Button]]:
        """Inline keyboard rows as (text, callback_data or url)."""
        return [
            [(button["text"], button.get("callback_data", button.get("url"))) for button in row]
            for row in self.inline_keyboard
        ]

    @property
    def flat_buttons(self) -> list[Button]:
        """All buttons in reading order — the numbering the sandbox shows."""
        return [button for row in self.buttons for button in row]

    def entity_texts(self, kind: str) -> list[str]:
        """The substrings covered by entities of one type, e.g. "bold" or "spoiler"."""
        return [
            utf16_slice(self.content, e["offset"], e["length"])
            for e in (self.entities if self.text is not None else self.caption_entities)
            if e["type"] == kind
        ]

    def to_dict(self, *, with_reply: bool = True) -> JSON:
        """The Bot API Message object."""
        data: JSON = {
            "message_id": self.message_id,
            "from": dict(self.sender),
            "chat": self.chat.to_dict(),
            "date": self.date,
        }
        if self.thread_id is not None:
            data["message_thread_id"] = self.thread_id
            if self.chat.is_forum:
                data["is_topic_message"] = True
        if self.reply_to is not None and with_reply:
            data["reply_to_message"] = self.reply_to.to_dict(with_reply=False)
        if self.edit_date is not None:
            data["edit_date"] = self.edit_date
        if self.text is not None:
            data["text"] = self.text
            if self.entities:
                data["entities"] = copy.deepcopy(self.entities)
        if self.photo is not None:
            data["photo"] = copy.deepcopy(self.photo)
            if self.caption:
                data["caption"] = self.caption
                if self.caption_entities:
                    data["caption_entities"] = copy.deepcopy(self.caption_entities)
        if "link_preview_options" in self.options:
            data["link_preview_options"] = self.options["link_preview_options"]
        data.update(copy.deepcopy(self.service))
        # Only inline keyboards are part of a Message; reply keyboards live in the client.
        if self.reply_markup and "inline_keyboard" in self.reply_markup:
            data["reply_markup"] = copy.deepcopy(self.reply_markup)
        return data

    def __repr__(self) -> str:
        who = self.sender.get("username") or self.sender.get("first_name")
        return f"<Message {self.chat.id}/{self.message_id} from {who}: {self.content[:60]!r}>"


@dataclass(eq=False, repr=False)
class Chat:
    """A group (a supergroup, or a basic group of type "group") shared by users and bots, or the
    private chat of one user with one bot."""

    server: World
    id: int
    type: str
    _: KW_ONLY
    is_forum: bool = False  # a supergroup with topics
    title: str | None = None
    username: str | None = None
    user: FakeUser | None = None
    """For a private chat: the person."""
    bot: FakeBot | None = None
    """For a private chat: the bot."""
    members: dict[int, FakeUser] = field(default_factory=dict, init=False)
    admins: set[int] = field(default_factory=set, init=False)
    creator_id: int | None = field(default=None, init=False)
    bots: dict[int, FakeBot] = field(default_factory=dict, init=False)
    """Bots in the chat now (members, administrators and restricted members)."""
    bot_admins: set[int] = field(default_factory=set, init=False)
    bot_permissions: dict[int, JSON] = field(default_factory=dict, init=False)
    """Restricted bots: their permissions (can_send_messages, can_send_photos)."""
    removed_bots: dict[int, str] = field(default_factory=dict, init=False)
    """Bots that were in the chat and are no more: "kicked" or "left"."""
    topics: dict[int, str] = field(default_factory=dict, init=False)
    closed_topics: set[int] = field(default_factory=set, init=False)
    migrated_to: Chat | None = field(default=None, init=False)
    """For a basic group upgraded to a supergroup: the supergroup."""
    migrated_from: Chat | None = field(default=None, init=False)
    """For a supergroup made from a basic group: the basic group."""
    started: bool = field(default=False, init=False)
    """For a private chat: the user has written to the bot, so the bot may write back."""
    _messages: list[Message] = field(default_factory=list, init=False)
    _by_id: dict[int, Message] = field(default_factory=dict, init=False)
    _next_id: int = field(default=1, init=False)

    @property
    def is_private(self) -> bool:
        return self.type == "private"

    @property
    def is_group(self) -> bool:
        return self.type in ("group", "supergroup")

    @property
    def is_basic_group(self) -> bool:
        return self.type == "group"

    def bot_status(self, bot_id: int) -> str | None:
        """The bot's ChatMember status here: "administrator", "restricted", "member", "kicked",
        "left" (it was here and left), or None (it never was)."""
        if bot_id in self.bots:
            if bot_id in self.bot_admins:
                return "administrator"
            return "restricted" if bot_id in self.bot_permissions else "member"
        return self.removed_bots.get(bot_id)

    @property
    def messages(self) -> list[Message]:
        """Current (not deleted) messages, oldest first, as edited."""
        return [m for m in self._messages if not m.deleted]

    @property
    def all_messages(self) -> list[Message]:
        """Every message ever posted, deleted ones included (their `.deleted` is True)."""
        return list(self._messages)

    @property
    def bot_messages(self) -> list[Message]:
        return [m for m in self.messages if m.from_bot]

    @property
    def last_message(self) -> Message | None:
        messages = self.messages
        return messages[-1] if messages else None

    def last_with_buttons(self) -> Message | None:
        """The newest message that has an inline keyboard."""
        for message in reversed(self.messages):
            if message.inline_keyboard:
                return message
        return None

    def message(self, message_id: int) -> Message | None:
        """A message by id, deleted or not."""
        return self._by_id.get(message_id)

    def add_member(self, user: FakeUser, *, admin: bool = False) -> None:
        """Make a user a member (no service message; the bot is not told)."""
        self.members[user.id] = user
        if admin:
            self.admins.add(user.id)
            if self.creator_id is None:
                self.creator_id = user.id

    def add_bot(self, bot: FakeBot, *, admin: bool = False) -> None:
        """Make a bot a member (no update; `BotApiServer.add_bot_to_group` tells the bot)."""
        self.bots[bot.id] = bot
        self.removed_bots.pop(bot.id, None)
        self.bot_permissions.pop(bot.id, None)
        if admin:
            self.bot_admins.add(bot.id)

    def create_topic(self, name: str) -> int:
        """A forum topic; returns its message_thread_id (never 1: that is the General topic,
        whose id is that of the forum's first message)."""
        if not self.is_forum:
            raise ValueError(f"{self.title!r} is not a forum")
        thread_id = self._allocate_id()
        if thread_id == 1:
            thread_id = self._allocate_id()
        self.topics[thread_id] = name
        return thread_id

    async def wait_for(
        self,
        match: str | Callable[[Message], bool],
        timeout: float = 10.0,
        *,
        after: int | Message | None = None,
        from_bot: bool | None = True,
    ) -> Message:
        """Wait until a message satisfies `match` and return the newest such message.

        `match` is a substring of the text/caption or a predicate. Only bot messages count by
        default (`from_bot=None` for any). `after` (a message or an id) ignores older messages, so
        a test can wait for the *next* matching message after acting.
        """
        after_id = after.message_id if isinstance(after, Message) else (after or 0)

        def check(message: Message) -> bool:
            if from_bot is not None and message.from_bot != from_bot:
                return False
            if isinstance(match, str):
                return match in message.content
            return match(message)

        def find() -> Message | None:
            for message in reversed(self.messages):
                if message.message_id > after_id and check(message):
                    return message
            return None

        return await self.server.wait_for(
            find, timeout, description=f"a message matching {match!r} in {self.describe()}"
        )

    def describe(self) -> str:
        if self.is_private and self.user is not None and self.bot is not None:
            return f"the private chat of {self.user.first_name} with @{self.bot.username}"
        return repr(self.title)

    def to_dict(self) -> JSON:
        """The Bot API Chat object."""
        data: JSON = {"id": self.id, "type": self.type}
        if self.is_private and self.user is not None:
            data.update(self.user.chat_fields())
        else:
            data["title"] = self.title
            if self.username:
                data["username"] = self.username
            if self.is_forum:
                data["is_forum"] = True
        return data

    def _allocate_id(self) -> int:
        message_id = self._next_id
        self._next_id += 1
        return message_id

    def _post(self, sender: JSON, bot: FakeBot | None = None, **content: Any) -> Message:
        """A new message at the end of the chat, dated now: from `bot`, else from a person or
        Telegram (`sender` is the `from` User object); `content` is the rest of its fields."""
        message = Message(
            chat=self,
            message_id=self._allocate_id(),
            date=int(time.time()),
            sender=sender,
            bot=bot,
            **content,
        )
        self._messages.append(message)
        self._by_id[message.message_id] = message
        return message

    def __repr__(self) -> str:
        return f"<Chat {self.id} {self.describe()}>"


@dataclass(frozen=True)
class CallbackAnswer:
    """What the bot passed to answerCallbackQuery."""

    text: str | None
    show_alert: bool
    url: str | None
    cache_time: int


class CallbackQuery:
    """A button press; `await query.wait(timeout)` returns the bot's answer."""

    def __init__(self, query_id: str, user: FakeUser, message: Message, bot: FakeBot, data: str):
        self.id = query_id
        self.user = user
        self.message = message
        self.bot = bot
        self.data = data
        self.answer: CallbackAnswer | None = None
        self.delivered = True
        """False for a press the bot never hears of (it is no longer in the chat)."""
        self._answered: asyncio.Future[CallbackAnswer] | None = None

    @property
    def answered(self) -> bool:
        return self.answer is not None

    def _set_answer(self, answer: CallbackAnswer) -> None:
        self.answer = answer
        if self._answered is not None and not self._answered.done():
            self._answered.set_result(answer)

    async def wait(self, timeout: float = 5.0) -> CallbackAnswer:
        """The answerCallbackQuery parameters; TimeoutError if the bot never answers."""
        if self.answer is not None:
            return self.answer
        if self._answered is None:
            self._answered = asyncio.get_running_loop().create_future()
        try:
            return await asyncio.wait_for(asyncio.shield(self._answered), timeout)
        except TimeoutError:
            unheard = "" if self.delivered else " (it was never delivered: the bot left the chat)"
            raise TimeoutError(
                f"the bot did not answer the press of {self.data!r} within {timeout}s{unheard}"
            ) from None

    def __repr__(self) -> str:
        return f"<CallbackQuery {self.id} {self.data!r} by {self.user.first_name}>"


@dataclass(eq=False, repr=False)
class FakeUser:
    """A person. Acts through the server; every action is delivered to the bot(s) as an update."""

    server: World
    id: int
    first_name: str
    _: KW_ONLY
    last_name: str | None = None
    username: str | None = None
    language_code: str | None = None
    blocked: set[int] = field(default_factory=set, init=False)
    """Ids of bots this user has blocked."""

    def to_dict(self) -> JSON:
        """The Bot API User object."""
        data: JSON = {"id": self.id, "is_bot": False, **self.chat_fields()}
        if self.language_code:
            data["language_code"] = self.language_code
        return data

    def chat_fields(self) -> JSON:
        """The names a private chat with this person shows (its Chat object's)."""
        data: JSON = {"first_name": self.first_name}
        if self.last_name:
            data["last_name"] = self.last_name
        if self.username:
            data["username"] = self.username
        return data

    async def send(
        self,
        chat: Chat | FakeBot,
        text: str,
        *,
        reply_to: Message | int | None = None,
        thread_id: int | None = None,
        entities: list[Entity] | None = None,
    ) -> Message:
        """Write `text` in a group (or, given a bot, in the private chat with it).

        Commands, mentions and URLs get the entities a Telegram client would attach.
        """
        if isinstance(chat, FakeBot):
            chat = self.private_chat(chat)
        return self.server._user_message(self, chat, text, reply_to, thread_id, entities)

    async def send_private(self, bot: FakeBot, text: str) -> Message:
        """Write to the bot privately; from now on the bot may write to this user."""
        return await self.send(self.private_chat(bot), text)

    def open_private(self, bot: FakeBot) -> Chat:
        """Mark the private chat as opened without sending anything (a /start seen long ago)."""
        chat = self.private_chat(bot)
        chat.started = True
        return chat

    async def press(
        self,
        message: Message,
        text: str | None = None,
        *,
        data: str | None = None,
        index: tuple[int, int] | int | None = None,
    ) -> CallbackQuery:
        """Press an inline button by its text (exact, else a unique substring), data or index.

        `index` is (row, column) or a flat position in reading order, both from 0.
        """
        return self.server._press(self, message, text, data, index)

    def private_chat(self, bot: FakeBot) -> Chat:
        return self.server.private_chat(bot, self)

    def private_messages(self, bot: FakeBot) -> list[Message]:
        """Messages of the private chat with `bot`, both directions, as edited."""
        return self.private_chat(bot).messages

    def block(self, bot: FakeBot) -> None:
        """Block the bot: its sends to this user get 403 until the user writes again."""
        self.blocked.add(bot.id)

    def unblock(self, bot: FakeBot) -> None:
        self.blocked.discard(bot.id)

    def __repr__(self) -> str:
        return f"<FakeUser {self.id} {self.first_name}>"


@dataclass
class Webhook:
    url: str
    secret_token: str | None
    max_connections: int
    allowed_updates: list[str] | None
    last_error_date: int | None = None
    last_error_message: str | None = None
    delivered: int = 0


@dataclass(frozen=True, slots=True)
class WebhookAttempt:
    """One POST of an update to the webhook, and why it failed (None: it was taken)."""

    time: float
    update: JSON
    error: str | None


class FakeBot:
    """A bot account: its token, pending updates, webhook and command lists."""

    def __init__(self, server: World, token: str, username: str, first_name: str):
        self.server = server
        self.token = token
        self.id = int(token.split(":", 1)[0])
        self.username = username
        self.first_name = first_name
        self.pending: list[JSON] = []
        """Updates not yet confirmed by an offset (or delivered to the webhook)."""
        self.next_update_id = 1
        self.allowed_updates: list[str] | None = None
        self.webhook: Webhook | None = None
        self.webhook_attempts: list[WebhookAttempt] = []
        """Every POST to a webhook, across setWebhook calls: an update posted again after a
        failure may have been handled by the first attempt too, as with Telegram."""
        self.commands: dict[tuple[str, str], list[JSON]] = {}
        self.texts: dict[str, str] = {}
        """setMyDescription / setMyShortDescription / setMyName values by "kind:language"."""
        self.poll_generation = 0
        self._event = asyncio.Event()

    def to_dict(self) -> JSON:
        """The Bot API User object of the bot (getMe adds its capabilities)."""
        return {
            "id": self.id,
            "is_bot": True,
            "first_name": self.first_name,
            "username": self.username,
        }

    def get_commands(self, scope: JSON | None = None, language_code: str = "") -> list[JSON]:
        """Commands set for a scope and language, as setMyCommands stored them."""
        return list(self.commands.get((scope_key(scope), language_code), []))

    def _notify(self) -> None:
        """Wake every long poll and the webhook sender."""
        event, self._event = self._event, asyncio.Event()
        event.set()

    def __repr__(self) -> str:
        return f"<FakeBot @{self.username}>"


def scope_key(scope: JSON | None) -> str:
    """A canonical key for a BotCommandScope (the default scope when omitted)."""
    scope = scope or {"type": "default"}
    return ",".join(f"{key}={scope[key]}" for key in sorted(scope))


@dataclass
class RequestRecord:
    """One HTTP request the bot made, with the answer it got."""

    bot: FakeBot | None
    method: str
    params: JSON
    status: int
    ok: bool
    description: str | None
    result: Any
    time: float
    """time.monotonic() when the answer was sent."""
    chat_id: int | str | None = None
    retry_after: int | None = None

    def __repr__(self) -> str:
        outcome = "ok" if self.ok else f"{self.status} {self.description}"
        return f"<{self.method} chat={self.chat_id} {outcome}>"
