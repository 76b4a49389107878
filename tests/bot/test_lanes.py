"""A chat's lanes: a request that fails with something other than a Telegram error, the chat's
budget (its rolling window, the reserve kept from table edits), 429s, the server's flood limits,
many chats at once and the budget handed to another process or a supergroup."""

from __future__ import annotations

import asyncio
import math
import time
from collections import deque
from collections.abc import Hashable
from typing import Any

from telegram.ext import AIORateLimiter, ExtBot

from bot.lanes import Lanes, Priority, Send, Step
from bot.ratelimit import PacedRateLimiter
from bot.telegram_errors import Verdict
from bot.window import Window
from localbotapi import BotApiServer, FloodLimits
from tests.bot.fake_clock import FakeClock
from tests.bot.test_ratelimit import SLACK, Recorder, gaps, max_in_window, retry_after, send


class NoGames:
    def next_step(self, key: Hashable, chat_id: int, *, edits_now: bool = True) -> Step | None:
        return None

    async def chat_lost(self, chat_id: int, verdict: Verdict) -> None:
        return None

    async def chat_migrated(self, old_chat_id: int, new_chat_id: int) -> None:
        return None


async def test_a_request_that_raises_is_dropped_and_the_next_one_goes_out() -> None:
    lanes = Lanes(NoGames(), None)
    sent: list[str] = []

    async def broken() -> object:
        raise TypeError("unexpected keyword argument 'rate_limit_args'")

    async def fine() -> object:
        sent.append("reply")
        return None

    assert lanes.post(-100, broken, "settings edit")
    assert lanes.post(-100, fine, "reply")
    for _ in range(50):
        if sent:
            break
        await asyncio.sleep(0.01)
    assert sent == ["reply"]
    assert lanes.pending() == 0
    await lanes.stop()


# ---------------------------------------------------------------------- the chat's budget
# Windows are shrunk to fractions of a second (Telegram's group window is 60 s); the instants
# checked are those at which the steps ran, on time.monotonic like the lanes' own clock.

GROUP = -1001
OTHER_GROUP = -1002
ALICE = 42
BOB = 43
W = 0.5


class Script:
    """A provider whose keys each have a queue of steps; a step records when it ran."""

    def __init__(self) -> None:
        self.queues: dict[Hashable, deque[tuple[Priority, Any, Send | None]]] = {}
        self.ran: list[tuple[int, Priority, Any, float]] = []

    def add(
        self,
        lanes: Lanes,
        chat_id: int,
        tags: list[Any],
        priority: Priority = Priority.GAME,
        send: Send | None = None,
    ) -> None:
        queue = self.queues.setdefault((chat_id, priority), deque())
        queue.extend((priority, tag, send) for tag in tags)
        lanes.want(chat_id, (chat_id, priority))

    def next_step(self, key: Hashable, chat_id: int, *, edits_now: bool = True) -> Step | None:
        queue = self.queues.get(key)
        if not queue:
            return None
        priority, tag, send = queue[0]

        async def run() -> object:
            queue.popleft()
            self.ran.append((chat_id, priority, tag, time.monotonic()))
            return await send() if send is not None else None

        return Step(priority, run, str(tag))

    def stamps(self, chat_id: int, priority: Priority | None = None) -> list[float]:
        return [
            at for chat, kind, _, at in self.ran if chat == chat_id and priority in (None, kind)
        ]

    def tags(self, chat_id: int) -> list[Any]:
        return [tag for chat, _, tag, _ in self.ran if chat == chat_id]

    async def chat_lost(self, chat_id: int, verdict: Verdict) -> None:
        return None

    async def chat_migrated(self, old_chat_id: int, new_chat_id: int) -> None:
        return None


def paced_lanes(script: Script, **overrides: Any) -> Lanes:
    settings: dict[str, Any] = {
        "group_budget": 5,
        "group_window": W,
        "group_spacing": 0.02,
        "private_interval": 0.2,
        "table_gap": 0.0,
    }
    settings.update(overrides)
    limiter = overrides.pop("limiter", None) or PacedRateLimiter(
        overall_per_second=1000, retry_after_margin=0.0
    )
    settings.pop("limiter", None)
    return Lanes(script, limiter, **settings)


async def until_idle(lanes: Lanes, timeout: float = 10.0) -> None:
    """Until every lane has sent all it had and its task has ended."""
    for _ in range(int(timeout / 0.01)):
        if not lanes.pending() and all(lane.task is None for lane in lanes._lanes.values()):
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"still to send: {lanes.waiting()}")


async def test_a_burst_into_a_group_never_exceeds_the_rolling_window_and_keeps_its_order() -> None:
    script = Script()
    lanes = paced_lanes(script)
    started = time.monotonic()
    script.add(lanes, GROUP, list(range(9)))
    await until_idle(lanes)
    stamps = script.stamps(GROUP)
    assert len(stamps) == 9
    assert max_in_window(stamps, W) <= 5
    # A rolling window, not a leaky bucket: the 6th waits until the 1st has left the window.
    assert stamps[5] - stamps[0] >= W - SLACK
    assert min(gaps(stamps)) >= 0.02 - SLACK
    assert script.tags(GROUP) == list(range(9))
    assert stamps[0] - started < 0.1  # a lone action goes at once
    await lanes.stop()


async def test_writes_trickling_in_never_exceed_the_window() -> None:
    script = Script()
    lanes = paced_lanes(script, group_spacing=0.0)
    for n in range(12):
        script.add(lanes, GROUP, [n])
        await asyncio.sleep(0.07)
    await until_idle(lanes)
    assert len(script.stamps(GROUP)) == 12
    assert max_in_window(script.stamps(GROUP), W) <= 5
    await lanes.stop()


async def test_chats_are_paced_independently_and_a_private_chat_once_per_interval() -> None:
    script = Script()
    lanes = paced_lanes(script, group_budget=2)
    for chat in (GROUP, OTHER_GROUP, ALICE, BOB):
        script.add(lanes, chat, list(range(4)))
    await until_idle(lanes)
    for chat in (GROUP, OTHER_GROUP):
        assert max_in_window(script.stamps(chat), W) <= 2
    for chat in (ALICE, BOB):
        assert min(gaps(script.stamps(chat))) >= 0.2 - SLACK
        assert script.tags(chat) == list(range(4))
    firsts = [script.stamps(chat)[0] for chat in (GROUP, OTHER_GROUP, ALICE, BOB)]
    assert max(firsts) - min(firsts) < 0.1  # nobody waited for another chat
    await lanes.stop()


async def test_table_edits_leave_the_reserve_for_the_game() -> None:
    """Edits stop short of the window's last ``reserve`` writes; a result that comes then goes
    out at once, in the reserve."""
    script = Script()
    lanes = paced_lanes(script, group_budget=6, reserve=2, group_window=0.6, group_spacing=0.0)
    script.add(lanes, GROUP, ["lobby", "joined", "table", "mention"])  # the minute but 2
    await asyncio.sleep(0.05)
    script.add(lanes, GROUP, list(range(12)), Priority.TABLE)
    await asyncio.sleep(0.1)
    assert len(script.stamps(GROUP)) == 4  # the edits are held back now
    asked = time.monotonic()
    script.add(lanes, GROUP, ["result", "table"])
    await asyncio.sleep(0.1)
    results = script.stamps(GROUP, Priority.GAME)
    assert len(results) == 6 and results[-1] - asked < 0.05
    await until_idle(lanes)
    edits = script.stamps(GROUP, Priority.TABLE)
    assert len(edits) == 12
    assert max_in_window(edits, 0.6) <= 4
    assert max_in_window(script.stamps(GROUP), 0.6) <= 6
    every = script.stamps(GROUP)
    for at in edits:  # each went while the window left the reserve free
        assert sum(at - 0.6 + SLACK < t < at for t in every) < 4
    await lanes.stop()


async def test_a_turn_that_may_be_mentioned_keeps_one_more_write_from_the_edits() -> None:
    """While a seated player can only be told of a turn by a mention in the group, the edits
    leave one write more free for it."""
    script = Script()
    lanes = paced_lanes(script, group_budget=6, reserve=2, group_window=0.6, group_spacing=0.0)
    lanes.keep_for_mention(GROUP, True)
    script.add(lanes, GROUP, ["lobby", "joined", "table"])  # the minute but 3
    await asyncio.sleep(0.05)
    script.add(lanes, GROUP, list(range(12)), Priority.TABLE)
    await asyncio.sleep(0.1)
    assert len(script.stamps(GROUP)) == 3  # no edit: 2 kept for the game, 1 for the mention
    asked = time.monotonic()
    script.add(lanes, GROUP, ["mention"])
    await asyncio.sleep(0.1)
    assert script.stamps(GROUP, Priority.GAME)[-1] - asked < 0.05
    lanes.keep_for_mention(GROUP, False)  # everyone has a private chat again
    await until_idle(lanes)
    edits = script.stamps(GROUP, Priority.TABLE)
    assert len(edits) == 12 and max_in_window(script.stamps(GROUP), 0.6) <= 6
    await lanes.stop()


async def test_replies_in_a_group_leave_the_reserve_for_the_game() -> None:
    """A reply (or old buttons being removed) waits rather than take the minute's reserve: the
    result that comes next still goes at once."""
    script = Script()
    lanes = paced_lanes(script, group_budget=6, reserve=2, group_window=0.6, group_spacing=0.0)
    script.add(lanes, GROUP, ["lobby", "joined", "table", "mention"])  # the minute but 2
    await asyncio.sleep(0.05)
    replied: list[float] = []

    async def reply() -> object:
        replied.append(time.monotonic())
        return None

    assert lanes.post(GROUP, reply, "reply")
    await asyncio.sleep(0.1)
    assert replied == []
    asked = time.monotonic()
    script.add(lanes, GROUP, ["result", "table"])
    await asyncio.sleep(0.1)
    results = script.stamps(GROUP, Priority.GAME)
    assert len(results) == 6 and results[-1] - asked < 0.05
    await until_idle(lanes)
    assert len(replied) == 1
    assert max_in_window([*script.stamps(GROUP), *replied], 0.6) <= 6
    assert sum(replied[0] - 0.6 + SLACK < t < replied[0] for t in script.stamps(GROUP)) < 4
    await lanes.stop()


# ---------------------------------------------------------------------- the table's pace
# A group's table at a human pace, on a fake clock: the lane's own choices (`_pick`, `_send`)
# stepped through minutes of play in no time. Players act on what the table shows: a move
# comes ``think`` seconds after the table showed the one before (or on a fixed beat).

MOVES_A_ROUND = 15  # a 4-player classic36 round: bank, 3 stakes, draws and stands, the deal


class Table:
    """One group's game: a table edit shows the newest move; a round's last move brings its
    result (which shows it), the deal after it a new table; both are the game's own writes."""

    def __init__(self) -> None:
        self.version = 0
        self.shown = 0
        self.game: deque[str] = deque()
        self.moved: dict[int, float] = {}  # version -> when it was played
        self.lags: list[float] = []
        self.writes: list[tuple[float, Priority]] = []
        self.shown_at = 0.0

    def move(self, now: float) -> None:
        self.version += 1
        self.moved[self.version] = now
        if self.version % MOVES_A_ROUND == MOVES_A_ROUND - 1:
            self.game.append("result")
        elif self.version % MOVES_A_ROUND == 0:
            self.game.append("new table")

    def next_step(self, key: Hashable, chat_id: int, *, edits_now: bool = True) -> Step | None:
        if self.game:
            what = self.game[0]

            async def post() -> object:
                self.game.popleft()
                self.show()
                return None

            return Step(Priority.GAME, post, what)
        if self.shown < self.version:

            async def edit() -> object:
                self.show()
                return None

            return Step(Priority.TABLE, edit, "table edit")
        return None

    def show(self) -> None:
        now = CLOCK.now
        self.lags += [now - self.moved[v] for v in range(self.shown + 1, self.version + 1)]
        self.shown = self.version
        self.shown_at = now

    async def chat_lost(self, chat_id: int, verdict: Verdict) -> None:
        return None

    async def chat_migrated(self, old_chat_id: int, new_chat_id: int) -> None:
        return None


CLOCK = FakeClock(1_000_000.0)


async def play(table: Table, think: float, minutes: float, *, gated: bool = True) -> list[float]:
    """Play for ``minutes`` through a group's lane with the default budget; returns when each
    write into the group went out."""
    lanes = Lanes(table, PacedRateLimiter(clock=CLOCK), clock=CLOCK)
    lane = lanes._lane(GROUP)
    end = CLOCK.now + minutes * 60.0
    next_move = CLOCK.now + think
    writes: list[float] = []
    while CLOCK.now < end:
        if next_move is not None and CLOCK.now >= next_move:
            table.move(CLOCK.now)
            lane.wanted["game"] = None
            next_move = None if gated else CLOCK.now + think
        step, later = lanes._pick(lane, CLOCK.now)
        if step is not None and lane.budget.free_at(CLOCK.now) <= CLOCK.now:
            writes.append(CLOCK.now)
            await lanes._send(lane, step)
        if gated and next_move is None and table.shown == table.version:
            next_move = table.shown_at + think
        upcoming = [t for t in (next_move, later, lane.budget.free_at(CLOCK.now)) if t]
        CLOCK.advance(max(0.01, min(upcoming, default=CLOCK.now + 0.01) - CLOCK.now))
    return writes


def quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def test_a_calm_groups_table_shows_each_move_at_once() -> None:
    """Four players taking 4 s a move: the minute has room, the table keeps up with them (a
    fixed 6 s gap between edits kept every move waiting 2 s)."""
    table = Table()
    writes = await play(table, think=4.0, minutes=10)
    assert len(table.lags) > 100
    assert quantile(table.lags, 0.5) <= 1.0, sorted(table.lags)
    assert max(table.lags) <= 2.0, sorted(table.lags)
    assert max_in_window(writes, 60.0) <= 18


async def test_brisk_play_is_paced_evenly_without_stalls_or_floods() -> None:
    """Two seconds a move is more than the minute's budget allows: the edits show the newest
    state evenly spaced, with no wait of half a minute once the minute's budget is spent."""
    table = Table()
    writes = await play(table, think=2.0, minutes=10)
    assert len(table.lags) > 100
    assert quantile(table.lags, 0.9) <= 3.5, sorted(table.lags)
    assert max(table.lags) <= 12.0, sorted(table.lags)
    assert max_in_window(writes, 60.0) <= 20  # Telegram's limit in any rolling minute
    # Nobody waiting on the table, a move every 2 s: coalesced, never past the budget.
    table = Table()
    writes = await play(table, think=2.0, minutes=10, gated=False)
    assert table.shown == table.version or max(table.lags) <= 20.0
    assert max(table.lags) <= 20.0, sorted(table.lags)
    assert max_in_window(writes, 60.0) <= 20


def test_the_pace_gap_spreads_what_is_left_of_the_window() -> None:
    window = Window(18, 60.0, 1.0)
    assert window.pace_gap(0.0, keep=4, free=2) == 0.0  # an empty minute: at once
    window.count(0.0)
    assert window.pace_gap(1.0, keep=4, free=2) == 0.0
    for n in range(1, 8):  # a burst: 8 writes in 8 s
        window.count(float(n))
    gap = window.pace_gap(8.0, keep=4, free=2)
    # 6 writes are left before 14: at that gap they last until the first leaves the window.
    assert gap >= (60.0 - 8.0) / 7 - 1e-9
    assert gap < 60.0 / 14 * 2
    # The minute full but for the reserve: the next waits for the oldest to leave.
    for n in range(8, 14):
        window.count(float(n))
    assert window.pace_gap(14.0, keep=4, free=2) >= 60.0 - 14.0
    assert window.pace_gap(14.0, keep=18, free=2) == math.inf


async def test_the_window_answers_how_many_writes_are_left_beyond_the_reserve() -> None:
    window = Window(18, 60.0, 1.0)
    assert window.left(0.0) == 18 and window.free_at(0.0) == 0.0
    for n in range(14):
        window.count(float(n))
    assert window.left(14.0) == 4
    assert window.free_at(14.0) == 14.0  # one a second apart: the 15th may go now
    assert window.free_at(13.5) == 14.0
    # Keeping 4 for the game: the next edit waits until the first write leaves the window.
    assert window.free_at(14.0, keep=4) == 60.0
    assert window.left(60.0) == 5
    assert window.free_at(14.0, keep=18) == math.inf


# ---------------------------------------------------------------------- 429s, the server


async def test_a_429_holds_the_chat_and_what_waits_goes_after_the_retry() -> None:
    script = Script()
    paced = PacedRateLimiter(overall_per_second=1000, retry_after_margin=0.0)
    lanes = paced_lanes(script, limiter=paced, group_budget=100, group_spacing=0.0)
    rec = Recorder()
    rec.failures[GROUP] = [retry_after(0.4)]

    def to(chat: int, tag: str) -> Send:
        return lambda: send(paced, rec, chat, tag=tag, args={"reserved": True})

    script.add(lanes, GROUP, ["first"], send=to(GROUP, "first"))
    await asyncio.sleep(0.1)
    script.add(lanes, GROUP, ["queued"], send=to(GROUP, "queued"))
    for n in range(6):
        script.add(lanes, OTHER_GROUP, [n], send=to(OTHER_GROUP, f"other{n}"))
        await asyncio.sleep(0.05)
    await until_idle(lanes)
    refused, retried, queued = [c for c in rec.calls if c[0] == GROUP]
    assert [refused[1], retried[1], queued[1]] == ["first", "first", "queued"]
    assert retried[2] - refused[2] >= 0.4 - SLACK
    assert queued[2] >= retried[2]
    other = rec.stamps(OTHER_GROUP)
    assert len(other) == 6
    assert sum(refused[2] < t < retried[2] for t in other) >= 5
    await lanes.stop()


async def test_a_send_retried_after_a_429_counts_again_in_a_private_chats_budget() -> None:
    """The retry arrives a second time: the chat's next write keeps its interval from it, not
    from the refused first try (which would put the two together into a window a restarted
    process cannot see, the dead one's writes filling it)."""
    script = Script()
    paced = PacedRateLimiter(overall_per_second=1000, retry_after_margin=0.0)
    lanes = paced_lanes(script, limiter=paced, private_interval=0.5)
    rec = Recorder()
    rec.failures[ALICE] = [retry_after(1.0)]

    def to(tag: str) -> Send:
        return lambda: send(paced, rec, ALICE, tag=tag, args={"reserved": True})

    script.add(lanes, ALICE, ["first"], send=to("first"))
    script.add(lanes, ALICE, ["second"], send=to("second"))
    await until_idle(lanes)
    refused, retried, second = [c for c in rec.calls if c[0] == ALICE]
    assert [refused[1], retried[1], second[1]] == ["first", "first", "second"]
    assert second[2] - retried[2] >= 0.5 - SLACK, (retried, second)
    await lanes.stop()


async def test_after_a_start_a_private_chats_first_write_keeps_an_interval_from_it() -> None:
    """A process killed just before this one started may have written into any private chat:
    its first write waits one interval from the start; a group's does not, nor does a private
    chat's once the start is an interval behind."""
    script = Script()
    lanes = paced_lanes(script, private_interval=0.5)
    lanes.started = started = time.monotonic()
    script.add(lanes, ALICE, ["first"])
    script.add(lanes, GROUP, ["first"])
    await until_idle(lanes)
    (alice,) = script.stamps(ALICE)
    (group,) = script.stamps(GROUP)
    assert alice - started >= 0.5 - SLACK
    assert group - started < 0.1
    script.add(lanes, BOB, ["first"])  # a chat first written an interval after the start
    await until_idle(lanes)
    (bob,) = script.stamps(BOB)
    assert bob - alice < 0.1
    await lanes.stop()


async def _burst(
    lanes_settings: dict[str, Any] | None, count: int, limits: FloodLimits
) -> tuple[BotApiServer, int, PacedRateLimiter | None]:
    """``count`` messages into one group through its lane (or, without ``lanes_settings``,
    through PTB's own leaky-bucket limiter) against the server's flood limits."""
    async with BotApiServer(flood_limits=limits) as server:
        bot = server.add_bot()
        alice = server.create_user("Alice")
        group = server.create_group("Busy", members=[alice])
        paced = PacedRateLimiter(retry_after_margin=0.0)
        if lanes_settings is None:
            leaky = AIORateLimiter(group_max_rate=4, group_time_period=0.5, max_retries=0)
            async with ExtBot(bot.token, base_url=server.base_url, rate_limiter=leaky) as leaky_bot:
                results = await asyncio.gather(
                    *(leaky_bot.send_message(group.id, f"m{n}") for n in range(count)),
                    return_exceptions=True,
                )
            delivered = sum(not isinstance(result, BaseException) for result in results)
            return server, delivered, None
        script = Script()
        lanes = paced_lanes(script, limiter=paced, **lanes_settings)
        delivered = 0
        async with ExtBot(bot.token, base_url=server.base_url, rate_limiter=paced) as ptb:

            def message(n: int) -> Send:
                async def post() -> object:
                    nonlocal delivered
                    sent = await ptb.send_message(group.id, f"m{n}", **lanes.send_args())
                    delivered += 1
                    return sent

                return post

            for n in range(count):
                script.add(lanes, group.id, [n], send=message(n))
            await until_idle(lanes)
            await lanes.stop()
        return server, delivered, paced


async def test_a_burst_into_a_group_gets_no_429_from_the_server() -> None:
    limits = FloodLimits(group_count=5, group_window=0.5)
    lanes_settings = {"group_budget": 4, "group_window": 0.5, "group_spacing": 0.05}
    server, delivered, _ = await _burst(lanes_settings, 10, limits)
    assert delivered == 10
    assert server.flood.too_many_requests == 0
    assert server.flood.inside_retry_after == 0

    # The same burst through PTB's AIORateLimiter configured alike trips the server.
    server, delivered, _ = await _burst(None, 8, limits)
    assert server.flood.too_many_requests > 0
    assert delivered < 8


async def test_429s_from_the_server_are_waited_out_and_never_violated() -> None:
    """A lane set looser than the server: it gets 429s, waits them out, delivers everything."""
    limits = FloodLimits(group_count=5, group_window=1.0)
    lanes_settings = {"group_budget": 8, "group_window": 1.0, "group_spacing": 0.0}
    server, delivered, paced = await _burst(lanes_settings, 8, limits)
    assert delivered == 8
    assert server.flood.too_many_requests >= 1
    assert server.flood.inside_retry_after == 0
    assert paced is not None and paced.stats.retry_after_hits == server.flood.too_many_requests


# ---------------------------------------------------------------------- scale, replicas


async def test_two_hundred_groups_at_once_and_idle_lanes_are_dropped() -> None:
    script = Script()
    lanes = paced_lanes(script, group_budget=2, group_window=0.2, group_spacing=0.0)
    groups = [-5000 - n for n in range(200)]
    started = time.monotonic()
    for chat in groups:
        script.add(lanes, chat, list(range(3)))
    await until_idle(lanes)
    # Every group's third message waits 0.2 s, concurrently: one after another would take 40 s.
    assert time.monotonic() - started < 5.0
    assert len(script.ran) == 600
    for chat in groups[:20]:
        assert max_in_window(script.stamps(chat), 0.2) <= 2
    await asyncio.sleep(0.25)
    for n in range(300):  # new chats push out the idle ones
        lanes.want(-9000 - n, "nothing")
    await asyncio.sleep(0.01)
    assert not any(chat in lanes._lanes for chat in groups)
    assert len(lanes._lanes) <= 300
    await lanes.stop()


async def test_the_chats_recent_writes_go_to_the_next_process_and_to_a_supergroup() -> None:
    first_script, second_script = Script(), Script()
    first = paced_lanes(first_script, group_budget=3, group_window=5.0, group_spacing=0.0)
    second = paced_lanes(second_script, group_budget=3, group_window=5.0, group_spacing=0.0)
    first_script.add(first, GROUP, ["a", "b"])
    await until_idle(first)
    noted = first.sent_lately(GROUP)
    assert len(noted) == 2 and all(abs(at - time.time()) < 1.0 for at in noted)
    # The next process counts them: one write is left of its window.
    second.count_sent(GROUP, noted)
    second_script.add(second, GROUP, ["c", "d"])
    await asyncio.sleep(0.2)
    assert second_script.tags(GROUP) == ["c"]
    # The group becomes a supergroup: its budget goes along.
    second.move(GROUP, OTHER_GROUP)
    assert second.sent_lately(OTHER_GROUP) and not second.sent_lately(GROUP)
    assert len(second.sent_lately(OTHER_GROUP)) == 3
    await first.stop()
    await second.stop()
