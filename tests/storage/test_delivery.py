"""What the bot needs to deliver messages across restarts: what each message shows, how far a
game's results were posted, and a turn clock that starts once the prompt is delivered."""

from __future__ import annotations

import pytest

from storage import GameNotFound, Screen, Storage
from tests.storage.conftest import FakeClock

STATE = {"engine": {}, "meta": {}}


async def test_shown_digests_round_trip_and_replace(storage: Storage) -> None:
    assert await storage.shown_digest(-100, 5) is None
    async with storage.transaction() as tx:
        await tx.record_shown(-100, 5, "first")
        await tx.record_shown(-200, 5, "other chat")
        assert await tx.shown_digest(-100, 5) == "first"  # its own write, inside
        await tx.record_shown(-100, 5, "second")  # an upsert, not a second row
    assert await storage.shown_digest(-100, 5) == "second"
    assert await storage.shown_digest(-200, 5) == "other chat"
    assert await storage.shown_digest(-100, 6) is None


async def test_a_rolled_back_digest_is_not_kept(storage: Storage) -> None:
    with pytest.raises(RuntimeError):
        async with storage.transaction() as tx:
            await tx.record_shown(-100, 5, "never shown")
            raise RuntimeError
    assert await storage.shown_digest(-100, 5) is None


async def test_forget_shown_forgets_only_the_messages_named(storage: Storage) -> None:
    async with storage.transaction() as tx:
        for message_id in (1, 2, 3):
            await tx.record_shown(-100, message_id, f"d{message_id}")
        await tx.record_shown(-200, 1, "other chat")
    async with storage.transaction() as tx:
        await tx.forget_shown(-100, [1, 3, 3, 99])  # duplicates and unknown ids are harmless
        await tx.forget_shown(-100, [])
    assert [await storage.shown_digest(-100, m) for m in (1, 2, 3)] == [None, "d2", None]
    assert await storage.shown_digest(-200, 1) == "other chat"


async def test_prune_shown_by_age(storage: Storage, clock: FakeClock) -> None:
    async with storage.transaction() as tx:
        await tx.record_shown(-100, 1, "old")
        await tx.record_shown(-100, 2, "refreshed later")
    clock.advance(3600)
    async with storage.transaction() as tx:
        await tx.record_shown(-100, 2, "refreshed")  # shown_at moves with every record
        await tx.record_shown(-100, 3, "new")
    async with storage.transaction() as tx:
        assert await tx.prune_shown(clock.now - 60) == 1
        assert await tx.prune_shown(clock.now - 60) == 0
    assert await storage.shown_digest(-100, 1) is None
    assert await storage.shown_digest(-100, 2) == "refreshed"
    assert await storage.shown_digest(-100, 3) == "new"


async def test_posted_seq_grows_without_bumping_the_version(
    storage: Storage, clock: FakeClock
) -> None:
    async with storage.transaction() as tx:
        game = await tx.create_game(-100, 0, 1, STATE)
    assert await storage.load_screen(game.game_id) == Screen(game.game_id)
    assert (await storage.load_screen(game.game_id)).posted_seq == 0
    assert await storage.load_game(game.game_id) == game
    clock.advance(5)
    async with storage.transaction() as tx:
        await tx.set_screen(game.game_id, posted_seq=3)
    assert await storage.load_game(game.game_id) == game  # version and updated_at kept
    assert (await storage.load_screen(game.game_id)).posted_seq == 3
    async with storage.transaction() as tx:
        await tx.set_screen(game.game_id, posted_seq=2)  # a late, older progress: ignored
        await tx.set_screen(game.game_id, table_since=1, table_message_id=9, posted_seq=3)
    loaded = await storage.load_screen(game.game_id)
    assert (loaded.posted_seq, loaded.table_message_id) == (3, 9)
    async with storage.transaction() as tx:
        version = await tx.save_game(
            game.game_id, expected_version=1, state=STATE, status="active", deadline=None
        )
        await tx.set_screen(game.game_id, posted_seq=4)
    active = await storage.load_active_game(-100, 0)
    assert active is not None and active.version == version
    assert (await storage.load_screen(game.game_id)).posted_seq == 4
    with pytest.raises(GameNotFound):
        async with storage.transaction() as tx:
            await tx.set_screen(404, posted_seq=1)


async def test_a_table_is_recorded_with_the_round_it_shows(storage: Storage) -> None:
    async with storage.transaction() as tx:
        game = await tx.create_game(-100, 0, 1, STATE)
        await tx.set_screen(game.game_id, table_since=5, table_message_id=50, shown_version=5)
        await tx.set_screen(game.game_id, hand_messages={7: 70, 8: 80})
    screen = await storage.load_screen(game.game_id)
    assert screen == Screen(game.game_id, 5, 50, {7: 70, 8: 80}, 0, 5)
    async with storage.transaction() as tx:
        # A late write of an older round's table leaves the newer one, and its version.
        await tx.set_screen(game.game_id, table_since=3, table_message_id=30, shown_version=9)
    assert await storage.load_screen(game.game_id) == screen
    async with storage.transaction() as tx:
        # The same round's table posted again (it was deleted) replaces it; so does a newer.
        await tx.set_screen(game.game_id, table_since=5, table_message_id=51, shown_version=6)
    assert (await storage.load_screen(game.game_id)).table_message_id == 51
    async with storage.transaction() as tx:
        await tx.set_screen(game.game_id, table_since=8, table_message_id=None)
        await tx.set_screen(game.game_id, shown_version=8, hand_messages={})
    assert await storage.load_screen(game.game_id) == Screen(game.game_id, 8, None, {}, 0, 8)
    async with storage.transaction() as tx:
        await tx.set_screen(game.game_id, mentioned_since=7)
        await tx.set_screen(game.game_id, mentioned_since=6)  # a late, older turn: ignored
    assert (await storage.load_screen(game.game_id)).mentioned_since == 7
    with pytest.raises(ValueError):
        async with storage.transaction() as tx:
            await tx.set_screen(game.game_id, table_message_id=1)  # for which table?


async def test_a_live_result_is_kept_until_taken_back(storage: Storage) -> None:
    live = {"message_id": 61, "event": {"round_no": 1, "results": [{"player": 7, "net": -10}]}}
    async with storage.transaction() as tx:
        game = await tx.create_game(-100, 0, 1, STATE)
        await tx.set_screen(game.game_id, posted_seq=1, live_result=live)
        await tx.set_screen(game.game_id, shown_version=3)  # other records leave it
    assert (await storage.load_screen(game.game_id)).live_result == live
    async with storage.transaction() as tx:
        await tx.set_screen(game.game_id, live_result=None)
    screen = await storage.load_screen(game.game_id)
    assert screen.live_result is None and screen.posted_seq == 1


async def test_the_clock_starts_once_at_the_delivered_version(
    storage: Storage, clock: FakeClock
) -> None:
    async with storage.transaction() as tx:
        game = await tx.create_game(-100, 0, 1, STATE)
        lobby = await tx.create_game(-200, 0, 1, STATE)
        # Saved without a deadline: its clock waits for the prompt's delivery.
        version = await tx.save_game(
            game.game_id, expected_version=1, state=STATE, status="active", deadline=None
        )
    assert await storage.games_awaiting_clock() == [game.game_id]  # the lobby is not listed
    clock.advance(5)
    async with storage.transaction() as tx:
        assert not await tx.start_clock(game.game_id, version - 1, 100.0)  # an older prompt
        assert await tx.start_clock(game.game_id, version, 100.0)
        assert not await tx.start_clock(game.game_id, version, 200.0)  # already running
        assert not await tx.start_clock(404, 1, 100.0)
    loaded = await storage.load_game(game.game_id)
    assert loaded is not None
    assert (loaded.deadline, loaded.version, loaded.updated_at) == (100.0, version, game.updated_at)
    assert await storage.games_with_deadlines() == [(game.game_id, 100.0)]
    assert await storage.games_awaiting_clock() == []

    async with storage.transaction() as tx:
        # The next move stops the clock again, and a prompt of the move before cannot start it.
        version = await tx.save_game(
            game.game_id, expected_version=version, state=STATE, status="active", deadline=None
        )
        assert not await tx.start_clock(game.game_id, version - 1, 300.0)
    assert await storage.games_awaiting_clock() == [game.game_id]
    async with storage.transaction() as tx:
        version = await tx.save_game(
            game.game_id, expected_version=version, state=STATE, status="finished", deadline=None
        )
        assert not await tx.start_clock(game.game_id, version, 300.0)  # finished
        assert await tx.start_clock(lobby.game_id, 1, 50.0)  # unfinished, if the bot wants it
    assert await storage.games_awaiting_clock() == []
    assert await storage.games_with_deadlines() == [(lobby.game_id, 50.0)]
