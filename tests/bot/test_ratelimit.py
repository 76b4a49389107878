"""PacedRateLimiter: the bot's overall rate, 429s (a chat's block, the bot-wide pause) and the
turns the lanes take ahead of their requests. A chat's own budget is its lane's
(tests/bot/test_lanes.py): here one chat's requests are not paced at all.

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
from telegram.ext import ExtBot

from bot.ratelimit import PacedRateLimiter
from localbotapi import BotApiServer, FloodLimits

# PTB's RetryAfter warns about its int/timedelta transition whenever it is built.
pytestmark = pytest.mark.filterwarnings("ignore::telegram.warnings.PTBDeprecationWarning")

GROUP = -1001
OTHER_GROUP = -1002
ALICE = 42
BOB = 43
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
        "overall_per_second": 1000,
        "overall_window": 1.0,
        "retry_after_margin": 0.0,
    }
    settings.update(overrides)
    return PacedRateLimiter(**settings)


# ---------------------------------------------------------------------- chats


async def test_one_chat_is_not_paced_here_its_lane_counts_it() -> None:
    """The group's budget is counted once, by its lane: the limiter lets a burst into one chat
    through at the bot's rate."""
    paced, rec = limiter(), Recorder()
    started = time.monotonic()
    await asyncio.gather(*(send(paced, rec, GROUP, tag=n) for n in range(25)))
    await asyncio.gather(*(send(paced, rec, ALICE, tag=n) for n in range(5)))
    assert time.monotonic() - started < 0.3
    assert rec.tags(GROUP) == list(range(25))
    assert paced.delay_for(GROUP) == paced.delay_for(ALICE) == 0.0


async def test_a_request_into_a_chat_outside_its_lane_is_logged(
    caplog: pytest.LogCaptureFixture,
) -> None:
    paced, rec = limiter(), Recorder()
    caplog.set_level(logging.WARNING, logger="bot.ratelimit")
    await paced.wait_turn(GROUP)
    await send(paced, rec, GROUP, args={"reserved": True})
    await send(paced, rec, None, endpoint="sendChatAction")
    await send(paced, rec, GROUP, endpoint="getChat")
    assert caplog.records == []
    await send(paced, rec, GROUP, endpoint="editMessageText")
    assert [record.getMessage() for record in caplog.records] == [
        f"editMessageText into chat {GROUP} outside its lane"
    ]


# ---------------------------------------------------------------------- overall


async def test_the_bots_rate_goes_at_once_while_its_second_has_room() -> None:
    """A handful of requests at once (a round's result, the next table, four hands) are not
    spaced out while the bot's second has room; a burst beyond is paced to last the second,
    never more than the limit in any rolling second."""
    paced, rec = limiter(overall_per_second=25, overall_window=1.0), Recorder()
    started = time.monotonic()
    await asyncio.gather(*(send(paced, rec, 1000 + n) for n in range(5)))
    assert max(rec.stamps()) - started < 0.03  # evenly spaced, the 5th waited 0.16 s
    await asyncio.gather(*(send(paced, rec, 2000 + n) for n in range(35)))
    stamps = rec.stamps()
    assert len(stamps) == 40
    assert max_in_window(stamps, 1.0) <= 25
    assert max(gaps(sorted(stamps))) < 0.5  # paced, not a stall until the second is over


async def test_overall_limit_across_chats_and_chat_actions() -> None:
    paced = limiter(overall_per_second=5, overall_window=0.3)
    rec = Recorder()
    requests = [send(paced, rec, 1000 + n) for n in range(10)]
    requests += [send(paced, rec, None, endpoint="sendChatAction") for _ in range(4)]
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


async def test_callback_answers_go_straight_through() -> None:
    paced = limiter(overall_per_second=1, overall_window=10.0)
    rec = Recorder()
    await send(paced, rec, ALICE)
    started = time.monotonic()
    await send(paced, rec, None, endpoint="answerCallbackQuery")
    assert time.monotonic() - started < 0.1


# ---------------------------------------------------------------------- 429


async def test_retry_after_blocks_only_that_chat(caplog: pytest.LogCaptureFixture) -> None:
    paced, rec = limiter(), Recorder()
    rec.failures[GROUP] = [retry_after(0.4)]
    caplog.set_level(logging.WARNING, logger="bot.ratelimit")

    async def later(chat: int, delay: float, tag: str) -> None:
        await asyncio.sleep(delay)
        await send(paced, rec, chat, tag=tag)

    await asyncio.gather(
        send(paced, rec, GROUP, tag="first"),
        *(later(OTHER_GROUP, 0.05 * n, f"other{n}") for n in range(6)),
    )
    refused, retried = [c for c in rec.calls if c[0] == GROUP]
    assert [refused[1], retried[1]] == ["first", "first"]
    # The retry comes after the wait, never before.
    assert retried[2] - refused[2] >= 0.4 - SLACK
    # Meanwhile the other group kept flowing.
    other = rec.stamps(OTHER_GROUP)
    assert len(other) == 6
    assert sum(refused[2] < t < retried[2] for t in other) >= 5
    assert paced.stats.retry_after_hits == 1
    assert any(
        record.levelno == logging.WARNING and str(GROUP) in record.getMessage()
        for record in caplog.records
    )


async def test_a_429_blocks_the_chat_by_any_spelling_of_its_id() -> None:
    paced, rec = limiter(max_retries=0), Recorder()
    rec.failures[str(GROUP)] = [retry_after(0.3)]
    rec.failures["@Table"] = [retry_after(0.3)]
    for chat in (str(GROUP), "@Table"):
        with pytest.raises(RetryAfter):
            await send(paced, rec, chat)
    assert paced.delay_for(GROUP) > 0.2
    assert paced.delay_for("@TABLE") > 0.2
    started = time.monotonic()
    await send(paced, rec, GROUP)
    assert time.monotonic() - started >= 0.25
    assert paced.delay_for(GROUP) == 0.0
    assert GROUP not in paced._blocked  # a block that has passed is forgotten


async def test_replicas_share_the_overall_limit_and_pause_together_on_a_429() -> None:
    paced = limiter(overall_per_second=24)
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
    paced = limiter()
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
    paced = limiter()
    rec = Recorder()
    rec.failures[GROUP] = [retry_after(0.1), retry_after(0.1)]
    first = asyncio.create_task(send(paced, rec, GROUP))
    await asyncio.sleep(0.15)  # refused, retried after 0.1 s, refused again
    assert len(rec.stamps(GROUP)) == 2
    assert paced.delay_for(ALICE) == 0
    await first


async def test_retry_after_without_a_chat_blocks_everything() -> None:
    paced, rec = limiter(), Recorder()
    rec.failures[None] = [retry_after(0.3)]
    first = asyncio.create_task(send(paced, rec, None, endpoint="sendChatAction"))
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
    assert min(gaps(stamps)) >= 0.1 - SLACK  # each retry after the retry_after
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
    paced, rec = limiter(overall_per_second=1, overall_window=0.3), Recorder()
    await send(paced, rec, GROUP)
    waiting = asyncio.create_task(send(paced, rec, GROUP, tag="cancelled"))
    await asyncio.sleep(0.05)
    waiting.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiting
    await send(paced, rec, GROUP, tag="next")
    assert rec.tags(GROUP) == [None, "next"]


# ---------------------------------------------------------------------- the lanes' turns


async def test_wait_turn_takes_the_overall_slot_and_the_reserved_send_goes_at_once() -> None:
    """A lane takes the bot's turn before it decides what to send: the queue of the whole bot
    is waited for before, never between the decision and the send."""
    paced, rec = limiter(overall_per_second=1, overall_window=0.3), Recorder()
    await send(paced, rec, ALICE)
    started = time.monotonic()
    await paced.wait_turn(GROUP)
    assert time.monotonic() - started >= 0.25  # the overall limit held the turn
    started = time.monotonic()
    await send(paced, rec, GROUP, args={"reserved": True})
    assert time.monotonic() - started < 0.1
    # The turn counted overall: the next request waits for the window again.
    await send(paced, rec, ALICE)
    stamps = sorted(t for _, _, t in rec.calls)
    assert min(gaps(stamps)) >= 0.3 - SLACK
    assert paced.stats.sent == 3


async def test_a_reserved_send_still_honours_a_bot_wide_429_block() -> None:
    paced, rec = limiter(overall_per_second=100), Recorder()
    await paced.wait_turn(GROUP)
    paced._paused_until = time.monotonic() + 0.3
    started = time.monotonic()
    await send(paced, rec, GROUP, args={"reserved": True})
    assert time.monotonic() - started >= 0.3 - SLACK


async def test_wait_turn_waits_out_the_chats_429_and_a_refused_reserved_send_is_retried() -> None:
    paced, rec = limiter(overall_per_second=5, overall_window=0.5), Recorder()
    rec.failures[GROUP] = [retry_after(0.3)]
    await paced.wait_turn(GROUP)
    await send(paced, rec, GROUP, tag="refused then retried", args={"reserved": True})
    refused, retried = rec.stamps(GROUP)
    assert retried - refused >= 0.3 - SLACK
    started = time.monotonic()
    await paced.wait_turn(GROUP)  # the block has passed: only the bot's rate
    assert time.monotonic() - started < 0.2
    # Four requests took the bot's turns in half a second: the refused one and its retry count.
    await paced.wait_turn(OTHER_GROUP)
    await paced.wait_turn(OTHER_GROUP)
    assert max_in_window([*rec.stamps(), time.monotonic()], 0.5) <= 5


# ---------------------------------------------------------------------- the local Bot API server


async def test_requests_bunched_past_the_bots_limit_pause_every_chat() -> None:
    """The server counts fewer a second than the limiter allows (as when a stall bunches the
    limiter's evenly paced requests on the way): each refusal pauses every chat, so a few 429s
    a second, not one for each request of every other chat inside the bot's retry_after."""
    limits = FloodLimits(global_count=10, global_window=1.0)
    paced = PacedRateLimiter(overall_per_second=25)
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
