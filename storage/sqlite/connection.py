"""SqliteStorage, the owner of the one aiosqlite connection of a process: its lock, its PRAGMAs,
the group commit of concurrent transactions, and the caches it keeps."""

from __future__ import annotations

import asyncio
import errno
import os
import sqlite3
import stat
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import asynccontextmanager, suppress
from typing import Any, Final, TypeVar

import aiosqlite

from storage.errors import (
    CorruptDatabase,
    DatabaseTooNew,
    StorageError,
    TransactionClosed,
    UnopenableDatabase,
)
from storage.migrations import MIGRATIONS, Migration, migrate
from storage.models import ChatSettings, User
from storage.sql import Storage
from storage.sql.base import Row
from storage.sql.dialect import SQLITE
from storage.sqlite.block import SAVEPOINT, Batch, SqliteTransaction, uninterrupted
from storage.sqlite.cache import Caches, private_settings, read_through
from storage.sqlite.migrate import SqliteStepDb

T = TypeVar("T")

SYNCHRONOUS_MODES: Final = frozenset({"FULL", "NORMAL", "EXTRA"})
BUSY_TIMEOUT_MS: Final = 5000
# Entries of each read cache (chat settings, users): a few MB at most.
CACHE_SIZE: Final = 50_000
# Group commit: a batch of transaction blocks is committed once no other transaction waits for
# the connection, or at the latest when it holds this many blocks or is this old (seconds).
BATCH_MAX_BLOCKS: Final = 64
BATCH_MAX_AGE: Final = 0.020


def _owner_only(path: str) -> None:
    """Creates the database file readable by its owner only (0600), or takes group and other
    rights away from an existing one: it holds the live round's deck order and salts. SQLite
    gives its -wal and -shm files the mode of the database file.

    A path that cannot be opened or created raises UnopenableDatabase saying why (SQLite's own
    error is only "unable to open database file")."""
    if path == ":memory:" or path.startswith("file:"):
        return
    try:
        descriptor = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
    except FileExistsError:
        pass
    except OSError as error:
        raise UnopenableDatabase(path, open_problem(path, error)) from error
    else:
        os.close(descriptor)
        return
    try:
        info = os.stat(path)
        if stat.S_ISDIR(info.st_mode):
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), path)
        descriptor = os.open(path, os.O_RDWR)
    except OSError as error:
        raise UnopenableDatabase(path, open_problem(path, error)) from error
    os.close(descriptor)
    if (problem := _folder_problem(path)) is not None:
        raise problem
    mode = info.st_mode & 0o777
    if mode & 0o077:
        os.chmod(path, mode & 0o700)


def _folder_problem(path: str) -> UnopenableDatabase | None:
    """SQLite creates the -wal and -shm files (and a journal) beside the database: its folder
    must be writable."""
    folder = os.path.dirname(os.path.abspath(path))
    if os.access(folder, os.W_OK | os.X_OK):
        return None
    denied = PermissionError(errno.EACCES, os.strerror(errno.EACCES), folder)
    return UnopenableDatabase(path, open_problem(path, denied))


def _owner(info: os.stat_result) -> str:
    return f"owned by uid {info.st_uid}, mode {stat.S_IMODE(info.st_mode):04o}"


def open_problem(path: str, error: OSError) -> str:
    """What is wrong with a database path that could not be opened or created, in one line
    an operator can act on: a missing folder, no permission (to the file or its folder), a
    folder where the file should be, a read-only file system."""
    full = os.path.abspath(path)
    folder = os.path.dirname(full)
    code = error.errno
    me = f"the bot runs as uid {os.geteuid()}" if hasattr(os, "geteuid") else "the bot's user"
    if code == errno.ENOENT:
        missing = folder
        while not os.path.exists(os.path.dirname(missing)) and missing != "/":
            missing = os.path.dirname(missing)
        return f"the folder {missing!r} does not exist (create it, or fix DATABASE_URL)"
    if code == errno.EISDIR:
        return (
            "it is a folder, not a database file (point DATABASE_URL at a file inside it, "
            f"e.g. {os.path.join(full, 'ochko.sqlite3')!r})"
        )
    if code == errno.ENOTDIR:
        return "a part of the path is a file, not a folder (fix DATABASE_URL)"
    if code == errno.EROFS:
        return "the file system is read-only (put the database on a writable volume)"
    if code in (errno.EACCES, errno.EPERM):
        named = error.filename if isinstance(error.filename, str) else full
        if os.path.abspath(named) == full and os.path.isfile(full):
            info = os.stat(full)
            return (
                f"permission denied: the file cannot be read and written ({me}; "
                f"it is {_owner(info)})"
            )
        try:
            info = os.stat(folder)
        except OSError:
            return f"permission denied: the folder {folder!r} cannot be reached ({me})"
        return (
            f"permission denied: the folder {folder!r} is not writable ({me}; it is "
            f"{_owner(info)}; SQLite creates the database's -wal and -shm files beside it)"
        )
    return error.strerror or str(error)


# SQLite's primary result codes of a file it could not open or write, as opposed to a file
# whose content is damaged: those are the operator's to fix, nothing is wrong with the data.
_CANNOT_OPEN = frozenset({sqlite3.SQLITE_CANTOPEN, sqlite3.SQLITE_READONLY, sqlite3.SQLITE_PERM})


def _database_error(path: str, error: sqlite3.Error) -> StorageError:
    """SQLite's error on opening or checking the database, as the operator should read it."""
    code = getattr(error, "sqlite_errorcode", None)
    if code is None or code & 0xFF not in _CANNOT_OPEN:
        return CorruptDatabase(path, str(error))
    return _folder_problem(path) or UnopenableDatabase(
        path, f"SQLite could not open or write it ({error})"
    )


async def _connect(path: str) -> tuple[aiosqlite.Connection, sqlite3.Connection]:
    """aiosqlite's connection to ``path`` and the sqlite3 connection it runs on its thread,
    which transaction blocks use directly from the event loop's (see SqliteStorage).

    The file is opened here, so a path that cannot be opened fails before aiosqlite starts its
    thread (aiosqlite's own failed connect leaves that thread finishing after the caller has
    moved on)."""
    raw = await asyncio.to_thread(
        sqlite3.connect, path, isolation_level=None, check_same_thread=False
    )
    conn = await aiosqlite.Connection(lambda: raw, iter_chunk_size=64)
    return conn, raw


class SqliteStorage(Storage):
    """SQLite through one aiosqlite connection.

    Transactions and reads of this object are serialized by an asyncio.Lock: a single connection
    has a single transaction, and a read interleaved with another task's open transaction would
    see that transaction's uncommitted writes. Other processes are kept out by BEGIN IMMEDIATE
    and busy_timeout.

    One bot process owns a database: chat settings and users are cached (cache.py) and learn of
    changes only through this object's transactions; a change made by anyone else (another
    process, another SqliteStorage on the file, a hand-run sqlite3) is seen at the next start().

    Threads: what may wait or take long (BEGIN IMMEDIATE, COMMIT, ROLLBACK, the reads outside
    transactions, the migrations) runs on aiosqlite's thread, a block's statements on the
    event loop's (storage/sqlite/block.py), never both at once: blocks run under the lock
    above, a batch is closed to new blocks before its COMMIT or ROLLBACK is handed to the
    thread, and a new batch's blocks start once its BEGIN has come back, which the thread runs
    after anything handed to it before (its queue is in order), even by a cancelled task.

    Group commit (docs/architecture.md): a block that fails is rolled back alone (ROLLBACK TO
    its savepoint); a block that ends returns only once its batch has committed, and if the
    COMMIT fails every block of the batch raises its error. Reads of this object (outside
    transactions) and stop() commit an open batch first, so they never see uncommitted data. A
    block cancelled while it waits for its batch's COMMIT stays in the batch: as with any
    interrupted COMMIT, the canceller does not learn whether it was committed.
    """

    _dialect = SQLITE

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        synchronous: str = "FULL",
        clock: Callable[[], float] = time.time,
        migrations: Sequence[Migration] = MIGRATIONS,
        cache_size: int = CACHE_SIZE,
        default_language: str = "ru",
    ) -> None:
        mode = synchronous.upper()
        if mode not in SYNCHRONOUS_MODES:
            raise ValueError(
                f"synchronous must be one of {sorted(SYNCHRONOUS_MODES)}, got {synchronous!r}"
            )
        self.path = os.fspath(path)
        self.synchronous = mode
        self._clock = clock
        self._migrations = tuple(migrations)
        self._conn: aiosqlite.Connection | None = None
        # The sqlite3 connection under it: transaction blocks run their statements on it
        # directly (storage/sqlite/block.py), while nothing runs on aiosqlite's thread.
        self._raw: sqlite3.Connection | None = None
        self._lock = asyncio.Lock()
        self._owners: set[asyncio.Task[Any]] = set()
        self._caches = Caches(cache_size)
        self._default_language = default_language
        self._batch: Batch | None = None  # the open group commit, if any
        self._writers = 0  # transactions waiting for the lock
        self._flushes: set[asyncio.Task[None]] = set()

    async def start(self) -> None:
        if self._conn is not None:
            raise StorageError("storage is already started")
        self._caches.clear()  # whatever happened to the file meanwhile, read it anew
        try:
            _owner_only(self.path)
            conn, raw = await _connect(self.path)
        except sqlite3.Error as error:
            raise _database_error(self.path, error) from error
        try:
            await self._open(conn)
        except BaseException:
            await conn.close()
            raise
        self._conn, self._raw = conn, raw

    async def _open(self, conn: aiosqlite.Connection) -> None:
        supported = len(self._migrations)
        # Checks come before any PRAGMA that writes (journal_mode rewrites the header), so a
        # foreign, damaged or too-new file is refused without a single byte changed.
        try:
            found = await SqliteStepDb(conn).version()
            if found > supported:
                raise DatabaseTooNew(found, supported)
            problems = [row[0] for row in await conn.execute_fetchall("PRAGMA quick_check")]
        except sqlite3.DatabaseError as error:
            raise _database_error(self.path, error) from error
        if problems != ["ok"]:
            raise CorruptDatabase(self.path, "; ".join(str(p) for p in problems[:3]))
        try:
            await conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS:d}")
            await conn.execute("PRAGMA journal_mode = WAL")
            await conn.execute(f"PRAGMA synchronous = {self.synchronous}")
            await conn.execute("PRAGMA foreign_keys = ON")
            await migrate(SqliteStepDb(conn), self._migrations)
        except sqlite3.DatabaseError as error:
            raise _database_error(self.path, error) from error

    async def stop(self) -> None:
        if self._conn is None:
            return
        async with self._lock:  # let a running transaction finish first
            if self._conn is None:  # another stop() came first
                return
            if self._batch is not None:
                with suppress(Exception):  # its blocks get the error
                    await uninterrupted(self._commit(self._conn, self._batch))
            conn, self._conn, self._raw = self._conn, None, None
            self._caches.clear()
            await conn.close()
        for task in list(self._flushes):  # they find nothing left to do
            await task

    @asynccontextmanager
    async def _locked(self, *, writer: bool = False) -> AsyncIterator[aiosqlite.Connection]:
        task = self._check_not_owner()
        if writer:
            # Counted while waiting: a block that ends leaves its batch open for them.
            self._writers += 1
            try:
                await self._lock.acquire()
            except BaseException:
                self._writers -= 1
                self._flush_soon()  # the batch may have been left open for this one
                raise
            self._writers -= 1
        else:
            await self._lock.acquire()
        try:
            if self._conn is None:
                raise TransactionClosed("storage is not started")
            owners = {task} if task is not None else set()
            self._owners |= owners
            try:
                yield self._conn
            finally:
                self._owners -= owners
        finally:
            self._lock.release()

    async def _rows(self, sql: str, *args: object) -> list[Row]:
        async with self._locked() as conn:
            if self._batch is not None:
                # Reads outside transactions see committed data only.
                with suppress(Exception):  # the batch's blocks get the error
                    await uninterrupted(self._commit(conn, self._batch))
            return list(await conn.execute_fetchall(SQLITE.sql(sql), args))

    # The cached reads. A miss reads under the lock, after an open batch is committed: the value
    # is committed.

    async def get_chat(self, chat_id: int) -> ChatSettings:
        self._check_not_owner()  # fail fast whether or not the value is cached
        return private_settings(await read_through(self._caches.chats, chat_id, super().get_chat))

    async def get_user(self, user_id: int) -> User | None:
        self._check_not_owner()
        return await read_through(self._caches.users, user_id, super().get_user)

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[SqliteTransaction]:
        async with self._locked(writer=True) as conn:
            batch = self._batch
            if batch is None:
                batch = Batch(asyncio.get_running_loop().create_future())
            batch.blocks += 1
            raw = self._raw
            assert raw is not None  # set with self._conn
            tx = SqliteTransaction(raw, self._clock, self._caches, batch, self._default_language)
            try:
                if tx._first:
                    self._batch = batch  # a failed BEGIN is undone like a failed block
                    await conn.execute("BEGIN IMMEDIATE")
                yield tx
            except BaseException as error:
                tx._close()
                await self._settle(tx, self._undo_block(conn, tx, error))
                raise
            tx._close()
            wait = await self._settle(tx, self._end_block(conn, tx))
        if wait:
            # Not holding the lock: the next blocks run meanwhile, and one of them (or a read,
            # or stop()) commits. shield: a cancelled waiter must not cancel the batch's future.
            await asyncio.shield(batch.done)

    @staticmethod
    async def _settle(tx: SqliteTransaction, step: Awaitable[T]) -> T:
        """The end of a block. Once other blocks share the batch, they wait for the outcome, so
        the step runs to its end even if this task is cancelled. A block alone in its batch
        (every action when there is no concurrency) skips the cost of a task: if it is
        cancelled in its COMMIT, the outcome is as unknown to its caller as it always was."""
        if tx._first:
            return await step
        return await uninterrupted(step)

    def _commit_now(self, batch: Batch) -> bool:
        return (
            self._writers == 0
            or batch.blocks >= BATCH_MAX_BLOCKS
            or time.monotonic() - batch.started >= BATCH_MAX_AGE
        )

    async def _end_block(self, conn: aiosqlite.Connection, tx: SqliteTransaction) -> bool:
        """After a block that ended normally: commit its batch now (True: wait for it)."""
        batch = tx._batch
        if tx._broken is not None:
            # It caught the error of its own savepoint and went on: undo the whole batch.
            await self._abort(conn, batch, tx._broken)
            raise tx._broken
        if tx._savepoint:
            batch.savepoint = True  # released by the next block or by COMMIT
        if not self._commit_now(batch):
            return True
        await self._commit(conn, batch)  # its error is this block's too
        return False

    async def _undo_block(
        self, conn: aiosqlite.Connection, tx: SqliteTransaction, error: BaseException
    ) -> None:
        """After a block that raised: undo its writes, and only its (the error propagates)."""
        batch = tx._batch
        self._caches.forget(batch.writes)
        if tx._first:
            # Alone in the SQLite transaction (or its BEGIN failed): ROLLBACK, the batch is over.
            if self._batch is batch:
                self._batch = None
            batch.succeed()  # nobody waits for it
            await self._rollback(conn)
            return
        raw = self._raw  # None only once stopped, which waits for this block's lock
        if tx._savepoint and tx._broken is None and raw is not None:
            try:
                raw.execute(f"ROLLBACK TO {SAVEPOINT}")
                raw.execute(f"RELEASE {SAVEPOINT}")
            except BaseException as failure:
                tx._broken = failure
            else:
                tx._savepoint = False
        if tx._broken is not None or not conn.in_transaction:
            # A savepoint failed, or SQLite rolled the whole transaction back by itself (e.g.
            # after SQLITE_FULL): the batch's earlier blocks cannot be kept.
            await self._abort(conn, batch, tx._broken or error)
            return
        if self._commit_now(batch):
            with suppress(Exception):  # for the batch's other blocks; this one raises its own
                await self._commit(conn, batch)

    async def _commit(self, conn: aiosqlite.Connection, batch: Batch) -> None:
        assert self._batch is batch
        self._batch = None
        try:
            await conn.execute("COMMIT")
        except BaseException as error:
            self._caches.forget(batch.writes)
            batch.fail(error)
            await self._rollback(conn)
            raise
        self._caches.forget(batch.writes)
        batch.succeed()

    async def _abort(self, conn: aiosqlite.Connection, batch: Batch, cause: BaseException) -> None:
        if self._batch is batch:
            self._batch = None
        self._caches.forget(batch.writes)
        if isinstance(cause, sqlite3.Error):
            batch.fail(cause)
        else:
            error = StorageError(f"the batch of transactions was rolled back: {cause!r}")
            error.__cause__ = cause
            batch.fail(error)
        await self._rollback(conn)

    def _flush_soon(self) -> None:
        """A transaction gave up waiting for the lock: if the batch was left open for it and
        no other transaction will come, commit it from a task of its own."""
        batch = self._batch
        if batch is None or self._writers > 0:
            return
        task = asyncio.get_running_loop().create_task(self._flush(batch))
        self._flushes.add(task)
        task.add_done_callback(self._flushes.discard)

    async def _flush(self, batch: Batch) -> None:
        async with self._lock:
            if self._batch is batch and self._conn is not None:
                with suppress(Exception):  # its blocks get the error
                    await uninterrupted(self._commit(self._conn, batch))

    @staticmethod
    async def _rollback(conn: aiosqlite.Connection) -> None:
        # SQLite may already have rolled back by itself (e.g. after SQLITE_FULL), or a cancelled
        # BEGIN may still be on its way to the connection's thread: ROLLBACK unconditionally (it
        # runs after whatever is queued) and do not report its "no transaction is active" error,
        # nor any other over the original error, the one worth raising.
        with suppress(sqlite3.Error):
            await conn.execute("ROLLBACK")
