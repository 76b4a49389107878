"""The start-up pre-flight's parts: the backoff, the short reasons, the one-line rejections, the
log filter, and the wait itself against the local Bot API server (in process; the signals and
the exit codes are tested on the real process in tests/e2e/test_startup.py)."""

from __future__ import annotations

import asyncio
import itertools
import logging
import socket
from typing import TypeVar

import pytest
from telegram.error import InvalidToken, NetworkError, TimedOut

from bot.startup import (
    StartupError,
    StartupNoise,
    backoff,
    rejection,
    short_reason,
    shown_url,
    unreachable,
    wait_until_answered,
)
from bot.transport import AiohttpRequest
from localbotapi.server import BotApiServer

E = TypeVar("E", bound=Exception)
TOKEN = "123456:STARTUP_token-abcdefghijklmnop"
API = f"http://127.0.0.1:8081/bot{TOKEN}"


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def caused(error: E, cause: BaseException) -> E:
    error.__cause__ = cause
    return error


def test_backoff_doubles_up_to_the_cap() -> None:
    assert list(itertools.islice(backoff(), 8)) == [1, 2, 4, 8, 16, 30, 30, 30]
    assert list(itertools.islice(backoff(0.5, 3), 5)) == [0.5, 1, 2, 3, 3]


def test_shown_url_has_no_token() -> None:
    assert shown_url(API, TOKEN) == "http://127.0.0.1:8081/bot"
    assert (
        shown_url(f"https://example.org/bot{TOKEN}/test", TOKEN) == "https://example.org/bot/test"
    )


@pytest.mark.parametrize(
    ("error", "reason"),
    [
        (TimedOut(), "timed out"),
        (
            caused(NetworkError("aiohttp.X: boom"), ConnectionRefusedError(111, "x")),
            "connection refused",
        ),
        (
            caused(NetworkError("aiohttp.X"), socket.gaierror(-2, "Name or service not known")),
            "DNS lookup failed: Name or service not known",
        ),
        (caused(NetworkError("aiohttp.X"), OSError(113, "No route to host")), "No route to host"),
        (
            NetworkError("Bad Gateway (502). Parsing the server response b'<html>' failed"),
            "Bad Gateway (502)",
        ),
        (NetworkError("Internal Server Error"), "Internal Server Error"),
        (
            NetworkError(f"aiohttp.ServerDisconnectedError: at /bot{TOKEN}"),
            "ServerDisconnectedError: at /bot<redacted>",
        ),
    ],
)
def test_short_reason(error: Exception, reason: str) -> None:
    assert short_reason(error, TOKEN) == reason


def test_short_reason_is_short() -> None:
    assert len(short_reason(NetworkError("x" * 500))) == 100


async def test_a_real_refused_connection_reads_connection_refused() -> None:
    request = AiohttpRequest(1)
    await request.initialize()
    try:
        with pytest.raises(NetworkError) as caught:
            await request.post(f"http://127.0.0.1:{closed_port()}/bot{TOKEN}/getMe")
    finally:
        await request.shutdown()
    assert short_reason(caught.value, TOKEN) == "connection refused"


def test_rejections_are_one_line_without_the_token() -> None:
    wrapped = caused(
        InvalidToken(f"The token `{TOKEN}` was rejected by the server."),
        InvalidToken("Unauthorized"),
    )
    assert rejection(wrapped, API, TOKEN) == (
        "Telegram rejected BOT_TOKEN (401 Unauthorized): check the token from @BotFather"
    )
    not_found = rejection(InvalidToken("Not Found"), API, TOKEN)
    assert not_found.startswith("the Bot API at http://127.0.0.1:8081/bot answered getMe with 404")
    assert "BOT_API_BASE_URL" in not_found
    odd = rejection(caused(InvalidToken(f"`{TOKEN}`"), InvalidToken("Odd")), API, TOKEN)
    assert odd.startswith("Telegram rejected BOT_TOKEN (Odd)")
    lost = unreachable(caused(NetworkError("x"), ConnectionRefusedError(111, "x")), API, TOKEN)
    assert lost == (
        "Bot API at http://127.0.0.1:8081/bot unreachable while starting (connection refused); "
        "exiting"
    )
    for line in (not_found, odd, lost):
        assert TOKEN not in line and "\n" not in line


def test_startup_noise_drops_ptbs_start_tracebacks_until_started() -> None:
    starting = [True]
    noise = StartupNoise(lambda: starting[0])

    def record(message: str, *args: object) -> logging.LogRecord:
        return logging.LogRecord("telegram.ext", logging.ERROR, __file__, 1, message, args, None)

    abort = record(
        "%s Failed run number %s of %s. Aborting.",
        "Network Retry Loop (Bootstrap Initialize Application):",
        0,
        0,
    )
    invalid = record('Can not load invalid JSON data: "%s"', "<html>")
    other = record("something else")
    assert [noise.filter(r) for r in (abort, invalid, other)] == [False, False, True]
    starting[0] = False
    assert noise.filter(abort) and noise.filter(invalid)
    starting[0] = True  # once started, for good: a shutdown's records are kept
    assert noise.filter(invalid)


async def test_wait_returns_once_the_api_answers() -> None:
    async with BotApiServer() as server:
        server.add_bot(TOKEN, username="ochko_startup_bot")
        assert await wait_until_answered(TOKEN, f"{server.base_url}{TOKEN}", iter(backoff()))
        assert [r.method for r in server.requests] == ["getMe"]


async def test_wait_raises_the_one_line_for_an_unknown_token() -> None:
    async with BotApiServer() as server:
        with pytest.raises(
            StartupError, match=r"^Telegram rejected BOT_TOKEN \(401 Unauthorized\)"
        ):
            await wait_until_answered(TOKEN, f"{server.base_url}{TOKEN}", iter(backoff()))


async def test_wait_retries_with_one_line_per_attempt(caplog: pytest.LogCaptureFixture) -> None:
    """Refused (nothing listens yet), then a server comes up on that port and answers."""
    port = closed_port()
    server = BotApiServer(port=port)
    server.add_bot(TOKEN)

    async def late_start() -> None:
        await asyncio.sleep(0.12)
        await server.start()

    task = asyncio.create_task(late_start())
    try:
        with caplog.at_level(logging.INFO, logger="bot.startup"):
            url = f"http://127.0.0.1:{port}/bot{TOKEN}"
            assert await wait_until_answered(TOKEN, url, itertools.repeat(0.05))
    finally:
        await task
        await server.stop()
    lines = [r.getMessage() for r in caplog.records if r.name == "bot.startup"]
    shown = f"http://127.0.0.1:{port}/bot"
    retry = f"Bot API at {shown} unreachable (connection refused); retrying in 0.05 s"
    assert len(lines) >= 2 and set(lines[:-1]) == {retry}, lines
    assert lines[-1] == f"Bot API at {shown} answered (attempt {len(lines)})"
    assert [r.method for r in server.requests] == ["getMe"]
