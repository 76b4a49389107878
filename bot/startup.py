"""The start-up pre-flight: ask the Bot API who we are (getMe) before PTB starts.

PTB's own start turns a rejected token or an unreachable Bot API into a long traceback (with
the token in it). Here a rejected token (401, or 404 for a URL that is not a Bot API) is one
line and exit 1 (:class:`StartupError`, never holding the token), and an unreachable Bot API
is asked again after 1, 2, 4 … 30 s, one log line per attempt, until it answers or SIGTERM /
SIGINT ends the wait. The pre-flight runs its own short event loop, bot and transport.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib.util
import itertools
import logging
import os
import signal
import socket
import ssl
import sys
from collections.abc import Awaitable, Callable, Iterable, Iterator, Mapping
from typing import NoReturn

from telegram import Bot
from telegram.error import InvalidToken, NetworkError, RetryAfter, TelegramError, TimedOut

from bot.telegram_errors import retry_after_seconds
from bot.transport import AiohttpRequest

log = logging.getLogger("bot.startup")
FIRST_DELAY = 1.0
MAX_DELAY = 30.0
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)
REASON_LENGTH = 100


class StartupError(Exception):
    """The Bot API refused us for good: ``str()`` is the one line to print (no token in it)."""


def backoff(first: float = FIRST_DELAY, cap: float = MAX_DELAY) -> Iterator[float]:
    """The waits between attempts: first, doubled each time, at most cap (1, 2, 4 … 30, 30 …)."""
    delay = first
    while True:
        yield min(delay, cap)
        delay = min(delay * 2, cap)


def shown_url(api_url: str, token: str) -> str:
    """The Bot API URL as it may be shown: without the token (PTB appends it to base_url)."""
    return api_url.replace(token, "").rstrip("/") if token else api_url


def _chain(error: BaseException) -> Iterator[BaseException]:
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        yield current
        current = current.__cause__ or current.__context__


def short_reason(error: BaseException, token: str = "") -> str:
    """Why a call failed, in a few words: "connection refused", "DNS lookup failed: …",
    "timed out", "Bad Gateway (502)" …; never the token."""
    causes = list(_chain(error))
    reason = next((r for r in map(_known_cause, causes) if r is not None), None)
    if reason is None:  # an OS error of another kind: its own words
        reason = next((c.strerror for c in causes if isinstance(c, OSError) and c.strerror), None)
    if reason is None:
        # An HTTP answer (PTB's message is the API's description or "Bad Gateway (502)"), or a
        # transport error without an OS cause: its first sentence.
        text = str(error).removeprefix("aiohttp.")
        reason = text.split(". ", 1)[0].strip() or type(error).__name__
    if token:
        reason = reason.replace(token, "<redacted>")
    return reason if len(reason) <= REASON_LENGTH else reason[: REASON_LENGTH - 1] + "…"


def _known_cause(cause: BaseException) -> str | None:
    if isinstance(cause, TimedOut | TimeoutError):
        return "timed out"
    if isinstance(cause, ConnectionRefusedError):
        return "connection refused"
    if isinstance(cause, socket.gaierror):
        return f"DNS lookup failed: {cause.strerror or cause}"
    if isinstance(cause, ssl.SSLError):
        return f"TLS error: {cause.reason or cause}"
    return None


def rejection(error: InvalidToken, api_url: str, token: str) -> str:
    """The one line for an InvalidToken (PTB raises it for a 401 and for a 404 answer)."""
    # Bot.initialize wraps the API's answer ("Unauthorized", "Not Found") in a message that
    # holds the token: look at every message of the chain, show none of them verbatim.
    text = " ".join(str(cause) for cause in _chain(error)).lower()
    if "unauthorized" in text:
        return "Telegram rejected BOT_TOKEN (401 Unauthorized): check the token from @BotFather"
    if "not found" in text:
        return (
            f"the Bot API at {shown_url(api_url, token)} answered getMe with 404 Not Found: "
            "check BOT_TOKEN (from @BotFather) and BOT_API_BASE_URL"
        )
    return (
        f"Telegram rejected BOT_TOKEN ({short_reason(error.__cause__ or error, token)}): "
        "check the token from @BotFather"
    )


def unreachable(error: NetworkError, api_url: str, token: str) -> str:
    """The one line for a Bot API lost after the pre-flight, while PTB itself was starting."""
    return (
        f"Bot API at {shown_url(api_url, token)} unreachable while starting "
        f"({short_reason(error, token)}); exiting"
    )


class StartupNoise(logging.Filter):
    """Until ``starting()`` turns false (for good), drops the records PTB logs, each with a
    traceback that may hold the token, right before raising an error that the pre-flight or
    main() reports in one line: its bootstrap loop's "Network Retry Loop (Bootstrap …): …
    Aborting." and the transport's "Can not load invalid JSON data" (a proxy's error page)."""

    def __init__(self, starting: Callable[[], bool]) -> None:
        super().__init__()
        self._starting: Callable[[], bool] | None = starting

    def filter(self, record: logging.LogRecord) -> bool:
        if self._starting is None or not self._starting():
            self._starting = None
            return True
        try:
            message = record.getMessage()
        except Exception:  # a malformed record is not ours to judge
            return True
        if message.startswith("Network Retry Loop (Bootstrap") and "Abort" in message:
            return False
        return not message.startswith("Can not load invalid JSON data")


def wait_for_bot_api(token: str, api_url: str, *, delays: Iterable[float] | None = None) -> bool:
    """Call getMe at ``api_url`` (PTB's Bot.base_url: the token included) until it answers.

    True once it answered; False when SIGTERM/SIGINT came first. Raises :class:`StartupError`
    when the token is rejected or the API refuses getMe for another lasting reason."""
    return asyncio.run(
        wait_until_answered(token, api_url, iter(backoff() if delays is None else delays))
    )


async def wait_until_answered(token: str, api_url: str, delays: Iterator[float]) -> bool:
    """:func:`wait_for_bot_api` inside a running loop (whose SIGTERM/SIGINT it handles while it
    waits); ``delays`` must not run out before the API answers."""
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    installed = []
    for sig in STOP_SIGNALS:
        # Windows' event loops have no signal handlers (they raise NotImplementedError), nor
        # does a loop outside the main thread: there the wait just cannot be interrupted.
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
            loop.add_signal_handler(sig, stop.set)
            installed.append(sig)
    shown = shown_url(api_url, token)
    request = AiohttpRequest(1)
    await request.initialize()
    bot = Bot(token, base_url=lambda _token: api_url, request=request, get_updates_request=request)
    try:
        for attempt in itertools.count(1):
            delay = next(delays)
            try:
                if not await _unless_stopped(bot.get_me(), stop):
                    return False
            except InvalidToken as error:
                raise StartupError(rejection(error, api_url, token)) from None
            except RetryAfter as error:
                delay = max(delay, retry_after_seconds(error) + 0.5)
                reason = "flood control (429)"
            except NetworkError as error:  # TimedOut, connection errors, 5xx answers
                reason = short_reason(error, token)
            except TelegramError as error:  # 400, 403, 409, a non-JSON answer …
                raise StartupError(
                    f"the Bot API at {shown} refused getMe ({short_reason(error, token)}): "
                    "check BOT_API_BASE_URL and BOT_TOKEN"
                ) from None
            else:
                if attempt > 1:
                    log.info("Bot API at %s answered (attempt %d)", shown, attempt)
                return True
            log.warning(
                "Bot API at %s unreachable (%s); retrying in %s s", shown, reason, f"{delay:g}"
            )
            if not await _unless_stopped(asyncio.sleep(delay), stop):
                return False
        raise AssertionError("unreachable")  # pragma: no cover (itertools.count is endless)
    finally:
        await request.shutdown()
        for sig in installed:
            loop.remove_signal_handler(sig)


async def _unless_stopped(awaitable: Awaitable[object], stop: asyncio.Event) -> bool:
    """Await ``awaitable`` unless ``stop`` is set first (then it is cancelled): True when it
    finished (its exception, if any, propagates), False when stopped."""
    task = asyncio.ensure_future(awaitable)
    stopper = asyncio.ensure_future(stop.wait())
    try:
        await asyncio.wait((task, stopper), return_when=asyncio.FIRST_COMPLETED)
    finally:
        for pending in (task, stopper):
            pending.cancel()
        await asyncio.gather(task, stopper, return_exceptions=True)
    if stop.is_set() or task.cancelled():
        return False
    task.result()
    return True


# ---------------------------------------------------------------------- no token yet

SANDBOX_MODULE = "localbotapi.sandbox"
SANDBOX_COMMAND = f"python3 -m {SANDBOX_MODULE}"
NO_TOKEN = (
    "BOT_TOKEN is not set: get a token from @BotFather in Telegram and put it in .env "
    f"(see .env.example), or try the game offline first: {SANDBOX_COMMAND}"
)


def only_the_token_is_missing(errors: Iterable[Mapping[str, object]]) -> bool:
    """True when the settings failed for one reason only: BOT_TOKEN was never given."""
    found = list(errors)
    return bool(found) and all(
        e.get("type") == "missing" and tuple(e.get("loc", ())) == ("bot_token",)  # type: ignore[arg-type]
        for e in found
    )


def without_token() -> NoReturn:
    """A first start with no token: on a terminal, the offline sandbox (the real bot against a
    local Bot API server) starts instead; elsewhere (Docker, systemd, CI) one line and exit 1."""
    interactive = sys.stdin.isatty() and sys.stdout.isatty()
    if interactive and importlib.util.find_spec(SANDBOX_MODULE.partition(".")[0]) is not None:
        print(
            "ochko: no BOT_TOKEN yet — starting the offline sandbox, the real bot against a local "
            "Bot API server (a token comes from @BotFather; see .env.example)",
            file=sys.stderr,
            flush=True,
        )
        os.execv(sys.executable, [sys.executable, "-m", SANDBOX_MODULE])
    sys.exit(f"ochko: {NO_TOKEN}")
