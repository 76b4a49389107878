"""The PostgreSQL side of the migrations (storage/migrations): the version is recorded in the
one-row table schema_version (no such table: version 0), and the steps are applied under a
session advisory lock, so that of several processes starting at once exactly one applies each.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress
from typing import Final

from storage.migrations import StepDb
from storage.postgres.driver import DRIVER_ERRORS, Connection
from storage.sql.base import Row
from storage.sql.dialect import POSTGRESQL

# The key of the advisory lock the steps are applied under: above 2**62, so that it can never
# be a Telegram chat id (below 2**53), the keys migrate_chat locks chats by.
MIGRATION_LOCK: Final = 0x6F63686B6F5F6462  # "ochko_db"

# A one-row table: the single column's primary key and CHECK allow no second row.
_VERSION_TABLE: Final = (
    "CREATE TABLE IF NOT EXISTS schema_version ("
    " single BOOLEAN PRIMARY KEY DEFAULT true CHECK (single),"
    " version INTEGER NOT NULL)"
)
_RECORD_VERSION: Final = (
    "INSERT INTO schema_version (version) VALUES ($1) "
    "ON CONFLICT (single) DO UPDATE SET version = EXCLUDED.version"
)


class PostgresStepDb(StepDb):
    dialect = POSTGRESQL

    def __init__(self, conn: Connection) -> None:
        self._conn = conn

    async def script(self, script: str) -> None:
        await self._conn.execute(script)  # no arguments: the simple protocol runs it whole

    async def rows(self, sql: str, *args: object) -> list[Row]:
        return await self._conn.fetch(POSTGRESQL.sql(sql), *args)

    async def execute(self, sql: str, *args: object) -> None:
        await self._conn.execute(POSTGRESQL.sql(sql), *args)

    async def version(self) -> int:
        exists = await self._conn.fetchrow("SELECT to_regclass('schema_version') IS NOT NULL")
        if exists is None or not exists[0]:
            return 0
        # A read of the table itself, not a catalog lookup like to_regclass: it locks the table,
        # and PostgreSQL catches up with the catalog changes committed meanwhile before it reads.
        row = await self._conn.fetchrow("SELECT version FROM schema_version")
        return 0 if row is None else int(row[0])

    async def record(self, version: int) -> None:
        await self._conn.execute(_VERSION_TABLE)
        await self._conn.execute(_RECORD_VERSION, version)

    @asynccontextmanager
    async def exclusive(self) -> AsyncIterator[None]:
        # The session's lock, taken before any step's transaction begins: a lock taken inside
        # the transaction would leave it with the catalog as it was before the wait
        # (to_regclass does not see a table another process created meanwhile), and two
        # processes starting at once would both create the first step's tables.
        await self._conn.execute("SELECT pg_advisory_lock($1)", MIGRATION_LOCK)
        try:
            yield
        finally:
            with suppress(*DRIVER_ERRORS):
                await self._conn.execute("SELECT pg_advisory_unlock($1)", MIGRATION_LOCK)

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[None]:
        transaction = self._conn.transaction()
        await transaction.start()
        try:
            yield
            await transaction.commit()
        except BaseException:
            # The step's error is the one worth raising, not a failed rollback's (the pool
            # resets or discards the connection anyway).
            with suppress(*DRIVER_ERRORS):
                await transaction.rollback()
            raise
