"""Chat settings and users, the two tables read on every action: primary-key lookups, which the
SQLite backend caches (storage/sqlite/cache.py: one bot process owns its database) and the
PostgreSQL backend reads each time (another process's write would leave a copy stale).

upsert_user is one INSERT … ON CONFLICT DO UPDATE that keeps the stored value of every field
left UNSET, so that on PostgreSQL a concurrent update of another field is not lost between a
read and the write; save_chat_settings replaces the whole row, also in one upsert. A change
that reads the settings it then saves (the service's changes of settings) first takes the row's
lock, lock_chat (PostgreSQL; on SQLite BEGIN IMMEDIATE holds the only write lock): a
concurrent change reads the row only once this one has committed.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Final

from storage.jsontext import dumps_sorted, loads
from storage.models import UNSET, ChatSettings, Unset, User
from storage.sql.base import TableReads, TableWrites

# An insert takes the values given (the defaults for UNSET fields); an update keeps the stored
# value of each field whose flag ($6, $7, $8) says it was left UNSET.
_UPSERT_USER: Final = (
    "INSERT INTO users AS u (user_id, name, language, private_opened, client_language) "
    "VALUES ($1, $2, $3, $4, $5) ON CONFLICT (user_id) DO UPDATE SET name = EXCLUDED.name, "
    "language = CASE WHEN $6 THEN EXCLUDED.language ELSE u.language END, "
    "private_opened = CASE WHEN $7 THEN EXCLUDED.private_opened ELSE u.private_opened END, "
    "client_language = CASE WHEN $8 THEN EXCLUDED.client_language "
    " ELSE u.client_language END "
    "RETURNING name, language, private_opened, client_language"
)
# The chat's settings (NULLs when it never saved any) and the champion of its last season.
_GET_CHAT: Final = (
    "SELECT c.language, c.preset, c.overrides, c.turn_timeout, c.house_banker, "
    "c.daily_refill, c.notices_per_hour, c.season, c.utc_offset, s.champion_id, s.champion_until "
    "FROM (SELECT CAST($1 AS BIGINT) AS chat_id) AS k "
    "LEFT JOIN chats AS c ON c.chat_id = k.chat_id "
    "LEFT JOIN seasons AS s ON s.chat_id = k.chat_id AND s.ends_at = "
    " (SELECT max(ends_at) FROM seasons WHERE chat_id = k.chat_id)"
)
# The row of _chat_row, then what to do if the chat has one already.
_INSERT_CHAT: Final = (
    "INSERT INTO chats (chat_id, language, preset, overrides, turn_timeout, house_banker, "
    "daily_refill, notices_per_hour, season, utc_offset) "
    "VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) "
    "ON CONFLICT (chat_id) DO "
)
_SAVE_CHAT: Final = _INSERT_CHAT + (
    "UPDATE SET language = EXCLUDED.language, preset = EXCLUDED.preset, "
    "overrides = EXCLUDED.overrides, turn_timeout = EXCLUDED.turn_timeout, "
    "house_banker = EXCLUDED.house_banker, daily_refill = EXCLUDED.daily_refill, "
    "notices_per_hour = EXCLUDED.notices_per_hour, season = EXCLUDED.season, "
    "utc_offset = EXCLUDED.utc_offset"
)


class ChatReads(TableReads):
    async def get_chat(self, chat_id: int) -> ChatSettings:
        row = await self._row(_GET_CHAT, chat_id)
        assert row is not None  # one row, whether or not the chat has settings
        (
            language,
            preset,
            overrides,
            timeout,
            house,
            refill,
            notices,
            season,
            offset,
            champion,
            until,
        ) = row
        if language is None:
            settings = ChatSettings(chat_id, language=self._default_language)
        else:
            settings = ChatSettings(
                chat_id,
                language,
                preset,
                loads(overrides),
                timeout,
                bool(house),
                bool(refill),
                notices,
                season,
                offset,
            )
        if champion is None:
            return settings
        return replace(settings, champion=champion, champion_until=until)

    async def get_user(self, user_id: int) -> User | None:
        row = await self._row(
            "SELECT name, language, private_opened, client_language FROM users WHERE user_id = $1",
            user_id,
        )
        return None if row is None else User(user_id, row[0], row[1], bool(row[2]), row[3])


class ChatWrites(TableWrites):
    async def upsert_user(
        self,
        user_id: int,
        name: str,
        *,
        language: str | Unset | None = UNSET,
        private_opened: bool | Unset = UNSET,
        client_language: str | Unset | None = UNSET,
    ) -> User:
        self._wrote_user(user_id)
        row = await self._row(
            _UPSERT_USER,
            user_id,
            name,
            None if isinstance(language, Unset) else language,
            False if isinstance(private_opened, Unset) else bool(private_opened),
            None if isinstance(client_language, Unset) else client_language,
            not isinstance(language, Unset),
            not isinstance(private_opened, Unset),
            not isinstance(client_language, Unset),
        )
        assert row is not None  # an upsert always returns its row
        return User(user_id, row[0], row[1], bool(row[2]), row[3])

    async def lock_chat(self, chat_id: int) -> None:
        # PostgreSQL: the row is created first (with the settings get_chat would give, which the
        # caller then saves, or its rollback removes), since a missing row cannot be locked; two
        # first changes of a chat wait for each other on its key. SQLite: nothing to do.
        if not self._dialect.concurrent:
            return
        default = ChatSettings(chat_id, language=self._default_language)
        await self._execute(_INSERT_CHAT + "NOTHING", *_chat_row(default))
        await self._row("SELECT 1 FROM chats WHERE chat_id = $1{lock}", chat_id)

    async def save_chat_settings(self, settings: ChatSettings) -> None:
        self._wrote_chat(settings.chat_id)
        await self._execute(_SAVE_CHAT, *_chat_row(settings))


def _chat_row(settings: ChatSettings) -> tuple[object, ...]:
    return (
        settings.chat_id,
        settings.language,
        settings.preset,
        # Sorted keys: the same text in either database, whatever the order of the dict.
        dumps_sorted(dict(settings.overrides)),
        settings.turn_timeout,
        bool(settings.house_banker),
        bool(settings.daily_refill),
        settings.notices_per_hour,
        settings.season,
        settings.utc_offset,
    )
