"""What the fake Telegram knows, and the primitives every part of the server uses.

`World` holds the server's whole state (`__init__`): bots, people, groups and private chats,
messages, callback queries, the request log. It creates the accounts and chats tests start from,
lets people write and press buttons (each delivered to the bots as an update), tells listeners
about every change, and resolves a call's chat_id the way Telegram does (403 for a bot kicked or
never started, 400 after an upgrade, 429 over the flood limits). The model objects
(localbotapi/models.py) hold a `World`; `BotApiServer` adds the API methods and the HTTP layer.
The ChatMember objects a bot is told or asks about are localbotapi/members.py's.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import itertools
import re
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal, TypeVar

from aiohttp import ClientSession, web

from .entities import Entity, detect_entities
from .flood import FloodControl, FloodLimits
from .models import JSON, CallbackQuery, Chat, FakeBot, FakeUser, Message, RequestRecord
from .wire import ApiError, Handler, Params, bad_request

T = TypeVar("T")
TOKEN_RE = re.compile(r"^(\d+):[A-Za-z0-9_-]{20,}$")
UPGRADED = "group chat was upgraded to a supergroup chat"
NO_RIGHTS = {
    "can_send_messages": "not enough rights to send text messages to the chat",
    "can_send_photos": "not enough rights to send photos to the chat",
}


@dataclass(frozen=True)
class ServerEvent:
    """What listeners (the sandbox) hear about: "new", "edit", "delete" or "answer"."""

    kind: str
    message: Message | None = None
    query: CallbackQuery | None = None


class World:
    """The server's state and the world tests build and act in (see the module docstring)."""

    _METHODS: tuple[str, ...]
    """The Bot API methods served, each by its `_api_<name>` (listed by BotApiServer)."""

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
        # name -> the address a person's Telegram opens a Mini App at, made anew (freshly
        # signed) at each open: `GET /open/<name>` redirects there (the sandbox's short links).
        self.launchers: dict[str, Callable[[], str]] = {}
        self.failures: dict[str, list[tuple[int | None, ApiError]]] = {}
        """Answers queued by `fail_next`, by lower-case method: (chat id or None, error)."""
        self._runner: web.AppRunner | None = None
        self._session: ClientSession | None = None
        self._closing = False
        self._methods: dict[str, Handler] = {
            name.lower(): getattr(self, f"_api_{name}") for name in self._METHODS
        }

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

    # -------------------------------------------------------------------------- observation

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

    # ------------------------------------------------------------------------------- people

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
        message = chat._post(
            user.to_dict(),
            text=text,
            entities=entities if entities is not None else detect_entities(text),
            thread_id=thread_id,
            reply_to=replied,
        )
        return self._deliver(message)

    def _deliver(self, message: Message) -> Message:
        """Tell the chat's bots (a private chat's bot, a group's every bot) and the listeners
        about a new message of a person or of Telegram."""
        chat = message.chat
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

    # ------------------------------------------------------------------------ a call's chat

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
