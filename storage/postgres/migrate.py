"""The PostgreSQL runner of the migrations (storage/migrations, the steps of both backends).

The version is recorded in the one-row table schema_version (no such table: version
0), in the transaction of the step that produced it, so that a crash leaves the database at
the previous or the next version, never in between.

Several bot processes may start at once against one database: a process with steps to apply
takes a session advisory lock, then reads the version again, so that exactly one process
applies each step and the others find it done.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import suppress
from typing import Final

from storage.errors import DatabaseTooNew
from storage.migrations import MIGRATIONS, Migration, run_step
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


class _StepDb:
    """A step's view of the connection (storage.migrations.StepDb)."""

    dialect = POSTGRESQL

    def __init__(self, conn: Connection) -> None:
        self._conn = conn

    async def script(self, script: str) -> None:
        await self._conn.execute(script)  # no arguments: the simple protocol runs it whole

    async def rows(self, sql: str, *args: object) -> list[Row]:
        return await self._conn.fetch(POSTGRESQL.sql(sql), *args)

    async def execute(self, sql: str, *args: object) -> None:
        await self._conn.execute(POSTGRESQL.sql(sql), *args)


async def schema_version(conn: Connection) -> int:
    """The database's schema version (0 for a database this bot never migrated), read without
    writing anything."""
    exists = await conn.fetchrow("SELECT to_regclass('schema_version') IS NOT NULL")
    if exists is None or not exists[0]:
        return 0
    return await _recorded_version(conn)


async def _recorded_version(conn: Connection) -> int:
    # A read of the table itself, not a catalog lookup like to_regclass: it locks the table,
    # and PostgreSQL catches up with the catalog changes committed meanwhile before it reads.
    row = await conn.fetchrow("SELECT version FROM schema_version")
    return 0 if row is None else int(row[0])


async def migrate(conn: Connection, steps: Sequence[Migration] = MIGRATIONS) -> int:
    """Bring the database up to `len(steps)`; returns the number of steps applied here.

    A database newer than the steps is refused with DatabaseTooNew before anything is written.
    The advisory lock is the session's, taken before any step's transaction begins: a lock
    taken inside the transaction would leave it with the catalog as it was before the wait
    (to_regclass does not see a table another process created meanwhile), and two processes
    starting at once would both create the first step's tables.
    """
    supported = len(steps)
    current = await schema_version(conn)
    if current > supported:
        raise DatabaseTooNew(current, supported)
    if current == supported:
        return 0
    applied = 0
    await conn.execute("SELECT pg_advisory_lock($1)", MIGRATION_LOCK)
    try:
        while True:
            # Another process may have migrated while we waited for the lock.
            current = await schema_version(conn)
            if current > supported:
                raise DatabaseTooNew(current, supported)
            if current == supported:
                return applied
            step = steps[current]
            transaction = conn.transaction()
            await transaction.start()
            try:
                await conn.execute(_VERSION_TABLE)
                await run_step(step, _StepDb(conn))
                await conn.execute(_RECORD_VERSION, current + 1)
                await transaction.commit()
            except BaseException:
                # The step's error is the one worth raising, not a failed rollback's (the pool
                # resets or discards the connection anyway).
                with suppress(*DRIVER_ERRORS):
                    await transaction.rollback()
                raise
            applied += 1
    finally:
        with suppress(*DRIVER_ERRORS):
            await conn.execute("SELECT pg_advisory_unlock($1)", MIGRATION_LOCK)
