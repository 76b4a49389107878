"""A transaction of the PostgreSQL backend: the pooled connection it holds from BEGIN to COMMIT
and the statements it runs there (PostgresTransaction: the tables' SQL of storage/sql over
this connection)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from storage.errors import StorageError, TransactionClosed
from storage.postgres.driver import DRIVER_ERRORS, Connection, Record, affected, storage_error
from storage.sql import TransactionTables
from storage.sql.dialect import POSTGRESQL


class PostgresTransaction(TransactionTables):
    """The connection of one transaction; dead (TransactionClosed) once its block is over.

    The isolation level is READ COMMITTED (PostgreSQL's default, asked for explicitly): each
    statement sees what was committed when it began. Every read-then-write of the table modules
    is therefore made safe against other transactions on its own terms (a row lock, a
    conditional UPDATE, an INSERT … ON CONFLICT); each module says which and why.
    """

    _dialect = POSTGRESQL

    def __init__(
        self, conn: Connection, clock: Callable[[], float], default_language: str = "ru"
    ) -> None:
        self._conn: Connection | None = conn
        self._clock = clock
        self._default_language = default_language
        # The first statement that failed. PostgreSQL then refuses every further statement of
        # the transaction and answers its COMMIT with a ROLLBACK, without an error: the block's
        # end must not report a commit that did not happen (see PostgresStorage).
        self._failed: StorageError | None = None

    def _close(self) -> None:
        self._conn = None

    def _live(self) -> Connection:
        if self._conn is None:
            raise TransactionClosed("the transaction is over; open a new one")
        return self._conn

    def _failure(self, error: Exception) -> StorageError:
        failure = storage_error(error)
        if self._failed is None:
            self._failed = failure
        return failure

    async def _rows(self, sql: str, *args: object) -> list[Record]:
        conn = self._live()
        try:
            return await conn.fetch(sql, *args)
        except DRIVER_ERRORS as error:
            raise self._failure(error) from error

    async def _execute(self, sql: str, *args: object) -> int:
        """Run a write; the number of rows it wrote."""
        conn = self._live()
        try:
            return affected(await conn.execute(sql, *args))
        except DRIVER_ERRORS as error:
            raise self._failure(error) from error

    async def _executemany(self, sql: str, rows: Iterable[Sequence[object]]) -> None:
        conn = self._live()
        try:
            await conn.executemany(sql, rows)
        except DRIVER_ERRORS as error:
            raise self._failure(error) from error
