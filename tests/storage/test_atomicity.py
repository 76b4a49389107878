"""One action = one transaction: all of it commits, or none of it."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

import pytest

from storage import (
    Account,
    ChatSettings,
    InsufficientFunds,
    StatsDelta,
    Storage,
    Transaction,
    Transfer,
    VersionConflict,
)
from tests.storage.conftest import StorageFactory, snapshot


class Injected(Exception):
    """The failure a test throws between two writes."""


async def seed(storage: Storage) -> int:
    async with storage.transaction() as tx:
        await tx.ensure_player(1, 1, "A", 1000)
        await tx.ensure_player(1, 2, "B", 1000)
        game = await tx.create_game(1, 0, 1, {"round": 0})
    return game.game_id


def full_action(game_id: int, update_id: int) -> list[Callable[[Transaction], Awaitable[object]]]:
    """The writes of one realistic action, as separate steps so a failure can go between any two."""
    bank = Account.bank(game_id)
    return [
        lambda tx: tx.claim_update(update_id),
        lambda tx: tx.save_game(
            game_id, expected_version=1, state={"round": 1}, status="active", deadline=5.0
        ),
        lambda tx: tx.apply_transfers(
            1,
            game_id,
            1,
            [
                Transfer(Account.player(1), bank, 100, "bank"),
                Transfer(Account.player(2), bank, 20, "stake"),
            ],
        ),
        lambda tx: tx.add_stats(1, 2, StatsDelta(rounds=1, wins=1, net=20, biggest_win=20)),
        lambda tx: tx.set_screen(game_id, table_since=2, table_message_id=9, hand_messages={1: 3}),
        lambda tx: tx.ensure_player(1, 3, "C", 1000),
        lambda tx: tx.upsert_user(3, "C", language="en", private_opened=True),
        lambda tx: tx.save_chat_settings(ChatSettings(1, "en", turn_timeout=30)),
        lambda tx: tx.create_game(1, 7, 3, {}),
        lambda tx: tx.prune_processed(1e12),
    ]


@pytest.mark.parametrize("fail_after", range(1, 11))
async def test_failure_between_writes_rolls_back_everything(
    storage: Storage, database_url: str, fail_after: int
) -> None:
    game_id = await seed(storage)
    before = snapshot(database_url)
    steps = full_action(game_id, update_id=500)
    assert len(steps) == 10
    with pytest.raises(Injected):
        async with storage.transaction() as tx:
            for step in steps[:fail_after]:
                await step(tx)
            raise Injected
    assert snapshot(database_url) == before
    # The same action then commits whole, proving the rollback left nothing half-open.
    async with storage.transaction() as tx:
        for step in steps:
            await step(tx)
    game = await storage.load_game(game_id)
    assert game is not None and game.version == 2 and game.bank == 120
    assert (await storage.check_ledger(1)).ok


async def test_cancellation_rolls_back(storage: Storage, database_url: str) -> None:
    game_id = await seed(storage)
    before = snapshot(database_url)
    entered = asyncio.Event()

    async def action() -> None:
        async with storage.transaction() as tx:
            await tx.claim_update(1)
            entered.set()
            await asyncio.sleep(60)

    task = asyncio.create_task(action())
    await entered.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert snapshot(database_url) == before
    assert (await storage.load_game(game_id)) is not None


async def test_insufficient_funds_writes_nothing(storage: Storage, database_url: str) -> None:
    game_id = await seed(storage)
    before = snapshot(database_url)
    bank = Account.bank(game_id)
    with pytest.raises(InsufficientFunds) as caught:
        async with storage.transaction() as tx:
            await tx.claim_update(1)
            await tx.apply_transfers(1, game_id, 1, [Transfer(Account.player(1), bank, 600, "a")])
            # The second batch would overdraw the player in its second step.
            await tx.apply_transfers(
                1,
                game_id,
                1,
                [
                    Transfer(Account.player(1), bank, 300, "b"),
                    Transfer(Account.player(1), bank, 300, "c"),
                ],
            )
    assert caught.value.account == Account.player(1)
    assert (caught.value.needed, caught.value.available) == (300, 100)
    assert snapshot(database_url) == before

    # Caught inside the transaction, the refused batch still left no partial rows.
    async with storage.transaction() as tx:
        with pytest.raises(InsufficientFunds):
            await tx.apply_transfers(
                1,
                game_id,
                1,
                [
                    Transfer(Account.player(2), bank, 900, "ok"),
                    Transfer(bank, Account.player(1), 901, "too much"),
                ],
            )
    assert snapshot(database_url) == before


async def test_duplicate_update_applied_once(storage: Storage) -> None:
    game_id = await seed(storage)

    async def handle(update_id: int) -> bool:
        async with storage.transaction() as tx:
            if not await tx.claim_update(update_id):
                return False
            game = await tx.load_game(game_id)
            assert game is not None
            await tx.save_game(
                game_id,
                expected_version=game.version,
                state={"n": game.version},
                status="active",
                deadline=None,
            )
            await tx.apply_transfers(
                1, game_id, 1, [Transfer(Account.player(1), Account.bank(game_id), 10, "stake")]
            )
            return True

    results = [await handle(77), await handle(77)]
    results += await asyncio.gather(handle(78), handle(78), handle(78))
    assert results[:2] == [True, False]
    assert sorted(results[2:]) == [False, False, True]
    game = await storage.load_game(game_id)
    assert game is not None and game.version == 3 and game.bank == 20
    assert await storage.is_processed(77) and await storage.is_processed(78)


UPDATE_IDS = {"one": 101, "two": 102}


async def test_two_writers_exactly_one_wins(make_storage: StorageFactory) -> None:
    # Two separate Storage objects: two connections, as with two bot processes on one file.
    first, second = await make_storage(), await make_storage()
    game_id = await seed(first)
    loaded_1, loaded_2 = await first.load_game(game_id), await second.load_game(game_id)
    assert loaded_1 is not None and loaded_2 is not None
    assert loaded_1.version == loaded_2.version == 1

    async def save(storage: Storage, marker: str) -> int:
        async with storage.transaction() as tx:
            await tx.claim_update(UPDATE_IDS[marker])
            return await tx.save_game(
                game_id, expected_version=1, state={"by": marker}, status="active", deadline=None
            )

    results = await asyncio.gather(save(first, "one"), save(second, "two"), return_exceptions=True)
    wins = [r for r in results if r == 2]
    conflicts = [r for r in results if isinstance(r, VersionConflict)]
    assert len(wins) == 1 and len(conflicts) == 1, results
    conflict = conflicts[0]
    assert (conflict.game_id, conflict.expected, conflict.actual) == (game_id, 1, 2)
    winner = "one" if results[0] == 2 else "two"
    stored = await second.load_game(game_id)
    assert stored is not None and stored.state == {"by": winner} and stored.version == 2
    # The loser's whole transaction rolled back, its update id included.
    loser = "two" if winner == "one" else "one"
    assert not await first.is_processed(UPDATE_IDS[loser])


async def test_same_object_concurrent_tasks_serialize(storage: Storage) -> None:
    game_id = await seed(storage)

    async def bump() -> None:
        for _ in range(20):
            while True:
                game = await storage.load_game(game_id)
                assert game is not None
                try:
                    async with storage.transaction() as tx:
                        await tx.save_game(
                            game_id,
                            expected_version=game.version,
                            state={},
                            status="active",
                            deadline=None,
                        )
                    break
                except VersionConflict:
                    continue  # reload and retry, as the bot does

    await asyncio.gather(bump(), bump(), bump())
    game = await storage.load_game(game_id)
    assert game is not None and game.version == 61
