"""When the bot asks for updates again in polling mode (getUpdates): while it still handles the
last batch, but no longer than ``interval`` after the batch came; once every update of it is
handled, at once. A busy bot so takes the next few milliseconds' updates in one batch, whose
transactions share a commit (storage/sqlite/connection.py, group commit: its CPU per action
stays down under load), while an idle bot always has a long poll waiting at the server, and a
press reaches it the moment it is made, not up to ``interval`` later (docs/performance.md).

:class:`PolledRequest` (getUpdates' transport) counts each batch and waits before the next
request; :class:`CountedUpdates` (PTB's update processor) tells when each update is handled,
and counts it (`bot.metrics`).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from contextlib import suppress
from typing import Any

from telegram._utils.types import JSONDict
from telegram.ext import SimpleUpdateProcessor

from bot import logs, metrics
from bot.transport import AiohttpRequest


class PollPace:
    """How many updates of the latest batches are still being handled, and when the latest
    batch came."""

    def __init__(self, interval: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.interval = interval
        self.clock = clock
        self.pending = 0  # updates of the latest batches not handled yet
        # When getUpdates was last answered (`bot.monitor`'s readiness: polling runs).
        self.polled_at = clock()
        self._since = 0.0
        self._idle = asyncio.Event()

    def received(self, count: int) -> None:
        """A batch of ``count`` updates came (it goes to the handlers)."""
        if count > 0:
            self.pending += count
            self._since = self.clock()
            self._idle.clear()

    def handled(self) -> None:
        """An update has been handled (answered, committed or dropped)."""
        if self.pending > 0:  # (an update that came another way was never counted)
            self.pending -= 1
            if self.pending == 0:
                self._idle.set()

    async def before_poll(self) -> None:
        """Wait until the latest batch is handled, or ``interval`` after it came."""
        if self.pending == 0:
            return
        left = self._since + self.interval - self.clock()
        if left <= 0:
            return
        with suppress(TimeoutError):
            async with asyncio.timeout(left):
                await self._idle.wait()


class PolledRequest(AiohttpRequest):
    """The transport PTB uses for getUpdates alone (``get_updates_request``), paced by ``pace``."""

    def __init__(self, pace: PollPace, connection_pool_size: int = 2, **options: Any) -> None:
        super().__init__(connection_pool_size, **options)
        self.pace = pace

    async def do_request(self, *args: Any, **kwargs: Any) -> tuple[int, bytes]:
        await self.pace.before_poll()
        return await super().do_request(*args, **kwargs)

    def parse_json_payload(self, payload: bytes) -> JSONDict:  # type: ignore[override]
        parsed = AiohttpRequest.parse_json_payload(payload)
        result = parsed.get("result")
        if isinstance(result, list):
            self.pace.polled_at = self.pace.clock()
            self.pace.received(len(result))
        return parsed


class CountedUpdates(SimpleUpdateProcessor):
    """PTB's update processor (updates handled concurrently, as before) telling ``pace`` when
    each update is done."""

    __slots__ = ("pace",)

    def __init__(self, max_concurrent_updates: int, pace: PollPace) -> None:
        super().__init__(max_concurrent_updates)
        self.pace = pace

    async def do_process_update(self, update: object, coroutine: Awaitable[Any]) -> None:
        # Every update passes here, polled or posted to the webhook: counted, and its chat
        # named in the log lines its handling writes (in this task).
        metrics.update_received(update)
        chat = getattr(update, "effective_chat", None)
        logs.bind(chat=getattr(chat, "id", None), game=None)
        try:
            await coroutine
        finally:
            self.pace.handled()
