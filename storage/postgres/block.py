"""A transaction of the PostgreSQL backend: the pooled connection it holds from BEGIN to COMMIT
and the statements it runs there."""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Iterable, Sequence
from functools import cache
from typing import TypeVar

from storage.errors import StorageError, TransactionClosed
from storage.postgres.driver import DRIVER_ERRORS, Connection, Record, affected, storage_error
from storage.sql import Transaction
from storage.sql.dialect import PLACEHOLDER, POSTGRESQL

T = TypeVar("T")


def _shifted(offset: int) -> Callable[[re.Match[str]], str]:
    return lambda match: f"${int(match[1]) + offset}"


@cache
def _combined(statements: tuple[tuple[str, int], ...]) -> str:
    """Writes (each with its number of parameters) as one statement: all but the last as
    data-modifying CTEs, their parameters numbered on after the previous ones'. They see the
    same snapshot and run in no set order, which is what TableWrites._execute_all asks for."""
    parts: list[str] = []
    offset = 0
    for sql, count in statements:
        parts.append(PLACEHOLDER.sub(_shifted(offset), POSTGRESQL.sql(sql)))
        offset += count
    ctes = ", ".join(f"w{n} AS ({part})" for n, part in enumerate(parts[:-1]))
    return f"WITH {ctes} {parts[-1]}"


class PostgresTransaction(Transaction):
    """The connection of one transaction; dead (TransactionClosed) once its block is over.

    At READ COMMITTED each statement sees what was committed when it began: every read-then-write
    of the table modules is made safe on its own terms (a row lock, a conditional UPDATE, an
    INSERT … ON CONFLICT); each module says which and why.
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

    async def _statement(self, step: Awaitable[T]) -> T:
        try:
            return await step
        except DRIVER_ERRORS as error:
            failure = storage_error(error)
            if self._failed is None:
                self._failed = failure
            raise failure from error

    async def _rows(self, sql: str, *args: object) -> list[Record]:
        return await self._statement(self._live().fetch(POSTGRESQL.sql(sql), *args))

    async def _execute(self, sql: str, *args: object) -> int:
        return affected(await self._statement(self._live().execute(POSTGRESQL.sql(sql), *args)))

    async def _execute_all(self, statements: Sequence[tuple[str, Sequence[object]]]) -> None:
        if len(statements) == 1:
            await self._execute(statements[0][0], *statements[0][1])
            return
        args = [arg for _, values in statements for arg in values]
        await self._execute(
            _combined(tuple((sql, len(values)) for sql, values in statements)), *args
        )

    async def _executemany(self, sql: str, rows: Iterable[Sequence[object]]) -> None:
        await self._statement(self._live().executemany(POSTGRESQL.sql(sql), rows))
