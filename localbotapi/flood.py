"""Telegram's flood limits, as rolling windows over real time.

Telegram documents the limits only loosely ("no more than 20 messages per minute to the same group",
"about one message per second to a chat, short bursts are tolerated", "about 30 messages per
second overall"), so the defaults below pick a precise reading:

* a group or supergroup: at most 20 sends+edits in any rolling 60 s;
* a private chat: at most 3 sends+edits in any rolling 3 s (one per second on average, with the
  short burst Telegram tolerates — a card dealt and an edit right after it must not be a 429);
* all chats together: at most 30 sends+edits per bot in any rolling second.

A refused request gets 429 with `retry_after` = whole seconds until the oldest counted request
leaves the window that is full. Besides answering 429, the controller keeps two counters that the
end-to-end tests assert are zero: how many 429s it answered, and how many requests arrived for a
chat (or for the bot as a whole) before the retry_after it was given had passed — the signature of
a bot that ignores retry_after.
"""

from __future__ import annotations

import math
import time
from collections import deque
from dataclasses import dataclass, field


@dataclass(frozen=True)
class FloodLimits:
    """Window sizes; tests shrink `group_window` so a 21st message needs no minute of waiting."""

    group_count: int = 20
    group_window: float = 60.0
    private_count: int = 3
    private_window: float = 3.0
    global_count: int = 30
    global_window: float = 1.0


@dataclass
class FloodControl:
    """Counts sends and edits per (bot, chat) and per bot; decides on 429s."""

    enabled: bool = True
    limits: FloodLimits = field(default_factory=FloodLimits)
    too_many_requests: int = 0
    """How many 429 answers were given."""
    inside_retry_after: int = 0
    """How many counted requests arrived before an earlier retry_after for their chat expired."""
    _windows: dict[tuple[int, int | None], deque[float]] = field(default_factory=dict)
    _retry_until: dict[tuple[int, int | None], float] = field(default_factory=dict)

    def check(self, bot_id: int, chat_id: int, is_group: bool) -> int | None:
        """Count one send/edit; None if allowed, else the retry_after (seconds) to answer with.

        The key (bot_id, None) is the bot-wide window; (bot_id, chat_id) the chat's.
        """
        now = time.monotonic()
        chat_key: tuple[int, int | None] = (bot_id, chat_id)
        bot_key: tuple[int, int | None] = (bot_id, None)
        if now < self._retry_until.get(chat_key, 0.0) or now < self._retry_until.get(bot_key, 0.0):
            self.inside_retry_after += 1
        if not self.enabled:
            return None
        limits = self.limits
        count, window = (
            (limits.group_count, limits.group_window)
            if is_group
            else (limits.private_count, limits.private_window)
        )
        waits: list[tuple[tuple[int, int | None], float]] = []
        for key, key_count, key_window in (
            (chat_key, count, window),
            (bot_key, limits.global_count, limits.global_window),
        ):
            events = self._windows.setdefault(key, deque())
            while events and events[0] <= now - key_window:
                events.popleft()
            if len(events) >= key_count:
                waits.append((key, events[0] + key_window - now))
        # A request still inside a retry_after window is refused even if a slot has freed since:
        # the bot was told to wait, and Telegram does not reward impatience.
        for key in (chat_key, bot_key):
            remaining = self._retry_until.get(key, 0.0) - now
            if remaining > 0:
                waits.append((key, remaining))
        if waits:
            retry_after = max(1, math.ceil(max(wait for _, wait in waits)))
            for key, _ in waits:
                self._retry_until[key] = max(self._retry_until.get(key, 0.0), now + retry_after)
            self.too_many_requests += 1
            return retry_after
        self._windows[chat_key].append(now)
        self._windows[bot_key].append(now)
        return None
