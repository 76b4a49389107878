"""When the bot polls again (bot/polling.py): at once once a batch is handled, and while it is
still being handled no sooner than the interval after it came (or once it is handled)."""

from __future__ import annotations

import asyncio
import time

import orjson
import pytest
from telegram.ext import Application

from bot.app import POLL_INTERVAL, build_application
from bot.polling import CountedUpdates, PolledRequest, PollPace
from bot.settings import Settings

TOKEN = "123456:" + "A" * 35


async def _waited(pace: PollPace) -> float:
    started = time.monotonic()
    await pace.before_poll()
    return time.monotonic() - started


async def test_an_idle_bot_polls_at_once() -> None:
    pace = PollPace(10.0)
    assert await _waited(pace) < 0.5  # nothing came yet
    pace.received(2)
    pace.handled()
    pace.handled()
    assert pace.pending == 0
    assert await _waited(pace) < 0.5  # everything that came is handled
    pace.received(0)  # an empty batch (a long poll that timed out) is nothing to handle
    assert await _waited(pace) < 0.5


async def test_a_busy_bot_polls_once_its_batch_is_handled() -> None:
    pace = PollPace(10.0)
    pace.received(2)
    waiting = asyncio.create_task(pace.before_poll())
    await asyncio.sleep(0.05)
    pace.handled()
    await asyncio.sleep(0.05)
    assert not waiting.done()  # one of the two is still being handled
    pace.handled()
    await asyncio.wait_for(waiting, 1.0)  # long before the interval


async def test_a_busy_bot_polls_again_after_the_interval() -> None:
    pace = PollPace(0.2)
    pace.received(3)
    waited = await _waited(pace)
    assert 0.15 <= waited < 2.0
    assert pace.pending == 3
    # The interval counts from the batch: a bot that has been busy longer asks at once.
    assert await _waited(pace) < 0.1
    pace.received(1)  # a newer batch starts the interval anew
    assert await _waited(pace) >= 0.15


async def test_an_update_that_was_not_counted_does_not_unbalance_the_count() -> None:
    pace = PollPace(0.2)
    pace.handled()  # (e.g. one that came through a webhook)
    assert pace.pending == 0
    pace.received(1)
    assert await _waited(pace) >= 0.15


async def test_the_transport_of_get_updates_counts_each_batch() -> None:
    pace = PollPace(POLL_INTERVAL)
    request = PolledRequest(pace)
    update = {"update_id": 7, "message": {"message_id": 1, "date": 0, "chat": {"id": 1}}}
    parsed = request.parse_json_payload(orjson.dumps({"ok": True, "result": [update, update]}))
    assert parsed["result"] == [update, update]
    assert pace.pending == 2
    request.parse_json_payload(orjson.dumps({"ok": True, "result": True}))
    assert pace.pending == 2


async def test_the_processor_reports_each_update_handled_even_a_failed_one() -> None:
    pace = PollPace(POLL_INTERVAL)
    processor = CountedUpdates(8, pace)
    pace.received(2)

    async def fine() -> None:
        return None

    async def failing() -> None:
        raise RuntimeError("a handler failed")

    await processor.process_update(object(), fine())
    with pytest.raises(RuntimeError):
        await processor.process_update(object(), failing())
    assert pace.pending == 0


def test_the_application_polls_through_the_pace() -> None:
    settings = Settings(bot_token=TOKEN, _env_file=None)  # type: ignore[call-arg]
    application: Application = build_application(settings)  # type: ignore[type-arg]
    processor = application.update_processor
    polls = application.bot._request[0]
    assert isinstance(processor, CountedUpdates) and isinstance(polls, PolledRequest)
    assert processor.pace is polls.pace and polls.pace.interval == POLL_INTERVAL
    assert processor.max_concurrent_updates == 256
