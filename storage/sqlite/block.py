"""A transaction block of the group commit: its batch (the SQLite transaction it shares with
other blocks), its savepoint, and the statements it runs. The table modules' write mixins are
built on TransactionBlock."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Iterable, Sequence
from typing import Final, TypeVar, cast

import aiosqlite

from storage.errors import TransactionClosed
from storage.sqlite.base import Params, Row, SqliteReads
from storage.sqlite.cache import Caches, Writes

T = TypeVar("T")

# The name of every block's savepoint (savepoints nest; each block opens and ends its own).
SAVEPOINT: Final = "block"


class Batch:
    """Transaction blocks run one after another in one SQLite transaction, committed together.

    The first block runs directly in the BEGIN IMMEDIATE transaction (alone in it, it is undone
    by ROLLBACK); every later one in a savepoint of its own, undone by ROLLBACK TO.
    """

    __slots__ = ("blocks", "done", "savepoint", "started", "writes")

    def __init__(self, done: asyncio.Future[None]) -> None:
        self.done = done  # its result once COMMITted; the error if the batch failed
        self.started = time.monotonic()
        self.blocks = 0
        # The last block's savepoint is still open: its RELEASE is deferred to the next
        # block's first statement, or left to COMMIT.
        self.savepoint = False
        self.writes = Writes()  # chats and users written by any block: not cacheable yet

    def fail(self, error: BaseException) -> None:
        if not self.done.done():
            self.done.set_exception(error)
            self.done.exception()  # retrieved: blocks that are waiting raise it, or nobody does

    def succeed(self) -> None:
        if not self.done.done():
            self.done.set_result(None)


async def pipeline(*statements: Awaitable[object]) -> list[object]:
    """Run statements back to back on the connection's thread, then await them all.

    aiosqlite executes its queue in order, so the statements run in the order given, as if
    awaited one by one, but the thread goes from one to the next without waiting for the
    event loop. The first error is raised once all of them are done.
    """
    results = await asyncio.gather(*statements, return_exceptions=True)
    for result in results:
        if isinstance(result, BaseException):
            raise result
    return results


async def uninterrupted(awaitable: Awaitable[T]) -> T:
    """Await to the end even if this task is cancelled meanwhile; then raise the cancellation.

    aiosqlite runs a statement on its thread whether or not anybody still awaits it, so the
    bookkeeping of a batch (is a savepoint open, did the COMMIT happen) runs in the awaited
    coroutine, which must not be cut short.
    """
    future = asyncio.ensure_future(awaitable)
    cancelled = False
    while not future.done():
        try:
            await asyncio.wait((future,))
        except asyncio.CancelledError:
            cancelled = True
    if cancelled:
        if not future.cancelled():
            future.exception()  # the outcome is in the bookkeeping; the caller is cancelled
        raise asyncio.CancelledError
    return future.result()


class TransactionBlock(SqliteReads):
    """The connection a block runs its statements on, in its savepoint when it is not the
    first block of its batch."""

    def __init__(
        self,
        conn: aiosqlite.Connection,
        clock: Callable[[], float],
        caches: Caches,
        batch: Batch,
        default_language: str = "ru",
    ) -> None:
        self._conn: aiosqlite.Connection | None = conn
        self._default_language = default_language
        self._clock = clock
        self._caches = caches
        # Rows written by this block or an earlier one of its batch: read from the database,
        # never cached, until the batch is over.
        self._writes = batch.writes
        self._batch = batch
        self._first = batch.blocks == 1  # alone in the SQLite transaction: no savepoint
        # A later block opens its savepoint with its first statement, in the same round trip.
        self._savepoint_pending = not self._first
        self._savepoint = False  # this block's savepoint is open
        # A savepoint statement failed: this block's writes cannot be undone apart from the
        # batch's, which can then only be rolled back whole.
        self._broken: BaseException | None = None

    def _close(self) -> None:
        self._conn = None

    def _live(self) -> aiosqlite.Connection:
        if self._conn is None:
            raise TransactionClosed("the transaction is over; open a new one")
        return self._conn

    async def _with_savepoint(self, statements: Sequence[Awaitable[object]]) -> list[object]:
        """The statements, preceded by the block's SAVEPOINT (and the RELEASE of the previous
        block's) in one pipeline; the results of the statements, or the first error."""
        conn = self._live()
        self._savepoint_pending = False
        prologue = [conn.execute(f"SAVEPOINT {SAVEPOINT}")]
        if self._batch.savepoint:
            prologue.insert(0, conn.execute(f"RELEASE {SAVEPOINT}"))
        results = await asyncio.gather(*prologue, *statements, return_exceptions=True)
        for result in results[: len(prologue)]:
            if isinstance(result, BaseException):
                self._broken = result
                raise result
        self._batch.savepoint = False
        self._savepoint = True
        for result in results[len(prologue) :]:
            if isinstance(result, BaseException):
                raise result
        return results[len(prologue) :]

    async def _run(self, statement: Awaitable[T]) -> T:
        """One statement of the block (the first one opens the block's savepoint)."""
        if not self._savepoint_pending:
            return await statement
        results = await uninterrupted(self._with_savepoint([statement]))
        return cast(T, results[0])

    async def _pipeline(self, *statements: Awaitable[object]) -> None:
        """Write statements in one pipeline (see pipeline())."""
        if self._savepoint_pending:
            await uninterrupted(self._with_savepoint(statements))
        else:
            await pipeline(*statements)

    async def _rows(self, sql: str, params: Params = ()) -> list[Row]:
        return list(await self._run(self._live().execute_fetchall(sql, params)))

    async def _execute(self, sql: str, params: Params = ()) -> int:
        cursor = await self._run(self._live().execute(sql, params))
        return cursor.rowcount

    async def _executemany(self, sql: str, params: Iterable[Params]) -> None:
        await self._run(self._live().executemany(sql, params))
