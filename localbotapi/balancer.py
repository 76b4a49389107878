"""A round-robin HTTP balancer in front of several bot replicas in webhook mode, as a TLS proxy
(Caddy, nginx) would stand between Telegram and them: each request goes to the next backend, and
a backend that cannot be connected to (a replica that died) is skipped for that request, as a
proxy's passive health check does; one that failed after the request was sent is not. Used by
the tests and the benchmarks."""

from __future__ import annotations

from collections import Counter

import aiohttp
from aiohttp import web


class RoundRobin:
    """A tiny HTTP balancer: each request goes to the next backend; a backend that refuses the
    connection is skipped for that request."""

    def __init__(self, backends: list[int], *, port: int) -> None:
        self.backends = backends  # ports on 127.0.0.1
        self.port = port
        self.served: Counter[int] = Counter()
        self.skipped = 0
        self._next = 0
        self._runner: web.AppRunner | None = None
        self._session: aiohttp.ClientSession | None = None

    async def start(self) -> None:
        app = web.Application()
        app.router.add_route("*", "/{tail:.*}", self._forward)
        self._runner = web.AppRunner(app)
        await self._runner.setup()
        await web.TCPSite(self._runner, "127.0.0.1", self.port).start()
        # A connection per request: a pooled one to a backend that died would fail only once
        # the request is written, which must not count as never reaching it.
        self._session = aiohttp.ClientSession(
            timeout=aiohttp.ClientTimeout(total=10),
            connector=aiohttp.TCPConnector(force_close=True),
        )

    async def stop(self) -> None:
        if self._session is not None:
            await self._session.close()
        if self._runner is not None:
            await self._runner.cleanup()

    async def _forward(self, request: web.Request) -> web.StreamResponse:
        assert self._session is not None
        body = await request.read()
        headers = {k: v for k, v in request.headers.items() if k.lower() != "host"}
        for _ in range(len(self.backends)):
            port = self.backends[self._next % len(self.backends)]
            self._next += 1
            try:
                async with self._session.request(
                    request.method,
                    f"http://127.0.0.1:{port}{request.path_qs}",
                    data=body,
                    headers=headers,
                ) as reply:
                    payload = await reply.read()
                    self.served[port] += 1
                    return web.Response(status=reply.status, body=payload)
            except aiohttp.ClientConnectorError:
                self.skipped += 1  # never reached it: the next backend may take the request
            except aiohttp.ClientError:
                # Sent, and maybe handled: like nginx with a POST, no other backend gets it; the
                # sender (Telegram) delivers it again later.
                return web.Response(status=502, text="backend failed")
        return web.Response(status=502, text="no backend")
