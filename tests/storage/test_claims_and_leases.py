"""Due turn deadlines claimed by one process at a time, and named leases with an expiry: what
lets several bot processes share one database."""

from __future__ import annotations

import asyncio

from storage import Storage
from tests.storage.conftest import FakeClock, StorageFactory


async def game_due_at(storage: Storage, chat_id: int, deadline: float | None) -> int:
    async with storage.transaction() as tx:
        game = await tx.create_game(chat_id, 0, 1, {"n": 0}, status="active")
        await tx.save_game(
            game.game_id, expected_version=1, state={"n": 1}, status="active", deadline=deadline
        )
    return game.game_id


async def test_claims_due_games_earliest_first(storage: Storage, clock: FakeClock) -> None:
    now = clock.now
    late = await game_due_at(storage, -1, now - 1)
    early = await game_due_at(storage, -2, now - 5)
    await game_due_at(storage, -3, now + 10)  # not due yet
    await game_due_at(storage, -4, None)  # no timer running
    finished = await game_due_at(storage, -5, now - 9)
    async with storage.transaction() as tx:
        await tx.save_game(finished, expected_version=2, state={}, status="finished", deadline=1)
    assert await storage.claim_due(now, "a", hold=5) == [(early, now - 5), (late, now - 1)]


async def test_a_live_claim_keeps_other_owners_away(storage: Storage, clock: FakeClock) -> None:
    now = clock.now
    game = await game_due_at(storage, -1, now - 1)
    assert await storage.claim_due(now, "a", hold=5) == [(game, now - 1)]
    assert await storage.claim_due(now + 1, "b", hold=5) == []
    # Not even by its owner: a fire that failed is tried again once the claim runs out.
    assert await storage.claim_due(now + 1, "a", hold=5) == []
    # An owner that died leaves its claim to run out: then another owner fires the deadline.
    assert await storage.claim_due(now + 7, "b", hold=5) == [(game, now - 1)]
    assert await storage.claim_due(now + 8, "a", hold=5) == []


async def test_saving_the_game_clears_its_claim(storage: Storage, clock: FakeClock) -> None:
    now = clock.now
    game = await game_due_at(storage, -1, now - 1)
    assert await storage.claim_due(now, "a", hold=60) == [(game, now - 1)]
    async with storage.transaction() as tx:
        await tx.save_game(game, expected_version=2, state={}, status="active", deadline=now - 0.5)
    assert await storage.claim_due(now, "b", hold=60) == [(game, now - 0.5)]


async def test_start_clock_clears_the_claim_too(storage: Storage, clock: FakeClock) -> None:
    now = clock.now
    game = await game_due_at(storage, -1, None)
    async with storage.transaction() as tx:
        assert await tx.start_clock(game, 2, now - 1)
    assert await storage.claim_due(now, "a", hold=60) == [(game, now - 1)]


async def test_claims_at_most_limit(storage: Storage, clock: FakeClock) -> None:
    now = clock.now
    games = [await game_due_at(storage, -n, now - n) for n in range(1, 6)]
    first = await storage.claim_due(now, "a", hold=60, limit=2)
    assert [game for game, _ in first] == [games[4], games[3]]
    rest = await storage.claim_due(now, "b", hold=60, limit=10)
    assert [game for game, _ in rest] == [games[2], games[1], games[0]]


async def test_concurrent_claimers_get_disjoint_sets(
    make_storage: StorageFactory, clock: FakeClock
) -> None:
    first, second = await make_storage(), await make_storage()
    now = clock.now
    games = {await game_due_at(first, -n, now - n) for n in range(1, 21)}
    claims = await asyncio.gather(
        *(
            (first if n % 2 else second).claim_due(now, f"owner{n}", hold=60, limit=3)
            for n in range(10)
        )
    )
    claimed = [game for batch in claims for game, _ in batch]
    assert len(claimed) == len(set(claimed)) == 20
    assert set(claimed) == games


async def test_lease_has_one_owner_until_it_expires(storage: Storage, clock: FakeClock) -> None:
    assert await storage.acquire_lease("chat:-1", "a", ttl=10)
    assert not await storage.acquire_lease("chat:-1", "b", ttl=10)
    assert await storage.acquire_lease("chat:-2", "b", ttl=10)  # leases are independent
    clock.advance(9)
    assert await storage.acquire_lease("chat:-1", "a", ttl=10)  # renewed until +19
    clock.advance(9)
    assert not await storage.acquire_lease("chat:-1", "b", ttl=10)
    clock.advance(2)
    assert await storage.acquire_lease("chat:-1", "b", ttl=10)  # a's ran out
    assert not await storage.acquire_lease("chat:-1", "a", ttl=10)


async def test_a_released_lease_is_free_at_once(storage: Storage) -> None:
    assert await storage.acquire_lease("job:sweep", "a", ttl=60)
    async with storage.transaction() as tx:
        await tx.drop_lease("job:sweep", "b")  # not b's: nothing happens
    assert not await storage.acquire_lease("job:sweep", "b", ttl=60)
    async with storage.transaction() as tx:
        await tx.drop_lease("job:sweep", "a")
    assert await storage.acquire_lease("job:sweep", "b", ttl=60)


async def test_concurrent_acquirers_one_wins(make_storage: StorageFactory) -> None:
    storages = [await make_storage() for _ in range(3)]
    won = await asyncio.gather(
        *(storages[n % 3].acquire_lease("chat:-7", f"owner{n}", ttl=30) for n in range(12))
    )
    assert sum(won) == 1


async def test_the_note_outlives_the_lease(storage: Storage, clock: FakeClock) -> None:
    assert await storage.lease("chat:-1") is None
    assert await storage.acquire_lease("chat:-1", "a", ttl=10, note="sent 1")
    start = clock.now
    clock.advance(4)
    assert await storage.acquire_lease("chat:-1", "a", ttl=10, note="sent 1, 2")
    held = await storage.lease("chat:-1")
    assert held is not None
    assert (held.owner, held.expires_at, held.renewed_at, held.note) == (
        "a",
        start + 14,
        start + 4,
        "sent 1, 2",
    )
    # Refused: nothing changes, not even the note.
    assert not await storage.acquire_lease("chat:-1", "b", ttl=10, note="b's")
    assert (await storage.lease("chat:-1")) == held
    async with storage.transaction() as tx:
        await tx.drop_lease("chat:-1", "a", note="sent 1, 2, 3")
    released = await storage.lease("chat:-1")
    assert released is not None
    assert released.owner == "a"
    assert released.note == "sent 1, 2, 3"
    assert released.expires_at < clock.now
    assert await storage.acquire_lease("chat:-1", "b", ttl=10)
    taken = await storage.lease("chat:-1")
    assert taken is not None
    assert (taken.owner, taken.note) == ("b", "")


async def test_leases_inside_a_transaction(storage: Storage) -> None:
    async with storage.transaction() as tx:
        assert await tx.hold_lease("chat:-1", "a", ttl=10, note="x")
        assert not await tx.hold_lease("chat:-1", "b", ttl=10)
        lease = await tx.lease("chat:-1")
        assert lease is not None
        assert lease.owner == "a"
        await tx.drop_lease("chat:-1", "a")
        assert await tx.hold_lease("chat:-1", "b", ttl=10)
    lease = await storage.lease("chat:-1")
    assert lease is not None
    assert lease.owner == "b"


async def test_games_updated_since(storage: Storage, clock: FakeClock) -> None:
    start = clock.now
    first = await game_due_at(storage, -1, None)
    clock.advance(10)
    second = await game_due_at(storage, -2, None)
    assert await storage.games_updated_since(start) == [(first, -1, 2), (second, -2, 2)]
    assert await storage.games_updated_since(start + 1) == [(second, -2, 2)]
    clock.advance(10)
    async with storage.transaction() as tx:  # finished games are listed too
        await tx.save_game(first, expected_version=2, state={}, status="finished", deadline=None)
        # Delivery bookkeeping is not an update of the game.
        await tx.set_screen(second, table_since=2, table_message_id=5, posted_seq=1)
    assert await storage.games_updated_since(start + 15) == [(first, -1, 3)]
    # A finished game and an open one together, in game order (each found by its own index).
    assert await storage.games_updated_since(start) == [(first, -1, 3), (second, -2, 2)]


async def test_live_leases_by_prefix(storage: Storage, clock: FakeClock) -> None:
    assert await storage.acquire_lease("replica:b", "b", ttl=10)
    assert await storage.acquire_lease("replica:a", "a", ttl=30)
    assert await storage.acquire_lease("replica_x", "x", ttl=30)  # _ is not a wildcard
    assert await storage.acquire_lease("chat:-1", "a", ttl=30)
    assert [lease.name for lease in await storage.live_leases("replica:")] == [
        "replica:a",
        "replica:b",
    ]
    clock.advance(11)
    assert [lease.owner for lease in await storage.live_leases("replica:")] == ["a"]
    async with storage.transaction() as tx:
        await tx.drop_lease("replica:a", "a")
    assert await storage.live_leases("replica:") == []
