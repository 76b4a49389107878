"""Several processes on one database: turn deadlines claimed from it, each chat's delivery held
by one process at a time (its flood budget handed on), periodic jobs run once.

Two `Storage` objects on one SQLite file stand for two processes here; the end-to-end test with
real replicas on PostgreSQL is tests/e2e/test_replicas.py.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.replicas import (
    IDLE_SECONDS,
    LEASE_SECONDS,
    OTHERS_SECONDS,
    UNNOTED_SENDS,
    Replica,
    chat_lease,
)
from bot.scheduler import Scheduler
from bot.timers import TurnTimers
from storage import Storage, open_storage
from tests.bot.conftest import Harness
from tests.bot.fake_clock import FakeClock
from tests.bot.test_refusals import classic_at_stake

CHAT = -100


Clock = FakeClock


class Budget:
    """A rate limiter's budget as the leases see it."""

    def __init__(self, sent: list[float] | None = None) -> None:
        self.sent = sent or []
        self.counted: list[float] = []
        self.shares: list[int] = []

    def sent_lately(self, chat_id: int) -> list[float]:
        return list(self.sent)

    def count_sent(self, chat_id: int, times: list[float]) -> None:
        self.counted += times

    def share_overall(self, processes: int) -> None:
        self.shares.append(processes)


@pytest.fixture
def clock() -> Clock:
    return Clock(1_800_000_000.0)


@pytest.fixture
async def two(tmp_path: Path, clock: Clock) -> AsyncIterator[tuple[Storage, Storage]]:
    url = f"sqlite:///{tmp_path / 'shared.sqlite3'}"
    first, second = open_storage(url, clock=clock), open_storage(url, clock=clock)
    await first.start()
    await second.start()
    yield first, second
    await first.stop()
    await second.stop()


async def new_game(storage: Storage, chat_id: int, deadline: float | None = None) -> int:
    async with storage.transaction() as tx:
        game = await tx.create_game(chat_id, 0, 1, {"n": 0}, status="active")
        await tx.save_game(
            game.game_id, expected_version=1, state={"n": 1}, status="active", deadline=deadline
        )
    return game.game_id


async def test_a_due_deadline_fires_once_in_one_of_the_processes(
    two: tuple[Storage, Storage], clock: Clock
) -> None:
    fired: list[tuple[str, int]] = []
    schedulers = []
    for n, storage in enumerate(two):
        name = f"replica{n}"

        async def fire(game_id: int, name: str = name) -> None:
            fired.append((name, game_id))

        scheduler = Scheduler(clock)
        TurnTimers(scheduler, fire, storage=storage, owner=name, poll=0.05, hold=60).start()
        schedulers.append(scheduler)
    # Armed in neither process: as if set by one that died since.
    game = await new_game(two[0], CHAT, deadline=1.0)
    for _ in range(6):  # both poll several times
        for scheduler in schedulers:
            await scheduler.settle()
        clock.advance(0.05)
    assert [g for _, g in fired] == [game]


async def test_an_armed_deadline_is_claimed_when_it_passes(tmp_path: Path, clock: Clock) -> None:
    storage = open_storage(f"sqlite:///{tmp_path / 'one.sqlite3'}", clock=clock)
    await storage.start()
    fired: list[int] = []

    async def fire(game_id: int) -> None:
        fired.append(game_id)

    scheduler = Scheduler(clock)
    timers = TurnTimers(scheduler, fire, storage=storage, owner="solo", poll=30.0)
    timers.start()
    await scheduler.settle()  # the first poll, at start: nothing due
    deadline = clock() + 1.0
    game = await new_game(storage, CHAT, deadline=deadline)
    timers.arm(game, deadline)  # a hint of when to look: the database says what is due
    clock.advance(0.5)
    await scheduler.settle()
    assert fired == []
    clock.advance(0.5)
    await scheduler.settle()
    assert fired == [game]  # long before the 30 s poll
    assert timers.pending() == 0
    await storage.stop()


async def test_deadlines_due_together_are_claimed_together(
    tmp_path: Path, clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    storage = open_storage(f"sqlite:///{tmp_path / 'one.sqlite3'}", clock=clock)
    await storage.start()
    fired: list[int] = []
    claims = 0
    claim_due = storage.claim_due

    async def counted(now: float, owner: str, hold: float) -> list[tuple[int, float]]:
        nonlocal claims
        claims += 1
        return await claim_due(now, owner, hold)

    monkeypatch.setattr(storage, "claim_due", counted)

    async def fire(game_id: int) -> None:
        fired.append(game_id)

    scheduler = Scheduler(clock)
    timers = TurnTimers(scheduler, fire, storage=storage, owner="solo", poll=30.0)
    timers.start()
    await scheduler.settle()
    claims = 0
    deadline = clock() + 5
    games = [await new_game(storage, CHAT - n, deadline=deadline) for n in range(10)]
    for game in games:
        timers.arm(game, deadline)
    clock.advance(5)
    await scheduler.settle()
    assert sorted(fired) == games  # each once
    assert claims <= 2  # not a transaction per game
    await storage.stop()


async def test_one_process_delivers_a_chat_and_hands_its_budget_on(
    two: tuple[Storage, Storage], clock: Clock
) -> None:
    sent = [clock.now - 30, clock.now - 2]
    first = Replica(two[0], Budget(sent), name="a", clock=clock)
    second_budget = Budget()
    second = Replica(two[1], second_budget, name="b", clock=clock)
    assert await first.take(CHAT)
    assert not await second.take(CHAT)
    assert await first.take(CHAT)  # still its own
    await first.release_all()  # a clean stop: the note is complete
    assert not await second.take(CHAT)  # what it read of the lease is trusted a moment
    clock.now += OTHERS_SECONDS
    assert await second.take(CHAT)
    assert second_budget.counted == pytest.approx(sent)
    assert not await first.take(CHAT)


async def test_a_dead_holder_is_taken_over_once_its_lease_runs_out(
    two: tuple[Storage, Storage], clock: Clock
) -> None:
    sent = [clock.now - 1]
    first = Replica(two[0], Budget(sent), name="a", clock=clock)
    second_budget = Budget()
    second = Replica(two[1], second_budget, name="b", clock=clock)
    assert await first.take(CHAT)
    renewed = clock.now
    clock.now += LEASE_SECONDS - 1
    assert not await second.take(CHAT)
    clock.now += 2  # first died: never renewed
    assert await second.take(CHAT)
    # What it noted, and what it may have sent after its note at one per second.
    unnoted = [renewed + n + 1 for n in range(UNNOTED_SENDS)]
    assert second_budget.counted == pytest.approx(sent + unnoted)


async def test_renewing_keeps_busy_chats_and_gives_quiet_ones_up(
    two: tuple[Storage, Storage], clock: Clock
) -> None:
    first = Replica(two[0], Budget(), name="a", clock=clock)
    lost: list[int] = []
    first.on_lost = lost.append
    assert await first.take(CHAT)
    assert await first.take(CHAT - 1)
    for _ in range(int(IDLE_SECONDS // 10) + 1):
        clock.now += 10
        await first.take(CHAT)  # busy: in use every 10 s
        await first.renew()
    assert first.held() == [CHAT]
    assert lost == [CHAT - 1]
    quiet = await two[1].lease(chat_lease(CHAT - 1))
    assert quiet is not None
    assert quiet.expires_at < clock.now
    assert json.loads(quiet.note)["final"] is True
    busy = await two[1].lease(chat_lease(CHAT))
    assert busy is not None
    assert busy.owner == "a"
    assert busy.expires_at > clock.now


async def test_the_holder_learns_of_versions_committed_elsewhere(
    two: tuple[Storage, Storage], clock: Clock
) -> None:
    first = Replica(two[0], Budget(), name="a", clock=clock)
    changed: list[int] = []

    async def on_changed(game_id: int) -> None:
        changed.append(game_id)

    first.on_changed = on_changed
    known: dict[int, int] = {}
    first.known_version = known.get
    first.start(Scheduler(clock))  # never started: the polls are driven by hand below
    first.stop()
    game = await new_game(two[1], CHAT)
    other = await new_game(two[1], CHAT - 1)
    await first.poll()
    assert changed == []  # it delivers neither chat
    assert await first.take(CHAT)
    clock.now += 1
    async with two[1].transaction() as tx:
        await tx.save_game(game, expected_version=2, state={}, status="active", deadline=None)
        await tx.save_game(other, expected_version=2, state={}, status="active", deadline=None)
    await first.poll()
    assert changed == [game]
    known[game] = 3  # shown
    clock.now += 1
    await first.poll()
    assert changed == [game]


async def test_a_chat_left_behind_by_a_dead_process_is_adopted(
    two: tuple[Storage, Storage], clock: Clock
) -> None:
    dead = Replica(two[0], Budget(), name="dead", clock=clock)
    alive = Replica(two[1], Budget(), name="alive", clock=clock)
    adopted: list[int] = []

    async def on_changed(game_id: int) -> None:
        adopted.append(game_id)

    alive.on_changed = on_changed
    game = await new_game(two[0], CHAT)  # version 2; its table shows nothing yet
    assert await dead.take(CHAT)
    await alive.adopt()
    assert adopted == []  # its holder is alive as far as anyone knows
    clock.now += LEASE_SECONDS + 1
    await alive.adopt()
    assert adopted == [game]


async def test_a_periodic_job_runs_in_one_process(
    two: tuple[Storage, Storage], clock: Clock
) -> None:
    first = Replica(two[0], None, name="a", clock=clock)
    second = Replica(two[1], None, name="b", clock=clock)
    assert await first.job_turn("sweep", 60)
    assert not await second.job_turn("sweep", 60)
    clock.now += 60
    assert await second.job_turn("sweep", 60) != await first.job_turn("sweep", 60)


async def test_the_processes_alive_share_the_overall_budget(
    two: tuple[Storage, Storage], clock: Clock
) -> None:
    budgets = Budget(), Budget()
    first = Replica(two[0], budgets[0], name="a", clock=clock)
    second = Replica(two[1], budgets[1], name="b", clock=clock)
    await first.heartbeat()
    assert first.alive == 1
    await second.heartbeat()
    assert second.alive == 2
    await first.heartbeat()
    assert first.alive == 2
    await second.release_all()  # a clean stop: gone at once
    await first.heartbeat()
    assert first.alive == 1
    assert budgets[0].shares == [1, 2, 1]
    await second.heartbeat()
    assert second.alive == 2 and budgets[1].shares == [2, 2]  # counted again, not remembered
    clock.now += LEASE_SECONDS + 1  # second died: gone once its lease ran out
    await first.heartbeat()
    assert first.alive == 1


async def test_a_chat_handed_back_is_shown_from_what_the_other_replica_recorded(
    harness: Harness,
) -> None:
    """A replica that gives a chat up forgets what its messages showed: the replica that
    took it over may have edited them since. Taking the chat back, it goes by the digests in
    the database, and edits a table that no longer shows the game's state."""
    h = harness
    stored = await classic_at_stake(h)
    table = (await h.screen(stored)).table_message_id
    assert table is not None
    await h.rt.delivery.drain()
    edits = len(h.server.calls("editMessageText"))
    # Meanwhile another replica showed something else in that message and recorded it.
    async with h.rt.storage.transaction() as tx:
        await tx.record_shown(h.group.id, table, "another replica's digest")
    h.rt.delivery.chat_given_up(h.group.id)
    await h.rt.delivery.load(stored.game_id)
    await h.rt.delivery.drain()
    assert len(h.server.calls("editMessageText")) == edits + 1


async def test_a_chat_delivered_elsewhere_costs_no_read_per_action(
    two: tuple[Storage, Storage], clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = Replica(two[0], Budget(), name="a", clock=clock)
    second = Replica(two[1], Budget(), name="b", clock=clock)
    assert await first.take(CHAT)
    reads = 0
    read = two[1].lease

    async def counted(name: str) -> object:
        nonlocal reads
        reads += 1
        return await read(name)

    monkeypatch.setattr(two[1], "lease", counted)
    for _ in range(10):  # ten actions committed in the chat by the second process
        assert not await second.take(CHAT)
    assert reads == 1
    clock.now += OTHERS_SECONDS + 0.1
    assert not await second.take(CHAT)
    assert reads == 2
