"""One send lane per chat: the only way anything is posted or edited in a chat, and the only
keeper of the chat's flood budget (docs/architecture.md, "Delivery" and "The flood budget").

Telegram gives a group about 20 sends+edits in any rolling minute and a private chat about one
a second (429 with a ``retry_after`` beyond). Each lane counts its chat's writes in one rolling
window (:class:`Window`); a private chat's one per 1.1 s, so that four in a row span 3.3 s and
one that reaches Telegram late cannot make four in a 3 s window. What is not one chat's — the
bot-wide rate, shared by the replicas, and the 429s — is the rate limiter's (`bot.ratelimit`).

If replies to commands, table edits and results simply queued in arrival order, one member
typing /help thirty times would push the table a minute back. A lane instead asks, at every
free slot, what matters most *now* (:class:`Priority`): the game's own messages, then an edit
of the live table (always of the newest state, so a slow chat gets fewer, fresher edits, and in
a group never into the last ``reserve`` writes of the minute, which stay for the next result,
table and mention), then replies and stale buttons (bounded, oldest dropped first). Game steps
are not queued: the game's :class:`Provider` derives its next step from the newest committed
state at send time. Handlers never wait for a lane; a lane's backlog never delays another chat.

Longer than 500 lines on purpose: a lane's choice of what goes next, its budget and its
handling of a failed request are one state machine over the same records (the window, the
backlog, the closed chats); apart, each would have to reach into the others' state.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import deque
from collections.abc import Awaitable, Callable, Hashable
from dataclasses import KW_ONLY, dataclass, field
from enum import IntEnum
from typing import Any, Literal, Protocol

from telegram.error import TelegramError

from bot import logs, metrics
from bot.telegram_errors import Fate, Verdict, classify
from bot.window import Window

log = logging.getLogger(__name__)

Send = Callable[[], Awaitable[object]]


class Priority(IntEnum):
    GAME = 0
    TABLE = 1
    OTHER = 2


@dataclass(frozen=True, slots=True)
class Step:
    priority: Priority
    run: Send
    what: str  # for logs


class Provider(Protocol):
    """Whatever owns what a chat should show (the games' delivery)."""

    def next_step(self, key: Hashable, chat_id: int, *, edits_now: bool = True) -> Step | None:
        """The most important thing ``key`` (a game, or a game and a player) still has to show
        in ``chat_id``, or None when the chat shows it all. Without ``edits_now`` (the chat's
        budget holds table edits back for now) an edit may be offered without first rendering
        it to see whether the chat shows it already: it is asked for again when it may go."""
        ...

    async def chat_lost(self, chat_id: int, verdict: Verdict) -> None: ...

    async def chat_migrated(self, old_chat_id: int, new_chat_id: int) -> None: ...


class Limiter(Protocol):
    """The bot-wide side of the flood limits (`bot.ratelimit.PacedRateLimiter`)."""

    async def wait_turn(self, chat_id: int | str) -> None: ...

    def share_overall(self, processes: int) -> None: ...


# A group's budget: Telegram's 20 per rolling minute, a second apart, each write counted a
# second longer than Telegram counts it (a margin for the time a request takes to arrive);
# table edits leave RESERVE of them for what must not wait (the result, the next table), and
# one more while a turn may have to be mentioned (a seated player the bot cannot write to
# privately: `Lanes.keep_for_mention`). Each write kept needlessly costs the table's pace: at
# four seconds a move, a move waited 2.8 s for the table one time in a hundred with three
# kept of 18, 0.8 s with two kept of 20 (docs/performance.md, issue 30).
GROUP_BUDGET = 20
GROUP_WINDOW = 61.0
GROUP_SPACING = 1.0
RESERVE = 2
PRIVATE_INTERVAL = 1.1  # a private chat's budget: one write per interval
# A group's table edits are paced by its budget (`Window.pace_gap`): at once while the minute
# counts fewer than PACE_FREE writes, then further apart as it fills, so that brisk play (an
# action every couple of seconds) becomes evenly spaced edits of the newest state rather than
# a burst and then a stall until the minute's first writes have left it. They are paced as if
# PACE_SPARE more writes were kept: a round's own writes (its result, the next table, the old
# buttons taken off) come together at its end, and would otherwise hold the next edits back.
PACE_FREE = 2
PACE_SPARE = 1
# A floor under the gap between two table edits in a group (the operator's TABLE_EDIT_GAP):
# none by default, the budget alone paces them.
TABLE_GAP = 0.0
OTHER_LIMIT = 6  # replies waiting in one chat; beyond that the oldest is dropped
BACKOFF_FIRST = 1.0
BACKOFF_CAP = 60.0
OTHER_ATTEMPTS = 3


@dataclass
class _Lane:
    chat_id: int
    budget: Window
    wanted: dict[Hashable, None] = field(default_factory=dict)  # ordered set of provider keys
    other: deque[tuple[Step, int]] = field(default_factory=deque)  # (step, attempts)
    last_table: float = float("-inf")
    paused_until: float = 0.0
    backoff: float = 0.0
    closed: str | None = None  # why the chat refuses us, while it does
    mention_kept: bool = False  # one more write kept from edits, for a turn's mention
    wake: asyncio.Event = field(default_factory=asyncio.Event)
    task: asyncio.Task[None] | None = None

    @property
    def is_group(self) -> bool:
        return self.chat_id < 0

    def idle(self) -> bool:
        return not self.wanted and not self.other


@dataclass(eq=False)
class Lanes:
    provider: Provider
    limiter: Limiter | None
    _: KW_ONLY
    table_gap: float = TABLE_GAP
    group_budget: int = GROUP_BUDGET
    group_window: float = GROUP_WINDOW
    # Unpaced (no limiter), a group's window only counts: table edits keep the reserve.
    group_spacing: float = GROUP_SPACING
    private_interval: float = PRIVATE_INTERVAL
    reserve: int = RESERVE
    clock: Callable[[], float] = time.monotonic
    # When this process started (`bot.app`): one killed just before may have written into any
    # private chat in its last moments, which no record kept; each private chat's first write
    # then keeps one interval from the start, as if a write had gone out at it.
    started: float | None = None
    flushing: bool = field(init=False, default=False)  # shutting down: edits skip their gap
    holding_other: bool = field(init=False, default=False)  # …replies held back (shutdown)
    _lanes: dict[int, _Lane] = field(init=False, default_factory=dict)
    _stopped: bool = field(init=False, default=False)

    def __post_init__(self) -> None:
        if self.limiter is None:
            self.group_spacing = 0.0

    # ---------------------------------------------------------------- public

    def keep_for_mention(self, chat_id: int, keep: bool) -> None:
        """Whether a turn in this group may have to be mentioned (a write edits leave free)."""
        self._lane(chat_id).mention_kept = keep

    def want(self, chat_id: int, key: Hashable) -> None:
        """``key`` has something new to show in the chat: ask it at the chat's next slot."""
        lane = self._lane(chat_id)
        if lane.closed is not None:
            return
        if key in lane.wanted:
            metrics.held(lane.is_group)  # coalesced: one write will show both versions
        lane.wanted[key] = None
        self._kick(lane)

    def post(self, chat_id: int, send: Send, what: str) -> bool:
        """Queue an OTHER request (a reply, a pointer, a stale button's removal); never waits.
        False when the chat refuses the bot (nothing was queued)."""
        lane = self._lane(chat_id)
        if lane.closed is not None:
            return False
        if len(lane.other) >= OTHER_LIMIT:
            dropped, _ = lane.other.popleft()
            log.info("chat=%s: dropped a queued %s (too many waiting)", chat_id, dropped.what)
        lane.other.append((Step(Priority.OTHER, send, what), 0))
        self._kick(lane)
        return True

    def reopen(self, chat_id: int) -> None:
        """A new update came from the chat: whatever refused us may be over."""
        lane = self._lanes.get(chat_id)
        if lane is not None and lane.closed is not None:
            log.info("chat=%s: reopened (was: %s)", chat_id, lane.closed)
            lane.closed = None

    def send_args(self) -> dict[str, Any]:
        """Keyword arguments for a request a lane step makes: the lane already took the bot's
        turn for it (`PacedRateLimiter.wait_turn`), so the request must not wait for another."""
        return {"rate_limit_args": {"reserved": True}} if self.limiter is not None else {}

    def close(self, chat_id: int, why: str) -> None:
        """Telegram told us (my_chat_member) the chat no longer hears us."""
        lane = self._lane(chat_id)
        lane.closed = why
        lane.wanted.clear()
        lane.other.clear()
        lane.wake.set()

    def is_closed(self, chat_id: int) -> bool:
        lane = self._lanes.get(chat_id)
        return lane is not None and lane.closed is not None

    def move(self, old_chat_id: int, new_chat_id: int) -> None:
        """A group became a supergroup: what waited for the old id now goes to the new one."""
        old = self._lanes.pop(old_chat_id, None)
        if old is None:
            return
        if old.task is not None and old.task is not asyncio.current_task():
            old.task.cancel()
        new = self._lane(new_chat_id)
        new.wanted.update(old.wanted)
        new.other.extend(old.other)
        new.budget.merge(old.budget.sent, self.clock())
        new.last_table = max(new.last_table, old.last_table)
        self._kick(new)

    # ---------------------------------------------------------------- the budget, for replicas

    def sent_lately(self, chat_id: int) -> list[float]:
        """Unix times of the writes into the chat that its window still counts, oldest first:
        what another process taking the chat over must count too (`count_sent`)."""
        lane = self._lanes.get(chat_id)
        if lane is None:
            return []
        now = self.clock()
        lane.budget.left(now)  # drops what the window no longer counts
        offset = time.time() - now
        return [at + offset for at in lane.budget.sent]

    def count_sent(self, chat_id: int, times: list[float]) -> None:
        """Count writes another process made into the chat at these unix times: the chat's
        budget is one, whoever sends."""
        if not times:
            return
        now = self.clock()
        offset = now - time.time()
        self._lane(chat_id).budget.merge((min(at + offset, now) for at in times), now)

    def share_overall(self, processes: int) -> None:
        """Several processes send as this bot: the bot-wide rate is shared (the limiter's)."""
        if self.limiter is not None:
            self.limiter.share_overall(processes)

    # ---------------------------------------------------------------- waiting and draining

    def pending(self) -> int:
        return len(self.waiting())

    def backlogs(self) -> list[tuple[bool, int]]:
        """(is a group, writes waiting) of every lane open now (the metrics' backlog)."""
        return [
            (lane.is_group, len(lane.wanted) + len(lane.other))
            for lane in list(self._lanes.values())
            if lane.closed is None
        ]

    def waiting(self) -> dict[int, str]:
        """What each chat still waits to send (logs and tests)."""
        found = {}
        for chat_id, lane in self._lanes.items():
            if lane.idle() or lane.closed is not None:
                continue
            steps = [self.provider.next_step(key, chat_id) for key in lane.wanted]
            steps += [step for step, _ in lane.other]
            what = [
                step.what
                for step in steps
                if step is not None and not (self.holding_other and step.priority is Priority.OTHER)
            ]
            if what:
                found[chat_id] = ", ".join(what)
        return found

    async def drain(self, timeout: float, *, replies: bool = False) -> bool:
        """Send what is pending (table edits without their gap or reserve; with ``replies``
        the replies too), for up to ``timeout`` seconds; True when everything went out."""
        self.flushing = True
        self.holding_other = not replies
        for lane in self._lanes.values():
            lane.wake.set()
        deadline = self.clock() + timeout
        while self.clock() < deadline:
            busy = [
                lane.task
                for lane in self._lanes.values()
                if lane.task is not None and not lane.task.done()
            ]
            if not busy or not self.waiting():
                return True
            await asyncio.wait(busy, timeout=min(0.2, max(0.0, deadline - self.clock())))
        return self.pending() == 0

    def resume(self) -> None:
        """After a drain: back to the normal pace; lanes that stopped while replies were held
        back go on with them."""
        self.flushing = self.holding_other = False
        for lane in self._lanes.values():
            if not lane.idle() and lane.closed is None:
                self._kick(lane)

    async def stop(self, grace: float = 2.0) -> None:
        """No new sends; a send under way finishes (with its bookkeeping) for up to ``grace``
        seconds, then whatever still waits is cancelled."""
        self._stopped = True
        tasks = [lane.task for lane in self._lanes.values() if lane.task is not None]
        for lane in self._lanes.values():
            lane.wake.set()
        if tasks:
            _, late = await asyncio.wait(tasks, timeout=grace)
            for task in late:
                task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    # ---------------------------------------------------------------- the lane's loop

    def _lane(self, chat_id: int) -> _Lane:
        lane = self._lanes.get(chat_id)
        if lane is None:
            self._forget_idle()
            if chat_id < 0:
                budget = Window(self.group_budget, self.group_window, self.group_spacing)
            else:
                budget = Window(1, self.private_interval)
                if self.started is not None and self.clock() - self.started < budget.period:
                    budget.count(self.started)
            lane = self._lanes[chat_id] = _Lane(chat_id, budget)
        return lane

    def _forget_idle(self) -> None:
        """Look at the two oldest lanes: drop those with nothing to send or to remember (their
        window empty), put the others at the back. Amortised O(1) per new lane, and the lanes
        shrink as fast as they grow: memory follows the chats active lately."""
        lanes, now = self._lanes, self.clock()
        for _ in range(min(2, len(lanes))):
            chat_id = next(iter(lanes))
            lane = lanes.pop(chat_id)
            if not (
                lane.task is None
                and lane.idle()
                and lane.closed is None
                and lane.paused_until <= now
                and lane.last_table + self.table_gap <= now
                and lane.budget.left(now) == lane.budget.limit
            ):
                lanes[chat_id] = lane

    def _kick(self, lane: _Lane) -> None:
        if self._stopped:
            return
        lane.wake.set()
        if lane.task is None or lane.task.done():
            lane.task = asyncio.create_task(self._run(lane), name=f"lane-{lane.chat_id}")

    def _ready_at(self, lane: _Lane, now: float, kind: Literal["table", "tidy", "reply"]) -> float:
        """When a ``kind`` of step ("table" edit, "tidy": a game's removal of its old buttons,
        or "reply") may go out in this chat. In a group each leaves the reserve; paced (with a
        limiter), an edit and a removal also wait the gap the group's budget asks for now
        (`Window.pace_gap`), a removal after the edits (a round's end brings two: at once, they
        filled the minute and the next edits waited for it to pass). A reply is not paced: it
        would wait all round. Unpaced, only the edits keep the reserve, after the floor."""
        if not lane.is_group or self.flushing or (self.limiter is None and kind != "table"):
            return now
        budget = lane.budget
        keep = self.reserve + lane.mention_kept
        ready = budget.free_at(now, keep)
        if kind == "reply":
            return ready
        gap = self.table_gap if kind == "table" else 0.0
        if self.limiter is not None:
            gap = max(gap, budget.pace_gap(now, keep + PACE_SPARE, PACE_FREE))
        return max(ready, lane.last_table + gap)

    def _pick(self, lane: _Lane, now: float) -> tuple[Step | None, float | None]:
        """The step to send now, else when to look again (None: nothing left at all)."""
        best: Step | None = None
        later: list[float] = []
        table_at = self._ready_at(lane, now, "table")
        edits_now = table_at <= now
        tidy_at = self._ready_at(lane, now, "tidy")
        reply_at = self._ready_at(lane, now, "reply")
        for key in list(lane.wanted):
            step = self.provider.next_step(key, lane.chat_id, edits_now=edits_now)
            if step is None:
                lane.wanted.pop(key, None)
                continue
            if step.priority is Priority.TABLE and not edits_now:
                later.append(table_at)
                continue
            if step.priority is Priority.OTHER and self.holding_other:
                continue  # shutting down: only the game's own messages are worth the wait
            if step.priority is Priority.OTHER and tidy_at > now:
                later.append(tidy_at)
                continue
            if best is None or step.priority < best.priority:
                best = step
                if best.priority is Priority.GAME:
                    break
        if lane.other and not self.holding_other:
            # A reply waits for the game's own messages; in a private chat it goes before
            # quiet edits of the hand, which would otherwise keep it waiting turn after turn.
            queued = lane.other[0][0]
            if best is None or (not lane.is_group and best.priority is Priority.TABLE):
                if reply_at <= now:
                    best = queued
                else:
                    later.append(reply_at)
        if best is not None:
            return best, None
        return None, min(later, default=None)

    async def _run(self, lane: _Lane) -> None:
        logs.bind(chat=lane.chat_id, game=None)  # (not the update's that started the task)
        try:
            while lane.closed is None and not self._stopped:
                lane.wake.clear()
                now = self.clock()
                if lane.paused_until > now:
                    await self._sleep(lane, lane.paused_until - now)
                    continue
                step, later = self._pick(lane, now)
                if step is None:
                    if later is None:
                        return
                    metrics.held(lane.is_group)  # deferred: its budget holds it back
                    await self._sleep(lane, later - now)
                    continue
                if self.limiter is not None:
                    ready = lane.budget.free_at(now)
                    if ready > now:
                        # Nothing can go sooner, whatever comes meanwhile: no asking again.
                        metrics.held(lane.is_group)
                        await asyncio.sleep(ready - now)
                        continue
                    await self.limiter.wait_turn(lane.chat_id)
                    if lane.closed is not None or self._stopped:
                        return
                    # Something more important may have arrived while we waited for the slot.
                    step, _ = self._pick(lane, self.clock())
                    if step is None:
                        continue
                log.debug("chat=%s: %s", lane.chat_id, step.what)
                await self._send(lane, step)
                await asyncio.sleep(0)  # a send answered at once must not starve the loop
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("lane of chat %s failed", lane.chat_id)
        finally:
            if lane.task is asyncio.current_task():
                lane.task = None
            if not self._stopped and lane.closed is None and lane.wake.is_set():
                # Woken while finishing: go on in a fresh task.
                self._kick(lane)

    async def _sleep(self, lane: _Lane, seconds: float) -> None:
        if seconds <= 0:
            await asyncio.sleep(0)  # wait_for(…, 0) would not yield to the loop
            return
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(lane.wake.wait(), timeout=seconds)

    async def _send(self, lane: _Lane, step: Step) -> None:
        is_other = bool(lane.other) and lane.other[0][0] is step
        now = self.clock()
        lane.budget.count(now)  # counted now, whatever the answer; from its arrival once known
        if step.priority is Priority.TABLE:
            lane.last_table = now
        try:
            await step.run()
        except TelegramError as error:
            self._arrived(lane, now)
            await self._failed(lane, step, is_other, classify(error))
            return
        except Exception:
            # A bug in one request must not silence the chat: without this the step stays at
            # the head of its queue and fails again at every wake, and nothing else is sent.
            log.exception("chat=%s: %s raised", lane.chat_id, step.what)
            if not is_other:  # the provider will offer it again: not in a tight loop
                self._back_off(lane)
                return
        else:
            lane.backoff = 0.0
            self._arrived(lane, now)
        if is_other:  # sent, or dropped as a bug's
            lane.other.popleft()

    def _arrived(self, lane: _Lane, started: float) -> None:
        """The write counted when it started counts from when its answer came back: it arrived
        by then, maybe late (a stall on the way, or a 429's wait and a retry in
        `bot.ratelimit`), and the chat's next write keeps its interval from that arrival, not
        from the start (else the two may reach Telegram together; after a restart, into a
        window the dead process had filled)."""
        lane.budget.restamp(started, self.clock())

    async def _failed(self, lane: _Lane, step: Step, is_other: bool, verdict: Verdict) -> None:
        chat_id = lane.chat_id
        if verdict.fate is Fate.MIGRATED and verdict.new_chat_id is not None:
            log.info("chat=%s became supergroup %s", chat_id, verdict.new_chat_id)
            await self.provider.chat_migrated(chat_id, verdict.new_chat_id)
            self.move(chat_id, verdict.new_chat_id)
            return
        if verdict.fate is Fate.CHAT_LOST:
            log.warning("chat=%s refuses the bot (%s): stopped sending there", chat_id, verdict)
            self.close(chat_id, verdict.reason)
            await self.provider.chat_lost(chat_id, verdict)
            return
        if verdict.fate is Fate.TRANSIENT:
            self._back_off(lane)
            log.warning(
                "chat=%s: %s failed (%s); retrying in %.0f s",
                chat_id,
                step.what,
                verdict.reason,
                lane.backoff,
            )
            if is_other:
                other, attempts = lane.other.popleft()
                if attempts + 1 < OTHER_ATTEMPTS:
                    lane.other.appendleft((other, attempts + 1))
            return
        # REJECTED (or a stray not-modified/gone the step did not handle): never retried.
        log.error("chat=%s: %s refused: %s", chat_id, step.what, verdict.reason)
        if is_other:
            lane.other.popleft()

    def _back_off(self, lane: _Lane) -> None:
        lane.backoff = min(BACKOFF_CAP, max(BACKOFF_FIRST, lane.backoff * 2))
        lane.paused_until = self.clock() + lane.backoff
