"""The e2e harness's read-only look into the bot's database when it is PostgreSQL.

The harness's checks are synchronous (`Database.query`), asyncpg is not: the connection lives on
an event loop of its own in a background thread, and each query waits for its result there.
The queries are the SQLite ones with their placeholders renumbered; the one that reads JSON
inside SQL is written again for PostgreSQL.
"""

from __future__ import annotations

import asyncio
import re
import threading
from pathlib import Path
from typing import Any

import asyncpg

from tests.e2e.conftest import Database

_PLACEHOLDER = re.compile(r"\?")


def numbered(sql: str) -> str:
    """SQLite's ``?`` placeholders as PostgreSQL's ``$1, $2, …`` (none of our queries has a
    question mark inside a string)."""
    count = 0

    def next_number(_match: re.Match[str]) -> str:
        nonlocal count
        count += 1
        return f"${count}"

    return _PLACEHOLDER.sub(next_number, sql)


class PostgresDatabase(Database):
    def __init__(self, url: str) -> None:
        super().__init__(Path("/nonexistent"))
        self.url = url
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._thread.start()
        self._conn: asyncpg.Connection | None = None

    def _run(self, coroutine: Any) -> Any:
        return asyncio.run_coroutine_threadsafe(coroutine, self._loop).result(30)

    def query(self, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        if self._conn is None:
            self._conn = self._run(asyncpg.connect(self.url))
        conn = self._conn
        rows = self._run(conn.fetch(numbered(sql), *params))
        return [tuple(row) for row in rows]

    def publishing(self, chat_id: int) -> tuple[int, int, int | None, str] | None:
        rows = self.query(
            "SELECT games.game_id, (SELECT count(*) FROM json_array_elements("
            "coalesce(state::json -> 'meta' -> 'outbox', '[]'::json)) AS item "
            "WHERE (item ->> 'seq')::bigint > coalesce(screens.posted_seq, 0)), "
            "table_message_id, status FROM games "
            "LEFT JOIN screens ON screens.game_id = games.game_id "
            "WHERE chat_id = ? ORDER BY games.game_id DESC LIMIT 1",
            (chat_id,),
        )
        return (int(rows[0][0]), int(rows[0][1]), rows[0][2], str(rows[0][3])) if rows else None

    def close(self) -> None:
        if self._conn is not None:
            self._run(self._conn.close())
            self._conn = None
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(5)
