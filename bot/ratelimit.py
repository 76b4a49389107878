"""Pacing of outgoing Bot API requests under Telegram's flood limits.

Telegram allows a bot about 20 sends+edits per minute in one group, about one per second in a
private chat and about 30 per second overall, and answers more with 429 and a ``retry_after``.
PTB's ``AIORateLimiter`` is a leaky bucket: it lets a burst of 20 through in a group and then one
every 3 s, so against Telegram's *rolling* 60 s window the 21st message of a minute can still be
refused; it has no per-private-chat limit and on a 429 it halts every chat. `PacedRateLimiter`
keeps a sliding log per chat instead, so no rolling window ever holds more than the limit:

* group/supergroup/channel (``chat_id < 0`` or an ``"@username"``): at most ``group_per_minute``
  (18, two under Telegram's 20 to absorb network jitter between our clock and Telegram's) in any
  rolling ``group_window`` (60 s), and at least ``group_min_interval`` (1 s) between two requests.
  The spacing is deliberately short rather than 60/20 = 3 s: a lone action (the usual case — a
  move, then a pause) is rendered at once, while the log alone bounds the sustained rate. Under a
  sustained load a group gets 18 requests ~1 s apart and then one each time the oldest leaves the
  window; callers that coalesce (the send lanes, via `wait_turn`) turn that wait into fewer,
  fresher edits rather than a backlog.
* private chat (``chat_id > 0``): at most one request per ``private_interval`` (1.1 s: four
  in a row span 3.3 s, so one that reaches Telegram late cannot make four in a 3 s window).
* the whole bot: at most ``overall_per_second`` (25, under Telegram's 30) in any rolling
  ``overall_window`` (1 s). ``answerCallbackQuery`` and ``sendChatAction`` count here only.

Only the methods that post or change something in a chat are limited: ``send*``, ``edit*``,
``delete*``, ``copy*``, ``forward*``, ``pin*``/``unpin*``, ``stop*`` (polls, live locations),
``setMessageReaction`` and ``answerCallbackQuery``. Everything else (``getMe``, ``getChat``,
``setMyCommands``, ``deleteWebhook`` …) goes straight through; PTB never routes ``getUpdates`` here.

Requests to one chat are served one at a time in FIFO order and a request keeps its turn while it
is in flight and while it waits out a 429, so the chat sees its messages in the order they were
made and nothing is sent into a chat while Telegram has told us to wait.

``rate_limit_args`` (a dict) understands:

* ``{"no_limit": True}``: skip the per-chat pacing (still counted in the chat's log and overall,
  and still never sent inside a 429 window).
* ``{"reserved": True}``: the caller already waited with `wait_turn`; the request uses that
  reserved slot instead of waiting again (still counted overall). Without a live reservation it
  is paced like any other request.
* ``{"max_retries": n}``: per-request override of ``max_retries``.

On `telegram.error.RetryAfter` the chat (or every request, if the request had no chat) is blocked
until ``retry_after`` (+ ``retry_after_margin``) has passed, measured from when the 429 arrived,
and, when the 429 may be for the bot's per-second limit, every other chat for at most one overall
window (a stream of requests from other chats would otherwise keep tripping that limit): when
several processes send as the bot (`share_overall`), or when a second chat is refused within an
overall window of the first (requests bunched on their way to Telegram). The request is then
retried, at most ``max_retries`` times, after which the error propagates.
Every 429 is logged at WARNING. Other errors propagate unchanged.

Bookkeeping is O(1) per request (O(limit) for the rare reserved slot moved to its real send time);
idle chat states are dropped as new ones are created, so memory follows the number of recently
active chats. Time is `time.monotonic`; waiting is `asyncio.sleep` until the computed instant.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dtm
import logging
import math
import time
from collections import deque
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass
from enum import Enum
from typing import Any

from cachetools import LRUCache
from telegram.error import RetryAfter
from telegram.ext import BaseRateLimiter

__all__ = ["LimiterStats", "PacedRateLimiter"]

log = logging.getLogger(__name__)

JSONDict = dict[str, Any]
Result = bool | JSONDict | list[JSONDict]
ChatKey = int | str

# Methods that would otherwise match a limited prefix but do not post into a chat.
_UNLIMITED = frozenset(
    {
        "deleteWebhook",
        "deleteMyCommands",
        "deleteStickerSet",
        "deleteStickerFromSet",
        "deleteStory",
        "sendGift",
        "editStory",
        "editUserStarSubscription",
    }
)
_CHAT_PREFIXES = ("send", "edit", "delete", "copy", "forward", "pin", "unpin", "stop")
# Counted overall but never paced per chat: no visible message, or no chat at all.
_OVERALL_ONLY = frozenset({"answerCallbackQuery", "sendChatAction"})
_CHAT_EXTRA = frozenset({"setMessageReaction"})


class _Kind(Enum):
    NONE = 0  # not limited at all
    OVERALL = 1  # counts towards the overall limit only
    CHAT = 2  # per-chat pacing (when the request names a chat) + overall


@dataclass
class LimiterStats:
    """Counters for benchmarks and diagnostics."""

    sent: int = 0
    """Requests handed to Telegram through the limiter (each attempt, including refused ones)."""
    waited_seconds_total: float = 0.0
    """Sum over requests of the time spent waiting for a slot (per-chat, overall and 429 waits)."""
    max_wait_seconds: float = 0.0
    """The longest single wait for a slot."""
    retry_after_hits: int = 0
    """How many 429 answers (RetryAfter) came back."""


class _Window:
    """A sliding log: at most ``limit`` events in any rolling ``period`` seconds, at least
    ``spacing`` seconds apart, and nothing before ``blocked_until`` (a 429)."""

    __slots__ = (
        "blocked_until",
        "limit",
        "lock",
        "log",
        "period",
        "reservations",
        "spacing",
        "users",
    )

    def __init__(self, limit: int, period: float, spacing: float = 0.0) -> None:
        self.limit = limit if period > 0 else 0
        self.period = period if limit > 0 else 0.0
        self.spacing = spacing
        self.log: deque[float] = deque()
        self.blocked_until = 0.0
        self.lock = asyncio.Lock()
        self.users = 0  # coroutines currently working with this state
        self.reservations: deque[float] = deque()  # times of slots taken by wait_turn

    def _prune(self, now: float) -> None:
        log_ = self.log
        cutoff = now - max(self.period, self.spacing)
        while log_ and log_[0] <= cutoff:
            log_.popleft()
        reservations = self.reservations
        while reservations and reservations[0] <= now - self.period:
            reservations.popleft()

    def delay(self, now: float, *, paced: bool = True) -> float:
        """Seconds until an event is allowed (0.0 if now); only the 429 block if not ``paced``."""
        until = self.blocked_until
        if paced:
            self._prune(now)
            log_ = self.log
            if log_:
                if self.spacing:
                    until = max(until, log_[-1] + self.spacing)
                if self.limit and len(log_) >= self.limit:
                    until = max(until, log_[-self.limit] + self.period)
        return max(0.0, until - now)

    def record(self, now: float) -> None:
        if self.limit or self.spacing:
            self.log.append(now)

    def has_reservation(self, now: float) -> bool:
        self._prune(now)
        return bool(self.reservations)

    def take_reservation(self, now: float) -> bool:
        """Use the newest live reservation for a send happening now: its log entry moves to now."""
        self._prune(now)
        if not self.reservations:
            return False
        reserved = self.reservations.pop()
        if self.log and self.log[-1] == reserved:
            self.log[-1] = now
        else:
            # Already pruned if the window is spacing-only: nothing to move then.
            with contextlib.suppress(ValueError):
                self.log.remove(reserved)
            self.log.append(now)
        return True

    def idle(self, now: float) -> bool:
        return (
            self.users == 0
            and not self.lock.locked()
            and self.blocked_until <= now
            and (not self.log or self.log[-1] <= now - max(self.period, self.spacing))
        )


def _chat_key(raw: object) -> ChatKey | None:
    """The chat a request goes to: an int id, or a lower-cased ``@username`` (a group)."""
    if raw is None or isinstance(raw, bool):
        return None
    if isinstance(raw, int):
        return raw
    text = str(raw).strip()
    try:
        return int(text)
    except ValueError:
        return text.lower() or None


def _retry_after_seconds(error: RetryAfter) -> float:
    # The public `retry_after` warns (int vs timedelta migration); `_retry_after` is always a
    # timedelta in PTB 22. Fall back to the public attribute should that change.
    value: Any = getattr(error, "_retry_after", None)
    if value is None:
        value = error.retry_after
    if isinstance(value, dtm.timedelta):
        return value.total_seconds()
    return float(value)


class PacedRateLimiter(BaseRateLimiter[dict[str, Any]]):
    """A `BaseRateLimiter` that paces every chat evenly within Telegram's rolling flood windows.

    See the module docstring for the rules. Args (all seconds are real seconds; tests shrink the
    windows):

    * ``group_per_minute`` (18) requests per ``group_window`` (60.0) per group, at least
      ``group_min_interval`` (1.0) apart;
    * one request per ``private_interval`` (1.1 s) per private chat;
    * ``overall_per_second`` (25) per ``overall_window`` (1.0) for the whole bot, evenly spaced
      (1/25 s apart); 0 disables;
    * ``max_retries`` (3) after a 429, each after ``retry_after`` + ``retry_after_margin`` (0.05);
    * ``limit_callback_answers`` (False): whether answerCallbackQuery counts overall. Telegram
      does not flood-limit callback answers, and queueing a player's answer behind table edits
      would make every button feel slow.
    """

    __slots__ = (
        "_chats",
        "_group_min_interval",
        "_group_per_minute",
        "_group_window",
        "_last_refusal",
        "_overall",
        "_overall_per_second",
        "_overall_window",
        "_private_interval",
        "_processes",
        "limit_callback_answers",
        "max_retries",
        "retry_after_margin",
        "stats",
    )

    def __init__(
        self,
        *,
        group_per_minute: int = 18,
        group_window: float = 60.0,
        group_min_interval: float = 1.0,
        private_interval: float = 1.1,
        overall_per_second: int = 25,
        overall_window: float = 1.0,
        max_retries: int = 3,
        retry_after_margin: float = 0.05,
        limit_callback_answers: bool = False,
    ) -> None:
        if min(group_per_minute, overall_per_second, max_retries) < 0:
            raise ValueError("counts and max_retries must be >= 0")
        if min(group_window, group_min_interval, private_interval, overall_window) < 0:
            raise ValueError("intervals must be >= 0")
        self._group_per_minute = group_per_minute
        self._group_window = group_window
        self._group_min_interval = group_min_interval
        self._private_interval = private_interval
        # Evenly paced, not in bursts: Telegram counts arrivals, and a burst sent inside our
        # window can reach it bunched with the next one.
        self._overall_per_second = overall_per_second
        self._overall_window = overall_window
        self._processes = 1  # processes sending as this bot (see share_overall)
        # The chat and time of the latest 429 (see _bot_wide).
        self._last_refusal: tuple[ChatKey | None, float] = (None, -math.inf)
        spacing = overall_window / overall_per_second if overall_per_second > 0 else 0.0
        self._overall = _Window(overall_per_second, overall_window, spacing)
        self.max_retries = max_retries
        self.retry_after_margin = retry_after_margin
        self.limit_callback_answers = limit_callback_answers
        # Unbounded: a chat's state is dropped only once idle (see _chat), as dropping a busy
        # one would forget the requests its window still counts.
        self._chats: LRUCache[ChatKey, _Window] = LRUCache(math.inf)
        self.stats = LimiterStats()

    # ------------------------------------------------------------------ lifecycle

    async def initialize(self) -> None:
        """Nothing to set up: no background tasks, no I/O."""

    async def shutdown(self) -> None:
        """Drop the state of idle chats. Requests still waiting finish normally; nothing to
        cancel, as all waiting happens in the callers' own tasks."""
        now = time.monotonic()
        for key in [key for key, chat in self._chats.items() if chat.idle(now)]:
            del self._chats[key]
        log.debug("rate limiter shut down: %s", self.stats)

    # ------------------------------------------------------------------ public helpers

    async def wait_turn(self, chat_id: int | str) -> float:
        """Wait until ``chat_id`` has a free slot and the bot an overall one, and reserve them
        (they count as a send now).

        Send the request right after with ``rate_limit_args={"reserved": True}``: it skips both
        waits, so a caller may hold a lock of its own around the send without holding it through
        the queue of the whole bot (only a 429 block still holds the send). Returns the seconds
        waited.
        """
        key = _chat_key(chat_id)
        if key is None:
            raise ValueError(f"not a chat id: {chat_id!r}")
        chat = self._chat(key)
        chat.users += 1
        try:
            async with chat.lock:
                started = time.monotonic()
                now = await self._take_slot(chat, started)
                chat.reservations.append(now)
                return now - started
        finally:
            chat.users -= 1

    def delay_for(self, chat_id: int | str) -> float:
        """Seconds until ``chat_id`` has a free slot (0.0 if free now); includes a bot-wide 429
        block but not the overall per-second limit, which frees within a second."""
        now = time.monotonic()
        key = _chat_key(chat_id)
        chat = self._chats.get(key) if key is not None else None
        chat_delay = chat.delay(now) if chat is not None else 0.0
        return max(chat_delay, self._overall.delay(now, paced=False))

    def share_overall(self, processes: int) -> None:
        """Several processes send as one bot (replicas): Telegram's ~30 per second is for the
        bot, so each takes an equal share of ``overall_per_second``."""
        window = self._overall
        self._processes = max(1, processes)
        limit = max(1, self._overall_per_second // self._processes)
        if self._overall_per_second and limit != window.limit:
            window.limit = limit
            window.spacing = self._overall_window / limit

    def sent_lately(self, chat_id: int | str) -> list[float]:
        """Unix times of the requests to ``chat_id`` that its window still counts, oldest
        first: what another process taking the chat over must count too (`count_sent`)."""
        key = _chat_key(chat_id)
        chat = self._chats.get(key) if key is not None else None
        if chat is None:
            return []
        now = time.monotonic()
        chat._prune(now)
        offset = time.time() - now
        return [at + offset for at in chat.log]

    def count_sent(self, chat_id: int | str, times: list[float]) -> None:
        """Count requests that another process sent to ``chat_id`` at these unix times: the
        chat's flood budget is one, whoever sends (several replicas of the bot; the chat's
        delivery moves from one to another)."""
        key = _chat_key(chat_id)
        if key is None or not times:
            return
        chat = self._chat(key)
        now = time.monotonic()
        offset = now - time.time()
        merged = sorted([*chat.log, *(min(at + offset, now) for at in times)])
        chat.log.clear()
        chat.log.extend(merged)
        chat._prune(now)

    # ------------------------------------------------------------------ BaseRateLimiter

    async def process_request(
        self,
        callback: Callable[..., Coroutine[Any, Any, Result]],
        args: Any,
        kwargs: dict[str, Any],
        endpoint: str,
        data: dict[str, Any],
        rate_limit_args: dict[str, Any] | None,
    ) -> Result:
        """Wait for a slot as the request's method and chat require, then call ``callback``."""
        kind = self._kind(endpoint)
        if kind is _Kind.NONE:
            return await callback(*args, **kwargs)
        options = rate_limit_args if isinstance(rate_limit_args, dict) else {}
        max_retries = int(options.get("max_retries", self.max_retries))

        async def call() -> Result:
            return await callback(*args, **kwargs)

        key = _chat_key(data.get("chat_id")) if kind is _Kind.CHAT else None
        if key is None:
            return await self._send_unchatted(call, max_retries)
        chat = self._chat(key)
        chat.users += 1
        try:
            if options.get("no_limit"):
                return await self._send_bypass(chat, key, call, max_retries, reserved=False)
            if options.get("reserved") and chat.has_reservation(time.monotonic()):
                return await self._send_bypass(chat, key, call, max_retries, reserved=True)
            async with chat.lock:
                return await self._send_paced(chat, key, call, max_retries)
        finally:
            chat.users -= 1

    # ------------------------------------------------------------------ internals

    def _kind(self, endpoint: str) -> _Kind:
        if endpoint in _OVERALL_ONLY:
            if endpoint == "answerCallbackQuery" and not self.limit_callback_answers:
                return _Kind.NONE
            return _Kind.OVERALL
        if endpoint in _UNLIMITED:
            return _Kind.NONE
        if endpoint in _CHAT_EXTRA or endpoint.startswith(_CHAT_PREFIXES):
            return _Kind.CHAT
        return _Kind.NONE

    def _chat(self, key: ChatKey) -> _Window:
        chats = self._chats
        chat = chats.get(key)  # a use: to the back of the order
        if chat is not None:
            return chat
        # Look at the two least recently used states: drop them if idle, else put them back
        # at the back. Amortised O(1), and the cache shrinks as fast as it grows.
        now = time.monotonic()
        for _ in range(min(2, len(chats))):
            old_key, old = chats.popitem()
            if not old.idle(now):
                chats[old_key] = old
        if isinstance(key, str) or key < 0:
            chat = _Window(self._group_per_minute, self._group_window, self._group_min_interval)
        else:
            chat = _Window(1, self._private_interval)
        chats[key] = chat
        return chat

    @staticmethod
    async def _wait(window: _Window, now: float, *, paced: bool = True) -> float:
        """Sleep until ``window`` allows an event; returns the time it does."""
        while (delay := window.delay(now, paced=paced)) > 0:
            await asyncio.sleep(delay)
            now = time.monotonic()
        return now

    async def _overall_turn(self) -> None:
        """Wait for and take a slot of the overall limit (honouring a bot-wide 429 block)."""
        overall = self._overall
        if not overall.lock.locked():
            now = time.monotonic()
            if overall.delay(now) == 0:
                overall.record(now)
                return
        async with overall.lock:
            overall.record(await self._wait(overall, time.monotonic()))

    async def _take_slot(self, chat: _Window, started: float) -> float:
        """Wait for a slot of ``chat`` and of the overall limit, and take both; returns when."""
        now = started
        while True:
            now = await self._wait(chat, now)
            await self._overall_turn()
            now = time.monotonic()
            # A no_limit/reserved send or a 429 may have landed while we waited overall.
            if chat.delay(now) == 0:
                break
        chat.record(now)
        self._count_wait(now - started)
        return now

    def _count_wait(self, waited: float) -> None:
        stats = self.stats
        stats.waited_seconds_total += waited
        stats.max_wait_seconds = max(stats.max_wait_seconds, waited)

    async def _send_paced(
        self,
        chat: _Window,
        key: ChatKey,
        call: Callable[[], Awaitable[Result]],
        max_retries: int,
    ) -> Result:
        """Caller holds ``chat.lock``: the request keeps the chat's turn until it is answered."""

        async def acquire() -> None:
            await self._take_slot(chat, time.monotonic())

        return await self._attempts(acquire, acquire, call, chat, key, max_retries)

    async def _send_bypass(
        self,
        chat: _Window,
        key: ChatKey,
        call: Callable[[], Awaitable[Result]],
        max_retries: int,
        *,
        reserved: bool,
    ) -> Result:
        """No per-chat pacing (no_limit, or a slot reserved by wait_turn); a 429 block still
        holds, and a retry after one is paced (outside the FIFO, as it is the older request)."""

        async def first() -> None:
            started = time.monotonic()
            await self._wait(chat, started, paced=False)
            if reserved:
                # wait_turn took the overall slot too: only a bot-wide 429 block holds us.
                await self._wait(self._overall, time.monotonic(), paced=False)
            else:
                await self._overall_turn()
            now = time.monotonic()
            if not reserved:
                chat.record(now)
            elif not chat.take_reservation(now):
                # The reservation expired while a 429 block held us: take a slot after all.
                await self._take_slot(chat, started)
                return
            self._count_wait(now - started)

        async def retry() -> None:
            await self._take_slot(chat, time.monotonic())

        return await self._attempts(first, retry, call, chat, key, max_retries)

    async def _send_unchatted(
        self, call: Callable[[], Awaitable[Result]], max_retries: int
    ) -> Result:
        async def acquire() -> None:
            started = time.monotonic()
            await self._overall_turn()
            self._count_wait(time.monotonic() - started)

        return await self._attempts(acquire, acquire, call, None, None, max_retries)

    def _bot_wide(self, key: ChatKey | None, now: float) -> bool:
        """Records a 429 for chat ``key``; whether it may be for the bot's per-second limit.

        A 429 does not say which limit it is for. With other processes sending as the same bot
        it may always be the bot's. Alone, this process keeps the bot under that limit as it
        sends, but Telegram counts arrivals: a stall on the way (ours, the network's, the
        server's) can bunch a second's requests into one. Then chats refused one after another
        give it away: a second chat refused within an overall window of the first.
        """
        last_key, last_at = self._last_refusal
        self._last_refusal = (key, now)
        if self._processes > 1:
            return True
        return last_key != key and now - last_at <= self._overall_window + self.retry_after_margin

    async def _attempts(
        self,
        first: Callable[[], Awaitable[None]],
        retry: Callable[[], Awaitable[None]],
        call: Callable[[], Awaitable[Result]],
        chat: _Window | None,
        key: ChatKey | None,
        max_retries: int,
    ) -> Result:
        attempt = 0
        while True:
            await (first() if attempt == 0 else retry())
            self.stats.sent += 1
            try:
                return await call()
            except RetryAfter as error:
                wait = _retry_after_seconds(error) + self.retry_after_margin
                now = time.monotonic()
                blocked = chat if chat is not None else self._overall
                blocked.blocked_until = max(blocked.blocked_until, now + wait)
                if chat is not None and self._bot_wide(key, now):
                    # Telegram refuses, and holds against the bot, whatever any chat sends
                    # inside that window: every chat pauses for up to one overall window too,
                    # or the other chats' stream keeps tripping it.
                    self._overall.blocked_until = max(
                        self._overall.blocked_until,
                        now + min(wait, self._overall_window + self.retry_after_margin),
                    )
                self.stats.retry_after_hits += 1
                where = f"chat {key}" if key is not None else "all chats"
                if attempt >= max_retries:
                    log.warning(
                        "429 for %s: blocked for %.2f s; giving up after %d retries",
                        where,
                        wait,
                        max_retries,
                    )
                    raise
                attempt += 1
                log.warning(
                    "429 for %s: waiting %.2f s before retry %d/%d",
                    where,
                    wait,
                    attempt,
                    max_retries,
                )
