"""The scheduler's deadlines that outlive the process (bot/scheduler.py): kept by kind and
key, dropped once run, and claimed when due by one process at a time."""

from __future__ import annotations

import asyncio

from storage import Storage
from tests.storage.conftest import FakeClock, StorageFactory


async def keep(storage: Storage, kind: str, key: str, due: float) -> None:
    async with storage.transaction() as tx:
        await tx.save_deadline(kind, key, due)


async def test_deadlines_are_kept_by_kind_and_key(storage: Storage, clock: FakeClock) -> None:
    now = clock.now
    await keep(storage, "ask", "-100:8", now + 60)
    await keep(storage, "ask", "-100:7", now + 30)
    await keep(storage, "other", "-100:7", now + 5)
    await keep(storage, "ask", "-100:8", now + 20)  # kept again: a new time
    assert await storage.deadlines("ask") == [("-100:8", now + 20), ("-100:7", now + 30)]
    assert await storage.deadlines("other") == [("-100:7", now + 5)]
    async with storage.transaction() as tx:
        assert await tx.drop_deadline("ask", "-100:8")
        assert not await tx.drop_deadline("ask", "-100:8")  # gone: nothing stays behind
        assert await tx.deadlines("ask") == [("-100:7", now + 30)]
    assert await storage.deadlines("ask") == [("-100:7", now + 30)]


async def test_a_deadline_long_past_is_still_found(storage: Storage, clock: FakeClock) -> None:
    await keep(storage, "ask", "1", clock.now)
    clock.advance(30 * 86_400.0)  # the process was down for a month
    assert await storage.deadlines("ask") == [("1", clock.now - 30 * 86_400.0)]
    assert await storage.claim_deadlines("ask", clock.now, "a", hold=5) == [
        ("1", clock.now - 30 * 86_400.0)
    ]


async def test_dropping_at_a_time_keeps_one_kept_again(storage: Storage, clock: FakeClock) -> None:
    now = clock.now
    await keep(storage, "ask", "1", now - 1)
    assert await storage.claim_deadlines("ask", now, "a", hold=5) == [("1", now - 1)]
    await keep(storage, "ask", "1", now + 60)  # kept again while the old time ran
    async with storage.transaction() as tx:
        assert not await tx.drop_deadline("ask", "1", now - 1)
    assert await storage.deadlines("ask") == [("1", now + 60)]


async def test_claims_the_due_deadlines_of_a_kind_earliest_first(
    storage: Storage, clock: FakeClock
) -> None:
    now = clock.now
    await keep(storage, "ask", "late", now - 1)
    await keep(storage, "ask", "early", now - 5)
    await keep(storage, "ask", "later", now + 10)  # not due yet
    await keep(storage, "other", "x", now - 9)  # another kind
    assert await storage.claim_deadlines("ask", now, "a", hold=5) == [
        ("early", now - 5),
        ("late", now - 1),
    ]
    assert await storage.claim_deadlines("ask", now, "a", hold=5, limit=1) == [("early", now - 5)]


async def test_a_live_claim_keeps_other_owners_away(storage: Storage, clock: FakeClock) -> None:
    now = clock.now
    await keep(storage, "ask", "1", now - 1)
    assert await storage.claim_deadlines("ask", now, "a", hold=5) == [("1", now - 1)]
    assert await storage.claim_deadlines("ask", now + 1, "b", hold=5) == []
    # Its owner claims it again (after a restart, say): it knows what it runs itself.
    assert await storage.claim_deadlines("ask", now + 1, "a", hold=5) == [("1", now - 1)]
    # An owner that died leaves its claim to run out: then another owner claims it.
    assert await storage.claim_deadlines("ask", now + 7, "b", hold=5) == [("1", now - 1)]
    assert await storage.claim_deadlines("ask", now + 8, "a", hold=5) == []


async def test_keeping_a_deadline_again_clears_its_claim(
    storage: Storage, clock: FakeClock
) -> None:
    now = clock.now
    await keep(storage, "ask", "1", now - 1)
    assert await storage.claim_deadlines("ask", now, "a", hold=60) == [("1", now - 1)]
    await keep(storage, "ask", "1", now - 0.5)
    assert await storage.claim_deadlines("ask", now, "b", hold=60) == [("1", now - 0.5)]


async def test_concurrent_claimers_get_disjoint_sets(
    make_storage: StorageFactory, clock: FakeClock
) -> None:
    first, second = await make_storage(), await make_storage()
    now = clock.now
    keys = {f"k{n:02}" for n in range(20)}
    for n, key in enumerate(sorted(keys)):
        await keep(first, "ask", key, now - n)
    claims = await asyncio.gather(
        *(
            (first if n % 2 else second).claim_deadlines("ask", now, f"owner{n}", 60, limit=3)
            for n in range(10)
        )
    )
    claimed = [key for claim in claims for key, _ in claim]
    assert len(claimed) == len(set(claimed)) == len(keys)
    assert set(claimed) == keys
