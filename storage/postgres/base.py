"""What every table module of the PostgreSQL backend builds on: the base class of the
single-statement reads, and the JSON text of every write (storage/jsontext.py, as the SQLite
backend's, so that both store the same text).

Lists of values (ids, a batch of ledger rows) also go to the server as JSON text, unpacked there
by jsonb_array_elements_text or jsonb_to_recordset, rather than as arrays: asyncpg learns an
array type by introspecting the server once per new connection, which costs more (about 10 ms)
than a whole action, and a pool opens connections as load comes.
"""

from __future__ import annotations

from abc import abstractmethod

from storage.interface import Reads
from storage.jsontext import dumps
from storage.postgres.driver import Record

__all__ = ["PostgresReads", "Record", "dumps"]


class PostgresReads(Reads):
    """Single-statement reads, shared by the storage object and its transactions.

    Each read is one statement, so it sees one snapshot even outside a transaction: under READ
    COMMITTED every statement sees what was committed when it began, never half a transaction.
    """

    # The language of a chat that never saved its settings (the bot's DEFAULT_LANGUAGE).
    _default_language: str = "ru"

    @abstractmethod
    async def _rows(self, sql: str, *args: object) -> list[Record]:
        """All rows of one statement (the storage object on any pooled connection, a
        transaction on its own)."""

    async def _row(self, sql: str, *args: object) -> Record | None:
        rows = await self._rows(sql, *args)
        return rows[0] if rows else None
