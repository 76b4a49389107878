"""Bookkeeping the bot reads at start-up and on every join: which games' tables are behind
their state, and who sits in which unfinished game."""

from __future__ import annotations

from tests.storage.conftest import StorageFactory

STATE = {"engine": {}, "meta": {}}


async def test_stale_views_follow_the_shown_version(make_storage: StorageFactory) -> None:
    storage = await make_storage()
    async with storage.transaction() as tx:
        first = await tx.create_game(-100, 0, 1, STATE)
        second = await tx.create_game(-200, 0, 2, STATE)
    # Nothing was shown yet: both tables are behind.
    assert await storage.stale_views() == [first.game_id, second.game_id]
    async with storage.transaction() as tx:
        await tx.set_screen(
            first.game_id, table_since=1, table_message_id=7, shown_version=first.version
        )
    assert await storage.stale_views() == [second.game_id]
    async with storage.transaction() as tx:
        version = await tx.save_game(
            first.game_id,
            expected_version=first.version,
            state=STATE,
            status="active",
            deadline=None,
        )
        # Recording what is shown never moves the state's version.
        await tx.set_screen(second.game_id, shown_version=second.version)
    assert await storage.stale_views() == [first.game_id]
    async with storage.transaction() as tx:
        await tx.set_screen(first.game_id, shown_version=version)
        await tx.save_game(
            second.game_id,
            expected_version=second.version,
            state=STATE,
            status="finished",
            deadline=None,
        )
    assert await storage.stale_views() == []
    reloaded = await storage.load_game(first.game_id)
    assert reloaded is not None and reloaded.version == version


async def test_seated_games_list_only_unfinished_games(make_storage: StorageFactory) -> None:
    storage = await make_storage()
    async with storage.transaction() as tx:
        one = await tx.create_game(-100, 0, 1, STATE)
        two = await tx.create_game(-200, 0, 1, STATE)
        await tx.set_seats(one.game_id, [1, 2])
        await tx.set_seats(two.game_id, [1])
    assert await storage.seated_games(1) == [one.game_id, two.game_id]
    assert await storage.seated_games(2) == [one.game_id]
    async with storage.transaction() as tx:
        await tx.set_seats(one.game_id, [1])  # 2 left the table
        await tx.save_game(
            two.game_id, expected_version=two.version, state=STATE, status="finished", deadline=None
        )
    assert await storage.seated_games(1) == [one.game_id]
    assert await storage.seated_games(2) == []
