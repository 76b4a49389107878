"""The bot's own health and metrics endpoints, for an orchestrator and Prometheus:

- ``/healthz``: the process is alive and its event loop turns — a watch task wakes every
  second and measures how late it woke (the loop's lag); long silent or far behind is unhealthy.
- ``/readyz``: the bot can do its work — the database answers a query (through the storage) and
  updates arrive: the webhook server runs, or getUpdates was answered lately.
- ``/metrics``: `bot.metrics` in Prometheus' text format, when METRICS_ENABLED is set.

They are routes of the Mini App's site when it is on (`bot.webapp.server`), else of a small
server of their own on METRICS_LISTEN:METRICS_PORT (run when the metrics are on). aiohttp's web
server is imported only then.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable
from typing import Protocol

from aiohttp import web

from bot import metrics
from bot.polling import PollPace
from bot.scheduler import Scheduler
from storage import Storage

log = logging.getLogger(__name__)
TICK = 1.0  # the watch task's period (s)
MAX_LAG = 5.0  # the loop woke the watch this late: unhealthy
MAX_SILENCE = 10.0  # the watch has not run for this long: unhealthy
POLL_STALE = 60.0  # no getUpdates answered for this long: not ready (a long poll takes ~10 s)
DB_TIMEOUT = 3.0
TABLES_INTERVAL = 15.0  # how often the active tables are counted (with the metrics on)


class Holder(Protocol):
    """The chat leases this process holds (`bot.replicas.Replica`)."""

    def holds(self, chat_id: int) -> bool: ...


class Monitor:
    def __init__(
        self,
        storage: Storage,
        *,
        replica: Holder | None,
        updates_running: Callable[[], bool],
        pace: PollPace | None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        """``pace`` is getUpdates' (polling), None with a webhook: then ``updates_running``
        (PTB's updater) alone says updates arrive."""
        self.storage = storage
        self.replica = replica
        self.updates_running = updates_running
        self.pace = pace
        self.clock = clock
        self.lag = 0.0
        self.ticked = clock()
        self._watch: asyncio.Task[None] | None = None
        self._runner: web.AppRunner | None = None

    # ---------------------------------------------------------------- the routes

    def mount(self, app: web.Application) -> None:
        """Add the routes to ``app`` (the Mini App's, or this monitor's own)."""
        app.router.add_get("/healthz", self._healthz)
        app.router.add_get("/readyz", self._readyz)
        if metrics.enabled():
            app.router.add_get("/metrics", self._metrics)

    async def serve(self, host: str, port: int) -> None:
        """A server of its own (the Mini App is off)."""
        app = web.Application()
        self.mount(app)
        self._runner = web.AppRunner(app, access_log=None, shutdown_timeout=1.0)
        await self._runner.setup()
        await web.TCPSite(self._runner, host, port).start()
        log.info(
            "health%s served on %s:%d", " and metrics" if metrics.enabled() else "", host, port
        )

    def start(self, scheduler: Scheduler) -> None:
        self.ticked = self.clock()
        self._watch = asyncio.create_task(self._watch_loop(), name="loop-watch")
        if metrics.enabled():
            scheduler.every(("metrics", "tables"), TABLES_INTERVAL, self._count_tables, first=1.0)

    async def stop(self) -> None:
        if self._watch is not None:
            self._watch.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._watch
            self._watch = None
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    # ---------------------------------------------------------------- the checks

    def health_problem(self) -> str | None:
        """None while the loop turns, else why not."""
        silent = self.clock() - self.ticked
        if silent > MAX_SILENCE:
            return f"the event loop's watch has not run for {silent:.0f} s"
        if self.lag > MAX_LAG:
            return f"the event loop runs {self.lag:.1f} s late"
        return None

    async def readiness_problem(self) -> str | None:
        """None when the database answers and updates arrive, else why not."""
        try:
            async with asyncio.timeout(DB_TIMEOUT):
                chats = await self.storage.open_game_chats()
        except Exception as error:  # whatever the driver raises: the database does not answer
            return f"the database does not answer ({error.__class__.__name__})"
        self._tables(chats)
        if not self.updates_running():
            return "updates do not arrive (neither polling nor the webhook runs)"
        if self.pace is not None:
            quiet = self.clock() - self.pace.polled_at
            if quiet > POLL_STALE:
                return f"getUpdates has not been answered for {quiet:.0f} s"
        return None

    async def _watch_loop(self) -> None:
        while True:
            before = self.clock()
            await asyncio.sleep(TICK)
            self.ticked = self.clock()
            self.lag = max(0.0, self.ticked - before - TICK)

    async def _count_tables(self) -> None:
        with contextlib.suppress(Exception):  # /readyz says when the database fails
            self._tables(await self.storage.open_game_chats())

    def _tables(self, chats: list[int]) -> None:
        replica = self.replica
        held = chats if replica is None else [chat for chat in chats if replica.holds(chat)]
        metrics.active_tables(len(held))

    # ---------------------------------------------------------------- handlers

    async def _healthz(self, request: web.Request) -> web.Response:
        return _answer(self.health_problem())

    async def _readyz(self, request: web.Request) -> web.Response:
        return _answer(await self.readiness_problem())

    async def _metrics(self, request: web.Request) -> web.Response:
        response = web.Response(body=metrics.exposition())
        response.headers["Content-Type"] = metrics.CONTENT_TYPE_LATEST
        return response


def _answer(problem: str | None) -> web.Response:
    if problem is None:
        return web.Response(text="ok\n")
    return web.Response(text=problem + "\n", status=503)
