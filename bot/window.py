"""A rolling window of writes, as Telegram counts them for its flood limits.

Telegram refuses a write (429) when its *rolling* window already holds the limit — a group's
~20 in any 60 s, a private chat's ~1 a second, the bot's ~30 in any second — so a leaky bucket
(a burst, then an even trickle) can still be refused. A `Window` keeps the times of the writes
it still counts and says when the next may go. Each chat's lane keeps one (`bot.lanes`), and
the rate limiter one for the whole bot (`bot.ratelimit`).
"""

from __future__ import annotations

import bisect
import contextlib
import math
from collections import deque
from collections.abc import Iterable


class Window:
    """The writes of the last ``period`` seconds: at most ``limit`` of them, at least
    ``spacing`` (≤ ``period``) apart. Times are the caller's clock's; O(1) per write."""

    __slots__ = ("limit", "period", "sent", "spacing")

    def __init__(self, limit: int, period: float, spacing: float = 0.0) -> None:
        if limit < 0 or not 0 <= spacing <= period:
            raise ValueError(f"not a window: {limit} per {period} s, {spacing} s apart")
        self.limit = limit
        self.period = period
        self.spacing = spacing
        self.sent: deque[float] = deque()  # when each counted write went out, oldest first

    def _prune(self, now: float) -> None:
        sent = self.sent
        while sent and sent[0] <= now - self.period:
            sent.popleft()

    def left(self, now: float) -> int:
        """How many writes the window still allows (the spacing aside)."""
        self._prune(now)
        return max(0, self.limit - len(self.sent))

    def free_at(self, now: float, keep: int = 0) -> float:
        """When a write may go and still leave ``keep`` of the window's writes unused."""
        self._prune(now)
        room = self.limit - keep
        if room <= 0:
            return math.inf
        sent = self.sent
        if not sent:
            return now
        at = max(now, sent[-1] + self.spacing)
        if len(sent) >= room:
            # The write that then leaves the window frees the one wanted.
            at = max(at, sent[len(sent) - room] + self.period)
        return at

    def pace_gap(self, now: float, keep: int, free: int) -> float:
        """The gap to keep now between writes that can wait (a table's edits) so that the
        window, less ``keep`` writes, lasts: none while it counts fewer than ``free``; then
        growing with what it counts, to an even share of the window (``period`` / what is left
        for them) as it fills; and, once it counts a third of what is left for them, at least
        the even spacing at which such writes, from now on, would never find it full. A burst
        thus costs a slower pace for the rest of the window, not a stall at its end."""
        self._prune(now)
        room = self.limit - keep
        if room <= 0:
            return math.inf
        sent = self.sent
        used = len(sent)
        gap = 0.0
        if used >= free and room > free:
            gap = self.period / room * (used - free + 1) / (room - free)
        if used < room // 3:
            return gap
        # The k-th write from now on finds room only once the (used - room + k)-th oldest of
        # those counted has left the window.
        for k in range(max(1, room - used + 1), room + 1):
            gap = max(gap, (sent[used - room + k - 1] + self.period - now) / k)
        return gap

    def count(self, now: float) -> None:
        """A write goes out now (times come in order: the caller's clock does not go back)."""
        self.sent.append(now)

    def restamp(self, at: float, now: float) -> None:
        """The write counted at ``at`` counts from ``now`` instead (when it is known to have
        arrived); gone from the window already, it is counted again."""
        sent = self.sent
        with contextlib.suppress(ValueError):
            sent.remove(at)
        if sent and sent[-1] > now:
            bisect.insort(sent, now)
        else:
            sent.append(now)

    def merge(self, times: Iterable[float], now: float) -> None:
        """Count writes made elsewhere (another process, a migrated group's old id)."""
        merged = sorted([*self.sent, *times])
        self.sent.clear()
        self.sent.extend(merged)
        self._prune(now)
