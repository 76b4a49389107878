"""The bot-wide side of Telegram's flood limits: the overall rate and the 429s (the numbers:
docs/architecture.md, "The flood budget"). A chat's own budget is its lane's (`bot.lanes`).

`PacedRateLimiter`, which PTB calls for every request, spaces the bot's requests out as its
rolling second fills (`Window.pace_gap`) rather than in a burst: Telegram counts arrivals, and a
second's worth sent at once can reach it bunched with the next one. A 429 blocks the chat
refused from when the 429 arrived (Telegram measures it so), and every chat too when it may be
for the bot's per-second limit (`_bot_wide`), or a stream of requests from the others keeps
tripping it.

Counted: the methods that post or change something in a chat, and ``sendChatAction``; not
``answerCallbackQuery`` (Telegram does not limit it, and a player's answer queued behind table
edits would make every button feel slow), nor ``getMe`` and the like. A lane first takes the
bot's turn (`wait_turn`) and only then decides what to send with it, so its request says
``rate_limit_args={"reserved": True}`` and takes no second slot; a request into a chat without
it did not come through the chat's lane, and is logged at WARNING.
"""

from __future__ import annotations

import asyncio
import logging
import math
import time
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from typing import Any

from cachetools import TLRUCache
from telegram.error import RetryAfter
from telegram.ext import BaseRateLimiter

from bot.telegram_errors import retry_after_seconds
from bot.window import Window

__all__ = ["LimiterStats", "PacedRateLimiter"]

log = logging.getLogger(__name__)

JSONDict = dict[str, Any]
Result = bool | JSONDict | list[JSONDict]
ChatKey = int | str

# Methods that would otherwise match a counted prefix but do not post into a chat.
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
_CHAT_EXTRA = frozenset({"setMessageReaction"})
# The bot's requests in the rolling second before they are spaced out at all (`_paced_at`).
PACE_FREE = 5


@dataclass
class LimiterStats:
    """Counters for benchmarks and diagnostics."""

    sent: int = 0
    """Requests handed to Telegram through the limiter (each attempt, including refused ones)."""
    retry_after_hits: int = 0
    """How many 429 answers (RetryAfter) came back."""


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


def _paced_at(window: Window, now: float) -> float:
    """When the bot's next request may go: at once while its second has room, further apart
    as it fills (`Window.pace_gap`), so that a burst never meets a full second."""
    at = window.free_at(now)
    if window.sent:
        at = max(at, window.sent[-1] + window.pace_gap(now, 0, PACE_FREE))
    return at


class PacedRateLimiter(BaseRateLimiter[dict[str, Any]]):
    """A `BaseRateLimiter` for the bot's overall rate and Telegram's 429s (module docstring);
    every wait is measured by ``clock``."""

    def __init__(
        self,
        *,
        overall_per_second: int = 25,
        overall_window: float = 1.0,
        max_retries: int = 3,
        retry_after_margin: float = 0.05,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if min(overall_per_second, max_retries) < 0 or overall_window <= 0:
            raise ValueError("counts and max_retries must be >= 0, the window > 0")
        self._overall_per_second = overall_per_second
        self._overall_window = overall_window
        self._overall: Window | None = None
        self._processes = 1  # processes sending as this bot (see share_overall)
        self.share_overall(1)
        self._lock = asyncio.Lock()  # the bot's turns are taken in order
        self._paused_until = 0.0  # every chat: a bot-wide 429
        # chat -> until when a 429 blocks it; a block is forgotten once it has passed
        self._blocked: TLRUCache[ChatKey, float] = TLRUCache(
            math.inf, ttu=lambda _key, until, _now: until, timer=clock
        )
        # The chat and time of the latest 429 (see _bot_wide).
        self._last_refusal: tuple[ChatKey | None, float] = (None, -math.inf)
        self._clock = clock
        self.max_retries = max_retries
        self.retry_after_margin = retry_after_margin
        self.stats = LimiterStats()

    # Nothing to set up or cancel: all waiting happens in the callers' own tasks.
    async def initialize(self) -> None:
        pass

    async def shutdown(self) -> None:
        pass

    async def wait_turn(self, chat_id: int | str) -> None:
        """Wait until a request may go to ``chat_id`` (its 429 block and a bot-wide one passed)
        and the bot has a slot of its rate, and take the slot. Send the request right after
        with ``rate_limit_args={"reserved": True}``."""
        key = _chat_key(chat_id)
        if key is None:
            raise ValueError(f"not a chat id: {chat_id!r}")
        await self._turn(key, take=True)

    def delay_for(self, chat_id: int | str) -> float:
        """Seconds until a 429 no longer blocks ``chat_id`` (its own, or the bot's)."""
        return self._blocked_for(_chat_key(chat_id), self._clock())

    def share_overall(self, processes: int) -> None:
        """Several processes send as one bot (replicas): Telegram's ~30 per second is for the
        bot, so each takes an equal share of ``overall_per_second``."""
        self._processes = max(1, processes)
        if self._overall_per_second:
            limit = max(1, self._overall_per_second // self._processes)
            if self._overall is None:
                self._overall = Window(limit, self._overall_window)
            self._overall.limit = limit

    async def process_request(
        self,
        callback: Callable[..., Coroutine[Any, Any, Result]],
        args: Any,
        kwargs: dict[str, Any],
        endpoint: str,
        data: dict[str, Any],
        rate_limit_args: dict[str, Any] | None,
    ) -> Result:
        """Wait for the bot's turn (unless the request's lane took it) and for any 429 block,
        then call ``callback``; on a 429, block, wait and retry."""
        if endpoint == "sendChatAction":
            key = None
        elif endpoint not in _UNLIMITED and (
            endpoint in _CHAT_EXTRA or endpoint.startswith(_CHAT_PREFIXES)
        ):
            key = _chat_key(data.get("chat_id"))
        else:
            return await callback(*args, **kwargs)
        take = not (key is not None and (rate_limit_args or {}).get("reserved"))
        if key is not None and take:
            # Only a lane counts a chat's budget: a request that skips it may flood the chat.
            log.warning("%s into chat %s outside its lane", endpoint, key)
        attempt = 0
        while True:
            await self._turn(key, take=take)
            self.stats.sent += 1
            try:
                return await callback(*args, **kwargs)
            except RetryAfter as error:
                wait = retry_after_seconds(error) + self.retry_after_margin
                self._refused(key, wait)
                where = f"chat {key}" if key is not None else "all chats"
                if attempt >= self.max_retries:
                    log.warning(
                        "429 for %s: blocked for %.2f s; giving up after %d retries",
                        where,
                        wait,
                        self.max_retries,
                    )
                    raise
                attempt += 1
                take = True  # the retry is a request of its own
                log.warning(
                    "429 for %s: waiting %.2f s before retry %d/%d",
                    where,
                    wait,
                    attempt,
                    self.max_retries,
                )

    def _blocked_for(self, key: ChatKey | None, now: float) -> float:
        until = self._paused_until
        if key is not None:
            until = max(until, self._blocked.get(key, until))
        return max(0.0, until - now)

    async def _turn(self, key: ChatKey | None, *, take: bool) -> None:
        """Wait out the 429 blocks of ``key`` and of the bot; with ``take``, then wait for and
        take a slot of the bot's rate."""
        now = self._clock()
        while (delay := self._blocked_for(key, now)) > 0:
            await asyncio.sleep(delay)
            now = self._clock()
        window = self._overall
        if not take or window is None:
            return
        if not self._lock.locked() and _paced_at(window, now) <= now:
            window.count(now)  # the usual case: a free slot, no queue
            return
        async with self._lock:
            while True:
                now = self._clock()
                at = max(_paced_at(window, now), now + self._blocked_for(None, now))
                if at <= now:
                    window.count(now)
                    return
                await asyncio.sleep(at - now)

    def _refused(self, key: ChatKey | None, wait: float) -> None:
        """A 429 said to wait ``wait`` seconds: block the chat (every chat, without one)."""
        now = self._clock()
        self.stats.retry_after_hits += 1
        if key is None:
            self._paused_until = max(self._paused_until, now + wait)
            return
        self._blocked[key] = max(self._blocked.get(key, 0.0), now + wait)
        if self._bot_wide(key, now):
            # Telegram refuses, and holds against the bot, whatever any chat sends inside that
            # window: every chat pauses for up to one overall window too.
            pause = min(wait, self._overall_window + self.retry_after_margin)
            self._paused_until = max(self._paused_until, now + pause)

    def _bot_wide(self, key: ChatKey, now: float) -> bool:
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
