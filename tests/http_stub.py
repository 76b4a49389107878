"""A one-handler HTTP server on a free local port, for tests that need a peer the local Bot API
server cannot play (one that stalls, one that records raw requests, a webhook receiver)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager

from aiohttp import web

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


@asynccontextmanager
async def serving(handler: Handler, route: str = "/{tail:.*}") -> AsyncIterator[int]:
    """Serve POSTs to ``route`` with ``handler`` while the block runs; yields the port."""
    app = web.Application()
    app.router.add_post(route, handler)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    try:
        yield runner.addresses[0][1]
    finally:
        await runner.cleanup()
