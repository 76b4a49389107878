"""Chat settings and users, the two tables read on every action (hence cached)."""

from __future__ import annotations

from storage.jsontext import dumps_sorted, loads
from storage.models import UNSET, ChatSettings, Unset, User
from storage.sqlite.base import SqliteReads
from storage.sqlite.block import TransactionBlock
from storage.sqlite.cache import MISS, private_settings, remember


class ChatReads(SqliteReads):
    """The uncached reads of chats and users; the cached get_chat and get_user are built on
    them by the storage object and by ChatWrites."""

    async def _fetch_chat(self, chat_id: int) -> ChatSettings:
        """The chat's settings from the database (get_chat adds the cache)."""
        row = await self._row(
            "SELECT language, preset, overrides, turn_timeout, house_banker, daily_refill "
            "FROM chats WHERE chat_id = ?",
            (chat_id,),
        )
        if row is None:
            return ChatSettings(chat_id, language=self._default_language)
        return ChatSettings(
            chat_id=chat_id,
            language=row[0],
            preset=row[1],
            overrides=loads(row[2]),
            turn_timeout=row[3],
            house_banker=bool(row[4]),
            daily_refill=bool(row[5]),
        )

    async def _fetch_user(self, user_id: int) -> User | None:
        """The user from the database (get_user adds the cache)."""
        row = await self._row(
            "SELECT name, language, private_opened, client_language FROM users WHERE user_id = ?",
            (user_id,),
        )
        if row is None:
            return None
        return User(user_id, row[0], row[1], bool(row[2]), row[3])


class ChatWrites(ChatReads, TransactionBlock):
    """Chats and users inside a transaction: the caches are read only for rows no block of the
    batch has written, and a write evicts its row."""

    async def get_chat(self, chat_id: int) -> ChatSettings:
        if chat_id in self._writes.chats:
            return await self._fetch_chat(chat_id)
        cached = self._caches.chats.get(chat_id, MISS)
        if cached is not MISS:
            self._live()
            return private_settings(cached)
        settings = await self._fetch_chat(chat_id)
        remember(self._caches.chats, chat_id, settings)
        return private_settings(settings)

    async def get_user(self, user_id: int) -> User | None:
        if user_id in self._writes.users:
            return await self._fetch_user(user_id)
        cached = self._caches.users.get(user_id, MISS)
        if cached is not MISS:
            self._live()
            return cached
        user = await self._fetch_user(user_id)
        remember(self._caches.users, user_id, user)
        return user

    async def upsert_user(
        self,
        user_id: int,
        name: str,
        *,
        language: str | Unset | None = UNSET,
        private_opened: bool | Unset = UNSET,
        client_language: str | Unset | None = UNSET,
    ) -> User:
        old = await self.get_user(user_id)
        user = User(
            user_id=user_id,
            name=name,
            language=(
                language
                if not isinstance(language, Unset)
                else (old.language if old is not None else None)
            ),
            private_opened=(
                private_opened
                if not isinstance(private_opened, Unset)
                else (old.private_opened if old is not None else False)
            ),
            client_language=(
                client_language
                if not isinstance(client_language, Unset)
                else (old.client_language if old is not None else None)
            ),
        )
        self._writes.users.add(user_id)
        self._caches.users.pop(user_id, None)
        await self._execute(
            "INSERT INTO users (user_id, name, language, private_opened, client_language) "
            "VALUES (?, ?, ?, ?, ?) ON CONFLICT (user_id) DO UPDATE SET name = excluded.name, "
            "language = excluded.language, private_opened = excluded.private_opened, "
            "client_language = excluded.client_language",
            (
                user.user_id,
                user.name,
                user.language,
                int(user.private_opened),
                user.client_language,
            ),
        )
        return user

    async def save_chat_settings(self, settings: ChatSettings) -> None:
        self._writes.chats.add(settings.chat_id)
        self._caches.chats.pop(settings.chat_id, None)
        await self._execute(
            "INSERT INTO chats (chat_id, language, preset, overrides, turn_timeout, house_banker, "
            "daily_refill) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (chat_id) DO UPDATE SET "
            "language = excluded.language, preset = excluded.preset, "
            "overrides = excluded.overrides, turn_timeout = excluded.turn_timeout, "
            "house_banker = excluded.house_banker, daily_refill = excluded.daily_refill",
            (
                settings.chat_id,
                settings.language,
                settings.preset,
                dumps_sorted(dict(settings.overrides)),
                settings.turn_timeout,
                int(settings.house_banker),
                int(settings.daily_refill),
            ),
        )
