"""The scheduler's clock for tests: time moves only when a test moves it."""

from __future__ import annotations

import asyncio
import time

from bot.scheduler import Clock


class FakeClock(Clock):
    """A clock that stands still until `advance` moves it (tests): nothing waits in real time."""

    def __init__(self, now: float | None = None) -> None:
        self.now = time.time() if now is None else now
        self._waiting: set[asyncio.Event] = set()

    def __call__(self) -> float:
        return self.now

    async def wait(self, wake: asyncio.Event, seconds: float) -> None:
        self._waiting.add(wake)
        try:
            await wake.wait()
        finally:
            self._waiting.discard(wake)

    def advance(self, seconds: float) -> None:
        """Move the time on (or back) and wake whatever waits on this clock."""
        self.now += seconds
        for wake in list(self._waiting):
            wake.set()
