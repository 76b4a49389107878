"""PostgresStorage, the owner of a process's asyncpg pool: the start-up check and migrations,
the reads outside transactions (any pooled connection) and the transactions (each on a
connection of its own from BEGIN to COMMIT)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager, suppress
from typing import Any, Final

from storage.errors import ConcurrencyConflict, StorageError, TransactionClosed, redact_url
from storage.migrations import MIGRATIONS, Migration, migrate
from storage.postgres.block import PostgresTransaction
from storage.postgres.driver import (
    DRIVER_ERRORS,
    Pool,
    Record,
    create_pool,
    describe,
    read_committed,
    translated,
)
from storage.postgres.migrate import PostgresStepDb
from storage.sql import Storage
from storage.sql.dialect import POSTGRESQL

# Connections of the pool: a transaction holds one from BEGIN to COMMIT, a read for one
# statement; more transactions than this wait for a connection to come back.
POOL_MAX: Final = 10
# A DSN asyncpg cannot parse is a ValueError, raised when the pool connects.
_CONNECT_ERRORS: Final[tuple[type[Exception], ...]] = (*DRIVER_ERRORS, ValueError)


def _rolled_back(failure: StorageError) -> StorageError:
    """The error of a block that went on after one of its statements failed."""
    kind = ConcurrencyConflict if isinstance(failure, ConcurrencyConflict) else StorageError
    error = kind(f"the transaction was rolled back, a statement of it failed: {failure}")
    error.__cause__ = failure
    return error


class PostgresStorage(Storage):
    """PostgreSQL through an asyncpg pool (`pool_max` connections at most, one kept open).

    Nothing read is kept in memory: another process's write would make the copy stale. A
    transaction that loses a race raises ConcurrencyConflict: nothing of it was committed.
    """

    _dialect = POSTGRESQL

    def __init__(
        self,
        dsn: str,
        *,
        pool_max: int = POOL_MAX,
        clock: Callable[[], float] = time.time,
        migrations: Sequence[Migration] = MIGRATIONS,
        default_language: str = "ru",
    ) -> None:
        if pool_max < 1:
            raise ValueError(f"pool_max must be at least 1, got {pool_max}")
        self._dsn = dsn
        self.url = redact_url(dsn)  # for messages: the password hidden
        self.pool_max = pool_max
        self._clock = clock
        self._migrations = tuple(migrations)
        self._default_language = default_language
        self._pool: Pool | None = None
        self._owners: set[asyncio.Task[Any]] = set()

    async def start(self) -> None:
        if self._pool is not None:
            raise StorageError("storage is already started")
        try:
            pool = await create_pool(self._dsn, min_size=1, max_size=self.pool_max)
        except _CONNECT_ERRORS as error:
            raise StorageError(
                f"cannot connect to database {self.url!r}: {describe(error)}"
            ) from error
        try:
            conn = await pool.acquire()
            try:
                await migrate(PostgresStepDb(conn), self._migrations)
            finally:
                await pool.release(conn)
        except DRIVER_ERRORS as error:
            pool.terminate()
            raise StorageError(
                f"database {self.url!r} could not be checked or migrated: {describe(error)}"
            ) from error
        except BaseException:
            pool.terminate()
            raise
        self._pool = pool

    async def stop(self) -> None:
        pool, self._pool = self._pool, None
        if pool is not None:
            await pool.close()  # waits for the transactions under way to give their connection back

    def _live_pool(self) -> Pool:
        if self._pool is None:
            raise TransactionClosed("storage is not started")
        return self._pool

    async def _rows(self, sql: str, *args: object) -> list[Record]:
        self._check_not_owner()
        return await translated(self._live_pool().fetch(POSTGRESQL.sql(sql), *args))

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[PostgresTransaction]:
        task = self._check_not_owner()
        pool = self._live_pool()
        conn = await translated(pool.acquire())
        try:
            server = read_committed(conn)
            await translated(server.start())
            tx = PostgresTransaction(conn, self._clock, self._default_language)
            owners = {task} if task is not None else set()
            self._owners |= owners
            try:
                yield tx
            except BaseException:
                tx._close()
                self._owners -= owners
                # The block's error is the one worth raising, not a failed ROLLBACK's: the
                # pool then resets or discards the connection.
                with suppress(*DRIVER_ERRORS):
                    await server.rollback()
                raise
            tx._close()
            self._owners -= owners
            if tx._failed is not None:
                # The block caught a statement's error and went on: nothing of it can commit.
                with suppress(*DRIVER_ERRORS):
                    await server.rollback()
                raise _rolled_back(tx._failed)
            await translated(server.commit())
        finally:
            await pool.release(conn)
