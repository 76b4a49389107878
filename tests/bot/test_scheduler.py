"""The one scheduler and its clock (`bot.scheduler`): jobs by key at a deadline or every few
seconds, re-armed and cancelled by key, woken by a clock the test moves; and the deadlines
that outlive the process, kept in a store and armed again at start."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.scheduler import (
    CLAIM_SECONDS,
    Clock,
    Deadlines,
    Job,
    Scheduler,
    StoredDeadlines,
)
from storage import open_storage
from tests.bot.fake_clock import FakeClock


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(1_800_000_000.0)


@pytest.fixture
async def scheduler(clock: FakeClock) -> AsyncIterator[Scheduler]:
    scheduler = Scheduler(clock)
    scheduler.start()
    yield scheduler
    await scheduler.stop()


class MemoryDeadlines:
    """A `DeadlineStore` that lives as long as the test."""

    def __init__(self) -> None:
        self._due: dict[tuple[str, str], float] = {}

    async def save(self, kind: str, key: str, due: float) -> None:
        self._due[(kind, key)] = due

    async def drop(self, kind: str, key: str, due: float | None = None) -> None:
        if due is None or self._due.get((kind, key)) == due:
            self._due.pop((kind, key), None)

    async def load(self, kind: str) -> list[tuple[str, float]]:
        return sorted((key, due) for (k, key), due in self._due.items() if k == kind)

    async def claim(self, kind: str, now: float) -> list[tuple[str, float]]:
        return sorted(
            ((key, due) for key, due in await self.load(kind) if due <= now),
            key=lambda found: (found[1], found[0]),
        )


def recorder(log: list[str], name: str) -> Job:
    async def job() -> None:
        log.append(name)

    return job


async def test_one_shots_run_in_the_order_of_their_deadlines_when_the_clock_passes_them(
    scheduler: Scheduler, clock: FakeClock
) -> None:
    ran: list[str] = []
    scheduler.after(("b",), 20, recorder(ran, "b"))
    scheduler.after(("a",), 10, recorder(ran, "a"))
    scheduler.after(("c",), 30, recorder(ran, "c"))
    await asyncio.sleep(0.01)  # the loop waits for the clock, not for real time
    assert ran == []
    clock.advance(9.9)
    await scheduler.settle()
    assert ran == []
    clock.advance(0.1)
    await scheduler.settle()
    assert ran == ["a"]
    clock.advance(25)
    await scheduler.settle()
    assert ran == ["a", "b", "c"]
    assert scheduler.due(("a",)) is None  # a one-shot is gone once it ran


async def test_advancing_the_clock_wakes_the_loop_by_itself(
    scheduler: Scheduler, clock: FakeClock
) -> None:
    done = asyncio.Event()

    async def job() -> None:
        done.set()

    scheduler.after(("x",), 3600, job)
    await asyncio.sleep(0.01)
    clock.advance(3600)
    await asyncio.wait_for(done.wait(), timeout=2)  # no settle(): the loop woke


async def test_arming_a_key_again_replaces_its_job_and_none_cancels_it(
    scheduler: Scheduler, clock: FakeClock
) -> None:
    ran: list[str] = []
    scheduler.after(("turn", 1), 10, recorder(ran, "first"))
    scheduler.after(("turn", 1), 20, recorder(ran, "second"))
    scheduler.after(("turn", 2), 10, recorder(ran, "other"))
    assert scheduler.pending("turn") == 2
    scheduler.at(("turn", 2), None, recorder(ran, "never"))
    assert scheduler.pending("turn") == 1
    clock.advance(15)
    await scheduler.settle()
    assert ran == []  # the first arm was replaced, the other cancelled
    clock.advance(5)
    await scheduler.settle()
    assert ran == ["second"]
    assert scheduler.pending("turn") == 0


async def test_a_repeating_job_runs_every_period_and_stops_when_cancelled(
    scheduler: Scheduler, clock: FakeClock
) -> None:
    ran: list[str] = []
    scheduler.every(("sweep",), 60, recorder(ran, "sweep"), first=5)
    clock.advance(5)
    await scheduler.settle()
    assert ran == ["sweep"]
    assert scheduler.due(("sweep",)) == clock() + 60  # counted from the end of the run
    clock.advance(59)
    await scheduler.settle()
    assert ran == ["sweep"]
    clock.advance(1)
    await scheduler.settle()
    assert ran == ["sweep", "sweep"]
    clock.advance(3600)  # an hour later: one run, not sixty to catch up
    await scheduler.settle()
    assert ran == ["sweep"] * 3
    scheduler.cancel(("sweep",))
    clock.advance(3600)
    await scheduler.settle()
    assert ran == ["sweep"] * 3


async def test_a_failing_job_is_logged_and_the_others_go_on(
    scheduler: Scheduler, clock: FakeClock, caplog: pytest.LogCaptureFixture
) -> None:
    ran: list[str] = []

    async def broken() -> None:
        raise RuntimeError("boom")

    scheduler.every(("broken",), 1, broken)
    scheduler.after(("fine",), 1, recorder(ran, "fine"))
    clock.advance(1)
    await scheduler.settle()
    clock.advance(1)
    await scheduler.settle()
    assert ran == ["fine"]
    assert caplog.text.count("scheduled job ('broken',) failed") == 2  # and it kept repeating


async def test_a_repeating_run_never_overlaps_itself(
    scheduler: Scheduler, clock: FakeClock
) -> None:
    release = asyncio.Event()
    running = 0
    most = 0

    async def slow() -> None:
        nonlocal running, most
        running += 1
        most = max(most, running)
        await release.wait()
        running -= 1

    scheduler.every(("slow",), 1, slow)
    for _ in range(5):
        clock.advance(1)
        await asyncio.sleep(0.01)
    assert most == 1
    release.set()
    await scheduler.settle()


async def test_stop_cancels_the_runs_under_way_and_runs_nothing_more(clock: FakeClock) -> None:
    scheduler = Scheduler(clock)
    scheduler.start()
    started = asyncio.Event()
    ran: list[str] = []

    async def forever() -> None:
        started.set()
        await asyncio.Event().wait()

    scheduler.after(("long",), 1, forever)
    scheduler.after(("later",), 10, recorder(ran, "later"))
    clock.advance(1)
    await asyncio.wait_for(started.wait(), timeout=2)
    await asyncio.wait_for(scheduler.stop(), timeout=2)
    clock.advance(10)
    await scheduler.settle()
    assert ran == []


async def test_the_wall_clock_waits_in_real_time() -> None:
    scheduler = Scheduler(Clock())
    scheduler.start()
    done = asyncio.Event()

    async def job() -> None:
        done.set()

    scheduler.after(("soon",), 0.05, job)
    await asyncio.wait_for(done.wait(), timeout=2)
    await scheduler.stop()


async def test_kept_deadlines_come_back_after_a_restart(tmp_path: Path, clock: FakeClock) -> None:
    """A deadline kept in the storage (its deadlines table) is armed again by the next process;
    one cancelled or run is not, and leaves no row behind."""
    url = f"sqlite:///{tmp_path / 'due.sqlite3'}"
    fired: list[str] = []

    async def expired(key: str) -> None:
        fired.append(key)

    storage = open_storage(url, clock=clock)
    await storage.start()
    first = Deadlines(Scheduler(clock), StoredDeadlines(storage, "bot"))
    first.kind("ask", expired)
    await first.arm("ask", "-100:7", clock() + 30)
    await first.arm("ask", "-100:8", clock() + 60)
    await first.arm("ask", "-100:9", clock() + 30)
    await first.cancel("ask", "-100:9")  # answered in time
    await storage.stop()  # the process ends; nothing ran
    clock.advance(45)  # down for a while: the first question's time passed meanwhile

    storage = open_storage(url, clock=clock)
    await storage.start()
    scheduler = Scheduler(clock)
    second = Deadlines(scheduler, StoredDeadlines(storage, "bot"))
    second.kind("ask", expired)
    await second.restore()
    assert scheduler.pending("ask") == 2
    await scheduler.settle()
    assert fired == ["-100:7"]  # overdue: at once
    clock.advance(15)
    await scheduler.settle()
    assert fired == ["-100:7", "-100:8"]
    assert await storage.deadlines("ask") == []  # run: dropped
    await storage.stop()


async def test_a_replica_runs_the_deadlines_another_kept(tmp_path: Path, clock: FakeClock) -> None:
    """With replicas each looks at the kept deadlines every so often: one kept by a process
    that died is still run in time, once however often it was looked at."""
    url = f"sqlite:///{tmp_path / 'shared.sqlite3'}"
    dead, alive = open_storage(url, clock=clock), open_storage(url, clock=clock)
    await dead.start()
    await alive.start()
    fired: list[str] = []

    async def expired(key: str) -> None:
        fired.append(key)

    asker = Deadlines(Scheduler(clock), StoredDeadlines(dead, "dead"))
    asker.kind("ask", expired)
    await asker.arm("ask", "-100:7", clock() + 30)  # and then its process dies
    scheduler = Scheduler(clock)
    other = Deadlines(scheduler, StoredDeadlines(alive, "alive"))
    other.kind("ask", expired)
    for _ in range(3):
        await other.look()
        clock.advance(5)
        await scheduler.settle()
    assert fired == []
    clock.advance(15)
    await scheduler.settle()
    assert fired == ["-100:7"]
    await dead.stop()
    await alive.stop()


async def test_a_deadline_kept_long_ago_still_comes_back(tmp_path: Path, clock: FakeClock) -> None:
    """However long the bot was down, an unanswered question is closed when it starts."""
    url = f"sqlite:///{tmp_path / 'due.sqlite3'}"
    fired: list[str] = []

    async def expired(key: str) -> None:
        fired.append(key)

    storage = open_storage(url, clock=clock)
    await storage.start()
    await Deadlines(Scheduler(clock), StoredDeadlines(storage, "bot")).arm("ask", "1", clock())
    await storage.stop()
    clock.advance(7 * 86_400.0)
    storage = open_storage(url, clock=clock)
    await storage.start()
    scheduler = Scheduler(clock)
    again = Deadlines(scheduler, StoredDeadlines(storage, "bot"))
    again.kind("ask", expired)
    await again.restore()
    assert scheduler.pending("ask") == 1
    await scheduler.settle()
    assert fired == ["1"]
    assert await storage.deadlines("ask") == []
    await storage.stop()


async def test_two_replicas_run_a_deadline_once(tmp_path: Path, clock: FakeClock) -> None:
    """Both replicas arm every kept deadline (each looks at the others'), but the one that
    claims it when it is due runs it; the other finds it claimed, then gone."""
    url = f"sqlite:///{tmp_path / 'shared.sqlite3'}"
    storages = [open_storage(url, clock=clock) for _ in range(2)]
    fired: list[tuple[str, str]] = []
    replicas = []
    for n, storage in enumerate(storages):
        await storage.start()

        async def expired(key: str, name: str = f"replica{n}") -> None:
            await asyncio.sleep(0)  # the other replica's claim comes meanwhile
            fired.append((name, key))

        deadlines = Deadlines(Scheduler(clock), StoredDeadlines(storage, f"replica{n}"))
        deadlines.kind("ask", expired)
        replicas.append(deadlines)
    await replicas[0].arm("ask", "-100:7", clock() + 30)
    await replicas[0].arm("ask", "-100:8", clock() + 30)
    await replicas[1].look()
    assert replicas[1].scheduler.pending("ask") == 2
    clock.advance(30)
    await asyncio.gather(*(replica.scheduler.settle() for replica in replicas))
    for replica in replicas:
        await replica.look()  # nothing is left to arm
        await replica.scheduler.settle()
    assert sorted(key for _, key in fired) == ["-100:7", "-100:8"]
    assert await storages[1].deadlines("ask") == []
    for storage in storages:
        await storage.stop()


async def test_a_replica_that_dies_running_a_deadline_leaves_it_to_another(
    tmp_path: Path, clock: FakeClock
) -> None:
    url = f"sqlite:///{tmp_path / 'shared.sqlite3'}"
    dead, alive = open_storage(url, clock=clock), open_storage(url, clock=clock)
    await dead.start()
    await alive.start()
    async with dead.transaction() as tx:
        await tx.save_deadline("ask", "-100:7", clock())
    assert await dead.claim_deadlines("ask", clock(), "dead", CLAIM_SECONDS) == [
        ("-100:7", clock())
    ]  # … and then its process dies before the question is closed
    fired: list[str] = []

    async def expired(key: str) -> None:
        fired.append(key)

    scheduler = Scheduler(clock)
    other = Deadlines(scheduler, StoredDeadlines(alive, "alive"))
    other.kind("ask", expired)
    await other.look()
    await scheduler.settle()
    assert fired == []  # claimed by the other, for a while
    clock.advance(CLAIM_SECONDS + 1)
    await other.look()
    await scheduler.settle()
    assert fired == ["-100:7"]
    await dead.stop()
    await alive.stop()


async def test_the_memory_store_keeps_deadlines_by_kind() -> None:
    store = MemoryDeadlines()
    await store.save("ask", "1", 10.0)
    await store.save("other", "1", 5.0)
    await store.save("ask", "1", 20.0)
    assert await store.load("ask") == [("1", 20.0)]
    assert await store.claim("ask", 15.0) == []
    assert await store.claim("ask", 20.0) == [("1", 20.0)]
    await store.drop("ask", "1", 10.0)  # not at that time any more
    assert await store.load("ask") == [("1", 20.0)]
    await store.drop("ask", "1")
    assert await store.load("ask") == []
