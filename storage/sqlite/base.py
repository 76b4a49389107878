"""What every table module of the SQLite backend builds on: the row and parameter types and the
base class of the single-statement reads."""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Mapping, Sequence
from typing import Any

from storage.interface import Reads

Row = Sequence[Any]
Params = Sequence[Any] | Mapping[str, Any]


class SqliteReads(Reads):
    """Single-statement reads, shared by the storage object and its transactions.

    Each read is one statement, so it sees one consistent snapshot even without a transaction.
    """

    # The language of a chat that never saved its settings (the bot's DEFAULT_LANGUAGE).
    _default_language: str = "ru"

    @abstractmethod
    async def _rows(self, sql: str, params: Params = ()) -> list[Row]:
        """All rows of one statement (the storage object takes its lock, a transaction not)."""

    async def _row(self, sql: str, params: Params = ()) -> Row | None:
        rows = await self._rows(sql, params)
        return rows[0] if rows else None
