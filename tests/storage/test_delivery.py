"""What the bot needs to deliver messages across restarts: what each message shows, how far a
game's results were posted, and a turn clock that starts once the prompt is delivered."""

from __future__ import annotations

import dataclasses

import pytest

from storage import GameNotFound, Storage, StoredGame
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
    assert game.posted_seq == 0
    assert await storage.load_game(game.game_id) == game
    clock.advance(5)
    async with storage.transaction() as tx:
        await tx.set_messages(game.game_id, posted_seq=3)
    loaded = await storage.load_game(game.game_id)
    assert loaded == dataclasses.replace(game, posted_seq=3)  # version and updated_at kept
    async with storage.transaction() as tx:
        await tx.set_messages(game.game_id, posted_seq=2)  # a late, older progress: ignored
        await tx.set_messages(game.game_id, table_message_id=9, posted_seq=3)
    loaded = await storage.load_game(game.game_id)
    assert loaded is not None and (loaded.posted_seq, loaded.table_message_id) == (3, 9)
    async with storage.transaction() as tx:
        version = await tx.save_game(
            game.game_id, expected_version=1, state=STATE, status="active", deadline=None
        )
        await tx.set_messages(game.game_id, posted_seq=4)
    active = await storage.load_active_game(-100, 0)
    assert active is not None and (active.version, active.posted_seq) == (version, 4)
    with pytest.raises(GameNotFound):
        async with storage.transaction() as tx:
            await tx.set_messages(404, posted_seq=1)


def test_stored_game_is_still_built_without_posted_seq() -> None:
    game = StoredGame(1, -100, 0, "lobby", {}, 1, 0, None, None, {}, 7, 0.0, 0.0)
    assert game.posted_seq == 0


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
