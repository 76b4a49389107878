"""A group upgraded to a supergroup: everything of the old chat id moves to the new one, merged
with whatever the new id already holds, without losing a chip."""

from __future__ import annotations

import dataclasses

import pytest

from storage import (
    Account,
    ChatSettings,
    GameExists,
    LedgerCheck,
    Player,
    Screen,
    StatsDelta,
    Storage,
    Transfer,
)
from tests.storage.conftest import FakeClock
from tests.storage.raw import columns, fetch, foreign_key_problems, snapshot, tables

OLD, NEW = -100, -1_001_234
STATE = {"engine": {}, "meta": {}}


def rows_of_chat(url: str, chat_id: int) -> dict[str, int]:
    """How many rows of every table that has a chat_id column belong to the chat: a table added
    later is checked too, without this test knowing of it."""
    counts = {}
    for table in tables(url):
        if "chat_id" in columns(url, table):
            sql = f"SELECT count(*) FROM {table} WHERE chat_id = {int(chat_id)}"
            counts[table] = fetch(url, sql)[0][0]
    assert counts, "no table with a chat_id column: the query found none"
    return counts


async def test_everything_moves_to_the_new_id(
    storage: Storage, clock: FakeClock, database_url: str
) -> None:
    settings = ChatSettings(OLD, "en", "modern", {"deck": 52}, 45, True)
    async with storage.transaction() as tx:
        await tx.save_chat_settings(settings)
        await tx.ensure_player(OLD, 1, "A", 1000)
        await tx.ensure_player(OLD, 2, "B", 1000)
        done = await tx.create_game(OLD, 0, 1, STATE)
        bank = Account.bank(done.game_id)
        await tx.apply_transfers(
            OLD,
            done.game_id,
            1,
            [
                Transfer(Account.player(2), bank, 100, "stake"),
                Transfer(bank, Account.player(1), 100, "win"),
            ],
        )
        await tx.add_stats(OLD, 1, StatsDelta(rounds=1, wins=1, net=100, biggest_win=100))
        await tx.add_stats(OLD, 2, StatsDelta(rounds=1, losses=1, net=-100))
        await tx.archive_log(done.game_id, 0, [{"a": "start"}])
        await tx.save_game(
            done.game_id, expected_version=1, state=STATE, status="finished", deadline=None
        )
    clock.advance(60)
    async with storage.transaction() as tx:
        active = await tx.create_game(OLD, 0, 2, STATE, status="active")
        bank = Account.bank(active.game_id)
        await tx.apply_transfers(
            OLD, active.game_id, 1, [Transfer(Account.player(1), bank, 50, "bank")]
        )
        await tx.save_game(
            active.game_id, expected_version=1, state=STATE, status="active", deadline=None
        )
        await tx.set_screen(
            active.game_id, table_since=2, table_message_id=77, hand_messages={1: 5}
        )
        await tx.set_seats(active.game_id, [1, 2])
        lobby = await tx.create_game(OLD, 5, 1, STATE)  # a forum topic
        await tx.record_shown(OLD, 77, "digest-77")
    games_before = {
        g: await storage.load_game(g) for g in (done.game_id, active.game_id, lobby.game_id)
    }
    board = await storage.leaderboard(OLD)
    period = await storage.leaderboard(OLD, since=clock.now - 120)
    stats = {u: await storage.player_stats(OLD, u) for u in (1, 2)}
    history = {u: await storage.balance_history(OLD, u) for u in (1, 2)}
    check = await storage.check_ledger(OLD)
    assert check.ok and check.open_banks == 50

    async with storage.transaction() as tx:
        moved = await tx.migrate_chat(OLD, NEW)
    assert moved == [active.game_id, lobby.game_id]  # unfinished only, by id

    assert set(rows_of_chat(database_url, OLD).values()) == {0}
    assert foreign_key_problems(database_url) == []
    assert await storage.get_chat(NEW) == dataclasses.replace(settings, chat_id=NEW)
    assert await storage.get_chat(OLD) == ChatSettings(OLD)
    assert await storage.get_player(NEW, 1) == Player(NEW, 1, "A", 1050)
    assert await storage.get_player(OLD, 1) is None
    expected = {}
    for game_id, before in games_before.items():
        assert before is not None
        # Ids, threads, versions, banks and messages kept: only the chat changes.
        expected[game_id] = dataclasses.replace(before, chat_id=NEW)
        assert await storage.load_game(game_id) == expected[game_id]
    assert await storage.load_active_game(NEW, 0) == expected[active.game_id]
    assert await storage.load_active_game(NEW, 5) == expected[lobby.game_id]
    assert await storage.load_active_game(OLD, 0) is None
    assert await storage.load_screen(active.game_id) == Screen(active.game_id, 2, 77, {1: 5})
    assert await storage.seated_games(1) == [active.game_id]
    assert await storage.archived_log(done.game_id) == [{"a": "start"}]
    assert await storage.shown_digest(NEW, 77) == "digest-77"
    assert await storage.shown_digest(OLD, 77) is None
    assert await storage.check_ledger(NEW) == dataclasses.replace(check, chat_id=NEW)
    assert await storage.check_ledger(OLD) == LedgerCheck(OLD, 0, 0, 0, True)
    assert await storage.leaderboard(NEW) == board
    assert await storage.leaderboard(NEW, since=clock.now - 120) == period
    assert await storage.leaderboard(OLD) == []
    for user in (1, 2):
        old_stats = stats[user]
        assert old_stats is not None
        assert await storage.player_stats(NEW, user) == dataclasses.replace(old_stats, chat_id=NEW)
        assert await storage.player_stats(OLD, user) is None
        assert await storage.balance_history(NEW, user) == history[user]
        assert await storage.balance_history(OLD, user) == []

    # The moved bank is the new chat's money now.
    async with storage.transaction() as tx:
        await tx.apply_transfers(
            NEW,
            active.game_id,
            1,
            [Transfer(Account.bank(active.game_id), Account.player(2), 50, "win")],
        )
        await tx.add_stats(NEW, 2, StatsDelta(rounds=1, wins=1, net=50, biggest_win=50))
    assert (await storage.check_ledger(NEW)).ok


async def test_a_second_call_changes_nothing(storage: Storage, database_url: str) -> None:
    async with storage.transaction() as tx:
        await tx.save_chat_settings(ChatSettings(OLD, "en"))
        await tx.ensure_player(OLD, 1, "A", 1000)
        game = await tx.create_game(OLD, 0, 1, STATE)
        await tx.record_shown(OLD, 3, "d")
    async with storage.transaction() as tx:
        assert await tx.migrate_chat(OLD, NEW) == [game.game_id]
    before = snapshot(database_url)
    async with storage.transaction() as tx:
        assert await tx.migrate_chat(OLD, NEW) == []
    assert snapshot(database_url) == before
    assert await storage.get_chat(NEW) == ChatSettings(NEW, "en")

    # A late write under the old id (an action already under way) is moved by a later call.
    async with storage.transaction() as tx:
        await tx.ensure_player(OLD, 9, "Late", 1000)
        assert await tx.migrate_chat(OLD, NEW) == []
    assert await storage.get_player(NEW, 9) == Player(NEW, 9, "Late", 1000)
    assert (await storage.check_ledger(NEW)).granted == 2000


async def test_rows_already_under_the_new_id_are_merged(
    storage: Storage, clock: FakeClock, database_url: str
) -> None:
    # The old group: A and B stake in a game.
    async with storage.transaction() as tx:
        await tx.save_chat_settings(ChatSettings(OLD, "en", turn_timeout=30))
        await tx.ensure_player(OLD, 1, "A", 1000)
        await tx.ensure_player(OLD, 2, "B", 1000)
        game = await tx.create_game(OLD, 0, 1, STATE, status="active")
        bank = Account.bank(game.game_id)
        await tx.apply_transfers(
            OLD,
            game.game_id,
            1,
            [
                Transfer(Account.player(1), bank, 100, "stake"),
                Transfer(Account.player(2), bank, 200, "stake"),
            ],
        )
    # Updates from the supergroup arrive before the migration is handled: A gets a player row
    # there, with its own starting grant, plays in another topic, and someone saves settings.
    clock.advance(10)
    async with storage.transaction() as tx:
        assert await tx.ensure_player(NEW, 1, "A (new)", 1000) == Player(NEW, 1, "A (new)", 1000)
        other = await tx.create_game(NEW, 3, 1, STATE, status="active")
        await tx.apply_transfers(
            NEW,
            other.game_id,
            1,
            [Transfer(Account.player(1), Account.bank(other.game_id), 50, "stake")],
        )
        await tx.add_stats(NEW, 1, StatsDelta(rounds=1, losses=1, net=-50, biggest_win=70))
        await tx.save_chat_settings(ChatSettings(NEW, "de"))
        await tx.record_shown(NEW, 1, "new chat's message 1")
    # The old group's round settles meanwhile.
    clock.advance(10)
    async with storage.transaction() as tx:
        await tx.apply_transfers(
            OLD, game.game_id, 1, [Transfer(bank, Account.player(1), 300, "win")]
        )
        await tx.add_stats(OLD, 1, StatsDelta(rounds=1, wins=1, net=200, biggest_win=200))
        await tx.add_stats(OLD, 2, StatsDelta(rounds=1, losses=1, net=-200))
        await tx.record_shown(OLD, 1, "old chat's message 1")
        await tx.record_shown(OLD, 2, "old chat's message 2")
    assert (await storage.get_player(OLD, 1), await storage.get_player(NEW, 1)) == (
        Player(OLD, 1, "A", 1200),
        Player(NEW, 1, "A (new)", 950),
    )

    async with storage.transaction() as tx:
        assert await tx.migrate_chat(OLD, NEW) == [game.game_id]

    # Both balances summed, both grants kept: the new chat's books balance.
    assert await storage.get_player(NEW, 1) == Player(NEW, 1, "A (new)", 2150)
    assert await storage.get_player(NEW, 2) == Player(NEW, 2, "B", 800)
    assert await storage.check_ledger(NEW) == LedgerCheck(NEW, 3000, 2950, 50, True)
    assert await storage.check_ledger(OLD) == LedgerCheck(OLD, 0, 0, 0, True)
    # The history of the merged player is that of the combined balance, ending at it.
    assert [b for _, b in await storage.balance_history(NEW, 1)] == [1000, 900, 1900, 1850, 2150]
    assert [b for _, b in await storage.balance_history(NEW, 2)] == [1000, 800]
    stats = await storage.player_stats(NEW, 1)
    assert stats is not None
    assert (stats.name, stats.rounds, stats.wins, stats.losses, stats.net, stats.biggest_win) == (
        "A (new)",
        2,
        1,
        1,
        150,
        200,
    )
    board = await storage.leaderboard(NEW)
    assert [(r.user_id, r.balance, r.net, r.rounds) for r in board] == [
        (1, 2150, 150, 2),
        (2, 800, -200, 1),
    ]
    period = await storage.leaderboard(NEW, since=clock.now - 15)
    assert [(r.user_id, r.net) for r in period] == [(1, 150), (2, -200)]
    # Settings saved under the new id were saved after the upgrade: they win whole.
    assert await storage.get_chat(NEW) == ChatSettings(NEW, "de")
    # The new id's message 1 is another message than the old id's message 1.
    assert await storage.shown_digest(NEW, 1) == "new chat's message 1"
    assert await storage.shown_digest(NEW, 2) == "old chat's message 2"
    assert set(rows_of_chat(database_url, OLD).values()) == {0}
    assert foreign_key_problems(database_url) == []


async def test_two_open_games_in_one_thread_are_refused_untouched(
    storage: Storage, database_url: str
) -> None:
    async with storage.transaction() as tx:
        await tx.ensure_player(OLD, 1, "A", 1000)
        await tx.create_game(OLD, 0, 1, STATE)
        await tx.create_game(OLD, 4, 1, STATE)
        await tx.create_game(NEW, 4, 1, STATE)
    before = snapshot(database_url)
    async with storage.transaction() as tx:
        with pytest.raises(GameExists) as caught:
            await tx.migrate_chat(OLD, NEW)
    assert (caught.value.chat_id, caught.value.thread_id) == (NEW, 4)
    assert snapshot(database_url) == before  # caught and committed: this call wrote nothing

    # Once one of them is finished, the migration goes through.
    stale = await storage.load_active_game(NEW, 4)
    assert stale is not None
    async with storage.transaction() as tx:
        await tx.save_game(
            stale.game_id, expected_version=1, state=STATE, status="finished", deadline=None
        )
        assert len(await tx.migrate_chat(OLD, NEW)) == 2
    assert (await storage.check_ledger(NEW)).ok


async def test_a_chat_cannot_migrate_to_itself(storage: Storage) -> None:
    async with storage.transaction() as tx:
        with pytest.raises(ValueError, match="itself"):
            await tx.migrate_chat(OLD, OLD)


async def test_a_rolled_back_migration_leaves_everything(
    storage: Storage, database_url: str
) -> None:
    async with storage.transaction() as tx:
        await tx.save_chat_settings(ChatSettings(OLD, "en"))
        await tx.ensure_player(OLD, 1, "A", 1000)
        await tx.ensure_player(NEW, 1, "A", 1000)
    before = snapshot(database_url)
    with pytest.raises(RuntimeError):
        async with storage.transaction() as tx:
            await tx.migrate_chat(OLD, NEW)
            assert (await tx.get_player(NEW, 1)) == Player(NEW, 1, "A", 2000)
            raise RuntimeError
    assert snapshot(database_url) == before
    assert await storage.get_chat(OLD) == ChatSettings(OLD, "en")
    assert await storage.get_chat(NEW) == ChatSettings(NEW)
