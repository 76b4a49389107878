"""What every table module builds on: the reads (a storage object's or a transaction's) and the
writes of a transaction, over the few primitives each backend provides (statements with `$1`
placeholders, which the backend rewrites through its dialect, storage/sql/dialect.py).

SQLite's transaction runs them synchronously on the event loop's thread
(storage/sqlite/block.py): its coroutines never suspend, so awaiting one costs a call, not a
trip through the event loop.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Sequence
from typing import Any, ClassVar

from storage.sql.dialect import Dialect

# A result row, read by position (a tuple from sqlite3, a Record from asyncpg).
Row = Sequence[Any]


class TableReads(ABC):
    """Single-statement reads, shared by the storage object and its transactions: each sees one
    consistent snapshot even without a transaction."""

    _dialect: ClassVar[Dialect]
    _clock: Callable[[], float]
    # The language of a chat that never saved its settings (the bot's DEFAULT_LANGUAGE).
    _default_language: str = "ru"

    @abstractmethod
    async def _rows(self, sql: str, *args: object) -> list[Row]: ...

    async def _row(self, sql: str, *args: object) -> Row | None:
        rows = await self._rows(sql, *args)
        return rows[0] if rows else None

    async def _column(self, sql: str, *args: object) -> list[Any]:
        return [row[0] for row in await self._rows(sql, *args)]

    async def _tuples(self, sql: str, *args: object) -> list[Any]:
        """The rows as tuples (an asyncpg Record is not one)."""
        return [tuple(row) for row in await self._rows(sql, *args)]


class TableWrites(TableReads):
    """A transaction's statements: what the write mixins of the table modules run on."""

    @abstractmethod
    async def _execute(self, sql: str, *args: object) -> int: ...  # the rows written

    @abstractmethod
    async def _executemany(self, sql: str, rows: Iterable[Sequence[object]]) -> None: ...

    async def _execute_all(self, statements: Sequence[tuple[str, Sequence[object]]]) -> None:
        """Run writes that depend on nothing the others write, each on different rows: one
        after the other here; PostgreSQL's block sends them as one statement (data-modifying
        CTEs), one round trip instead of several."""
        for sql, args in statements:
            await self._execute(sql, *args)

    def _wrote_chat(self, chat_id: int) -> None:
        """The chat's settings row is being written (a backend that caches it forgets it)."""

    def _wrote_user(self, user_id: int) -> None:
        """The user's row is being written (a backend that caches it forgets it)."""
