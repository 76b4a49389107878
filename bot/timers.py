"""Turn timers: one task and a heap for every game's deadline, so ten thousand running games cost
ten thousand heap entries, not ten thousand sleeping tasks; or, when several processes share
the database, the due deadlines claimed from it (`ClaimedTimers`)."""

from __future__ import annotations

import asyncio
import contextlib
import heapq
import logging
import time
from collections.abc import Awaitable, Callable
from functools import partial

from storage import Storage

log = logging.getLogger(__name__)

Fire = Callable[[int], Awaitable[None]]  # called with the game id when its deadline passes


class TurnTimers:
    def __init__(self, fire: Fire, clock: Callable[[], float] = time.time) -> None:
        self._fire = fire
        self._clock = clock
        self._heap: list[tuple[float, int]] = []
        self._latest: dict[int, float] = {}
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._running: set[asyncio.Task[None]] = set()
        self._stopped = False

    def start(self) -> None:
        self._stopped = False
        if self._task is None:
            self._task = asyncio.create_task(self._loop(), name="turn-timers")

    async def stop(self) -> None:
        # A flag as well as the cancel: Python 3.11's wait_for can swallow a cancellation that
        # arrives just as its future completes (an arm() waking the loop), and the loop would
        # then wait on forever.
        self._stopped = True
        self._wake.set()
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
            self._task = None
        for task in list(self._running):
            task.cancel()
        await asyncio.gather(*self._running, return_exceptions=True)

    def arm(self, game_id: int, deadline: float | None) -> None:
        """Set (or, with no deadline, clear) the game's timer; the latest call wins."""
        if deadline is None:
            self._latest.pop(game_id, None)
            return
        if self._latest.get(game_id) == deadline:
            return
        self._latest[game_id] = deadline
        heapq.heappush(self._heap, (deadline, game_id))
        if self._heap[0][1] == game_id:
            self._wake.set()

    def pending(self) -> int:
        return len(self._latest)

    async def _loop(self) -> None:
        while not self._stopped:
            self._wake.clear()
            delay = self._heap[0][0] - self._clock() if self._heap else 3600.0
            if delay > 0:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._wake.wait(), timeout=delay)
                continue
            deadline, game_id = heapq.heappop(self._heap)
            if self._latest.get(game_id) != deadline:
                continue  # superseded by a later arm
            del self._latest[game_id]
            task = asyncio.create_task(self._run(game_id))
            self._running.add(task)
            task.add_done_callback(self._running.discard)

    async def _run(self, game_id: int) -> None:
        try:
            await self._fire(game_id)
        except Exception:
            log.exception("turn timer failed game=%s", game_id)


class ClaimedTimers:
    """Turn timers when several processes share the database: the due deadlines are claimed
    from it (`Storage.claim_due`), so whichever process is alive fires them, the deadlines
    armed in another process or left by one that died included.

    `arm` only tells when to look next; the database says what is due. Every ``poll``
    seconds at the latest, and at each deadline armed here, the due games are claimed for
    ``hold`` seconds and fired; a fire that fails is tried again once its claim runs out.
    """

    def __init__(
        self,
        fire: Fire,
        storage: Storage,
        owner: str,
        *,
        poll: float = 1.0,
        hold: float = 10.0,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._fire = fire
        self._storage = storage
        self._owner = owner
        self._poll = poll
        self._hold = hold
        self._clock = clock
        self._hints: list[float] = []
        self._latest: dict[int, float] = {}
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._running: dict[int, asyncio.Task[None]] = {}
        self._stopped = False

    def start(self) -> None:
        self._stopped = False
        if self._task is None:
            self._task = asyncio.create_task(self._loop(), name="claimed-timers")

    async def stop(self) -> None:
        self._stopped = True
        self._wake.set()
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
            self._task = None
        for task in list(self._running.values()):
            task.cancel()
        await asyncio.gather(*self._running.values(), return_exceptions=True)

    def arm(self, game_id: int, deadline: float | None) -> None:
        if deadline is None:
            self._latest.pop(game_id, None)
            return
        if self._latest.get(game_id) == deadline:
            return
        self._latest[game_id] = deadline
        heapq.heappush(self._hints, deadline)
        if self._hints[0] == deadline:
            self._wake.set()

    def pending(self) -> int:
        return len(self._latest)

    async def _loop(self) -> None:
        while not self._stopped:
            self._wake.clear()
            delay = self._poll
            if self._hints:
                delay = min(delay, self._hints[0] - self._clock())
            if delay > 0:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._wake.wait(), timeout=delay)
                if self._stopped:
                    return
                if self._wake.is_set():
                    continue  # an earlier deadline was armed: sleep until that one
            now = self._clock()
            while self._hints and self._hints[0] <= now:
                heapq.heappop(self._hints)
            try:
                due = await self._storage.claim_due(now, self._owner, self._hold)
            except Exception:
                log.exception("could not claim due turn deadlines")
                continue
            for game_id, _deadline in due:
                self._latest.pop(game_id, None)
                if game_id not in self._running:
                    task = asyncio.create_task(self._run(game_id))
                    self._running[game_id] = task
                    task.add_done_callback(partial(self._finished, game_id))

    def _finished(self, game_id: int, _task: asyncio.Task[None]) -> None:
        self._running.pop(game_id, None)

    async def _run(self, game_id: int) -> None:
        try:
            await self._fire(game_id)
        except Exception:
            log.exception("turn timer failed game=%s", game_id)
