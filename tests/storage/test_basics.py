"""Round trips of every record, and the read queries bot/ relies on."""

from __future__ import annotations

import re
from typing import Any

import pytest

from storage import (
    UNSET,
    Account,
    ChatSettings,
    GameExists,
    GameNotFound,
    LeaderboardRow,
    Player,
    StatsDelta,
    Storage,
    StorageError,
    TransactionClosed,
    Transfer,
    UnknownAccount,
    User,
)
from tests.storage.conftest import FakeClock
from tests.storage.raw import fetch, is_sqlite, on_postgres


async def test_chat_settings_default_then_saved(storage: Storage) -> None:
    assert await storage.get_chat(-100) == ChatSettings(-100)
    settings = ChatSettings(-100, "en", "modern", {"deck": 52, "names": ["Ё"]}, 45, True)
    async with storage.transaction() as tx:
        await tx.save_chat_settings(settings)
    assert await storage.get_chat(-100) == settings
    async with storage.transaction() as tx:
        await tx.save_chat_settings(ChatSettings(-100, turn_timeout=None))
        assert await tx.get_chat(-100) == ChatSettings(-100)


async def test_user_upsert_keeps_unset_fields(storage: Storage) -> None:
    assert await storage.get_user(7) is None
    async with storage.transaction() as tx:
        assert await tx.upsert_user(7, "Аня") == User(7, "Аня", None, False)
        await tx.upsert_user(7, "Аня", language="en", private_opened=True)
        await tx.upsert_user(7, "Anya")
    assert await storage.get_user(7) == User(7, "Anya", "en", True)
    async with storage.transaction() as tx:
        await tx.upsert_user(7, "Anya", language=None, private_opened=UNSET)
    assert await storage.get_user(7) == User(7, "Anya", None, True)


async def test_ensure_player_grants_once_and_renames(storage: Storage) -> None:
    async with storage.transaction() as tx:
        assert await tx.ensure_player(1, 7, "A", 1000) == Player(1, 7, "A", 1000)
        assert await tx.ensure_player(1, 7, "B", 5000) == Player(1, 7, "B", 1000)
    assert await storage.get_player(1, 7) == Player(1, 7, "B", 1000)
    assert await storage.get_player(2, 7) is None
    check = await storage.check_ledger(1)
    assert (check.granted, check.balances, check.ok) == (1000, 1000, True)


async def test_game_lifecycle(storage: Storage, clock: FakeClock) -> None:
    async with storage.transaction() as tx:
        game = await tx.create_game(1, 0, 7, {"deck": [1, 2, 3], "name": "Очко"})
    assert game.version == 1 and game.status == "lobby" and game.created_at == clock.now
    assert await storage.load_game(game.game_id) == game
    assert await storage.load_active_game(1, 0) == game
    assert await storage.load_active_game(1, 5) is None

    clock.advance(10)
    async with storage.transaction() as tx:
        new = await tx.save_game(
            game.game_id, expected_version=1, state={"x": 1}, status="active", deadline=99.5
        )
        await tx.set_screen(game.game_id, table_since=2, table_message_id=42)
        await tx.set_screen(game.game_id, hand_messages={7: 100, 8: 101})
    assert new == 2
    loaded = await storage.load_game(game.game_id)
    assert loaded is not None
    assert (loaded.version, loaded.state, loaded.status, loaded.deadline) == (
        2,
        {"x": 1},
        "active",
        99.5,
    )
    screen = await storage.load_screen(game.game_id)
    assert screen.table_message_id == 42 and screen.hand_messages == {7: 100, 8: 101}
    assert loaded.updated_at == clock.now and loaded.created_at == game.created_at
    assert await storage.games_with_deadlines() == [(game.game_id, 99.5)]

    async with storage.transaction() as tx:
        await tx.set_screen(game.game_id, hand_messages={9: 5})  # table id unchanged
        await tx.set_screen(game.game_id)
    loaded = await storage.load_game(game.game_id)
    assert loaded is not None
    screen = await storage.load_screen(game.game_id)
    assert (loaded.version, screen.table_message_id, screen.hand_messages) == (2, 42, {9: 5})

    async with storage.transaction() as tx:
        await tx.save_game(
            game.game_id, expected_version=2, state={}, status="finished", deadline=None
        )
    assert await storage.load_active_game(1, 0) is None
    assert await storage.games_with_deadlines() == []
    async with storage.transaction() as tx:
        second = await tx.create_game(1, 0, 8, {})
    assert second.game_id != game.game_id
    assert (await storage.load_game(game.game_id)) is not None  # kept for statistics


async def test_a_known_state_of_the_stored_version_is_not_decoded_again(
    storage: Storage,
) -> None:
    async with storage.transaction() as tx:
        game = await tx.create_game(1, 0, 7, {"deck": [1, 2, 3]})
        await tx.save_game(
            game.game_id, expected_version=1, state={"x": 2}, status="active", deadline=None
        )
    held = {"x": 2}
    async with storage.transaction() as tx:
        loaded = await tx.load_game(game.game_id, known=(2, held))
    assert loaded is not None and loaded.state is held and loaded.version == 2
    # Another version than the one held: the stored state, decoded.
    stale = await storage.load_game(game.game_id, known=(1, {"deck": [1, 2, 3]}))
    assert stale is not None and stale.state == {"x": 2} and stale.version == 2


async def test_one_open_game_per_thread(storage: Storage) -> None:
    async with storage.transaction() as tx:
        first = await tx.create_game(1, 0, 7, {})
        await tx.create_game(1, 3, 7, {})  # another forum topic
        await tx.create_game(2, 0, 7, {})  # another chat
    with pytest.raises(GameExists, match="chat 1 thread 0"):
        async with storage.transaction() as tx:
            await tx.create_game(1, 0, 8, {})
    async with storage.transaction() as tx:
        await tx.save_game(
            first.game_id, expected_version=1, state={}, status="finished", deadline=None
        )
        await tx.create_game(1, 0, 8, {})
    with pytest.raises(GameExists):  # reopening the old one would make two
        async with storage.transaction() as tx:
            await tx.save_game(
                first.game_id, expected_version=2, state={}, status="active", deadline=None
            )


async def test_missing_game_and_bad_status(storage: Storage) -> None:
    with pytest.raises(GameNotFound):
        async with storage.transaction() as tx:
            await tx.save_game(404, expected_version=1, state={}, status="active", deadline=None)
    with pytest.raises(GameNotFound):
        async with storage.transaction() as tx:
            await tx.set_screen(404, table_since=1, table_message_id=1)
    with pytest.raises(ValueError, match="status"):
        async with storage.transaction() as tx:
            await tx.create_game(1, 0, 7, {}, status="paused")  # type: ignore[arg-type]


async def test_stale_games(storage: Storage, clock: FakeClock) -> None:
    async with storage.transaction() as tx:
        old = await tx.create_game(1, 0, 7, {})
        done = await tx.create_game(2, 0, 7, {})
        await tx.save_game(
            done.game_id, expected_version=1, state={}, status="finished", deadline=None
        )
    clock.advance(3600)
    async with storage.transaction() as tx:
        await tx.create_game(3, 0, 7, {})
    assert await storage.stale_games(clock.now - 60) == [old.game_id]


async def test_transfers_stats_leaderboard_history(storage: Storage, clock: FakeClock) -> None:
    async with storage.transaction() as tx:
        for uid, name in ((1, "A"), (2, "B"), (3, "C")):
            await tx.ensure_player(10, uid, name, 1000)
        game = await tx.create_game(10, 0, 1, {})
        bank = Account.bank(game.game_id)
        await tx.apply_transfers(
            10,
            game.game_id,
            1,
            [
                Transfer(Account.player(1), bank, 300, "bank"),
                Transfer(Account.player(2), bank, 100, "stake"),
                Transfer(bank, Account.player(2), 200, "win"),
            ],
        )
        await tx.add_stats(
            10, 2, StatsDelta(rounds=1, wins=1, twentyones=1, net=100, biggest_win=100)
        )
        await tx.add_stats(10, 1, StatsDelta(rounds=1, losses=1, net=-100))
    t1 = clock.now
    clock.advance(100)
    async with storage.transaction() as tx:
        await tx.apply_transfers(
            10,
            game.game_id,
            2,
            [
                Transfer(Account.player(3), bank, 50, "stake"),
                Transfer(bank, Account.player(3), 100, "win"),
            ],
        )
        await tx.add_stats(
            10, 3, StatsDelta(rounds=1, wins=1, golden_points=1, net=50, biggest_win=50)
        )
        await tx.add_stats(10, 2, StatsDelta(rounds=1, busts=1, net=-10, biggest_win=0))
        await tx.apply_transfers(
            10, None, None, [Transfer(Account.GRANT, Account.player(1), 500, "admin top-up")]
        )

    assert await storage.get_player(10, 2) == Player(10, 2, "B", 1100)
    game_now = await storage.load_game(game.game_id)
    assert game_now is not None and game_now.bank == 150
    check = await storage.check_ledger(10)
    assert (check.granted, check.balances, check.open_banks, check.ok) == (3500, 3350, 150, True)

    stats = await storage.player_stats(10, 2)
    assert stats is not None
    assert (
        stats.rounds,
        stats.wins,
        stats.busts,
        stats.twentyones,
        stats.net,
        stats.biggest_win,
    ) == (2, 1, 1, 1, 90, 100)
    assert await storage.player_stats(10, 99) is None

    board = await storage.leaderboard(10)
    assert [r.user_id for r in board] == [1, 2, 3]
    assert board[0] == LeaderboardRow(1, "A", 1200, -100, 1, 0)
    assert [r.user_id for r in await storage.leaderboard(10, limit=2)] == [1, 2]
    period = await storage.leaderboard(10, since=t1 + 1)
    assert [(r.user_id, r.net, r.rounds) for r in period] == [(3, 50, 1), (2, -10, 1)]

    assert await storage.balance_history(10, 2) == [(t1, 1000), (t1, 900), (t1, 1100)]
    assert [b for _, b in await storage.balance_history(10, 1)] == [1000, 700, 1200]


async def test_transfer_to_unknown_account(storage: Storage) -> None:
    async with storage.transaction() as tx:
        await tx.ensure_player(1, 1, "A", 100)
        other_chat_game = await tx.create_game(2, 0, 1, {})
    with pytest.raises(UnknownAccount):
        async with storage.transaction() as tx:
            await tx.apply_transfers(
                1, None, None, [Transfer(Account.player(1), Account.player(2), 5, "x")]
            )
    with pytest.raises(UnknownAccount):  # a bank of another chat is not this chat's money
        async with storage.transaction() as tx:
            await tx.apply_transfers(
                1,
                None,
                None,
                [Transfer(Account.player(1), Account.bank(other_chat_game.game_id), 5, "x")],
            )


def test_models_validate() -> None:
    with pytest.raises(ValueError):
        Transfer(Account.player(1), Account.player(2), 0, "nothing")
    with pytest.raises(ValueError):
        Transfer(Account.player(1), Account.player(1), 5, "self")
    with pytest.raises(ValueError):
        Account("grant", 3)
    assert Account("grant", 0) == Account.GRANT


async def test_process_ids_and_pruning(storage: Storage, clock: FakeClock) -> None:
    async with storage.transaction() as tx:
        assert await tx.claim_update(1)
    clock.advance(86400 * 3)
    async with storage.transaction() as tx:
        assert await tx.claim_update(2)
        assert not await tx.claim_update(1)
        assert await tx.prune_processed(clock.now - 86400) == 1
    assert not await storage.is_processed(1)
    assert await storage.is_processed(2)


async def test_transaction_object_dies_with_its_block(storage: Storage) -> None:
    async with storage.transaction() as tx:
        pass
    with pytest.raises(TransactionClosed):
        await tx.claim_update(1)


async def test_storage_reads_inside_own_transaction_fail_fast(storage: Storage) -> None:
    # The same task using storage directly would wait for its own lock forever.
    async with storage.transaction():
        with pytest.raises(StorageError, match="deadlock"):
            await storage.get_chat(1)
        with pytest.raises(StorageError, match="deadlock"):
            async with storage.transaction():
                pass


def plan(database_url: str, query: str) -> str:
    """The query's plan as text. PostgreSQL's planner is told to avoid table scans, which on
    tables this small would win: it then scans an index if one serves the query."""
    if is_sqlite(database_url):
        return " ".join(row[3] for row in fetch(database_url, f"EXPLAIN QUERY PLAN {query}"))

    async def explain(conn: Any) -> str:
        await conn.execute("SET enable_seqscan = off")
        return " ".join(row[0] for row in await conn.fetch(f"EXPLAIN {query}"))

    return on_postgres(database_url, explain)


def uses_index(database_url: str, query: str, index: str) -> bool:
    text = plan(database_url, query)
    if is_sqlite(database_url):
        return f"USING INDEX {index}" in text or f"USING COVERING INDEX {index}" in text
    return re.search(rf"Scan using {index} |Bitmap Index Scan on {index}\b", text) is not None


async def test_active_game_lookup_uses_the_partial_index(
    storage: Storage, database_url: str
) -> None:
    query = "SELECT * FROM games WHERE chat_id = 1 AND thread_id = 0 AND status != 'finished'"
    assert uses_index(database_url, query, "games_open_by_thread"), plan(database_url, query)


async def test_pruned_update_ids_can_be_claimed_again(storage: Storage, clock: FakeClock) -> None:
    async with storage.transaction() as tx:
        for update_id in (1, 2):
            assert await tx.claim_update(update_id)
    clock.advance(3600)
    async with storage.transaction() as tx:
        assert await tx.claim_update(3)
    async with storage.transaction() as tx:
        assert await tx.prune_processed(clock.now - 60) == 2
    assert [await storage.is_processed(u) for u in (1, 2, 3)] == [False, False, True]
    async with storage.transaction() as tx:
        assert await tx.claim_update(1)  # forgotten: claimed as new
        assert not await tx.claim_update(3)  # kept: still a duplicate


@pytest.mark.parametrize(
    ("query", "index"),
    [
        ("DELETE FROM processed_updates WHERE processed_at < 1", "processed_updates_by_time"),
        ("DELETE FROM shown_messages WHERE shown_at < 1", "shown_messages_by_time"),
        ("UPDATE games SET chat_id = 2 WHERE chat_id = 1", "games_by_chat"),
    ],
)
async def test_pruning_and_migration_use_an_index(
    storage: Storage, database_url: str, query: str, index: str
) -> None:
    assert uses_index(database_url, query, index), plan(database_url, query)
