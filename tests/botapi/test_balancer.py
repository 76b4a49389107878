"""The round-robin balancer the replica tests and benchmarks put in front of the bots."""

from __future__ import annotations

import socket

import aiohttp
from aiohttp import web

from localbotapi.balancer import RoundRobin


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def backend(port: int, name: str) -> web.AppRunner:
    async def hello(request: web.Request) -> web.Response:
        body = await request.read()
        return web.Response(text=f"{name}:{request.path}:{body.decode()}")

    app = web.Application()
    app.router.add_post("/{tail:.*}", hello)
    runner = web.AppRunner(app)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", port).start()
    return runner


async def test_round_robin_skips_a_backend_that_is_down() -> None:
    ports = [free_port(), free_port()]
    proxy = RoundRobin(ports, port=free_port())
    await proxy.start()
    first = await backend(ports[0], "a")
    second = await backend(ports[1], "b")
    url = f"http://127.0.0.1:{proxy.port}/telegram"
    try:
        async with aiohttp.ClientSession() as session:
            replies = []
            for n in range(4):
                async with session.post(url, data=str(n)) as reply:
                    replies.append(await reply.text())
            assert replies == ["a:/telegram:0", "b:/telegram:1", "a:/telegram:2", "b:/telegram:3"]
            await first.cleanup()  # "a" dies: everything goes to "b"
            for n in range(3):
                async with session.post(url, data=str(n)) as reply:
                    assert reply.status == 200
                    assert (await reply.text()).startswith("b:")
            assert proxy.skipped >= 1
            await second.cleanup()
            async with session.post(url, data="x") as reply:
                assert reply.status == 502
    finally:
        await proxy.stop()


async def test_a_request_a_backend_took_is_not_sent_to_another() -> None:
    """A backend that took the request and then failed may have acted on it: like nginx with a
    POST, the balancer answers 502 (the sender delivers it again) instead of trying the next."""
    ports = [free_port(), free_port()]
    proxy = RoundRobin(ports, port=free_port())
    await proxy.start()
    taken: list[str] = []

    async def crash(request: web.Request) -> web.Response:
        taken.append(await request.text())
        assert request.transport is not None
        request.transport.close()  # dies before it answers
        return web.Response(text="never sent")

    app = web.Application()
    app.router.add_post("/{tail:.*}", crash)
    first = web.AppRunner(app)
    await first.setup()
    await web.TCPSite(first, "127.0.0.1", ports[0]).start()
    second = await backend(ports[1], "b")
    try:
        async with aiohttp.ClientSession() as session:
            async with session.post(f"http://127.0.0.1:{proxy.port}/telegram", data="u1") as reply:
                assert reply.status == 502
            assert taken == ["u1"]
            assert proxy.served[ports[1]] == 0 and proxy.skipped == 0
    finally:
        await first.cleanup()
        await second.cleanup()
        await proxy.stop()
