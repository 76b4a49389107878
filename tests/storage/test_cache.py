"""The in-memory caches of chat settings and users of SqliteStorage.

One bot process owns a database: the caches learn of changes only through the storage object,
so what they serve must be exactly what that object committed, never a value it did not commit.
What a storage serves after a rollback, a migration or a restart holds for every backend; the
statement traces and the cache's own limits are SqliteStorage's (`sqlite_only`).
"""

from __future__ import annotations

import sqlite3

import pytest

from storage import ChatSettings, SqliteStorage, Storage, StorageError, User
from tests.storage.conftest import StorageFactory
from tests.storage.raw import execute


class Injected(Exception):
    """The failure a test throws inside a transaction."""


@pytest.fixture
def sqlite_storage(storage: Storage) -> SqliteStorage:
    """For the `sqlite_only` tests: the storage's own connection is traced or patched."""
    assert isinstance(storage, SqliteStorage)
    return storage


async def trace(storage: SqliteStorage) -> list[str]:
    """Every statement the storage's connection runs from now on (appended as they run)."""
    statements: list[str] = []
    assert storage._conn is not None
    await storage._conn.set_trace_callback(statements.append)
    return statements


def selects(statements: list[str], table: str) -> int:
    # The chat's settings are read joined to what else a chat's row says (its champion).
    reads = (f"FROM {table} ", f"JOIN {table} ")
    return sum(1 for sql in statements if sql.startswith("SELECT") and any(r in sql for r in reads))


@pytest.mark.sqlite_only
async def test_cached_reads_run_no_sql(sqlite_storage: SqliteStorage) -> None:
    storage = sqlite_storage
    async with storage.transaction() as tx:
        await tx.save_chat_settings(ChatSettings(-1, "en"))
        await tx.upsert_user(7, "A")
    statements = await trace(storage)
    for _ in range(3):
        assert await storage.get_chat(-1) == ChatSettings(-1, "en")
        assert await storage.get_chat(-2) == ChatSettings(-2)  # the default is cached too
        assert await storage.get_user(7) == User(7, "A", None, False)
        assert await storage.get_user(8) is None  # and so is an unknown user
    assert selects(statements, "chats") == 2 and selects(statements, "users") == 2
    # Transactions read from the same caches.
    async with storage.transaction() as tx:
        assert await tx.get_chat(-1) == ChatSettings(-1, "en")
        assert await tx.get_user(7) == User(7, "A", None, False)
        await tx.upsert_user(7, "A2")  # reads the old user from the cache too
    assert selects(statements, "chats") == 2 and selects(statements, "users") == 2


@pytest.mark.sqlite_only
async def test_changes_through_the_storage_are_seen_at_once_others_not(
    sqlite_storage: SqliteStorage, database_url: str
) -> None:
    storage = sqlite_storage
    async with storage.transaction() as tx:
        await tx.save_chat_settings(ChatSettings(-1, "en"))
        await tx.upsert_user(7, "A")
    assert (await storage.get_chat(-1)).language == "en"
    assert await storage.get_user(7) == User(7, "A", None, False)

    # The documented assumption: one process owns the database. A change behind the storage's
    # back is not seen while the cached value lives...
    execute(database_url, "UPDATE chats SET language = 'xx' WHERE chat_id = -1")
    execute(database_url, "UPDATE users SET name = 'Z' WHERE user_id = 7")
    assert (await storage.get_chat(-1)).language == "en"
    assert (await storage.get_user(7)) == User(7, "A", None, False)

    # ...while one through the storage is, at once, inside and outside transactions.
    async with storage.transaction() as tx:
        await tx.save_chat_settings(ChatSettings(-1, "ru", turn_timeout=30))
        assert await tx.get_chat(-1) == ChatSettings(-1, "ru", turn_timeout=30)
        await tx.upsert_user(7, "B", language="en")
        assert await tx.get_user(7) == User(7, "B", "en", False)
    assert await storage.get_chat(-1) == ChatSettings(-1, "ru", turn_timeout=30)
    assert await storage.get_user(7) == User(7, "B", "en", False)


async def test_rollback_after_a_write_leaves_nothing_uncommitted_cached(storage: Storage) -> None:
    old_chat, old_user = ChatSettings(-1, "en"), User(7, "A", None, False)
    async with storage.transaction() as tx:
        await tx.save_chat_settings(old_chat)
        await tx.upsert_user(7, "A")
    assert await storage.get_chat(-1) == old_chat and await storage.get_user(7) == old_user
    with pytest.raises(Injected):
        async with storage.transaction() as tx:
            assert await tx.get_chat(-1) == old_chat  # from the cache
            await tx.save_chat_settings(ChatSettings(-1, "xx"))
            await tx.upsert_user(7, "uncommitted")
            await tx.upsert_user(8, "never there")
            # Reads of what this transaction wrote, uncommitted: from the database...
            assert (await tx.get_chat(-1)).language == "xx"
            assert (await tx.get_user(7)) == User(7, "uncommitted", None, False)
            assert (await tx.get_user(8)) is not None
            raise Injected
    # ...and not cached: the committed values are what everyone sees afterwards.
    assert await storage.get_chat(-1) == old_chat
    assert await storage.get_user(7) == old_user
    assert await storage.get_user(8) is None
    async with storage.transaction() as tx:
        assert await tx.get_chat(-1) == old_chat
        assert await tx.get_user(8) is None


@pytest.mark.sqlite_only
async def test_a_failed_commit_leaves_nothing_uncommitted_cached(
    sqlite_storage: SqliteStorage, monkeypatch: pytest.MonkeyPatch
) -> None:
    storage = sqlite_storage
    assert await storage.get_chat(-1) == ChatSettings(-1)
    with pytest.raises(sqlite3.OperationalError):
        async with storage.transaction() as tx:
            await tx.save_chat_settings(ChatSettings(-1, "xx"))
            assert (await tx.get_chat(-1)).language == "xx"
            # Not a valid statement: the COMMIT fails.
            conn = storage._conn
            assert conn is not None
            real = conn.execute

            def failing(sql: str, *args: object) -> object:
                if sql == "COMMIT":
                    return real("COMMIT TO nowhere")
                return real(sql, *args)

            monkeypatch.setattr(conn, "execute", failing)
    monkeypatch.undo()
    assert await storage.get_chat(-1) == ChatSettings(-1)


async def test_stop_and_start_clear_the_caches(storage: Storage, database_url: str) -> None:
    async with storage.transaction() as tx:
        await tx.save_chat_settings(ChatSettings(-1, "en"))
        await tx.upsert_user(7, "A")
    assert (await storage.get_chat(-1)).language == "en" and await storage.get_user(7)
    execute(database_url, "UPDATE chats SET language = 'xx' WHERE chat_id = -1")
    execute(database_url, "DELETE FROM users WHERE user_id = 7")
    await storage.stop()
    await storage.start()
    assert (await storage.get_chat(-1)).language == "xx"
    assert await storage.get_user(7) is None


@pytest.mark.sqlite_only
async def test_the_caches_are_bounded(make_storage: StorageFactory) -> None:
    storage = await make_storage()
    assert isinstance(storage, SqliteStorage)
    small = SqliteStorage(storage.path, cache_size=2)
    await small.start()
    try:
        statements = await trace(small)
        for chat_id in (1, 2, 1, 3):  # 3 pushes out 2, the least recently used
            await small.get_chat(chat_id)
        assert selects(statements, "chats") == 3
        await small.get_chat(1)
        await small.get_chat(3)
        assert selects(statements, "chats") == 3
        await small.get_chat(2)
        assert selects(statements, "chats") == 4
    finally:
        await small.stop()


async def test_cached_settings_cannot_be_changed_by_a_caller(storage: Storage) -> None:
    async with storage.transaction() as tx:
        await tx.save_chat_settings(ChatSettings(-1, overrides={"deck": 52}))
    first = await storage.get_chat(-1)
    assert isinstance(first.overrides, dict)
    first.overrides["deck"] = 36  # a caller's own copy
    assert (await storage.get_chat(-1)).overrides == {"deck": 52}


async def test_direct_use_inside_own_transaction_fails_even_when_cached(storage: Storage) -> None:
    await storage.get_chat(1)
    await storage.get_user(1)
    async with storage.transaction():
        with pytest.raises(StorageError, match="deadlock"):
            await storage.get_chat(1)
        with pytest.raises(StorageError, match="deadlock"):
            await storage.get_user(1)


async def test_migrate_chat_invalidates_both_ids(storage: Storage) -> None:
    async with storage.transaction() as tx:
        await tx.save_chat_settings(ChatSettings(-1, "en", turn_timeout=30))
    # Both ids cached: the old one's settings, the new one's defaults.
    assert await storage.get_chat(-1) == ChatSettings(-1, "en", turn_timeout=30)
    assert await storage.get_chat(-2) == ChatSettings(-2)

    # Rolled back: the committed values stay what everyone sees.
    with pytest.raises(Injected):
        async with storage.transaction() as tx:
            await tx.migrate_chat(-1, -2)
            assert await tx.get_chat(-2) == ChatSettings(-2, "en", turn_timeout=30)
            assert await tx.get_chat(-1) == ChatSettings(-1)
            raise Injected
    assert await storage.get_chat(-1) == ChatSettings(-1, "en", turn_timeout=30)
    assert await storage.get_chat(-2) == ChatSettings(-2)

    async with storage.transaction() as tx:
        assert await tx.get_chat(-2) == ChatSettings(-2)  # cached before the write
        await tx.migrate_chat(-1, -2)
        assert await tx.get_chat(-2) == ChatSettings(-2, "en", turn_timeout=30)
        assert await tx.get_chat(-1) == ChatSettings(-1)
    if not isinstance(storage, SqliteStorage):  # the statement trace below is SQLite's
        assert await storage.get_chat(-2) == ChatSettings(-2, "en", turn_timeout=30)
        assert await storage.get_chat(-1) == ChatSettings(-1)
        return
    statements = await trace(storage)
    assert await storage.get_chat(-2) == ChatSettings(-2, "en", turn_timeout=30)
    assert await storage.get_chat(-1) == ChatSettings(-1)
    assert selects(statements, "chats") == 2  # read anew, then cached again
    assert await storage.get_chat(-2) == ChatSettings(-2, "en", turn_timeout=30)
    assert selects(statements, "chats") == 2
