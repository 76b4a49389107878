"""A transaction block of the group commit: its batch (the SQLite transaction it shares with
other blocks), its savepoint, and the statements it runs (SqliteTransaction).

A block's statements run on the event loop's thread, on the sqlite3 connection under
aiosqlite's: inside BEGIN IMMEDIATE the write lock is ours, so none of them waits for anything
(WAL readers never block a writer), and each takes microseconds, where a round trip through
aiosqlite's thread costs more than the statement (a queue, a thread switch and a wake-up of the
event loop each way). What may wait stays on that thread (SqliteStorage)."""

from __future__ import annotations

import asyncio
import sqlite3
import time
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Final, TypeVar

from storage.errors import TransactionClosed
from storage.models import ChatSettings, User
from storage.sql import Transaction
from storage.sql.base import Row
from storage.sql.dialect import SQLITE
from storage.sqlite.cache import Caches, Writes, private_settings, read_through

T = TypeVar("T")

# The name of every block's savepoint (savepoints nest; each block opens and ends its own).
SAVEPOINT: Final = "block"


@dataclass(slots=True, eq=False)
class Batch:
    """Transaction blocks run one after another in one SQLite transaction, committed together:
    the first directly in the BEGIN IMMEDIATE transaction (alone in it, it is undone by
    ROLLBACK), every later one in a savepoint of its own, undone by ROLLBACK TO."""

    done: asyncio.Future[None]  # its result once COMMITted; the error if the batch failed
    started: float = field(default_factory=time.monotonic)
    blocks: int = 0
    # The last block's savepoint is still open: its RELEASE is deferred to the next block's
    # first statement, or left to COMMIT.
    savepoint: bool = False
    writes: Writes = field(default_factory=Writes)  # written by any block: not cacheable yet

    def fail(self, error: BaseException) -> None:
        if not self.done.done():
            self.done.set_exception(error)
            self.done.exception()  # retrieved: blocks that are waiting raise it, or nobody does

    def succeed(self) -> None:
        if not self.done.done():
            self.done.set_result(None)


async def uninterrupted(awaitable: Awaitable[T]) -> T:
    """Await to the end even if this task is cancelled meanwhile; then raise the cancellation.

    aiosqlite runs a statement on its thread whether or not anybody still awaits it, so the
    bookkeeping of a batch (did the COMMIT happen, is the batch over) runs in the awaited
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


class SqliteTransaction(Transaction):
    """The connection a block runs its statements on, in its savepoint when it is not the
    first block of its batch; chats and users read through the caches for rows no block of
    the batch has written, and a write evicts its row."""

    _dialect = SQLITE

    def __init__(
        self,
        conn: sqlite3.Connection,
        clock: Callable[[], float],
        caches: Caches,
        batch: Batch,
        default_language: str = "ru",
    ) -> None:
        self._conn: sqlite3.Connection | None = conn
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

    def _live(self) -> sqlite3.Connection:
        if self._conn is None:
            raise TransactionClosed("the transaction is over; open a new one")
        return self._conn

    def _open_savepoint(self) -> sqlite3.Connection:
        """The connection, once a later block's first statement has opened the block's
        SAVEPOINT (after the RELEASE of the one the previous block left open)."""
        conn = self._live()
        if not self._savepoint_pending:
            return conn
        self._savepoint_pending = False
        try:
            if self._batch.savepoint:
                conn.execute(f"RELEASE {SAVEPOINT}")
            conn.execute(f"SAVEPOINT {SAVEPOINT}")
        except BaseException as error:
            self._broken = error
            raise
        self._batch.savepoint = False
        self._savepoint = True
        return conn

    # Synchronous under the coroutine: nothing here suspends (see the module's docstring).
    async def _rows(self, sql: str, *args: object) -> list[Row]:
        return self._open_savepoint().execute(SQLITE.sql(sql), args).fetchall()

    async def _execute(self, sql: str, *args: object) -> int:
        return self._open_savepoint().execute(SQLITE.sql(sql), args).rowcount

    async def _executemany(self, sql: str, rows: Iterable[Sequence[object]]) -> None:
        self._open_savepoint().executemany(SQLITE.sql(sql), rows)

    def _wrote_chat(self, chat_id: int) -> None:
        self._writes.chats.add(chat_id)
        self._caches.chats.pop(chat_id, None)

    def _wrote_user(self, user_id: int) -> None:
        self._writes.users.add(user_id)
        self._caches.users.pop(user_id, None)

    async def get_chat(self, chat_id: int) -> ChatSettings:
        if chat_id in self._writes.chats:
            return await super().get_chat(chat_id)
        self._live()
        return private_settings(await read_through(self._caches.chats, chat_id, super().get_chat))

    async def get_user(self, user_id: int) -> User | None:
        if user_id in self._writes.users:
            return await super().get_user(user_id)
        self._live()
        return await read_through(self._caches.users, user_id, super().get_user)
