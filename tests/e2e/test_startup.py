"""The start-up pre-flight, on the real `python -m bot`: a token Telegram rejects is one line and
exit 1; a Bot API that cannot be reached is waited for (1, 2, 4 … s), one line per attempt, and
SIGTERM/SIGINT ends that wait at once with exit 0."""

from __future__ import annotations

import asyncio
import json
import re
import signal
import socket
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import pytest
from aiohttp import web

from localbotapi.server import BotApiServer
from tests.e2e.conftest import BOT_USERNAME, E2E, TOKEN, BotProcess

RETRY = re.compile(r"Bot API at (\S+) unreachable \((.+?)\); retrying in (\d+(?:\.\d+)?) s")
SECRET = "SECRETunknown_token-abcdefghij"  # the part after "654321:" of a token nobody knows
UNKNOWN_TOKEN = f"654321:{SECRET}"
ME = {"id": 123456, "is_bot": True, "first_name": "Очко", "username": BOT_USERNAME}


def free_port() -> int:
    """A local port nothing listens on (bound once and released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def lines_of(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.strip()]


def assert_no_secrets(log: str) -> None:
    for secret in (TOKEN, TOKEN.split(":", 1)[1], UNKNOWN_TOKEN, SECRET):
        assert secret not in log, f"a token is in the output:\n{log}"
    assert "Traceback" not in log, log


async def wait_for(
    process: BotProcess, pattern: re.Pattern[str], count: int, timeout: float
) -> list[re.Match[str]]:
    """The first `count` matches of `pattern` in the process's output, within `timeout` s."""
    deadline = time.monotonic() + timeout
    while True:
        found = list(pattern.finditer(process.log()))
        if len(found) >= count:
            return found[:count]
        if not process.running or time.monotonic() > deadline:
            pytest.fail(f"expected {count} × {pattern.pattern!r}, got:\n{process.log()}")
        await asyncio.sleep(0.05)


async def exit_code(process: BotProcess, timeout: float) -> int:
    code = await process.wait_exit(timeout)
    if code is None:
        process.kill()
        pytest.fail(f"the bot kept running:\n{process.log()}")
    return code


@asynccontextmanager
async def scripted_api(answers: list[tuple[int, Any]]) -> AsyncIterator[str]:
    """A Bot API stand-in answering getMe from `answers` (status, JSON or text; the last one
    repeats) and 404 to anything else; yields its base URL for BOT_API_BASE_URL."""
    calls = 0

    async def handle(request: web.Request) -> web.Response:
        nonlocal calls
        if not request.path.lower().endswith("/getme"):
            return web.json_response({"ok": False, "error_code": 404, "description": "Not Found"})
        status, body = answers[min(calls, len(answers) - 1)]
        calls += 1
        if isinstance(body, str):
            return web.Response(status=status, text=body, content_type="text/html")
        return web.json_response(body, status=status, dumps=json.dumps)

    app = web.Application()
    app.router.add_route("*", "/{tail:.*}", handle)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = runner.addresses[0][1]
    try:
        yield f"http://127.0.0.1:{port}/bot"
    finally:
        await runner.cleanup()


def _failure(code: int, description: str) -> tuple[int, dict[str, Any]]:
    return code, {"ok": False, "error_code": code, "description": description}


OK = (200, {"ok": True, "result": ME})
UNAUTHORIZED = _failure(401, "Unauthorized")
BAD_GATEWAY = (502, "<html><body><h1>502 Bad Gateway</h1></body></html>")


async def test_rejected_token_is_one_line_and_exit_1(e2e: E2E) -> None:
    started = time.monotonic()
    process = e2e.spawn(BOT_TOKEN=UNKNOWN_TOKEN)
    code = await exit_code(process, 10)
    took = time.monotonic() - started
    log = process.log()
    assert code == 1, log
    assert lines_of(log) == [
        "ochko: Telegram rejected BOT_TOKEN (401 Unauthorized): check the token from @BotFather"
    ], log
    assert_no_secrets(log)
    assert took < 5, took
    # It was the server's answer that decided: one getMe, refused.
    assert [(r.method, r.status) for r in e2e.server.requests] == [("getMe", 401)]


async def test_not_a_bot_api_url_is_one_line_and_exit_1(e2e: E2E) -> None:
    process = e2e.spawn(BOT_API_BASE_URL=f"{e2e.server.url}/not-the-api/bot")
    code = await exit_code(process, 10)
    log = process.log()
    assert code == 1, log
    assert lines_of(log) == [
        f"ochko: the Bot API at {e2e.server.url}/not-the-api/bot answered getMe with 404 Not "
        "Found: check BOT_TOKEN (from @BotFather) and BOT_API_BASE_URL"
    ], log
    assert_no_secrets(log)


async def test_unreachable_api_is_waited_for_then_polled(e2e: E2E) -> None:
    port = free_port()
    base = f"http://127.0.0.1:{port}/bot"
    process = e2e.spawn(BOT_API_BASE_URL=base)
    first, second = await wait_for(process, RETRY, 2, timeout=8)
    assert first.group(1) == second.group(1) == base
    assert first.group(2) == second.group(2) == "connection refused"
    assert (float(first.group(3)), float(second.group(3))) == (1.0, 2.0)
    assert process.running
    async with BotApiServer(port=port) as late:
        bot = late.add_bot(TOKEN, username=BOT_USERNAME)
        await e2e.wait_until(lambda: bot.poll_generation > 0, "the bot to poll", timeout=10)
        log = process.log()
        assert f"Bot API at {base} answered (attempt 3)" in log, log
        assert "started as @" + BOT_USERNAME in log, log
        assert len(RETRY.findall(log)) == 2, log
        code, took = await process.terminate()
    assert code == 0, process.log()
    assert took < 5
    assert_no_secrets(process.log())


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
async def test_stop_signal_ends_the_wait_with_0(e2e: E2E, sig: signal.Signals) -> None:
    process = e2e.spawn(BOT_API_BASE_URL=f"http://127.0.0.1:{free_port()}/bot")
    await wait_for(process, RETRY, 1, timeout=8)
    assert process.proc is not None
    sent = time.monotonic()
    process.proc.send_signal(sig)
    code = await exit_code(process, 5)
    took = time.monotonic() - sent
    assert code == 0, process.log()
    assert took < 1.5, took
    assert lines_of(process.log())[-1].endswith("stopped while waiting for the Bot API")
    assert_no_secrets(process.log())


async def test_sigterm_during_a_hanging_attempt(e2e: E2E) -> None:
    """A Bot API that accepts the connection and never answers: the attempt (up to 10 s of
    time-outs) is abandoned at once on SIGTERM."""
    connected = asyncio.Event()
    held: list[asyncio.StreamWriter] = []

    async def hang(_reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        held.append(writer)
        connected.set()

    server = await asyncio.start_server(hang, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        process = e2e.spawn(BOT_API_BASE_URL=f"http://127.0.0.1:{port}/bot")
        await asyncio.wait_for(connected.wait(), 10)
        await asyncio.sleep(0.5)
        assert process.running and not RETRY.search(process.log()), process.log()
        code, took = await process.terminate()
        assert code == 0, process.log()
        assert took < 1.5, took
    finally:
        for writer in held:
            writer.close()
        server.close()
        await server.wait_closed()


async def test_5xx_counts_as_unreachable(e2e: E2E) -> None:
    answers = [_failure(503, "Service Unavailable"), BAD_GATEWAY, UNAUTHORIZED]
    async with scripted_api(answers) as base:
        process = e2e.spawn(BOT_API_BASE_URL=base)
        code = await exit_code(process, 10)
    log = process.log()
    assert code == 1, log
    retries = RETRY.findall(log)
    assert retries == [
        (base, "Service Unavailable", "1"),
        (base, "Bad Gateway (502)", "2"),
    ], log
    assert lines_of(log)[-1] == (
        "ochko: Telegram rejected BOT_TOKEN (401 Unauthorized): check the token from @BotFather"
    )
    assert len(lines_of(log)) == 3, log
    assert_no_secrets(log)


@pytest.mark.parametrize(
    ("second", "line"),
    [
        (
            UNAUTHORIZED,
            "ochko: Telegram rejected BOT_TOKEN (401 Unauthorized): check the token from "
            "@BotFather",
        ),
        (
            BAD_GATEWAY,
            "ochko: Bot API at {base} unreachable while starting (Bad Gateway (502)); exiting",
        ),
    ],
    ids=["401", "502"],
)
async def test_api_lost_after_the_preflight_is_one_line(
    e2e: E2E, second: tuple[int, Any], line: str
) -> None:
    """The pre-flight's getMe is answered, PTB's own (in Application.initialize) is not."""
    async with scripted_api([OK, second]) as base:
        process = e2e.spawn(BOT_API_BASE_URL=base)
        code = await exit_code(process, 10)
    log = process.log()
    assert code == 1, log
    assert lines_of(log) == [line.format(base=base)], log
    assert_no_secrets(log)
