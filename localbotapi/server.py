"""A local Telegram Bot API server for tests and the sandbox.

It speaks the real wire protocol (`/bot<token>/<method>`, JSON / form / multipart bodies, the
`{"ok": …}` envelope) and is as strict as Telegram where a bot can go wrong: entity parsing,
length limits, callback data, "message is not modified", 403 for private chats never opened,
flood limits with 429 and retry_after. Tests drive it in-process:

    async with BotApiServer() as server:
        bot = server.add_bot(username="ochko_test_bot")
        alice = server.create_user("Alice", username="alice")
        group = server.create_group("Table 1", members=[alice], admins=[alice])
        # start the bot with base_url=server.base_url, then:
        await alice.send(group, "/start")
        reply = await group.wait_for("Welcome")

Tests also stage what Telegram does to a bot from outside: the bot added to, removed from
(kicked or left) and restricted in a group, each told with a `my_chat_member` update
(`add_bot_to_group`, `remove_bot`, `restrict_bot`, `unrestrict_bot`); a basic group upgraded to a
supergroup (`migrate_group`: the old id answers 400 with `migrate_to_chat_id`); a person deleting
a message (`delete_message`); a forum topic closed (`close_topic`); and transient failures of any
method (`fail_next`). When a bot never set allowed_updates (or set an empty list) it gets every
update type except chat_member, message_reaction and message_reaction_count, as on Telegram.

What is deliberately simpler than Telegram: one server-wide user namespace, bots see every group
message (as with privacy mode off), callback queries never expire, webhooks may be plain http,
and only the methods listed in `BotApiServer._METHODS` exist (everything else is 404 as on
Telegram). allowed_updates filters the queue when it is read, so a change applies at once also
to updates already queued. A restricted bot's rights are only can_send_messages and
can_send_photos (sendChatAction is not checked), and only bots can be restricted; a closed topic
refuses every bot send, administrators included (can_manage_topics is not modelled). The service
messages of membership changes carry only new_chat_members / left_chat_member, and a removed bot
is not sent the one about its own removal. `fail_next` answers 5xx with the usual JSON envelope
(Telegram's front end may send an HTML page instead).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import itertools
import json
import re
import secrets
import struct
import threading
import time
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass
from typing import Any, Literal, TypeVar

from aiohttp import ClientError, ClientSession, ClientTimeout, web

from .entities import (
    Entity,
    EntityParseError,
    detect_entities,
    parse_text,
    sort_entities,
    strip_text,
    utf16_len,
)
from .flood import FloodControl, FloodLimits
from .models import (
    JSON,
    CallbackAnswer,
    CallbackQuery,
    Chat,
    FakeBot,
    FakeUser,
    Message,
    MessageVersion,
    RequestRecord,
    Webhook,
    scope_key,
)

T = TypeVar("T")
TOKEN_RE = re.compile(r"^(\d+):[A-Za-z0-9_-]{20,}$")
MAX_TEXT = 4096
MAX_CAPTION = 1024
MAX_ALERT = 200
NOT_BY_DEFAULT = frozenset({"chat_member", "message_reaction", "message_reaction_count"})
"""Update types a bot gets only by naming them in allowed_updates."""
CHAT_ACTIONS = frozenset(
    {
        "typing",
        "upload_photo",
        "record_video",
        "upload_video",
        "record_voice",
        "upload_voice",
        "upload_document",
        "choose_sticker",
        "find_location",
        "record_video_note",
        "upload_video_note",
    }
)
# Methods that post or change a visible message: the flood limits count these.
NOT_MODIFIED = (
    "message is not modified: specified new message content and reply markup are exactly the "
    "same as a current content and reply markup of the message"
)
QUERY_TOO_OLD = "query is too old and response timeout expired or query ID is invalid"
UPGRADED = "group chat was upgraded to a supergroup chat"
NO_RIGHTS = {
    "can_send_messages": "not enough rights to send text messages to the chat",
    "can_send_photos": "not enough rights to send photos to the chat",
}


class ApiError(Exception):
    """An error answer: HTTP status = error_code, as Telegram does."""

    def __init__(self, code: int, description: str, parameters: JSON | None = None) -> None:
        super().__init__(description)
        self.code = code
        self.description = description
        self.parameters = parameters


def bad_request(text: str) -> ApiError:
    return ApiError(400, f"Bad Request: {text}")


@dataclass
class Upload:
    """A file sent in a multipart body."""

    filename: str | None
    content_type: str | None
    data: bytes


class Params:
    """Request parameters with Telegram's coercions: form values arrive as strings (PTB sends
    numbers as "42", booleans as "true" and objects as JSON text), JSON bodies arrive typed."""

    def __init__(self, values: JSON, files: dict[str, Upload]) -> None:
        self.values = values
        self.files = files

    def raw(self, name: str) -> Any:
        value = self.values.get(name)
        return None if value == "" else value

    def string(self, name: str) -> str | None:
        value = self.raw(name)
        if value is None:
            return None
        return value if isinstance(value, str) else json.dumps(value)

    def integer(self, name: str) -> int | None:
        value = self.raw(name)
        if value is None:
            return None
        if isinstance(value, bool):
            return int(value)
        try:
            return int(value)
        except (TypeError, ValueError):
            raise bad_request(f"invalid {name} specified") from None

    def number(self, name: str) -> float | None:
        value = self.raw(name)
        if value is None:
            return None
        try:
            return float(value)
        except (TypeError, ValueError):
            raise bad_request(f"invalid {name} specified") from None

    def flag(self, name: str) -> bool:
        value = self.raw(name)
        if isinstance(value, str):
            return value.strip().lower() in ("true", "1", "yes")
        return bool(value)

    def obj(self, name: str, what: str | None = None) -> Any:
        value = self.raw(name)
        if isinstance(value, str):
            try:
                return json.loads(value)
            except ValueError:
                raise bad_request(f"can't parse {what or name} JSON object") from None
        return value


Handler = Callable[[FakeBot, Params], Awaitable[Any]]


@dataclass(frozen=True)
class ServerEvent:
    """What listeners (the sandbox) hear about: "new", "edit", "delete" or "answer"."""

    kind: str
    message: Message | None = None
    query: CallbackQuery | None = None


class BotApiServer:
    """The fake Telegram. Create it, `await start()`, point the bot at `base_url`."""

    def __init__(
        self,
        *,
        flood_limits: bool | FloodLimits = True,
        host: str = "127.0.0.1",
        port: int = 0,
        webhook_retry_delay: float = 0.2,
    ) -> None:
        limits = flood_limits if isinstance(flood_limits, FloodLimits) else FloodLimits()
        self.flood = FloodControl(enabled=flood_limits is not False, limits=limits)
        self.host = host
        self.port = port
        self.webhook_retry_delay = webhook_retry_delay
        self.requests: list[RequestRecord] = []
        self.bots: dict[str, FakeBot] = {}
        self.users: dict[int, FakeUser] = {}
        self.groups: dict[int, Chat] = {}
        self.files: dict[str, bytes] = {}
        self._private: dict[tuple[int, int], Chat] = {}
        self._queries: dict[str, CallbackQuery] = {}
        self._user_ids = itertools.count(1_000_001)
        self._group_ids = itertools.count(1)
        self._query_ids = itertools.count(4_000_000_000_000_000_001, 7)
        self._changed = asyncio.Event()
        self._listeners: list[Callable[[ServerEvent], None]] = []
        self._webhook_tasks: dict[str, asyncio.Task[None]] = {}
        self.failures: dict[str, list[tuple[int | None, ApiError]]] = {}
        """Answers queued by `fail_next`, by lower-case method: (chat id or None, error)."""
        self._runner: web.AppRunner | None = None
        self._session: ClientSession | None = None
        self._closing = False
        self._methods: dict[str, Handler] = {
            name.lower(): getattr(self, f"_api_{name}") for name in self._METHODS
        }

    _METHODS = (
        "getMe",
        "logOut",
        "close",
        "getUpdates",
        "setWebhook",
        "deleteWebhook",
        "getWebhookInfo",
        "setMyCommands",
        "getMyCommands",
        "deleteMyCommands",
        "setMyDescription",
        "getMyDescription",
        "setMyShortDescription",
        "getMyShortDescription",
        "setMyName",
        "getMyName",
        "sendMessage",
        "sendPhoto",
        "editMessageText",
        "editMessageReplyMarkup",
        "deleteMessage",
        "answerCallbackQuery",
        "getChat",
        "getChatMember",
        "getChatAdministrators",
        "getChatMemberCount",
        "sendChatAction",
    )

    # ------------------------------------------------------------------------------ lifecycle

    async def start(self) -> BotApiServer:
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_route("*", "/bot{token}/{method}", self._handle)
        app.router.add_route("*", "/{tail:.*}", self._not_found)
        self._runner = web.AppRunner(app, access_log=None, shutdown_timeout=1.0)
        await self._runner.setup()
        site = web.TCPSite(self._runner, self.host, self.port)
        await site.start()
        address = self._runner.addresses[0]
        self.port = int(address[1])
        self._closing = False
        return self

    async def stop(self) -> None:
        """Stop serving: long polls return at once, webhook senders stop."""
        self._closing = True
        for bot in self.bots.values():
            bot._notify()
        for task in self._webhook_tasks.values():
            task.cancel()
        for task in list(self._webhook_tasks.values()):
            with contextlib.suppress(asyncio.CancelledError):
                await task
        self._webhook_tasks.clear()
        if self._session is not None:
            await self._session.close()
            self._session = None
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def __aenter__(self) -> BotApiServer:
        return await self.start()

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    @property
    def url(self) -> str:
        """http://127.0.0.1:PORT"""
        return f"http://{self.host}:{self.port}"

    @property
    def base_url(self) -> str:
        """What to pass as PTB's base_url (it appends the token): http://127.0.0.1:PORT/bot"""
        return f"{self.url}/bot"

    @property
    def flood_limits(self) -> bool:
        return self.flood.enabled

    @flood_limits.setter
    def flood_limits(self, enabled: bool) -> None:
        self.flood.enabled = enabled

    # -------------------------------------------------------------------------------- world

    def add_bot(
        self,
        token: str | None = None,
        *,
        username: str = "ochko_test_bot",
        first_name: str = "Очко",
    ) -> FakeBot:
        """Register a bot account; a token is generated unless given (`<id>:<secret>`)."""
        if token is None:
            token = f"{7_000_000_000 + len(self.bots)}:{secrets.token_urlsafe(26)}"
        if not TOKEN_RE.match(token):
            raise ValueError(f"not a bot token: {token!r} (expected <digits>:<20+ of A-Za-z0-9_->)")
        if token in self.bots:
            raise ValueError("this token is already registered")
        bot = FakeBot(self, token, username, first_name)
        self.bots[token] = bot
        return bot

    def create_user(
        self,
        first_name: str,
        *,
        username: str | None = None,
        language_code: str | None = "ru",
        last_name: str | None = None,
        user_id: int | None = None,
    ) -> FakeUser:
        """A person with a fresh positive id."""
        uid = user_id if user_id is not None else next(self._user_ids)
        if uid in self.users:
            raise ValueError(f"user id {uid} is taken")
        user = FakeUser(
            self,
            uid,
            first_name,
            last_name=last_name,
            username=username,
            language_code=language_code,
        )
        self.users[uid] = user
        return user

    def create_group(
        self,
        title: str,
        *,
        members: list[FakeUser] | tuple[FakeUser, ...] = (),
        admins: list[FakeUser] | tuple[FakeUser, ...] = (),
        forum: bool = False,
        bots: list[FakeBot] | None = None,
        bot_admin: bool = False,
        username: str | None = None,
        chat_type: Literal["supergroup", "group"] = "supergroup",
    ) -> Chat:
        """A supergroup (id -100…), or with `chat_type="group"` a basic group (id -4…, no
        username, no topics; `migrate_group` upgrades it). Admins are members too; the first
        admin is the creator.

        `bots` defaults to every bot registered so far; they are in the group from the start
        (no update tells them).
        """
        if chat_type == "group":
            if forum or username:
                raise ValueError("a basic group has no topics and no username: use a supergroup")
            chat_id = -4_000_000_000 - next(self._group_ids)
        elif chat_type == "supergroup":
            chat_id = -1_001_000_000_000 - next(self._group_ids)
        else:
            raise ValueError(f"a group is a 'group' or a 'supergroup', not {chat_type!r}")
        chat = Chat(self, chat_id, chat_type, title=title, username=username, is_forum=forum)
        for user in admins:
            chat.add_member(user, admin=True)
        for user in members:
            if user.id not in chat.members:
                chat.add_member(user)
        for bot in self.bots.values() if bots is None else bots:
            chat.add_bot(bot, admin=bot_admin)
        self.groups[chat_id] = chat
        return chat

    def private_chat(self, bot: FakeBot, user: FakeUser) -> Chat:
        """The chat of `user` with `bot` (its id is the user's id, as on Telegram)."""
        key = (bot.id, user.id)
        chat = self._private.get(key)
        if chat is None:
            chat = self._private[key] = Chat(self, user.id, "private", user=user, bot=bot)
        return chat

    def user(self, name: str) -> FakeUser:
        """A user by first name or username."""
        for user in self.users.values():
            if name in (user.first_name, user.username, f"@{user.username}"):
                return user
        raise KeyError(name)

    # ------------------------------------------------------------ what happens to the bot

    def add_bot_to_group(
        self, bot: FakeBot, group: Chat, *, by: FakeUser | None = None, admin: bool = False
    ) -> JSON:
        """`by` adds the bot (back) to `group`, as a member or an administrator.

        The bot gets a `my_chat_member` update ("left"/"kicked" → "member"/"administrator";
        returned) and, with every bot in the group, the service message with new_chat_members.
        """
        self._check_live_group(group)
        if bot.id in group.bots:
            raise ValueError(f"@{bot.username} is already in {group.describe()}")
        actor = self._actor(group, by)
        old = self._bot_member(group, bot)
        group.add_bot(bot, admin=admin)
        update = self._my_chat_member(bot, group, actor.to_dict(), old)
        self._service_message(group, actor, {"new_chat_members": [bot.to_dict()]})
        return update

    def remove_bot(
        self, bot: FakeBot, group: Chat, *, kicked: bool = True, by: FakeUser | None = None
    ) -> JSON:
        """Take the bot out of `group`: kicked (banned, until_date 0) by `by` (default: the
        creator), or with `kicked=False` left — by itself (as leaveChat) unless `by` removed it.

        The bot gets a `my_chat_member` update (returned); the other bots get the service
        message with left_chat_member. From now on every call of the bot addressed to the group
        answers 403 "Forbidden: bot was kicked from the group chat" (or "supergroup chat"), or
        "Forbidden: bot is not a member of the group chat" after leaving; messages and button
        presses in the group no longer reach it.
        """
        self._check_live_group(group)
        if bot.id not in group.bots:
            raise ValueError(f"@{bot.username} is not in {group.describe()}")
        # Nobody removed a bot that left: it did that itself (as leaveChat).
        removed = kicked or by is not None
        sender = self._actor(group, by).to_dict() if removed else bot.to_dict()
        old = self._bot_member(group, bot)
        del group.bots[bot.id]
        group.bot_admins.discard(bot.id)
        group.bot_permissions.pop(bot.id, None)
        group.removed_bots[bot.id] = "kicked" if kicked else "left"
        update = self._my_chat_member(bot, group, sender, old)
        self._service_message(group, sender, {"left_chat_member": bot.to_dict()})
        return update

    def restrict_bot(
        self,
        bot: FakeBot,
        group: Chat,
        *,
        can_send_messages: bool = False,
        can_send_photos: bool | None = None,
        by: FakeUser | None = None,
    ) -> JSON:
        """Restrict the bot in a supergroup (Telegram restricts members of supergroups only):
        "member"/"administrator" → "restricted", told by a `my_chat_member` update (returned).

        `can_send_photos` follows `can_send_messages` unless given. Without can_send_messages
        sendMessage answers 400 "Bad Request: not enough rights to send text messages to the
        chat", without can_send_photos sendPhoto answers 400 "Bad Request: not enough rights to
        send photos to the chat"; edits and deletions of the bot's own messages still work. With
        every right granted the bot is simply a member again.
        """
        self._check_live_group(group)
        if group.is_basic_group:
            raise ValueError(
                f"{group.describe()} is a basic group: restricting a member upgrades it to a "
                "supergroup on Telegram, so call migrate_group first"
            )
        if bot.id not in group.bots:
            raise ValueError(f"@{bot.username} is not in {group.describe()}")
        actor = self._actor(group, by)
        photos = can_send_messages if can_send_photos is None else can_send_photos
        old = self._bot_member(group, bot)
        group.bot_admins.discard(bot.id)  # restricting an administrator demotes it
        if can_send_messages and photos:
            group.bot_permissions.pop(bot.id, None)
        else:
            group.bot_permissions[bot.id] = {
                "can_send_messages": can_send_messages,
                "can_send_photos": photos,
            }
        return self._my_chat_member(bot, group, actor.to_dict(), old)

    def unrestrict_bot(self, bot: FakeBot, group: Chat, *, by: FakeUser | None = None) -> JSON:
        """Lift the bot's restrictions: "restricted" → "member" (a `my_chat_member` update)."""
        self._check_live_group(group)
        if group.bot_status(bot.id) != "restricted":
            raise ValueError(f"@{bot.username} is not restricted in {group.describe()}")
        actor = self._actor(group, by)
        old = self._bot_member(group, bot)
        group.bot_permissions.pop(bot.id, None)
        return self._my_chat_member(bot, group, actor.to_dict(), old)

    def migrate_group(self, group: Chat, *, by: FakeUser | None = None) -> Chat:
        """`by` (default: the creator) upgrades a basic group to a supergroup, as Telegram does.

        The supergroup has a new -100… id, the same title, members, admins and bots (with their
        rights). The basic group gets a service message from `by` with migrate_to_chat_id, the
        supergroup one with migrate_from_chat_id; the group's bots get both as `message`
        updates. Every later call addressed to the old id answers 400 "Bad Request: group chat
        was upgraded to a supergroup chat" with parameters.migrate_to_chat_id. The old messages
        stay in the old chat, which nobody can write in or press buttons in any more.
        """
        if not group.is_basic_group:
            raise ValueError(f"only a basic group upgrades; {group.describe()} is a {group.type}")
        self._check_live_group(group)
        actor = self._actor(group, by)
        new_id = -1_001_000_000_000 - next(self._group_ids)
        new = Chat(self, new_id, "supergroup", title=group.title)
        new.members = dict(group.members)
        new.admins = set(group.admins)
        new.creator_id = group.creator_id
        new.bots = dict(group.bots)
        new.bot_admins = set(group.bot_admins)
        new.bot_permissions = {k: dict(v) for k, v in group.bot_permissions.items()}
        new.migrated_from = group
        group.migrated_to = new
        self.groups[new_id] = new
        self._service_message(group, actor.to_dict(), {"migrate_to_chat_id": new_id})
        self._service_message(new, actor.to_dict(), {"migrate_from_chat_id": group.id})
        return new

    def delete_message(self, chat: Chat, message: Message | int, *, by: FakeUser) -> Message:
        """`by` deletes a message: in a group its author or an admin, in a private chat the
        user (either side's message). Nothing tells the bot; afterwards editing it answers 400
        "Bad Request: message to edit not found", replying to it "Bad Request: message to be
        replied not found", and it is gone from `chat.messages` (still in `all_messages`, with
        `.deleted` True)."""
        found = chat.message(message) if isinstance(message, int) else message
        if found is None or found.chat is not chat:
            raise ValueError(f"no message {message!r} in {chat.describe()}")
        if found.deleted:
            raise ValueError(f"{found!r} is already deleted")
        if chat.is_private:
            if chat.user is not by:
                raise ValueError(f"{by.first_name} cannot see {chat.describe()}")
        else:
            self._check_live_group(chat)
            if by.id not in chat.members:
                raise ValueError(f"{by.first_name} is not a member of {chat.describe()}")
            own = found.bot is None and found.sender.get("id") == by.id
            if not own and by.id not in chat.admins:
                raise ValueError(f"{by.first_name} may delete only their own messages here")
        found.deleted = True
        self._emit(ServerEvent("delete", found))
        return found

    def close_topic(self, group: Chat, thread_id: int) -> None:
        """Close a forum topic (1 is the General topic): the bot's sends into it answer 400
        "Bad Request: TOPIC_CLOSED"."""
        if not group.is_forum:
            raise ValueError(f"{group.describe()} is not a forum")
        if thread_id not in group.topics and thread_id != 1:
            raise ValueError(f"no topic {thread_id} in {group.describe()}")
        group.closed_topics.add(thread_id)

    def reopen_topic(self, group: Chat, thread_id: int) -> None:
        group.closed_topics.discard(thread_id)

    def fail_next(
        self,
        method: str,
        *,
        status: int = 502,
        count: int = 1,
        description: str = "Bad Gateway",
        parameters: JSON | None = None,
        chat_id: int | None = None,
    ) -> None:
        """Answer the next `count` calls of `method` (case-insensitive; only those addressed to
        `chat_id` if given) with `{"ok": false, "error_code": status, "description": …}` and
        HTTP status `status`, before the method does anything. For 400s give Telegram's whole
        text, e.g. "Bad Request: chat not found"; `parameters` (e.g. {"retry_after": 3}) goes
        into the answer too. The calls are recorded in `requests` like any other."""
        name = method.lower()
        if name not in self._methods:
            raise ValueError(f"no method {method!r} on this server")
        if status < 400 or count < 1:
            raise ValueError("fail_next needs an error status (≥ 400) and a count ≥ 1")
        queued = self.failures.setdefault(name, [])
        queued.extend((chat_id, ApiError(status, description, parameters)) for _ in range(count))

    def _check_live_group(self, group: Chat) -> None:
        if not group.is_group:
            raise ValueError(f"{group.describe()} is not a group")
        if group.migrated_to is not None:
            raise ValueError(
                f"{group.describe()} was upgraded to the supergroup {group.migrated_to.id}"
            )

    @staticmethod
    def _actor(group: Chat, by: FakeUser | None) -> FakeUser:
        """The person doing something to the group: `by`, else the creator (else an admin,
        else any member)."""
        if by is not None:
            if by.id not in group.members:
                raise ValueError(f"{by.first_name} is not a member of {group.describe()}")
            return by
        for user_id in (group.creator_id, *sorted(group.admins), *group.members):
            if user_id is not None and user_id in group.members:
                return group.members[user_id]
        raise ValueError(f"{group.describe()} has no members: pass by=")

    def _my_chat_member(self, bot: FakeBot, chat: Chat, sender: JSON, old: JSON) -> JSON:
        update: JSON = {
            "my_chat_member": {
                "chat": chat.to_dict(),
                "from": dict(sender),
                "date": int(time.time()),
                "old_chat_member": old,
                "new_chat_member": self._bot_member(chat, bot),
            }
        }
        return self.push_update(bot, update)

    def _service_message(self, chat: Chat, sender: FakeUser | JSON, fields: JSON) -> Message:
        message = chat._append(
            Message(
                chat=chat,
                message_id=chat._allocate_id(),
                date=int(time.time()),
                sender=sender.to_dict() if isinstance(sender, FakeUser) else dict(sender),
                bot=None,
                service=fields,
            )
        )
        for bot in list(chat.bots.values()):
            self.push_update(bot, {"message": message.to_dict()})
        self._emit(ServerEvent("new", message))
        return message

    def _bot_member(self, chat: Chat, bot: FakeBot) -> JSON:
        """The bot's ChatMember object in `chat` as it stands."""
        status = chat.bot_status(bot.id)
        user = bot.to_dict()
        if status == "administrator":
            return _chat_member(user, "administrator")
        if status == "restricted":
            return _restricted_member(user, chat.bot_permissions[bot.id])
        if status == "kicked":
            return {"status": "kicked", "user": user, "until_date": 0}
        if status in (None, "left"):
            return {"status": "left", "user": user}
        return {"status": "member", "user": user}

    # ------------------------------------------------------------------------ observation

    def add_listener(self, listener: Callable[[ServerEvent], None]) -> None:
        """Call `listener` (on the server's loop) for every new, edited or deleted message and
        every callback answer."""
        self._listeners.append(listener)

    def _emit(self, event: ServerEvent) -> None:
        for listener in self._listeners:
            listener(event)
        self._touch()

    def _touch(self) -> None:
        event, self._changed = self._changed, asyncio.Event()
        event.set()

    async def wait_for(
        self,
        predicate: Callable[[], T | None],
        timeout: float = 10.0,
        *,
        description: str | None = None,
    ) -> T:
        """Re-check `predicate` after every request and user action until it returns a truthy
        value, and return that value; TimeoutError (with `description`) otherwise."""
        deadline = time.monotonic() + timeout
        while True:
            changed = self._changed
            value = predicate()
            if value:
                return value
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                what = description or getattr(predicate, "__name__", "the condition")
                raise TimeoutError(f"timed out after {timeout}s waiting for {what}")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(changed.wait(), remaining)

    def calls(self, method: str) -> list[RequestRecord]:
        """Every request to one method (case-insensitive)."""
        name = method.lower()
        return [r for r in self.requests if r.method.lower() == name]

    @property
    def errors(self) -> list[RequestRecord]:
        """Every request that was answered with ok=false."""
        return [r for r in self.requests if not r.ok]

    @property
    def parse_errors(self) -> list[RequestRecord]:
        return [r for r in self.errors if "can't parse entities" in (r.description or "")]

    # --------------------------------------------------------------------------- updates

    def push_update(self, bot: FakeBot, update: JSON) -> JSON:
        """Queue a raw update for `bot`. An update_id is assigned unless present, so pushing
        the same dict twice delivers a duplicate, as Telegram sometimes does."""
        update = dict(update)
        if "update_id" not in update:
            update["update_id"] = bot.next_update_id
        bot.next_update_id = max(bot.next_update_id, int(update["update_id"]) + 1)
        bot.pending.append(update)
        bot._notify()
        self._touch()
        return update

    def _user_message(
        self,
        user: FakeUser,
        chat: Chat,
        text: str,
        reply_to: Message | int | None,
        thread_id: int | None,
        entities: list[Entity] | None,
    ) -> Message:
        if chat.is_private:
            if chat.user is not user:
                raise ValueError(f"{user.first_name} cannot write in {chat.describe()}")
            chat.started = True
            if chat.bot is not None:
                user.unblock(chat.bot)  # writing to a blocked bot unblocks it in every client
        else:
            if chat.migrated_to is not None:
                raise ValueError(
                    f"{chat.describe()} was upgraded to a supergroup: write in "
                    f"server.groups[{chat.migrated_to.id}]"
                )
            if user.id not in chat.members:
                raise ValueError(f"{user.first_name} is not a member of {chat.describe()}")
        if not text.strip():
            raise ValueError("Telegram clients do not send empty messages")
        if thread_id is not None and chat.is_forum and thread_id not in chat.topics:
            raise ValueError(f"no topic {thread_id} in {chat.describe()}")
        topic = thread_id if thread_id is not None else 1
        if chat.is_forum and topic in chat.closed_topics and user.id not in chat.admins:
            raise ValueError(f"topic {topic} of {chat.describe()} is closed")
        replied = chat.message(reply_to) if isinstance(reply_to, int) else reply_to
        message = chat._append(
            Message(
                chat=chat,
                message_id=chat._allocate_id(),
                date=int(time.time()),
                sender=user.to_dict(),
                bot=None,
                text=text,
                entities=entities if entities is not None else detect_entities(text),
                thread_id=thread_id,
                reply_to=replied,
            )
        )
        recipients = [chat.bot] if chat.is_private and chat.bot else list(chat.bots.values())
        for bot in recipients:
            self.push_update(bot, {"message": message.to_dict()})
        self._emit(ServerEvent("new", message))
        return message

    def forge_press(
        self, bot: FakeBot, user: FakeUser, message: Message, data: str, *, queue: bool = True
    ) -> tuple[CallbackQuery, JSON]:
        """A press on ``message`` carrying any callback data, whether or not the message has
        such a button (an outdated, foreign or forged one, as a modified client could send);
        ``bot`` can answer it. The update is queued for ``bot`` and returned with its
        update_id; with ``queue=False`` it is only returned (no update_id), for a caller that
        delivers it itself."""
        query = CallbackQuery(str(next(self._query_ids)), user, message, bot, data)
        self._queries[query.id] = query
        update: JSON = {
            "callback_query": {
                "id": query.id,
                "from": user.to_dict(),
                "message": message.to_dict(),
                "chat_instance": str(abs(message.chat.id)),
                "data": data,
            }
        }
        return query, self.push_update(bot, update) if queue else update

    def _press(
        self,
        user: FakeUser,
        message: Message,
        text: str | None,
        data: str | None,
        index: tuple[int, int] | int | None,
    ) -> CallbackQuery:
        chat = message.chat
        if message.deleted:
            raise ValueError(f"{message!r} was deleted")
        if chat.is_private and chat.user is not user:
            raise ValueError(f"{user.first_name} cannot see {chat.describe()}")
        if chat.migrated_to is not None:
            raise ValueError(f"{chat.describe()} was upgraded to a supergroup: it is gone")
        if chat.is_group and user.id not in chat.members:
            raise ValueError(f"{user.first_name} is not a member of {chat.describe()}")
        if message.bot is None:
            raise ValueError("only bot messages have inline buttons")
        rows = message.inline_keyboard
        flat = [button for row in rows for button in row]
        button: JSON | None = None
        if index is not None:
            try:
                button = rows[index[0]][index[1]] if isinstance(index, tuple) else flat[index]
            except IndexError:
                raise ValueError(f"no button at {index} in {message!r}") from None
        elif data is not None:
            button = next((b for b in flat if b.get("callback_data") == data), None)
        elif text is not None:
            button = next((b for b in flat if b["text"] == text), None)
            if button is None:
                candidates = [b for b in flat if text.lower() in b["text"].lower()]
                if len(candidates) == 1:
                    button = candidates[0]
        if button is None:
            wanted = text if text is not None else data
            raise ValueError(f"no button {wanted!r} in {message!r}; buttons: {message.buttons}")
        if "callback_data" not in button:
            raise ValueError(f"button {button['text']!r} is not a callback button: {button}")
        query = CallbackQuery(str(next(self._query_ids)), user, message, message.bot, "")
        query.data = button["callback_data"]
        if chat.is_group and message.bot.id not in chat.bots:
            query.delivered = False  # the bot is no longer in the group: nobody hears the press
            self._touch()
            return query
        self._queries[query.id] = query
        instance = hashlib.sha1(f"{chat.id}:{message.bot.id}".encode()).hexdigest()[:16]
        self.push_update(
            message.bot,
            {
                "callback_query": {
                    "id": query.id,
                    "from": user.to_dict(),
                    "message": message.to_dict(),
                    "chat_instance": str(int(instance, 16)),
                    "data": query.data,
                }
            },
        )
        return query

    # --------------------------------------------------------------------------- HTTP layer

    async def _not_found(self, request: web.Request) -> web.Response:
        return web.json_response(
            {"ok": False, "error_code": 404, "description": "Not Found"}, status=404
        )

    async def _handle(self, request: web.Request) -> web.Response:
        token = request.match_info["token"]
        method = request.match_info["method"]
        try:
            values, files = await self._read_params(request) if token in self.bots else ({}, {})
        except ApiError as error:
            body: JSON = {"ok": False, "error_code": error.code, "description": error.description}
            return web.json_response(body, status=error.code, dumps=_dumps)
        status, body = await self.dispatch(token, method, values, files)
        return web.json_response(body, status=status, dumps=_dumps)

    async def dispatch(
        self, token: str, method: str, values: JSON, files: dict[str, Upload] | None = None
    ) -> tuple[int, JSON]:
        """Answer one Bot API call as the HTTP endpoint would: (status, JSON body).

        The in-process entry point: tests can plug it into PTB as a request object so handler
        tests need no socket at all (see localbotapi/offline.py)."""
        files = files or {}
        bot = self.bots.get(token)
        params: JSON = {}
        status = 200
        result: Any = None
        description: str | None = None
        parameters: JSON | None = None
        try:
            if bot is None:
                raise ApiError(401, "Unauthorized")
            params = dict(values)
            for name, upload in files.items():
                params[name] = f"<file {upload.filename!r}, {len(upload.data)} bytes>"
            handler = self._methods.get(method.lower())
            if handler is None:
                raise ApiError(404, "Not Found")
            self._injected_failure(method.lower(), values)
            result = await handler(bot, Params(values, files))
        except ApiError as error:
            status = error.code
            description = error.description
            parameters = error.parameters
        body: JSON
        if status == 200:
            body = {"ok": True, "result": result}
        else:
            body = {"ok": False, "error_code": status, "description": description}
            if parameters:
                body["parameters"] = parameters
        chat_id: int | str | None = params.get("chat_id")
        if isinstance(chat_id, str):
            with contextlib.suppress(ValueError):
                chat_id = int(chat_id)
        self.requests.append(
            RequestRecord(
                bot=bot,
                method=method,
                params=params,
                status=status,
                ok=status == 200,
                description=description,
                result=result,
                time=time.monotonic(),
                chat_id=chat_id,
                retry_after=(parameters or {}).get("retry_after"),
            )
        )
        self._touch()
        return status, body

    def _injected_failure(self, name: str, values: JSON) -> None:
        """Raise the first `fail_next` error queued for this call, if any."""
        queued = self.failures.get(name)
        if not queued:
            return
        chat_id = values.get("chat_id")
        for index, (wanted, error) in enumerate(queued):
            if wanted is None or str(wanted) == str(chat_id):
                del queued[index]
                raise error

    async def _read_params(self, request: web.Request) -> tuple[JSON, dict[str, Upload]]:
        values: JSON = dict(request.query)
        files: dict[str, Upload] = {}
        if request.method not in ("POST", "PUT"):
            return values, files
        content_type = request.content_type
        if content_type == "application/json":
            raw = await request.read()
            if raw.strip():
                try:
                    body = json.loads(raw)
                except ValueError:
                    raise bad_request("can't parse JSON request body") from None
                if not isinstance(body, dict):
                    raise bad_request("JSON request body must be an object")
                values.update(body)
        elif content_type in ("application/x-www-form-urlencoded", "multipart/form-data"):
            form = await request.post()
            for name, value in form.items():
                if isinstance(value, web.FileField):
                    files[name] = Upload(value.filename, value.content_type, value.file.read())
                else:
                    values[name] = value
        return values, files

    # ---------------------------------------------------------------------------- helpers

    def _resolve_chat(self, bot: FakeBot, params: Params) -> Chat:
        raw = params.raw("chat_id")
        if raw is None:
            raise bad_request("chat_id is empty")
        if isinstance(raw, str) and raw.startswith("@"):
            name = raw[1:].lower()
            for group in self.groups.values():
                known = bot.id in group.bots or bot.id in group.removed_bots
                if (group.username or "").lower() == name and known:
                    return self._group_for(bot, group)
            raise bad_request("chat not found")
        try:
            chat_id = int(raw)
        except (TypeError, ValueError):
            raise bad_request("chat not found") from None
        if chat_id > 0:
            user = self.users.get(chat_id)
            if user is None:
                raise bad_request("chat not found")
            return self.private_chat(bot, user)
        found = self.groups.get(chat_id)
        if found is None:
            raise bad_request("chat not found")
        return self._group_for(bot, found)

    @staticmethod
    def _group_for(bot: FakeBot, group: Chat) -> Chat:
        """The group if the bot is in it; Telegram's refusal otherwise."""
        if group.migrated_to is not None and bot.id in group.bots:
            raise ApiError(
                400, f"Bad Request: {UPGRADED}", {"migrate_to_chat_id": group.migrated_to.id}
            )
        gone = group.removed_bots.get(bot.id)
        if gone is not None:
            kind = "supergroup" if group.type == "supergroup" else "group"
            if gone == "kicked":
                raise ApiError(403, f"Forbidden: bot was kicked from the {kind} chat")
            raise ApiError(403, f"Forbidden: bot is not a member of the {kind} chat")
        if bot.id not in group.bots:
            raise bad_request("chat not found")
        return group

    def _check_can_write(self, bot: FakeBot, chat: Chat, right: str | None = None) -> None:
        """403 for a private chat the bot may not write in; 400 if a restricted bot lacks
        `right` ("can_send_messages", "can_send_photos") in a group."""
        if chat.is_private and chat.user is not None:
            if bot.id in chat.user.blocked:
                raise ApiError(403, "Forbidden: bot was blocked by the user")
            if not chat.started:
                raise ApiError(403, "Forbidden: bot can't initiate conversation with a user")
        permissions = chat.bot_permissions.get(bot.id)
        if right is not None and permissions is not None and not permissions.get(right, True):
            raise bad_request(NO_RIGHTS[right])

    def _check_flood(self, bot: FakeBot, chat: Chat) -> None:
        retry_after = self.flood.check(bot.id, chat.id, chat.is_group)
        if retry_after is not None:
            raise ApiError(
                429,
                f"Too Many Requests: retry after {retry_after}",
                {"retry_after": retry_after},
            )

    def _formatted(
        self,
        params: Params,
        text_field: str,
        entities_field: str,
        *,
        limit: int,
        empty_error: str,
        long_error: str,
        allow_empty: bool = False,
    ) -> tuple[str, list[Entity]]:
        text = params.string(text_field) or ""
        explicit = params.obj(entities_field, "entities")
        if explicit is not None:
            entities = self._validate_entities(explicit, text)
            plain = text
        else:
            try:
                parsed = parse_text(text, params.string("parse_mode"))
            except EntityParseError as error:
                raise bad_request(f"can't parse entities: {error}") from None
            except ValueError:
                raise bad_request("unsupported parse_mode") from None
            plain, entities = parsed.text, parsed.entities
            entities = self._text_mentions(entities)
        plain, entities = strip_text(plain, entities)
        if not plain and not allow_empty:
            raise bad_request(empty_error)
        if utf16_len(plain) > limit:
            raise bad_request(long_error)
        return plain, entities

    def _text_mentions(self, entities: list[Entity]) -> list[Entity]:
        """A link to ``tg://user?id=<id>`` is a mention of that user, as on Telegram: a
        ``text_mention`` entity carrying the user (it notifies them); a mention of a user
        Telegram does not know is dropped."""
        result: list[Entity] = []
        for entity in entities:
            url = str(entity.get("url", "")) if entity.get("type") == "text_link" else ""
            found = re.fullmatch(r"tg://user\?id=(\d{1,20})", url)
            if found is None:
                result.append(entity)
                continue
            user = self.users.get(int(found.group(1)))
            if user is not None:
                mention = {k: v for k, v in entity.items() if k != "url"}
                result.append(mention | {"type": "text_mention", "user": user.to_dict()})
        return result

    @staticmethod
    def _validate_entities(value: Any, text: str) -> list[Entity]:
        if not isinstance(value, list):
            raise bad_request("can't parse entities JSON object")
        size = utf16_len(text)
        result: list[Entity] = []
        for item in value:
            if not isinstance(item, dict) or not isinstance(item.get("type"), str):
                raise bad_request('can\'t parse MessageEntity: field "type" must be of type String')
            try:
                offset, length = int(item["offset"]), int(item["length"])
            except (KeyError, TypeError, ValueError):
                raise bad_request("can't parse MessageEntity: wrong offset or length") from None
            if offset < 0 or length <= 0 or offset >= size:
                continue  # Telegram silently drops entities outside the text
            result.append({**item, "offset": offset, "length": min(length, size - offset)})
        return sort_entities(result)

    def _markup(self, params: Params, *, inline_only: bool = False) -> JSON | None:
        markup = params.obj("reply_markup", "reply keyboard markup")
        if markup is None:
            return None
        if not isinstance(markup, dict):
            raise bad_request("can't parse reply keyboard markup JSON object")
        if "inline_keyboard" in markup:
            rows = markup["inline_keyboard"]
            if not isinstance(rows, list) or not all(isinstance(row, list) for row in rows):
                raise bad_request(
                    'field "inline_keyboard" of the InlineKeyboardMarkup must be an Array of Arrays'
                )
            for row in rows:
                for button in row:
                    self._check_button(button)
            rows = [row for row in rows if row]
            return {"inline_keyboard": rows} if rows else None
        if inline_only:
            raise bad_request("inline keyboard expected")
        if not any(k in markup for k in ("keyboard", "remove_keyboard", "force_reply")):
            raise bad_request("can't parse reply keyboard markup JSON object")
        return markup

    @staticmethod
    def _check_button(button: Any) -> None:
        if not isinstance(button, dict) or not isinstance(button.get("text"), str):
            raise bad_request(
                "can't parse inline keyboard button: "
                "Text buttons are unallowed in the inline keyboard"
            )
        if not button["text"].strip():
            raise bad_request("BUTTON_TEXT_EMPTY")
        kinds = [
            k
            for k in (
                "callback_data",
                "url",
                "switch_inline_query",
                "web_app",
                "login_url",
                "switch_inline_query_current_chat",
                "pay",
                "callback_game",
                "copy_text",
                "switch_inline_query_chosen_chat",
            )
            if k in button
        ]
        if not kinds:
            raise bad_request(
                "can't parse inline keyboard button: "
                "Text buttons are unallowed in the inline keyboard"
            )
        if "callback_data" in button:
            data = button["callback_data"]
            if not isinstance(data, str) or not 1 <= len(data.encode("utf-8")) <= 64:
                raise bad_request("BUTTON_DATA_INVALID")
        if "url" in button:
            url = button["url"]
            if not isinstance(url, str) or not re.match(r"^(https?|tg)://\S+$", url):
                raise bad_request(f"inline keyboard button URL '{url}' is invalid: Wrong HTTP URL")

    def _thread_id(self, params: Params, chat: Chat) -> int | None:
        thread_id = params.integer("message_thread_id")
        if thread_id is None:
            if chat.is_forum and 1 in chat.closed_topics:  # a send without one goes to General
                raise bad_request("TOPIC_CLOSED")
            return None
        if chat.is_forum and thread_id not in chat.topics and thread_id != 1:
            raise bad_request("message thread not found")
        if not chat.is_forum and chat.message(thread_id) is None:
            raise bad_request("message thread not found")
        if chat.is_forum and thread_id in chat.closed_topics:
            raise bad_request("TOPIC_CLOSED")
        return thread_id

    def _reply_to(self, params: Params, chat: Chat) -> Message | None:
        reply = params.obj("reply_parameters", "reply parameters")
        message_id: int | None
        allow_missing = params.flag("allow_sending_without_reply")
        if isinstance(reply, dict):
            try:
                message_id = int(reply["message_id"])
            except (KeyError, TypeError, ValueError):
                raise bad_request("can't parse reply parameters JSON object") from None
            allow_missing = bool(reply.get("allow_sending_without_reply", allow_missing))
        else:
            message_id = params.integer("reply_to_message_id")
        if message_id is None:
            return None
        message = chat.message(message_id)
        if message is None or message.deleted:
            if allow_missing:
                return None
            raise bad_request("message to be replied not found")
        return message

    def _find_message(self, chat: Chat, params: Params, missing: str) -> Message:
        if params.raw("inline_message_id") is not None:
            raise bad_request("MESSAGE_ID_INVALID")
        message_id = params.integer("message_id")
        if message_id is None:
            raise bad_request("message identifier is not specified")
        message = chat.message(message_id)
        if message is None or message.deleted:
            raise bad_request(missing)
        return message

    def _send_options(self, params: Params) -> JSON:
        options: JSON = {}
        for name in ("disable_notification", "protect_content"):
            if params.raw(name) is not None:
                options[name] = params.flag(name)
        preview = params.obj("link_preview_options", "link preview options")
        if preview is not None:
            options["link_preview_options"] = preview
        elif params.raw("disable_web_page_preview") is not None:
            options["link_preview_options"] = {
                "is_disabled": params.flag("disable_web_page_preview")
            }
        return options

    def _post(self, bot: FakeBot, chat: Chat, **fields: Any) -> Message:
        message = chat._append(
            Message(
                chat=chat,
                message_id=chat._allocate_id(),
                date=int(time.time()),
                sender=bot.to_dict(),
                bot=bot,
                **fields,
            )
        )
        self._emit(ServerEvent("new", message))
        return message

    # ------------------------------------------------------------------------ API methods

    async def _api_getMe(self, bot: FakeBot, params: Params) -> JSON:
        return {
            **bot.to_dict(),
            "can_join_groups": True,
            "can_read_all_group_messages": True,
            "supports_inline_queries": False,
            "can_connect_to_business": False,
            "has_main_web_app": False,
        }

    async def _api_logOut(self, bot: FakeBot, params: Params) -> bool:
        return True

    async def _api_close(self, bot: FakeBot, params: Params) -> bool:
        return True

    async def _api_getUpdates(self, bot: FakeBot, params: Params) -> list[JSON]:
        if bot.webhook is not None:
            raise ApiError(
                409,
                "Conflict: can't use getUpdates method while webhook is active; "
                "use deleteWebhook to delete the webhook first",
            )
        offset = params.integer("offset")
        limit = params.integer("limit") or 100
        limit = max(1, min(limit, 100))
        timeout = max(0.0, params.number("timeout") or 0.0)
        allowed = params.obj("allowed_updates", "allowed updates")
        if allowed is not None:
            bot.allowed_updates = [str(kind) for kind in allowed] if allowed else None
        if offset is not None:
            if offset < 0:
                bot.pending = bot.pending[offset:]
            else:
                bot.pending = [u for u in bot.pending if u["update_id"] >= offset]
        bot.poll_generation += 1
        generation = bot.poll_generation
        bot._notify()  # an older long poll of this bot ends with 409, as on Telegram
        deadline = time.monotonic() + timeout
        while True:
            event = bot._event
            bot.pending = [u for u in bot.pending if _wanted(bot, u)]
            if bot.pending or self._closing:
                return [dict(update) for update in bot.pending[:limit]]
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return []
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(event.wait(), remaining)
            if bot.poll_generation != generation:
                raise ApiError(
                    409,
                    "Conflict: terminated by other getUpdates request; "
                    "make sure that only one bot instance is running",
                )
            if bot.webhook is not None:
                return []

    async def _api_setWebhook(self, bot: FakeBot, params: Params) -> bool:
        url = params.string("url") or ""
        if params.flag("drop_pending_updates"):
            bot.pending.clear()
        if not url:
            await self._stop_webhook(bot)
            return True
        if not re.match(r"^https?://[^\s/]+", url):
            raise bad_request("bad webhook: Failed to resolve host: Name or service not known")
        secret = params.string("secret_token")
        if secret is not None and not re.fullmatch(r"[A-Za-z0-9_-]{1,256}", secret):
            raise bad_request("secret token contains unallowed characters")
        allowed = params.obj("allowed_updates", "allowed updates")
        if allowed is not None:
            bot.allowed_updates = [str(kind) for kind in allowed] if allowed else None
        await self._stop_webhook(bot)
        bot.webhook = Webhook(
            url=url,
            secret_token=secret,
            max_connections=params.integer("max_connections") or 40,
            allowed_updates=bot.allowed_updates,
        )
        bot.poll_generation += 1
        bot._notify()
        self._webhook_tasks[bot.token] = asyncio.create_task(self._webhook_loop(bot))
        return True

    async def _api_deleteWebhook(self, bot: FakeBot, params: Params) -> bool:
        if params.flag("drop_pending_updates"):
            bot.pending.clear()
        await self._stop_webhook(bot)
        return True

    async def _api_getWebhookInfo(self, bot: FakeBot, params: Params) -> JSON:
        info: JSON = {
            "url": "",
            "has_custom_certificate": False,
            "pending_update_count": len(bot.pending),
        }
        hook = bot.webhook
        if hook is not None:
            info.update(url=hook.url, max_connections=hook.max_connections, ip_address="127.0.0.1")
            if hook.allowed_updates:
                info["allowed_updates"] = hook.allowed_updates
            if hook.last_error_date is not None:
                info["last_error_date"] = hook.last_error_date
                info["last_error_message"] = hook.last_error_message
        return info

    async def _stop_webhook(self, bot: FakeBot) -> None:
        bot.webhook = None
        task = self._webhook_tasks.pop(bot.token, None)
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def _webhook_loop(self, bot: FakeBot) -> None:
        """Deliver pending updates one by one; a failure is retried with growing delays."""
        if self._session is None:
            self._session = ClientSession(timeout=ClientTimeout(total=10))
        session = self._session
        delay = self.webhook_retry_delay
        while bot.webhook is not None and not self._closing:
            hook = bot.webhook
            event = bot._event
            bot.pending = [u for u in bot.pending if _wanted(bot, u)]
            if not bot.pending:
                await event.wait()
                continue
            update = bot.pending[0]
            headers = {"Content-Type": "application/json"}
            if hook.secret_token:
                headers["X-Telegram-Bot-Api-Secret-Token"] = hook.secret_token
            error: str | None = None
            try:
                async with session.post(hook.url, data=_dumps(update), headers=headers) as reply:
                    await reply.read()
                    if not 200 <= reply.status < 300:
                        error = f"Wrong response from the webhook: {reply.status} {reply.reason}"
            except (ClientError, TimeoutError, OSError) as exc:
                error = f"Connection failed: {exc.__class__.__name__}"
            if error is None:
                if bot.pending and bot.pending[0] is update:
                    bot.pending.pop(0)
                hook.delivered += 1
                delay = self.webhook_retry_delay
                self._touch()
            else:
                hook.last_error_date = int(time.time())
                hook.last_error_message = error
                self._touch()
                await asyncio.sleep(delay)
                delay = min(delay * 2, 5.0)

    async def _api_setMyCommands(self, bot: FakeBot, params: Params) -> bool:
        commands = params.obj("commands", "commands")
        if not isinstance(commands, list):
            raise bad_request("can't parse commands JSON object")
        if len(commands) > 100:
            raise bad_request("BOT_COMMANDS_TOO_MUCH")
        cleaned: list[JSON] = []
        for item in commands:
            if not isinstance(item, dict):
                raise bad_request("can't parse BotCommand JSON object")
            command = str(item.get("command", "")).lstrip("/")
            description = str(item.get("description", ""))
            if not re.fullmatch(r"[a-z0-9_]{1,32}", command):
                raise bad_request("BOT_COMMAND_INVALID")
            if not 1 <= len(description.strip()) <= 256:
                raise bad_request("BOT_COMMAND_DESCRIPTION_INVALID")
            cleaned.append({"command": command, "description": description})
        key = self._commands_key(params)
        if cleaned:
            bot.commands[key] = cleaned
        else:
            bot.commands.pop(key, None)
        return True

    async def _api_getMyCommands(self, bot: FakeBot, params: Params) -> list[JSON]:
        return list(bot.commands.get(self._commands_key(params), []))

    async def _api_deleteMyCommands(self, bot: FakeBot, params: Params) -> bool:
        bot.commands.pop(self._commands_key(params), None)
        return True

    @staticmethod
    def _commands_key(params: Params) -> tuple[str, str]:
        scope = params.obj("scope", "bot command scope")
        kinds = {
            "default",
            "all_private_chats",
            "all_group_chats",
            "all_chat_administrators",
            "chat",
            "chat_administrators",
            "chat_member",
        }
        if scope is not None and (not isinstance(scope, dict) or scope.get("type") not in kinds):
            raise bad_request("can't parse BotCommandScope JSON object")
        language = params.string("language_code") or ""
        if language and not re.fullmatch(r"[a-z]{2}", language):
            raise bad_request("invalid language code specified")
        return scope_key(scope), language

    async def _set_text(self, bot: FakeBot, params: Params, kind: str, field: str) -> bool:
        language = params.string("language_code") or ""
        value = params.string(field) or ""
        if value:
            bot.texts[f"{kind}:{language}"] = value
        else:
            bot.texts.pop(f"{kind}:{language}", None)
        return True

    async def _api_setMyDescription(self, bot: FakeBot, params: Params) -> bool:
        return await self._set_text(bot, params, "description", "description")

    async def _api_getMyDescription(self, bot: FakeBot, params: Params) -> JSON:
        key = f"description:{params.string('language_code') or ''}"
        return {"description": bot.texts.get(key, "")}

    async def _api_setMyShortDescription(self, bot: FakeBot, params: Params) -> bool:
        return await self._set_text(bot, params, "short_description", "short_description")

    async def _api_getMyShortDescription(self, bot: FakeBot, params: Params) -> JSON:
        key = f"short_description:{params.string('language_code') or ''}"
        return {"short_description": bot.texts.get(key, "")}

    async def _api_setMyName(self, bot: FakeBot, params: Params) -> bool:
        return await self._set_text(bot, params, "name", "name")

    async def _api_getMyName(self, bot: FakeBot, params: Params) -> JSON:
        key = f"name:{params.string('language_code') or ''}"
        return {"name": bot.texts.get(key, bot.first_name)}

    async def _api_sendMessage(self, bot: FakeBot, params: Params) -> JSON:
        chat = self._resolve_chat(bot, params)
        self._check_can_write(bot, chat, "can_send_messages")
        if params.string("text") is None:
            raise bad_request("message text is empty")
        text, entities = self._formatted(
            params,
            "text",
            "entities",
            limit=MAX_TEXT,
            empty_error="message text is empty",
            long_error="message is too long",
        )
        markup = self._markup(params)
        thread_id = self._thread_id(params, chat)
        reply_to = self._reply_to(params, chat)
        options = self._send_options(params)
        self._check_flood(bot, chat)
        message = self._post(
            bot,
            chat,
            text=text,
            entities=entities,
            reply_markup=markup,
            thread_id=thread_id,
            reply_to=reply_to,
            options=options,
        )
        return message.to_dict()

    async def _api_sendPhoto(self, bot: FakeBot, params: Params) -> JSON:
        chat = self._resolve_chat(bot, params)
        self._check_can_write(bot, chat, "can_send_photos")
        data, file_id = self._photo(params)
        caption, caption_entities = self._formatted(
            params,
            "caption",
            "caption_entities",
            limit=MAX_CAPTION,
            empty_error="message caption is empty",
            long_error="message caption is too long",
            allow_empty=True,
        )
        markup = self._markup(params)
        thread_id = self._thread_id(params, chat)
        reply_to = self._reply_to(params, chat)
        options = self._send_options(params)
        self._check_flood(bot, chat)
        width, height = (_image_size(data) if data else None) or (320, 320)
        unique = hashlib.sha1(file_id.encode()).hexdigest()[:16]
        photo = [
            {
                "file_id": file_id,
                "file_unique_id": unique,
                "width": width,
                "height": height,
                "file_size": len(data or b""),
            }
        ]
        message = self._post(
            bot,
            chat,
            caption=caption or None,
            caption_entities=caption_entities,
            photo=photo,
            photo_bytes=data,
            reply_markup=markup,
            thread_id=thread_id,
            reply_to=reply_to,
            options=options,
        )
        return message.to_dict()

    def _photo(self, params: Params) -> tuple[bytes | None, str]:
        """The photo's bytes (None for a URL) and its file_id; uploads are stored."""
        raw = params.raw("photo")
        upload = params.files.get("photo")
        if isinstance(raw, str) and raw.startswith("attach://"):
            upload = params.files.get(raw[len("attach://") :])
        if upload is not None:
            if not upload.data:
                raise bad_request("file must be non-empty")
            if _image_size(upload.data) is None:
                raise bad_request("IMAGE_PROCESS_FAILED")
            file_id = "AgAC" + secrets.token_urlsafe(24)
            self.files[file_id] = upload.data
            return upload.data, file_id
        if not isinstance(raw, str) or not raw:
            raise bad_request("there is no photo in the request")
        if raw in self.files:
            return self.files[raw], raw
        if re.match(r"^https?://\S+$", raw):
            return None, "AgAC" + hashlib.sha1(raw.encode()).hexdigest()
        raise bad_request("wrong file identifier/HTTP URL specified")

    async def _api_editMessageText(self, bot: FakeBot, params: Params) -> JSON:
        chat = self._resolve_chat(bot, params)
        message = self._find_message(chat, params, "message to edit not found")
        if message.bot is not bot:
            raise bad_request("message can't be edited")
        if message.text is None:
            raise bad_request("there is no text in the message to edit")
        if params.string("text") is None:
            raise bad_request("text must be non-empty")
        text, entities = self._formatted(
            params,
            "text",
            "entities",
            limit=MAX_TEXT,
            empty_error="text must be non-empty",
            long_error="MESSAGE_TOO_LONG",
        )
        markup = self._markup(params, inline_only=True)
        if (text, entities, markup) == (message.text, message.entities, message.reply_markup):
            raise bad_request(NOT_MODIFIED)
        self._check_flood(bot, chat)
        self._edit(message, text=text, entities=entities, reply_markup=markup)
        return message.to_dict()

    async def _api_editMessageReplyMarkup(self, bot: FakeBot, params: Params) -> JSON:
        chat = self._resolve_chat(bot, params)
        message = self._find_message(chat, params, "message to edit not found")
        if message.bot is not bot:
            raise bad_request("message can't be edited")
        markup = self._markup(params, inline_only=True)
        if markup == message.reply_markup:
            raise bad_request(NOT_MODIFIED)
        self._check_flood(bot, chat)
        self._edit(message, text=message.text, entities=message.entities, reply_markup=markup)
        return message.to_dict()

    def _edit(
        self,
        message: Message,
        *,
        text: str | None,
        entities: list[Entity],
        reply_markup: JSON | None,
    ) -> None:
        message.history.append(
            MessageVersion(
                date=message.edit_date or message.date,
                text=message.text,
                entities=message.entities,
                reply_markup=message.reply_markup,
            )
        )
        message.text = text
        message.entities = entities
        message.reply_markup = reply_markup
        message.edit_date = int(time.time())
        self._emit(ServerEvent("edit", message))

    async def _api_deleteMessage(self, bot: FakeBot, params: Params) -> bool:
        chat = self._resolve_chat(bot, params)
        message = self._find_message(chat, params, "message to delete not found")
        if chat.is_group and message.bot is not bot and bot.id not in chat.bot_admins:
            raise bad_request("message can't be deleted")
        message.deleted = True
        self._emit(ServerEvent("delete", message))
        return True

    async def _api_answerCallbackQuery(self, bot: FakeBot, params: Params) -> bool:
        query_id = params.string("callback_query_id")
        query = self._queries.get(query_id or "")
        if query is None or query.bot is not bot or query.answered:
            raise bad_request(QUERY_TOO_OLD)
        text = params.string("text")
        if text is not None and utf16_len(text) > MAX_ALERT:
            raise bad_request("MESSAGE_TOO_LONG")
        answer = CallbackAnswer(
            text=text,
            show_alert=params.flag("show_alert"),
            url=params.string("url"),
            cache_time=params.integer("cache_time") or 0,
        )
        query._set_answer(answer)
        self._emit(ServerEvent("answer", query=query))
        return True

    async def _api_getChat(self, bot: FakeBot, params: Params) -> JSON:
        chat = self._resolve_chat(bot, params)
        info = chat.to_dict()
        info.update(
            accent_color_id=0,
            max_reaction_count=11,
            accepted_gift_types={
                "unlimited_gifts": True,
                "limited_gifts": True,
                "unique_gifts": True,
                "premium_subscription": True,
                "gifts_from_channels": True,
            },
        )
        return info

    def _member(self, chat: Chat, user_id: int, bot: FakeBot) -> JSON:
        if user_id in chat.bots:
            return self._bot_member(chat, chat.bots[user_id])
        if user_id in chat.removed_bots:
            gone = next((b for b in self.bots.values() if b.id == user_id), None)
            if gone is not None:
                return self._bot_member(chat, gone)
        user = self.users.get(user_id)
        if user is None and user_id == bot.id:
            return _chat_member(bot.to_dict(), "member")
        if user is None:
            raise bad_request("user not found")
        if chat.is_private:
            if chat.user is not user:
                raise bad_request("user not found")
            return _chat_member(user.to_dict(), "member")
        if user_id not in chat.members:
            return _chat_member(user.to_dict(), "left")
        if user_id == chat.creator_id:
            return _chat_member(user.to_dict(), "creator")
        if user_id in chat.admins:
            return _chat_member(user.to_dict(), "administrator")
        return _chat_member(user.to_dict(), "member")

    async def _api_getChatMember(self, bot: FakeBot, params: Params) -> JSON:
        chat = self._resolve_chat(bot, params)
        user_id = params.integer("user_id")
        if user_id is None:
            raise bad_request("user_id is empty")
        if chat.is_private and user_id == bot.id:
            return _chat_member(bot.to_dict(), "member")
        return self._member(chat, user_id, bot)

    async def _api_getChatAdministrators(self, bot: FakeBot, params: Params) -> list[JSON]:
        chat = self._resolve_chat(bot, params)
        if chat.is_private:
            raise bad_request("there are no administrators in the private chat")
        ids = [uid for uid in chat.members if uid in chat.admins]
        ids.sort(key=lambda uid: uid != chat.creator_id)
        return [self._member(chat, uid, bot) for uid in [*ids, *sorted(chat.bot_admins)]]

    async def _api_getChatMemberCount(self, bot: FakeBot, params: Params) -> int:
        chat = self._resolve_chat(bot, params)
        return 2 if chat.is_private else len(chat.members) + len(chat.bots)

    async def _api_sendChatAction(self, bot: FakeBot, params: Params) -> bool:
        chat = self._resolve_chat(bot, params)
        self._check_can_write(bot, chat)
        if params.string("action") not in CHAT_ACTIONS:
            raise bad_request("wrong parameter action in request")
        return True


def _update_type(update: JSON) -> str:
    return next((key for key in update if key != "update_id"), "")


def _wanted(bot: FakeBot, update: JSON) -> bool:
    """Whether the bot's allowed_updates let this update through: the types it listed, or
    (none listed, or an empty list) every type but chat_member and the reaction updates."""
    kind = _update_type(update)
    if bot.allowed_updates:
        return kind in bot.allowed_updates
    return kind not in NOT_BY_DEFAULT


def _chat_member(user: JSON, status: str) -> JSON:
    member: JSON = {"status": status, "user": user}
    if status == "creator":
        member["is_anonymous"] = False
    elif status == "administrator":
        member.update(
            can_be_edited=False,
            is_anonymous=False,
            can_manage_chat=True,
            can_delete_messages=True,
            can_manage_video_chats=True,
            can_restrict_members=True,
            can_promote_members=False,
            can_change_info=True,
            can_invite_users=True,
            can_post_stories=False,
            can_edit_stories=False,
            can_delete_stories=False,
            can_pin_messages=True,
        )
    return member


def _restricted_member(user: JSON, permissions: JSON) -> JSON:
    """A ChatMemberRestricted with every field the reference requires; the media rights follow
    can_send_photos, the rest of the sending rights can_send_messages."""
    text = bool(permissions.get("can_send_messages", True))
    media = bool(permissions.get("can_send_photos", True))
    return {
        "status": "restricted",
        "user": user,
        "is_member": True,
        "can_send_messages": text,
        "can_send_audios": media,
        "can_send_documents": media,
        "can_send_photos": media,
        "can_send_videos": media,
        "can_send_video_notes": media,
        "can_send_voice_notes": media,
        "can_send_polls": text,
        "can_send_other_messages": text,
        "can_add_web_page_previews": text,
        "can_react_to_messages": True,
        "can_edit_tag": False,
        "can_change_info": False,
        "can_invite_users": True,
        "can_pin_messages": False,
        "can_manage_topics": False,
        "until_date": 0,
    }


def _image_size(data: bytes) -> tuple[int, int] | None:
    """Width and height of a PNG, GIF, JPEG, WebP or BMP; None if it is not an image."""
    if data.startswith(b"\x89PNG\r\n\x1a\n") and len(data) >= 24:
        width, height = struct.unpack(">II", data[16:24])
        return int(width), int(height)
    if data[:6] in (b"GIF87a", b"GIF89a") and len(data) >= 10:
        width, height = struct.unpack("<HH", data[6:10])
        return int(width), int(height)
    if data.startswith(b"BM") and len(data) >= 26:
        width, height = struct.unpack("<ii", data[18:26])
        return abs(int(width)), abs(int(height))
    if data.startswith(b"RIFF") and data[8:12] == b"WEBP":
        return 512, 512
    if data.startswith(b"\xff\xd8"):
        i = 2
        while i + 9 < len(data):
            if data[i] != 0xFF:
                i += 1
                continue
            marker = data[i + 1]
            if marker in (0xC0, 0xC1, 0xC2):
                height, width = struct.unpack(">HH", data[i + 5 : i + 9])
                return int(width), int(height)
            (length,) = struct.unpack(">H", data[i + 2 : i + 4])
            i += 2 + int(length)
        return 320, 320
    return None


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


class ServerThread:
    """A BotApiServer on its own event loop in a daemon thread, for synchronous callers
    (the sandbox's terminal loop). Use `call()` to run anything that touches the server."""

    def __init__(self, server_factory: Callable[[], BotApiServer] = BotApiServer) -> None:
        self._factory = server_factory
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True, name="botapi")
        self._server: BotApiServer | None = None

    @property
    def server(self) -> BotApiServer:
        if self._server is None:
            raise RuntimeError("ServerThread is not started")
        return self._server

    def start(self) -> BotApiServer:
        self._thread.start()

        async def create() -> BotApiServer:
            # Created on the server's loop so its asyncio objects belong there.
            return await self._factory().start()

        self._server = self.call(create())
        return self._server

    def call(self, coroutine: Coroutine[Any, Any, T], timeout: float | None = 30.0) -> T:
        """Run a coroutine on the server's loop and return its result."""
        return asyncio.run_coroutine_threadsafe(coroutine, self._loop).result(timeout)

    def run(self, function: Callable[[], T], timeout: float | None = 30.0) -> T:
        """Run a plain function on the server's loop (for non-thread-safe reads and writes)."""

        async def wrapper() -> T:
            return function()

        return self.call(wrapper(), timeout)

    def stop(self) -> None:
        if self._server is not None:
            self.call(self._server.stop())
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=5)
        self._loop.close()

    def __enter__(self) -> BotApiServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
