"""Group commit in SqliteStorage: concurrent transactions share one COMMIT (one fsync).

Each `transaction()` block stays atomic on its own (a savepoint), returns only once its batch is
committed, and reads outside transactions never see an open batch.
"""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from typing import Any

import pytest

import storage.sqlite.connection as sqlite_backend
from storage import ChatSettings, SqliteStorage, Storage, TransactionClosed

pytestmark = pytest.mark.sqlite_only


class Injected(Exception):
    """The failure a test throws inside a transaction."""


@pytest.fixture
def sqlite_storage(storage: Storage) -> SqliteStorage:
    assert isinstance(storage, SqliteStorage)
    assert storage.synchronous == "FULL"
    return storage


@pytest.fixture
def no_age_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    """Batches end only when nobody waits (or at the size limit), however slow the machine."""
    monkeypatch.setattr(sqlite_backend, "BATCH_MAX_AGE", 3600.0)


async def trace(storage: SqliteStorage) -> list[str]:
    """Every statement the storage's connection runs from now on (appended as they run)."""
    statements: list[str] = []
    assert storage._conn is not None
    await storage._conn.set_trace_callback(statements.append)
    return statements


def count(statements: list[str], prefix: str) -> int:
    return sum(1 for sql in statements if sql.startswith(prefix))


def committed_updates(storage: SqliteStorage) -> set[int]:
    """The update ids a separate connection sees: what is committed."""
    conn = sqlite3.connect(storage.path)
    try:
        return {n for (n,) in conn.execute("SELECT update_id FROM processed_updates")}
    finally:
        conn.close()


def fail_commits(
    monkeypatch: pytest.MonkeyPatch, storage: SqliteStorage, times: int = 1
) -> list[BaseException]:
    """The next `times` COMMITs fail (an invalid statement is run instead); returns their errors."""
    conn = storage._conn
    assert conn is not None
    real = conn.execute
    errors: list[BaseException] = []

    def execute(sql: str, *args: Any) -> Any:
        if sql == "COMMIT" and len(errors) < times:
            return failing()
        return real(sql, *args)

    async def failing() -> Any:
        try:
            return await real("COMMIT TO nowhere")
        except sqlite3.Error as error:
            errors.append(error)
            raise

    monkeypatch.setattr(conn, "execute", execute)
    return errors


async def test_lone_transaction_commits_at_once(
    sqlite_storage: SqliteStorage, no_age_limit: None
) -> None:
    storage = sqlite_storage
    statements = await trace(storage)
    for n in (1, 2):
        # No waiting for company: the age limit is an hour here.
        async with asyncio.timeout(5):
            async with storage.transaction() as tx:
                await tx.claim_update(n)
        assert committed_updates(storage) == set(range(1, n + 1))
    # Exactly what a transaction cost before group commit: no savepoint for a lone block.
    assert [sql.split()[0] for sql in statements] == ["BEGIN", "INSERT", "COMMIT"] * 2


async def test_concurrent_transactions_share_commits(
    sqlite_storage: SqliteStorage, no_age_limit: None
) -> None:
    storage = sqlite_storage
    statements = await trace(storage)
    tasks = 20

    async def action(n: int) -> None:
        async with storage.transaction() as tx:
            assert await tx.claim_update(n)
            await tx.upsert_user(n, f"user{n}")
            assert (await tx.get_user(n)) is not None
        # Returned normally: committed, as a separate connection sees.
        assert n in committed_updates(storage)

    await asyncio.gather(*(action(n) for n in range(1, tasks + 1)))
    commits = count(statements, "COMMIT")
    assert 1 <= commits < tasks // 2, statements
    assert count(statements, "BEGIN") == commits
    assert committed_updates(storage) == set(range(1, tasks + 1))
    for n in range(1, tasks + 1):
        assert await storage.get_user(n) is not None


async def test_batch_size_and_age_limits(
    sqlite_storage: SqliteStorage, monkeypatch: pytest.MonkeyPatch, no_age_limit: None
) -> None:
    storage = sqlite_storage
    statements = await trace(storage)

    async def action(n: int) -> None:
        async with storage.transaction() as tx:
            await tx.claim_update(n)

    monkeypatch.setattr(sqlite_backend, "BATCH_MAX_BLOCKS", 4)
    await asyncio.gather(*(action(n) for n in range(1, 13)))
    assert count(statements, "COMMIT") == 3  # 12 blocks, 4 a batch
    monkeypatch.setattr(sqlite_backend, "BATCH_MAX_AGE", 0.0)
    await asyncio.gather(*(action(n) for n in range(13, 19)))
    assert count(statements, "COMMIT") == 3 + 6  # every batch is old at once
    assert committed_updates(storage) == set(range(1, 19))


async def test_failing_blocks_leave_the_others_of_their_batch_committed(
    sqlite_storage: SqliteStorage, no_age_limit: None
) -> None:
    storage = sqlite_storage
    statements = await trace(storage)
    tasks = 20
    before_any_statement = {4, 9}
    after_writes = {1, 6, 7, 13, 20}  # 1 is its batch's first block, 20 the last

    async def action(n: int) -> None:
        async with storage.transaction() as tx:
            if n in before_any_statement:
                raise Injected
            await tx.claim_update(n)
            await tx.save_chat_settings(ChatSettings(-n, "en"))
            await tx.upsert_user(n, "written")
            if n in after_writes:
                raise Injected

    results = await asyncio.gather(
        *(action(n) for n in range(1, tasks + 1)), return_exceptions=True
    )
    failed = before_any_statement | after_writes
    for n, result in enumerate(results, start=1):
        assert isinstance(result, Injected) if n in failed else result is None, (n, result)
    good = set(range(1, tasks + 1)) - failed
    assert committed_updates(storage) == good
    # The savepoint path was taken: blocks after the first shared COMMITs.
    assert count(statements, "COMMIT") < len(good)
    assert count(statements, "ROLLBACK TO") == len(after_writes) - 1
    for n in range(1, tasks + 1):
        assert (await storage.get_chat(-n)).language == ("en" if n in good else "ru")
        assert (await storage.get_user(n) is not None) == (n in good)


async def test_cancelled_block_in_a_batch_is_undone_alone(sqlite_storage: SqliteStorage) -> None:
    storage = sqlite_storage
    entered = asyncio.Event()

    async def action(n: int, hang: bool = False) -> None:
        async with storage.transaction() as tx:
            await tx.claim_update(n)
            if hang:
                entered.set()
                await asyncio.sleep(60)

    first = asyncio.create_task(action(1))
    hanging = asyncio.create_task(action(2, hang=True))
    last = asyncio.create_task(action(3))
    await entered.wait()  # 1 ran, 3 waits: 2 is in 1's open batch
    assert storage._batch is not None and storage._batch.blocks == 2
    hanging.cancel()
    await asyncio.gather(first, last)
    with pytest.raises(asyncio.CancelledError):
        await hanging
    assert committed_updates(storage) == {1, 3}


async def test_commit_failure_fails_every_block_and_applies_none(
    sqlite_storage: SqliteStorage, monkeypatch: pytest.MonkeyPatch, no_age_limit: None
) -> None:
    storage = sqlite_storage
    async with storage.transaction() as tx:
        await tx.save_chat_settings(ChatSettings(-1, "en"))
    assert (await storage.get_chat(-1)).language == "en"  # cached
    statements = await trace(storage)
    errors = fail_commits(monkeypatch, storage)
    tasks = 10

    async def action(n: int) -> None:
        async with storage.transaction() as tx:
            await tx.claim_update(n)
            # Every block writes the chat and reads what the batch wrote so far, uncommitted.
            assert (await tx.get_chat(-1)).language == ("en" if n == 1 else f"l{n - 1}")
            await tx.save_chat_settings(ChatSettings(-1, f"l{n}"))

    results = await asyncio.gather(
        *(action(n) for n in range(1, tasks + 1)), return_exceptions=True
    )
    assert len(errors) == 1 and count(statements, "BEGIN") == 1  # one batch, one COMMIT
    assert all(result is errors[0] for result in results), results
    assert committed_updates(storage) == set()
    # Nothing uncommitted stayed cached either.
    assert (await storage.get_chat(-1)).language == "en"
    # And the storage goes on.
    async with storage.transaction() as tx:
        await tx.claim_update(99)
    assert committed_updates(storage) == {99}


def first_block(storage: SqliteStorage, update_id: int) -> tuple[asyncio.Task[None], asyncio.Event]:
    """A block that claims the update id, then waits inside until the event is set."""
    release = asyncio.Event()

    async def block() -> None:
        async with storage.transaction() as tx:
            await tx.claim_update(update_id)
            await release.wait()

    return asyncio.create_task(block()), release


async def transaction(storage: SqliteStorage, update_id: int) -> None:
    async with storage.transaction() as tx:
        await tx.claim_update(update_id)


async def test_a_blocks_statements_run_on_the_event_loops_thread(
    sqlite_storage: SqliteStorage,
) -> None:
    """What cannot wait runs inline; what may (the write lock, the fsync) on aiosqlite's
    thread, as do the reads outside transactions."""
    storage = sqlite_storage
    ran: list[tuple[str, bool]] = []
    assert storage._conn is not None
    await storage._conn.set_trace_callback(
        lambda sql: ran.append((sql, threading.current_thread() is threading.main_thread()))
    )
    async with storage.transaction() as tx:
        await tx.claim_update(7)
        await tx.load_game(1)
    await storage.load_game(1)
    inline = {sql.split()[0] for sql, on_main in ran if on_main}
    threaded = {sql.split()[0] for sql, on_main in ran if not on_main}
    assert inline == {"INSERT", "SELECT"}
    assert {"BEGIN", "COMMIT", "SELECT"} <= threaded and "INSERT" not in threaded
    assert committed_updates(storage) == {7}


async def test_reads_outside_transactions_do_not_see_an_open_batch(
    sqlite_storage: SqliteStorage, monkeypatch: pytest.MonkeyPatch
) -> None:
    storage = sqlite_storage
    statements = await trace(storage)
    for round_, commit_fails in enumerate((False, True)):
        errors = fail_commits(monkeypatch, storage) if commit_fails else []
        written = 1001 + round_
        one, release = first_block(storage, written)
        await asyncio.sleep(0.01)  # inside, holding the lock
        # A read queues, then another transaction: when the first block ends, its batch stays
        # open for that transaction, and the read gets the lock first.
        read = asyncio.create_task(storage.is_processed(written))
        await asyncio.sleep(0)
        two = asyncio.create_task(transaction(storage, 2001 + round_))
        await asyncio.sleep(0)
        assert storage._writers == 1
        release.set()
        if not commit_fails:
            # The read committed the batch before it read.
            assert await read
            assert written in committed_updates(storage)
            reads = [i for i, sql in enumerate(statements) if sql.startswith("SELECT 1 FROM")]
            assert statements[reads[0] - 1] == "COMMIT"
            await one
        else:
            # That COMMIT fails: the read does not see the write that never was.
            assert not await read
            with pytest.raises(sqlite3.OperationalError) as caught:
                await one
            assert caught.value is errors[0]
        await two
    assert committed_updates(storage) == {1001, 2001, 2002}


async def test_stop_commits_an_open_batch(sqlite_storage: SqliteStorage) -> None:
    storage = sqlite_storage
    one, release = first_block(storage, 1)
    await asyncio.sleep(0.01)
    stopping = asyncio.create_task(storage.stop())
    await asyncio.sleep(0)
    two = asyncio.create_task(transaction(storage, 2))
    await asyncio.sleep(0)
    release.set()  # the first block ends with the second waiting: its batch stays open
    await stopping
    await one
    with pytest.raises(TransactionClosed):
        await two
    assert committed_updates(storage) == {1}


async def test_a_writer_that_gives_up_waiting_does_not_strand_the_batch(
    sqlite_storage: SqliteStorage,
) -> None:
    storage = sqlite_storage
    one, release = first_block(storage, 1)
    await asyncio.sleep(0.01)
    two = asyncio.create_task(transaction(storage, 2))
    await asyncio.sleep(0)
    real = storage._commit_now

    def commit_now(batch: Any) -> bool:
        # The first block leaves its batch open for the second, which is cancelled right then.
        now = real(batch)
        if not now:
            two.cancel()
        return now

    storage._commit_now = commit_now  # type: ignore[method-assign]
    release.set()
    async with asyncio.timeout(5):
        await one
    with pytest.raises(asyncio.CancelledError):
        await two
    assert committed_updates(storage) == {1}


async def test_a_failed_savepoint_rolls_the_whole_batch_back(
    sqlite_storage: SqliteStorage, monkeypatch: pytest.MonkeyPatch, no_age_limit: None
) -> None:
    storage = sqlite_storage
    assert storage._raw is not None
    raw: sqlite3.Connection = storage._raw
    savepoints: list[str] = []

    class FailingThirdSavepoint:
        """The sqlite3 connection the blocks run on (its methods cannot be patched)."""

        def execute(self, sql: str, *args: Any) -> Any:
            if sql.startswith("SAVEPOINT"):
                savepoints.append(sql)
                if len(savepoints) == 2:  # the third block's
                    return raw.execute("SAVEPOINT TO nowhere")
            return raw.execute(sql, *args)

        def __getattr__(self, name: str) -> Any:
            return getattr(raw, name)

    monkeypatch.setattr(storage, "_raw", FailingThirdSavepoint())

    async def action(n: int) -> None:
        async with storage.transaction() as tx:
            await tx.claim_update(n)

    results = await asyncio.gather(*(action(n) for n in range(1, 6)), return_exceptions=True)
    # Its savepoint failed (after the RELEASE of the second block's): its writes could not be
    # undone apart from the batch's first two blocks, so all three fail, with the same error.
    error = results[2]
    assert isinstance(error, sqlite3.OperationalError)
    assert results[:3] == [error] * 3 and results[3:] == [None, None]
    assert committed_updates(storage) == {4, 5}


async def test_concurrent_stops(sqlite_storage: SqliteStorage) -> None:
    storage = sqlite_storage
    one, release = first_block(storage, 1)
    await asyncio.sleep(0.01)
    stops = asyncio.gather(storage.stop(), storage.stop())
    await asyncio.sleep(0)
    release.set()
    await stops
    await one
    assert committed_updates(storage) == {1}
