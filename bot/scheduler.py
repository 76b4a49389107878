"""One scheduler and one clock for everything the bot does later (docs/architecture.md).

A repeating job's next run is counted from the end of the last, so a slow run never piles up;
a failure is logged, never fatal. :class:`Deadlines` are the jobs that must outlive the
process: kept in the database, armed again at start, and a due one is claimed from the store
before it runs, so that of several replicas one runs it.
"""

from __future__ import annotations

import asyncio
import contextlib
import heapq
import itertools
import logging
import math
import time
from collections.abc import Awaitable, Callable, Hashable
from dataclasses import dataclass
from functools import partial
from typing import Protocol

from storage import Storage

log = logging.getLogger(__name__)

Job = Callable[[], Awaitable[None]]
IDLE_SECONDS = 3600.0  # how long the loop sleeps with nothing armed (an arm wakes it)


class Clock:
    """The wall clock: ``clock()`` is the unix time; `wait` sleeps on it."""

    def __call__(self) -> float:
        return time.time()

    async def wait(self, wake: asyncio.Event, seconds: float) -> None:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(wake.wait(), timeout=seconds)


def coalesced(job: Job) -> Job:
    """``job`` one run at a time: calls that come while it runs make one more run after it
    (a claim of what is due, then one for what came due meanwhile), not one each."""
    running = again = False

    async def run() -> None:
        nonlocal running, again
        again = True
        if running:
            return
        running = True
        try:
            while again:
                again = False
                await job()
        finally:
            running = False

    return run


@dataclass(slots=True)
class _Entry:
    due: float  # math.inf while a repeating job runs
    seq: int
    job: Job
    every: float | None


class Scheduler:
    def __init__(self, clock: Clock | None = None) -> None:
        self.clock = clock if clock is not None else Clock()
        self._jobs: dict[Hashable, _Entry] = {}
        self._heap: list[tuple[float, int, Hashable]] = []
        self._seq = itertools.count()
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._running: set[asyncio.Task[None]] = set()
        self._stopped = False

    # ---------------------------------------------------------------- arming

    def at(self, key: Hashable, when: float | None, job: Job) -> None:
        """Run ``job`` once at ``when`` (by the clock); the latest call for a key wins, and
        ``when=None`` cancels it."""
        if when is None:
            self.cancel(key)
            return
        self._arm(key, when, job, None)

    def after(self, key: Hashable, seconds: float, job: Job) -> None:
        self._arm(key, self.clock() + seconds, job, None)

    def every(self, key: Hashable, seconds: float, job: Job, *, first: float | None = None) -> None:
        """Run ``job`` every ``seconds`` (from the end of one run to the start of the next),
        the first time ``first`` seconds from now (by default ``seconds``)."""
        if seconds <= 0:
            raise ValueError(f"a repeating job needs a positive period, not {seconds}")
        self._arm(key, self.clock() + (seconds if first is None else first), job, seconds)

    def cancel(self, key: Hashable) -> None:
        """Forget the key's job (a run under way finishes, and a repeating one stops)."""
        self._jobs.pop(key, None)

    def due(self, key: Hashable) -> float | None:
        """When the key's job runs next (inf while a repeating one runs), or None."""
        entry = self._jobs.get(key)
        return None if entry is None else entry.due

    def pending(self, kind: str) -> int:
        return len(self.keys(kind))

    def keys(self, kind: str) -> list[Hashable]:
        return [key for key in self._jobs if isinstance(key, tuple) and key[:1] == (kind,)]

    def _arm(self, key: Hashable, when: float, job: Job, every: float | None) -> None:
        entry = _Entry(when, next(self._seq), job, every)
        self._jobs[key] = entry
        heapq.heappush(self._heap, (when, entry.seq, key))
        if self._heap[0][1] == entry.seq:
            self._wake.set()

    # ---------------------------------------------------------------- running

    def start(self) -> None:
        self._stopped = False
        if self._task is None:
            self._task = asyncio.create_task(self._loop(), name="scheduler")

    async def stop(self) -> None:
        """Stop the loop and cancel the runs under way; the armed jobs stay (not run)."""
        # A flag as well as the cancel: Python 3.11's wait_for can swallow a cancellation that
        # arrives just as its future completes (an arm waking the loop).
        self._stopped = True
        self._wake.set()
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
            self._task = None
        for task in list(self._running):
            task.cancel()
        await asyncio.gather(*self._running, return_exceptions=True)

    async def settle(self) -> None:
        """Run every job due by the clock now, and wait for them (and for the jobs they made
        due meanwhile): what a running bot has done a moment after the clock moved (tests)."""
        while not self._stopped:
            self._run_due(self.clock())
            if not self._running:
                return
            await asyncio.gather(*list(self._running), return_exceptions=True)

    async def _loop(self) -> None:
        while not self._stopped:
            self._wake.clear()
            now = self.clock()
            self._run_due(now)
            delay = self._heap[0][0] - now if self._heap else IDLE_SECONDS
            if delay > 0:
                await self.clock.wait(self._wake, delay)

    def _run_due(self, now: float) -> None:
        while self._heap and self._heap[0][0] <= now:
            _, seq, key = heapq.heappop(self._heap)
            entry = self._jobs.get(key)
            if entry is None or entry.seq != seq:
                continue  # cancelled or armed again since
            if entry.every is None:
                del self._jobs[key]
            else:
                entry.due = math.inf  # running: armed again when it ends
            task = asyncio.create_task(self._run(key, entry), name=f"job {key!r}")
            self._running.add(task)
            task.add_done_callback(self._running.discard)

    async def _run(self, key: Hashable, entry: _Entry) -> None:
        try:
            await entry.job()
        except Exception:
            log.exception("scheduled job %r failed", key)
        finally:
            if entry.every is not None and self._jobs.get(key) is entry and not self._stopped:
                entry.due = self.clock() + entry.every
                heapq.heappush(self._heap, (entry.due, entry.seq, key))
                self._wake.set()


# ---------------------------------------------------------------------- deadlines that persist


class DeadlineStore(Protocol):
    """Where the deadlines that outlive the process are kept, by kind and key."""

    async def save(self, kind: str, key: str, due: float) -> None: ...

    async def drop(self, kind: str, key: str, due: float | None = None) -> None:
        """Forget the deadline (only if it is still at ``due``, when given)."""

    async def load(self, kind: str) -> list[tuple[str, float]]: ...

    async def claim(self, kind: str, now: float) -> list[tuple[str, float]]:
        """The deadlines of ``kind`` due by ``now`` that this process is to run: with replicas,
        those no other process claimed (each is then this one's for a while)."""


# How long a process that claimed a due deadline has to run it before another may: a process
# that dies meanwhile leaves it to the others once the claim runs out.
CLAIM_SECONDS = 30.0


class StoredDeadlines:
    """Deadlines kept in the storage's own table, on either backend: deleted once run or
    cancelled, found however long ago they were due, and with replicas claimed by one of them
    (``owner``, the process's name) before they run."""

    def __init__(self, storage: Storage, owner: str, *, hold: float = CLAIM_SECONDS) -> None:
        self._storage = storage
        self._owner = owner
        self._hold = hold

    async def save(self, kind: str, key: str, due: float) -> None:
        async with self._storage.transaction() as tx:
            await tx.save_deadline(kind, key, due)

    async def drop(self, kind: str, key: str, due: float | None = None) -> None:
        async with self._storage.transaction() as tx:
            await tx.drop_deadline(kind, key, due)

    async def load(self, kind: str) -> list[tuple[str, float]]:
        return await self._storage.deadlines(kind)

    async def claim(self, kind: str, now: float) -> list[tuple[str, float]]:
        return await self._storage.claim_deadlines(kind, now, self._owner, self._hold)


Handler = Callable[[str], Awaitable[None]]


class Deadlines:
    """Deadlines that outlive the process, kept in ``store`` and armed under ``(kind, key)``:
    a due one is claimed from the store (with replicas, one process gets each), run by its
    kind's handler and then dropped."""

    def __init__(self, scheduler: Scheduler, store: DeadlineStore) -> None:
        self.scheduler = scheduler
        self.store = store
        self._handlers: dict[str, Handler] = {}
        # One claim of a kind at a time here, so that the claims this process takes again as
        # their owner are never run twice by it.
        self._claims: dict[str, Job] = {}

    def kind(self, kind: str, handler: Handler) -> None:
        self._handlers[kind] = handler

    async def arm(self, kind: str, key: str, due: float) -> None:
        await self.store.save(kind, key, due)
        self._schedule(kind, key, due)

    async def cancel(self, kind: str, key: str) -> None:
        """Before its time (its question was answered): forget it here and in the store."""
        self.scheduler.cancel((kind, key))
        await self.store.drop(kind, key)

    async def restore(self) -> None:
        """Arm every kept deadline of the known kinds: at start, and with replicas every so
        often (`look`) those other processes kept too, so that one that dies before they are
        due (or while it runs one) leaves none behind; the claims decide which runs each."""
        for kind in self._handlers:
            for key, due in await self.store.load(kind):
                self._schedule(kind, key, due)

    look = restore

    def _schedule(self, kind: str, key: str, due: float) -> None:
        if self.scheduler.due((kind, key)) == due:
            return  # armed already
        if kind not in self._claims:
            self._claims[kind] = coalesced(partial(self._claim_once, kind))
        self.scheduler.at((kind, key), due, self._claims[kind])

    async def _claim_once(self, kind: str) -> None:
        handler = self._handlers[kind]
        for key, due in await self.store.claim(kind, self.scheduler.clock()):
            self.scheduler.cancel((kind, key))
            try:
                await handler(key)
            except Exception:
                log.exception("deadline %s %r failed", kind, key)
            finally:
                await self.store.drop(kind, key, due)
