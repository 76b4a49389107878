"""Seasons with a champion, on the bot's clock (tests/bot/fake_clock.py): a chat's season ends
by the deadline kept in the database, its podium is posted once (with two processes on one
database too), a season nobody played in posts nothing, the champion wears 🏆 on the tables
and in /top, the chat's time zone moves the boundary, and /top is the season's unless asked
for all-time."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from bot import render
from bot.handlers.seasons import KIND, season_ended
from bot.seasons import bounds
from localbotapi import BotApiServer
from tests.bot import conftest as bots
from tests.bot.conftest import Harness, plain
from tests.bot.fake_clock import FakeClock
from tests.bot.test_commands import setting
from tests.bot.test_rounds import play_round

# 20:00 UTC on the last day of December: the month's season (in UTC) ends in four hours.
EVENING = datetime(2026, 12, 31, 20, 0, tzinfo=UTC).timestamp()
NEW_YEAR = datetime(2027, 1, 1, tzinfo=UTC).timestamp()
HOUR = 3600.0


@pytest.fixture
async def h(tmp_path: Path) -> AsyncIterator[Harness]:
    server = BotApiServer(flood_limits=False)
    harness = await bots.start_harness(
        server, bots.make_settings(tmp_path), clock=FakeClock(EVENING)
    )
    try:
        yield harness
    finally:
        await bots.stop_harness(harness)


def podiums(harness: Harness) -> list[str]:
    return [text for text in harness.group_texts() if text.startswith("🏁 Сезон")]


async def choose(harness: Harness, key: str, value: str) -> None:
    """The group's admin (Аня) sets one option in /settings."""
    await harness.say(harness.users[0], "/settings")
    menu = harness.group.last_with_buttons()
    assert menu is not None
    answer = await harness.press_data(harness.users[0], menu, setting(menu, key, value))
    assert not answer.show_alert, answer


async def top(harness: Harness, *args: str) -> str:
    b = harness.users[1]
    seen = len(harness.private(b).all_messages)
    await harness.say(b, " ".join(("/top", *args)))
    (answer,) = harness.private_since(b, seen)
    return answer


async def test_a_season_rolls_over_with_one_podium_and_its_champion_wears_the_cup(
    h: Harness,
) -> None:
    chat = h.group.id
    await play_round(h, "classic36", buttons=False, next_round=False)
    # The game seen in December armed the end of December's season, in the database.
    assert await h.rt.storage.deadlines(KIND) == [(str(chat), NEW_YEAR)]
    standings = await h.rt.storage.leaderboard(chat, since=bounds("month", 0, EVENING)[0])
    assert standings[0].name == "Борис"  # +50 this round
    assert await top(h) == plain(render.season_top(await h.rt.service.season_top(chat), "ru"))

    await h.advance_clock(4 * HOUR - 1)
    assert podiums(h) == []  # not before midnight
    await h.advance_clock(2)
    season = await h.rt.storage.last_season(chat)
    assert season is not None and season.number == 1
    # The podium is the season's standings when it ended (ties go by the chips then).
    start = bounds("month", 0, EVENING)[0]
    standings = await h.rt.storage.leaderboard(chat, since=start, until=NEW_YEAR)
    assert [(place[0], place[2]) for place in season.podium] == [
        (row.user_id, row.net) for row in standings
    ]
    assert podiums(h) == [plain(render.season_podium(season, 0, "ru"))]
    assert "🥇 Борис — +50" in podiums(h)[0]
    assert await h.rt.storage.deadlines(KIND) == []  # run and dropped
    # Nothing more is posted later.
    await h.advance_clock(HOUR)
    assert len(podiums(h)) == 1

    # The champion wears 🏆 on the next table and in /top, through the next season.
    a, b, c, _ = h.users
    await h.say(a, "/newgame")
    await h.say(b, "/join")
    assert "🏆 Борис" in plain(h.table().content)
    await h.say(c, "/join")
    await h.say(a, "/deal")
    assert "🏆 Борис" in plain(h.table().content)
    january = await top(h)
    assert "Сезон 2" in january and "Чемпион сезона 1: Борис" in january
    assert "Пока никто не играл" in january  # January's season: no round settled yet
    every = await top(h, "all")
    assert "🏆 Борис" in every and "1\xa0050" in every  # all-time: by chips
    assert await top(h, "всё") == every == await top(h, "все")
    # Past January's season, the cup is gone.
    h.clock.now = datetime(2027, 2, 1, tzinfo=UTC).timestamp()
    assert "🏆" not in (await top(h, "all")).split("\n", 1)[1]


async def test_two_processes_on_one_database_post_one_podium(h: Harness) -> None:
    await play_round(h, "classic36", buttons=False, next_round=False)
    # Another bot process on the same database, by the same clock: it arms the kept deadline.
    other = await bots.restart_harness(h, clock=h.clock)
    try:
        assert other.rt.scheduler.due((KIND, str(h.group.id))) == NEW_YEAR
        h.clock.advance(4 * HOUR + 1)
        await asyncio.gather(h.rt.scheduler.settle(), other.rt.scheduler.settle())
        await h.deliver()
        await other.deliver()
        assert len(podiums(h)) == 1
        # Should both run it (a claim that ran out while its holder was slow), the season is
        # stored once: the one that stored it posts.
        key = str(h.group.id)
        await asyncio.gather(season_ended(h.rt, key), season_ended(other.rt, key))
        await h.deliver()
        await other.deliver()
        assert len(podiums(h)) == 1
    finally:
        await bots.stop_harness(other)


async def test_a_season_nobody_played_in_posts_nothing(h: Harness) -> None:
    await choose(h, "season", "week")  # arms the end of this week's season
    end = bounds("week", 0, EVENING)[1]
    assert await h.rt.storage.deadlines(KIND) == [(str(h.group.id), end)]
    sent = len(h.calls("sendMessage", h.group.id))
    await h.advance_clock(end - EVENING + 1)
    assert await h.rt.storage.deadlines(KIND) == []
    assert await h.rt.storage.last_season(h.group.id) is None
    assert podiums(h) == [] and len(h.calls("sendMessage", h.group.id)) == sent


async def test_the_chats_time_zone_moves_the_boundary(h: Harness) -> None:
    await choose(h, "tz", "3")  # Moscow: the year ends at 21:00 UTC
    await play_round(h, "classic36", buttons=False, next_round=False)
    assert await h.rt.storage.deadlines(KIND) == [(str(h.group.id), NEW_YEAR - 3 * HOUR)]
    await h.advance_clock(HOUR - 1)
    assert podiums(h) == []
    await h.advance_clock(2)  # 21:00:01 UTC, past midnight in Moscow
    assert len(podiums(h)) == 1 and "(1 декабря – 31 декабря)" in podiums(h)[0]
    # 22:00 UTC is 1 January in Moscow: January's season there, still December's in UTC.
    await h.advance_clock(HOUR)
    assert "Сезон 2" in await top(h) and "1 января – 31 января" in await top(h)


async def test_without_seasons_top_is_all_time_and_nothing_is_posted(h: Harness) -> None:
    await choose(h, "season", "off")
    await play_round(h, "classic36", buttons=False, next_round=False)
    assert await h.rt.storage.deadlines(KIND) == []
    rows = await h.rt.storage.leaderboard(h.group.id, limit=10)
    assert await top(h) == plain(render.leaderboard(rows, "ru", period="all"))
    await h.advance_clock(5 * HOUR)
    assert podiums(h) == [] and await h.rt.storage.last_season(h.group.id) is None


async def test_the_settings_show_the_seasons_and_the_time_zone_with_their_defaults(
    h: Harness,
) -> None:
    await h.say(h.users[0], "/settings")
    menu = h.group.last_with_buttons()
    assert menu is not None
    assert "Сезоны: месяц" in menu.content and "Часовой пояс: UTC+0" in menu.content
    marked = [text for text, _ in menu.flat_buttons if text.startswith("✅")]
    assert "✅ 🏆 месяц" in marked and "✅ +0" in marked
