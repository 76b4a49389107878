"""PacedRateLimiter: rolling windows, spacing, the overall limit, 429s, bypass and reservations.

Windows are shrunk to fractions of a second; every check is made on the instants at which the
limiter handed requests to the (fake) callback, taken with time.monotonic like the limiter's own.
"""

from __future__ import annotations

import asyncio
import datetime as dtm
import itertools
import logging
import math
import time
from collections.abc import Iterable
from typing import Any

import pytest
from telegram.error import BadRequest, RetryAfter
from telegram.ext import AIORateLimiter, ExtBot

from bot.ratelimit import PacedRateLimiter
from localbotapi import BotApiServer, FloodLimits

# PTB's RetryAfter warns about its int/timedelta transition whenever it is built.
pytestmark = pytest.mark.filterwarnings("ignore::telegram.warnings.PTBDeprecationWarning")

GROUP = -1001
OTHER_GROUP = -1002
ALICE = 42
BOB = 43
# The group window of most tests (Telegram's is 60 s).
W = 0.5
# Allow for the microseconds between the limiter's clock reading and the callback's.
SLACK = 0.003


def max_in_window(stamps: Iterable[float], window: float) -> int:
    """The most stamps inside any half-open rolling window (t - window, t]."""
    ordered = sorted(stamps)
    best = start = 0
    for end, t in enumerate(ordered):
        while ordered[start] <= t - (window - SLACK):
            start += 1
        best = max(best, end - start + 1)
    return best


def gaps(stamps: list[float]) -> list[float]:
    return [b - a for a, b in itertools.pairwise(stamps)]


class Recorder:
    """The callback PTB would pass: records (chat_id, tag, instant); can fail on cue."""

    def __init__(self) -> None:
        self.calls: list[tuple[Any, Any, float]] = []
        self.failures: dict[Any, list[BaseException]] = {}

    async def __call__(self, endpoint: str, data: dict[str, Any]) -> bool:
        now = time.monotonic()
        chat = data.get("chat_id")
        self.calls.append((chat, data.get("tag"), now))
        pending = self.failures.get(chat)
        if pending:
            raise pending.pop(0)
        await asyncio.sleep(0)  # a network round trip, shortened
        return True

    def stamps(self, chat: Any = ...) -> list[float]:
        return [t for c, _, t in self.calls if chat is ... or c == chat]

    def tags(self, chat: Any) -> list[Any]:
        return [tag for c, tag, _ in self.calls if c == chat]


async def send(
    limiter: PacedRateLimiter,
    recorder: Recorder,
    chat_id: Any,
    *,
    endpoint: str = "sendMessage",
    tag: Any = None,
    args: dict[str, Any] | None = None,
) -> Any:
    data: dict[str, Any] = {"tag": tag} if chat_id is None else {"chat_id": chat_id, "tag": tag}
    return await limiter.process_request(recorder, (endpoint, data), {}, endpoint, data, args)


def retry_after(seconds: float) -> RetryAfter:
    return RetryAfter(dtm.timedelta(seconds=seconds))


def limiter(**overrides: Any) -> PacedRateLimiter:
    settings: dict[str, Any] = {
        "group_per_minute": 5,
        "group_window": W,
        "group_min_interval": 0.02,
        "private_interval": 0.2,
        "overall_per_second": 1000,
        "overall_window": 1.0,
        "retry_after_margin": 0.0,
    }
    settings.update(overrides)
    return PacedRateLimiter(**settings)


# ---------------------------------------------------------------------- groups


async def test_group_burst_never_exceeds_the_rolling_window_and_stays_fifo() -> None:
    paced, rec = limiter(), Recorder()
    started = time.monotonic()
    await asyncio.gather(*(send(paced, rec, GROUP, tag=n) for n in range(9)))
    stamps = rec.stamps(GROUP)
    assert len(stamps) == 9
    assert max_in_window(stamps, W) <= 5
    # A rolling log, not a leaky bucket: the 6th waits until the 1st has left the window.
    assert stamps[5] - stamps[0] >= W - SLACK
    assert min(gaps(stamps)) >= 0.02 - SLACK
    assert rec.tags(GROUP) == list(range(9))  # FIFO among the waiters of one chat
    assert stamps[0] - started < 0.1  # a lone action goes at once
    assert paced.stats.sent == 9
    assert paced.stats.waited_seconds_total > W


async def test_sustained_group_load_never_exceeds_the_window() -> None:
    """Requests trickling in (not one burst) still never put 6 in any rolling second."""
    paced, rec = limiter(group_min_interval=0.0), Recorder()

    async def trickle(n: int) -> None:
        await asyncio.sleep(0.07 * n)
        await send(paced, rec, GROUP, tag=n)

    await asyncio.gather(*(trickle(n) for n in range(12)))
    assert max_in_window(rec.stamps(GROUP), W) <= 5


async def test_groups_are_paced_independently() -> None:
    paced, rec = limiter(group_per_minute=2), Recorder()
    await asyncio.gather(
        *(send(paced, rec, chat, tag=n) for n in range(3) for chat in (GROUP, OTHER_GROUP))
    )
    for chat in (GROUP, OTHER_GROUP):
        stamps = rec.stamps(chat)
        assert max_in_window(stamps, W) <= 2
        assert stamps[1] - stamps[0] < 0.2  # the second group did not wait for the first


async def test_chat_ids_as_strings_and_usernames() -> None:
    paced, rec = limiter(group_per_minute=2), Recorder()
    # "-1001" and -1001 are one chat; "@Table" and "@table" are one group, paced as a group.
    await asyncio.gather(
        send(paced, rec, GROUP), send(paced, rec, str(GROUP)), send(paced, rec, GROUP)
    )
    stamps = sorted(rec.stamps())
    assert stamps[2] - stamps[0] >= W - SLACK
    rec.calls.clear()
    await asyncio.gather(send(paced, rec, "@Table"), send(paced, rec, "@table"))
    assert gaps(rec.stamps())[0] >= 0.02 - SLACK
    assert paced.delay_for("@TABLE") > 0


# ---------------------------------------------------------------------- private chats


async def test_private_chat_one_per_interval_and_chats_independent() -> None:
    paced, rec = limiter(), Recorder()
    await asyncio.gather(
        *(send(paced, rec, chat, tag=n) for n in range(4) for chat in (ALICE, BOB))
    )
    for chat in (ALICE, BOB):
        stamps = rec.stamps(chat)
        assert min(gaps(stamps)) >= 0.2 - SLACK
        assert rec.tags(chat) == list(range(4))
    assert abs(rec.stamps(ALICE)[0] - rec.stamps(BOB)[0]) < 0.1
    assert paced.delay_for(ALICE) > 0.1
    assert paced.delay_for(7) == 0.0  # a chat never seen


# ---------------------------------------------------------------------- overall


async def test_overall_limit_across_chats_and_callback_answers() -> None:
    paced = limiter(overall_per_second=5, overall_window=0.3, limit_callback_answers=True)
    rec = Recorder()
    requests = [send(paced, rec, 1000 + n) for n in range(10)]
    requests += [send(paced, rec, None, endpoint="answerCallbackQuery") for _ in range(4)]
    await asyncio.gather(*requests)
    assert len(rec.calls) == 14
    assert max_in_window(rec.stamps(), 0.3) <= 5


async def test_unlimited_methods_go_straight_through() -> None:
    paced, rec = limiter(overall_per_second=1, overall_window=10.0), Recorder()
    await send(paced, rec, ALICE)  # the overall limit is now full for 10 s
    started = time.monotonic()
    for endpoint in ("getMe", "setMyCommands", "deleteWebhook", "getChat", "deleteMyCommands"):
        await send(paced, rec, GROUP, endpoint=endpoint)
    assert time.monotonic() - started < 0.1
    assert paced.stats.sent == 1


async def test_callback_answers_can_be_exempted() -> None:
    paced = limiter(overall_per_second=1, overall_window=10.0, limit_callback_answers=False)
    rec = Recorder()
    await send(paced, rec, ALICE)
    started = time.monotonic()
    await send(paced, rec, None, endpoint="answerCallbackQuery")
    assert time.monotonic() - started < 0.1


# ---------------------------------------------------------------------- 429


async def test_retry_after_blocks_only_that_chat(caplog: pytest.LogCaptureFixture) -> None:
    paced, rec = limiter(group_min_interval=0.0, group_per_minute=100), Recorder()
    rec.failures[GROUP] = [retry_after(0.4)]
    caplog.set_level(logging.WARNING, logger="bot.ratelimit")

    async def later(chat: int, delay: float, tag: str) -> None:
        await asyncio.sleep(delay)
        await send(paced, rec, chat, tag=tag)

    await asyncio.gather(
        send(paced, rec, GROUP, tag="first"),
        later(GROUP, 0.1, "queued"),
        *(later(OTHER_GROUP, 0.05 * n, f"other{n}") for n in range(6)),
    )
    refused, retried, queued = [c for c in rec.calls if c[0] == GROUP]
    assert [refused[1], retried[1], queued[1]] == ["first", "first", "queued"]
    # The retry comes after the wait, never before; the queued request does not jump ahead.
    assert retried[2] - refused[2] >= 0.4 - SLACK
    assert queued[2] >= retried[2]
    # Meanwhile the other group kept flowing.
    other = rec.stamps(OTHER_GROUP)
    assert len(other) == 6
    assert sum(refused[2] < t < retried[2] for t in other) >= 5
    assert paced.stats.retry_after_hits == 1
    assert any(
        record.levelno == logging.WARNING and str(GROUP) in record.getMessage()
        for record in caplog.records
    )


async def test_replicas_share_the_overall_limit_and_pause_together_on_a_429() -> None:
    paced = limiter(group_min_interval=0.0, group_per_minute=100, overall_per_second=24)
    rec = Recorder()
    paced.share_overall(2)  # two processes send as this bot
    rec.failures[GROUP] = [retry_after(0.4)]
    first = asyncio.create_task(send(paced, rec, GROUP, tag="first"))
    await asyncio.sleep(0.05)
    # The 429 may have been the bot's per-second limit: the other chats wait it out too.
    assert paced.delay_for(OTHER_GROUP) > 0.3
    await send(paced, rec, OTHER_GROUP)
    await first
    refused = rec.stamps(GROUP)[0]
    assert rec.stamps(OTHER_GROUP)[0] - refused >= 0.4 - SLACK
    # Each process takes its share of the bot's per-second budget.
    started = time.monotonic()
    await asyncio.gather(*(send(paced, rec, ALICE + n) for n in range(1, 14)))
    assert time.monotonic() - started >= 1.0 - SLACK  # 13 at 12 a second, not 24


async def test_two_chats_refused_in_one_second_pause_every_chat() -> None:
    """Alone, a 429 for a second chat within a second of the first is the bot's limit: the
    requests bunched on the way. Every chat waits it out, not only the two refused."""
    paced = limiter(group_min_interval=0.0, group_per_minute=100)
    rec = Recorder()
    rec.failures[GROUP] = [retry_after(0.4)]
    rec.failures[OTHER_GROUP] = [retry_after(0.4)]
    first = asyncio.create_task(send(paced, rec, GROUP))
    await asyncio.sleep(0.02)
    assert paced.delay_for(ALICE) == 0  # one chat refused: only that chat waits
    second = asyncio.create_task(send(paced, rec, OTHER_GROUP))
    await asyncio.sleep(0.02)
    assert paced.delay_for(ALICE) > 0.3
    await send(paced, rec, ALICE)
    await asyncio.gather(first, second)
    assert rec.stamps(ALICE)[0] - rec.stamps(OTHER_GROUP)[0] >= 0.4 - SLACK


async def test_one_chat_refused_twice_blocks_only_that_chat() -> None:
    paced = limiter(group_min_interval=0.0, group_per_minute=100)
    rec = Recorder()
    rec.failures[GROUP] = [retry_after(0.1), retry_after(0.1)]
    first = asyncio.create_task(send(paced, rec, GROUP))
    await asyncio.sleep(0.15)  # refused, retried after 0.1 s, refused again
    assert len(rec.stamps(GROUP)) == 2
    assert paced.delay_for(ALICE) == 0
    await first


async def test_retry_after_without_a_chat_blocks_everything() -> None:
    paced, rec = limiter(limit_callback_answers=True), Recorder()
    rec.failures[None] = [retry_after(0.3)]
    first = asyncio.create_task(send(paced, rec, None, endpoint="answerCallbackQuery"))
    await asyncio.sleep(0.05)
    assert paced.delay_for(ALICE) > 0.2
    await send(paced, rec, ALICE)
    await first
    refused, retried = rec.stamps(None)
    assert rec.stamps(ALICE)[0] - refused >= 0.3 - SLACK
    assert retried - refused >= 0.3 - SLACK


async def test_retry_after_gives_up_after_max_retries_and_keeps_the_block() -> None:
    paced, rec = limiter(max_retries=2), Recorder()
    rec.failures[ALICE] = [retry_after(0.1) for _ in range(3)]
    with pytest.raises(RetryAfter):
        await send(paced, rec, ALICE)
    stamps = rec.stamps(ALICE)
    assert len(stamps) == 3
    assert min(gaps(stamps)) >= 0.2 - SLACK  # max(retry_after, private interval)
    assert paced.delay_for(ALICE) > 0.05  # still never sent inside the window
    assert paced.stats.retry_after_hits == 3


async def test_other_errors_propagate_unchanged_without_retry() -> None:
    paced, rec = limiter(), Recorder()
    error = BadRequest("message is not modified")
    rec.failures[GROUP] = [error]
    with pytest.raises(BadRequest) as caught:
        await send(paced, rec, GROUP)
    assert caught.value is error
    assert len(rec.calls) == 1
    await send(paced, rec, GROUP)  # the chat is not left locked
    assert len(rec.calls) == 2


async def test_cancelled_waiter_frees_its_turn() -> None:
    paced, rec = limiter(group_per_minute=1, group_window=0.3), Recorder()
    await send(paced, rec, GROUP)
    waiting = asyncio.create_task(send(paced, rec, GROUP, tag="cancelled"))
    await asyncio.sleep(0.05)
    waiting.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiting
    await send(paced, rec, GROUP, tag="next")
    assert rec.tags(GROUP) == [None, "next"]


# ---------------------------------------------------------------------- bypass and reservations


async def test_no_limit_skips_chat_pacing_but_counts() -> None:
    paced, rec = limiter(group_per_minute=2), Recorder()
    await send(paced, rec, GROUP)
    await send(paced, rec, GROUP)  # the window is full now
    started = time.monotonic()
    await send(paced, rec, GROUP, args={"no_limit": True})
    assert time.monotonic() - started < 0.1
    # Counted: the next paced request waits for the window to hold fewer than 2 again.
    await send(paced, rec, GROUP)
    stamps = rec.stamps(GROUP)
    assert stamps[3] - stamps[1] >= W - SLACK
    # ... and counted overall.
    assert paced.stats.sent == 4


async def test_no_limit_still_honours_a_429_block() -> None:
    paced, rec = limiter(), Recorder()
    rec.failures[ALICE] = [retry_after(0.3)]
    first = asyncio.create_task(send(paced, rec, ALICE, tag="refused"))
    await asyncio.sleep(0.02)
    await send(paced, rec, ALICE, tag="bypass", args={"no_limit": True})
    await first
    calls = [c for c in rec.calls if c[0] == ALICE]
    assert calls[0][1] == "refused"
    assert all(t - calls[0][2] >= 0.3 - SLACK for _, _, t in calls[1:])


async def test_wait_turn_reserves_a_slot_and_the_reserved_send_skips_the_wait() -> None:
    paced, rec = limiter(group_per_minute=2), Recorder()
    assert await paced.wait_turn(GROUP) < 0.1
    assert paced.delay_for(GROUP) > 0  # the reservation counts as a send now
    started = time.monotonic()
    await send(paced, rec, GROUP, tag="reserved", args={"reserved": True})
    assert time.monotonic() - started < 0.1
    # A second "reserved" without a reservation is paced like any other request: the window
    # holds the reserved send, so it goes after min spacing only; a third waits for the window.
    await send(paced, rec, GROUP, tag="unreserved", args={"reserved": True})
    waited = await paced.wait_turn(GROUP)
    assert waited >= W - 0.1
    await send(paced, rec, GROUP, tag="after", args={"reserved": True})
    stamps = rec.stamps(GROUP)
    assert max_in_window(stamps, W) <= 2
    assert gaps(stamps)[0] >= 0.02 - SLACK


async def test_wait_turn_queues_with_paced_requests() -> None:
    paced, rec = limiter(private_interval=0.15), Recorder()
    await send(paced, rec, ALICE)
    t0 = time.monotonic()
    await paced.wait_turn(ALICE)
    assert time.monotonic() - t0 >= 0.15 - 0.02
    await send(paced, rec, ALICE, args={"reserved": True})
    await send(paced, rec, ALICE)
    assert min(gaps(rec.stamps(ALICE))) >= 0.15 - 0.02


async def test_wait_turn_takes_the_overall_slot_and_the_reserved_send_goes_at_once() -> None:
    """The publisher holds a game's lock from wait_turn to the send: the queue of the whole bot
    (the overall limit) must be waited for before, never inside that lock."""
    paced, rec = limiter(overall_per_second=1, overall_window=0.3), Recorder()
    await send(paced, rec, ALICE)
    started = time.monotonic()
    await paced.wait_turn(GROUP)
    assert time.monotonic() - started >= 0.25  # the overall limit held the reservation
    started = time.monotonic()
    await send(paced, rec, GROUP, args={"reserved": True})
    assert time.monotonic() - started < 0.1
    # The reserved slot counted overall: the next request waits for the window again.
    await send(paced, rec, ALICE)
    stamps = sorted(t for _, _, t in rec.calls)
    assert min(gaps(stamps)) >= 0.3 - SLACK


async def test_a_reserved_send_still_honours_a_bot_wide_429_block() -> None:
    paced, rec = limiter(overall_per_second=100), Recorder()
    await paced.wait_turn(GROUP)
    paced._overall.blocked_until = time.monotonic() + 0.3
    started = time.monotonic()
    await send(paced, rec, GROUP, args={"reserved": True})
    assert time.monotonic() - started >= 0.3 - SLACK


# ---------------------------------------------------------------------- scale and lifecycle


async def test_two_hundred_groups_at_once_and_idle_states_are_dropped() -> None:
    paced, rec = limiter(group_per_minute=2, group_window=0.2, group_min_interval=0.0), Recorder()
    await paced.initialize()
    started = time.monotonic()
    groups = [-5000 - n for n in range(200)]
    await asyncio.gather(*(send(paced, rec, chat) for chat in groups for _ in range(3)))
    elapsed = time.monotonic() - started
    assert len(rec.calls) == 600
    # Every group's third message waits 0.2 s, concurrently: one after another would take 40 s.
    assert elapsed < 5.0
    for chat in groups[:20]:
        assert max_in_window(rec.stamps(chat), 0.2) <= 2
    await asyncio.sleep(0.25)
    for n in range(300):  # new chats push out the idle ones
        await send(paced, rec, 100_000 + n, endpoint="answerCallbackQuery")
        await paced.wait_turn(-9000 - n)
    assert not any(chat in paced._chats for chat in groups)
    assert len(paced._chats) <= 300
    await paced.shutdown()
    await asyncio.sleep(0.25)
    await paced.shutdown()
    assert len(paced._chats) == 0


# ---------------------------------------------------------------------- the local Bot API server


async def _burst(rate_limiter: Any, count: int, limits: FloodLimits) -> tuple[BotApiServer, int]:
    async with BotApiServer(flood_limits=limits) as server:
        bot = server.add_bot()
        alice = server.create_user("Alice")
        group = server.create_group("Busy", members=[alice])
        async with ExtBot(bot.token, base_url=server.base_url, rate_limiter=rate_limiter) as ptb:
            results = await asyncio.gather(
                *(ptb.send_message(group.id, f"m{n}") for n in range(count)),
                return_exceptions=True,
            )
        delivered = sum(not isinstance(result, BaseException) for result in results)
        return server, delivered


async def test_burst_into_a_group_gets_no_429_from_the_server() -> None:
    limits = FloodLimits(group_count=5, group_window=0.5)
    paced = PacedRateLimiter(group_per_minute=4, group_window=0.5, group_min_interval=0.05)
    server, delivered = await _burst(paced, 10, limits)
    assert delivered == 10
    assert server.flood.too_many_requests == 0
    assert server.flood.inside_retry_after == 0

    # The same burst through PTB's AIORateLimiter configured alike trips the server.
    leaky = AIORateLimiter(group_max_rate=4, group_time_period=0.5, max_retries=0)
    server, delivered = await _burst(leaky, 8, limits)
    assert server.flood.too_many_requests > 0
    assert delivered < 8


async def test_requests_bunched_past_the_bots_limit_pause_every_chat() -> None:
    """The server counts fewer a second than the limiter allows (as when a stall bunches the
    limiter's evenly paced requests on the way): each refusal pauses every chat, so a few 429s
    a second, not one for each request of every other chat inside the bot's retry_after."""
    limits = FloodLimits(global_count=10, global_window=1.0)
    paced = PacedRateLimiter(overall_per_second=25, group_min_interval=0.0)
    async with BotApiServer(flood_limits=limits) as server:
        bot = server.add_bot()
        alice = server.create_user("Alice")
        groups = [server.create_group(f"G{n}", members=[alice]) for n in range(30)]
        async with ExtBot(bot.token, base_url=server.base_url, rate_limiter=paced) as ptb:
            started = time.monotonic()
            results = await asyncio.gather(
                *(ptb.send_message(group.id, f"m{n}") for group in groups for n in range(2)),
                return_exceptions=True,
            )
            elapsed = time.monotonic() - started
    assert not [result for result in results if isinstance(result, BaseException)]
    # Two refusals give it away, plus what was already on its way; then a pause for all.
    assert server.flood.too_many_requests <= 3 * math.ceil(elapsed)
    assert server.flood.inside_retry_after <= 2 * math.ceil(elapsed)


async def test_429s_from_the_server_are_waited_out_and_never_violated() -> None:
    """A limiter set looser than the server: it gets 429s, waits them out, delivers everything."""
    limits = FloodLimits(group_count=5, group_window=1.0)
    loose = PacedRateLimiter(group_per_minute=8, group_window=1.0, group_min_interval=0.0)
    server, delivered = await _burst(loose, 8, limits)
    assert delivered == 8
    assert server.flood.too_many_requests >= 1
    assert server.flood.inside_retry_after == 0
    assert loose.stats.retry_after_hits == server.flood.too_many_requests
