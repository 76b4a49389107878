"""Statistics: the balance chart (a PNG of the right size, headless), /chart, /stats and /top
(all time and this month, the month starting at 00:00 UTC)."""

from __future__ import annotations

import calendar
import re
import struct
import subprocess
import sys
import time
import zlib
from collections.abc import Iterator, Sequence

import pytest

from bot import render
from bot.chart import drawn, render_balance_chart, thin
from bot.handlers.info import month_start
from bot.replies import SAME_COMMAND_SECONDS
from storage import StatsDelta
from tests.bot.conftest import Harness, plain
from tests.bot.test_rounds import play_round

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
DAY = 86400.0


def axis_texts(
    points: Sequence[tuple[float, int]],
    *,
    lang: str,
    size: tuple[int, int] = (800, 450),
) -> tuple[list[str], list[str], str]:
    """What the drawn chart writes on its axes, as matplotlib really chose it: the x tick
    labels, the y tick labels and the x axis label."""
    with drawn(points, title="", lang=lang, size=size) as (figure, ax):
        figure.canvas.draw()
        (low, high), (bottom, top) = ax.get_xlim(), ax.get_ylim()
        xs = zip(ax.get_xticklabels(), ax.get_xticks(), strict=True)
        ys = zip(ax.get_yticklabels(), ax.get_yticks(), strict=True)
        return (
            [label.get_text() for label, value in xs if low <= value <= high],
            [label.get_text() for label, value in ys if bottom <= value <= top],
            ax.get_xlabel(),
        )


def png_size(data: bytes) -> tuple[int, int]:
    """Width and height from the IHDR chunk, after checking the signature and the chunk's CRC."""
    assert data.startswith(PNG_SIGNATURE), data[:16]
    length, kind = struct.unpack(">I4s", data[8:16])
    assert (length, kind) == (13, b"IHDR")
    body = data[16 : 16 + length]
    (crc,) = struct.unpack(">I", data[16 + length : 20 + length])
    assert crc == zlib.crc32(kind + body)
    width, height = struct.unpack(">II", body[:8])
    assert data.endswith(b"IEND\xaeB`\x82")
    return int(width), int(height)


def walk(count: int, start: float = 1_767_225_600.0) -> list[tuple[float, int]]:
    """``count`` balances starting at 1000, a few minutes apart, up and down."""
    points = [(start, 1000)]
    balance = 1000
    for i in range(1, count):
        balance = max(0, balance + (37 * i) % 101 - 50)
        points.append((start + 240.0 * i, balance))
    return points


@pytest.mark.parametrize("count", [1, 2, 2000])
@pytest.mark.parametrize("lang", ["ru", "en"])
def test_the_chart_is_a_png_of_800_by_450(count: int, lang: str) -> None:
    data = render_balance_chart(walk(count), title="Борис: баланс", lang=lang)
    assert len(data) > 5000  # drawn, not an empty canvas
    assert png_size(data) == (800, 450)


def test_other_sizes_odd_titles_and_equal_times() -> None:
    same_second = [(1_767_225_600.0, 1000), (1_767_225_600.0, 950), (1_767_225_600.0, 1100)]
    data = render_balance_chart(
        same_second, title="$x^2$ 🎲 <b>Ева</b> " + "Я" * 300, lang="en", size=(640, 360)
    )
    assert png_size(data) == (640, 360)
    with pytest.raises(ValueError):
        render_balance_chart([], title="x", lang="ru")


def test_many_points_are_thinned_keeping_start_end_and_extremes() -> None:
    points = walk(50_000)
    points[12_345] = (points[12_345][0], 10_000)  # a spike
    points[23_456] = (points[23_456][0], 0)
    kept = thin(points, 800)
    assert len(kept) <= 4 * 800
    assert kept[0] == points[0] and kept[-1] == points[-1]
    assert points[12_345] in kept and points[23_456] in kept
    assert kept == sorted(kept, key=lambda p: p[0])
    started = time.perf_counter()
    assert png_size(render_balance_chart(points, title="x", lang="ru")) == (800, 450)
    assert time.perf_counter() - started < 10


@pytest.fixture
def far_east(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The process in UTC+14, where local midnight comes 14 hours before UTC's."""
    monkeypatch.setenv("TZ", "XYZ-14")
    time.tzset()
    assert time.timezone == -14 * 3600
    yield
    monkeypatch.undo()
    time.tzset()


def test_the_month_starts_at_midnight_utc(far_east: None) -> None:
    march = calendar.timegm((2026, 3, 1, 0, 0, 0))
    assert month_start(march) == march
    assert month_start(march + 31 * DAY - 1) == march
    assert month_start(march - 1) == calendar.timegm((2026, 2, 1, 0, 0, 0))
    new_year = calendar.timegm((2027, 1, 1, 0, 0, 0))
    assert month_start(new_year - 1) == calendar.timegm((2026, 12, 1, 0, 0, 0))


# ------------------------------------------------------------------------------ through the bot


@pytest.mark.parametrize("harness", [None, 0], ids=["private", "group"], indirect=True)
async def test_chart_sends_a_png_of_the_players_balance(harness: Harness) -> None:
    _, b, c, d = harness.users
    # Asked in the group, the chart goes to the asker's private chat when he has opened it,
    # else it is posted in the group.
    known = await harness.rt.storage.get_user(b.id)
    opened = known is not None and known.private_opened
    await play_round(harness, "classic36", buttons=False, next_round=False)
    before = len(harness.calls("sendPhoto"))
    count = len(harness.group.all_messages)
    seen = len(harness.private(b).all_messages)
    await harness.say(b, "/chart")
    assert len(harness.calls("sendPhoto")) == before + 1
    in_group = [m for m in harness.group.all_messages[count:] if m.from_bot]
    in_private = [m for m in harness.private(b).all_messages[seen:] if m.from_bot]
    posted = in_private if opened else in_group
    assert len(posted) == 1
    assert not any(m.photo_bytes is not None for m in (in_group if opened else in_private))
    photo = posted[0]
    assert photo.photo_bytes is not None
    assert png_size(photo.photo_bytes) == (800, 450)
    assert photo.caption == plain(render.chart_caption("Борис", 1050, 1000, "ru"))
    assert "Борис" in (photo.caption or "") and "1\u00a0050" in (photo.caption or "")
    history = await harness.rt.storage.balance_history(harness.group.id, b.id)
    assert [balance for _, balance in history] == [1000, 1050]  # the grant, the win

    # As a reply: the replied-to person's chart. (In the group the same command is answered
    # once a minute.)
    harness.advance_reply_clock(SAME_COMMAND_SECONDS)
    said = await c.send(harness.group, "ну и ладно")
    await d.send(harness.group, "/chart", reply_to=said)
    await harness.pump()
    photo = (harness.private(d) if opened else harness.group).all_messages[-1]
    assert photo.from_bot and photo.photo_bytes is not None
    assert png_size(photo.photo_bytes) == (800, 450)
    assert photo.caption == plain(render.chart_caption("Вика", 975, 1000, "ru"))
    assert len(harness.calls("sendPhoto")) == before + 2


async def test_chart_without_history_answers_with_text(harness: Harness) -> None:
    _, b, _, d = harness.users
    await play_round(harness, "classic36", buttons=False, next_round=False)
    before = len(harness.calls("sendPhoto"))
    count = len(harness.group.all_messages)
    seen = len(harness.private(d).all_messages)
    await harness.say(d, "/chart")  # Гоша never sat down in this chat
    none = plain(render.text("chart-none", "ru", name="Гоша"))
    assert harness.private_since(d, seen) == [none]
    assert harness.bot_texts_since(count) == [harness.pointer(d)]
    # Replying to the bot's message is about the caller, not the bot.
    harness.advance_reply_clock(harness.rt.cooldowns.seconds)  # /chart's cooldown
    pointer = harness.group.all_messages[-1]
    assert pointer.from_bot
    await d.send(harness.group, "/chart", reply_to=pointer)
    await harness.pump()
    assert harness.private_since(d, seen) == [none, none]
    assert len(harness.calls("sendPhoto")) == before
    # In a private chat the chart belongs to a group.
    await harness.say(b, "/chart", harness.bot)
    assert harness.private_texts(b)[-1] == plain(render.text("group_only", "ru"))


async def test_stats_show_rounds_wins_21s_golden_points_busts_biggest_win_and_net(
    harness: Harness,
) -> None:
    a, b, c, d = harness.users
    # home36: Борис 21 (+50), Вика 19 against the banker's 19 (a push), Гоша busts (−100 with
    # the fine); the banker Аня nets +50.
    await play_round(harness, "home36", buttons=False, next_round=False)
    await harness.end_game(a)
    # classic36 with two aces for Борис: the golden point, +40 at once; Вика 17 loses 25 to the
    # banker Аня, who draws to 21.
    harness.script(decks=[["AS", "9S", "7H", "AH", "8D", "KD", "10D"]], lots=[0])
    await harness.say(a, "/newgame classic36")
    await harness.say(b, "/join")
    await harness.say(c, "/join")
    await harness.say(b, "/deal")
    for user, text in (
        (a, "/bank 100"),
        (b, "/bet 40"),
        (b, "/hit"),
        (c, "/bet 25"),
        (c, "/dark"),
        (a, "/hit"),
        (a, "/hit"),
    ):
        await harness.say(user, text)
    assert (await harness.stored()).state["engine"]["phase"] == "round_over"

    storage, chat = harness.rt.storage, harness.group.id
    expected = {
        # rounds, wins, losses, pushes, 21s, golden, busts, biggest win, net
        # Аня banks both: +50, then −15 (her own 21 counts).
        a.id: (2, 1, 1, 0, 1, 0, 0, 50, 35),
        b.id: (2, 2, 0, 0, 1, 1, 0, 50, 90),
        c.id: (2, 0, 1, 1, 0, 0, 0, 0, -25),
        d.id: (1, 0, 1, 0, 0, 0, 1, 0, -100),
    }
    for user in (a, b, c, d):
        st = await storage.player_stats(chat, user.id)
        assert st is not None
        got = (
            st.rounds,
            st.wins,
            st.losses,
            st.pushes,
            st.twentyones,
            st.golden_points,
            st.busts,
            st.biggest_win,
            st.net,
        )
        assert got == expected[user.id], user.first_name
        count = len(harness.group.all_messages)
        seen = len(harness.private(user).all_messages)
        await harness.say(user, "/stats")
        (shown,) = harness.private_since(user, seen)  # the asker's private chat
        assert harness.bot_texts_since(count) == [harness.pointer(user)]
        earned = await storage.achievements(chat, user.id)
        assert shown == plain(render.stats(st, user.first_name, "ru", earned))
        rounds, wins, losses, pushes, twentyones, golden, busts, biggest, net = expected[user.id]
        counts = {"rounds": rounds, "wins": wins, "losses": losses, "pushes": pushes}
        assert render.text("stats-rounds", "ru", **counts) in shown
        specials = (("twentyones", twentyones), ("golden", golden), ("busts", busts))
        # Each named only when it happened: no «0 раз».
        said = " · ".join(render.text(f"stats-{k}", "ru", count=n) for k, n in specials if n)
        if said:
            assert said[:1].upper() + said[1:] in shown.split("\n"), shown
        assert " 0 раз" not in shown.replace("0 раз при своих", ""), shown
        signed = f"+{net}" if net > 0 else f"−{-net}" if net < 0 else "0"
        assert f"Крупнейший выигрыш: {biggest} · итог: {signed}" in shown


async def test_top_of_all_time_and_of_this_month(harness: Harness, far_east: None) -> None:
    a, _, c, d = harness.users
    storage, chat = harness.rt.storage, harness.group.id
    now = time.time()
    boundary = month_start(now)
    real_clock = storage._clock
    # A round in the last second of the previous month (UTC): Борис +50, Вика −25.
    storage._clock = lambda: boundary - 1
    try:
        await play_round(harness, "classic36", buttons=False, next_round=False)
        # This month: Вика wins 40 and Аня loses 10 (statistics rows, as a settled round
        # writes them).
        storage._clock = lambda: boundary + 1
        async with storage.transaction() as tx:
            await tx.add_stats(chat, c.id, StatsDelta(rounds=1, wins=1, net=40, biggest_win=40))
            await tx.add_stats(chat, a.id, StatsDelta(rounds=1, losses=1, net=-10))
    finally:
        storage._clock = real_clock
    harness.rt.service.clock = lambda: now

    count = len(harness.group.all_messages)
    seen = len(harness.private(d).all_messages)
    await harness.say(d, "/top всё")
    await harness.say(d, "/top month")
    await harness.say(d, "/top месяц")
    every, month, month_ru = harness.private_since(d, seen)  # the asker's private chat
    assert harness.bot_texts_since(count) == [harness.pointer(d)]  # one pointer in the group

    rows = await storage.leaderboard(chat, limit=10)
    # Аня banks: her 900 and the 75 in the bank she holds (ahead of Вика's 975 by her id).
    assert [(r.name, r.balance, r.bank) for r in rows] == [
        ("Борис", 1050, 0),
        ("Аня", 975, 75),
        ("Вика", 975, 0),
    ]
    assert every == plain(render.leaderboard(rows, "ru", period="all"))

    rows = await storage.leaderboard(chat, since=boundary, limit=10)
    assert [(r.name, r.net, r.rounds, r.wins) for r in rows] == [
        ("Вика", 40, 1, 1),
        ("Аня", -10, 1, 0),
    ]
    assert month == month_ru == plain(render.leaderboard(rows, "ru", period="month"))
    assert "Борис" not in month and "+40" in month


# ------------------------------------------------------------------------------ the axes


EVENING = 1_764_612_000.0  # 2025-12-01 18:00 UTC


@pytest.mark.parametrize(
    ("points", "kind"),
    [
        ([(EVENING, 1000)], "time"),  # a lone point
        ([(EVENING, 1000), (EVENING + 90, 1050)], "time"),  # a minute and a half
        ([(EVENING + 240.0 * i, 1000 + (37 * i) % 300) for i in range(40)], "time"),
        ([(EVENING + 2400.0 * i, 1000 + (37 * i) % 300) for i in range(40)], "time"),  # past 0:00
        ([(EVENING + 5 * 3600.0 * i, 1000 + (1337 * i) % 3000) for i in range(40)], "date"),
        ([(EVENING + 20 * 86400.0 * i, 1000 + (1337 * i) % 3000) for i in range(40)], "month"),
    ],
)
def test_one_clear_time_axis_in_the_chat_language(
    points: list[tuple[float, int]], kind: str
) -> None:
    clock = re.compile(r"^\d{1,2}:\d\d$")  # «18:05», never seconds or an offset
    clock_en = re.compile(r"^\d{1,2}:\d\d\u202f(AM|PM)$")
    ru_day = re.compile(r"^\d{1,2} [а-я]{3,5}\.?$")  # «1 дек.»
    en_day = re.compile(r"^[A-Z][a-z]{2} \d{1,2}$")  # «Dec 1»
    ru_month = re.compile(r"^[а-я]{3,6}\.? \d{4}\u202fг\.$")  # «янв. 2026 г.»
    en_month = re.compile(r"^[A-Z][a-z]{2} \d{4}$")
    patterns = {
        # Clock times; a midnight is named by its day.
        "time": ((clock, ru_day), (clock_en, en_day)),
        "date": ((ru_day,), (en_day,)),
        "month": ((ru_month,), (en_month,)),
    }[kind]
    for lang, allowed in zip(("ru", "en"), patterns, strict=True):
        xs, ys, label = axis_texts(points, lang=lang)
        assert len(xs) >= 3, xs
        assert all(any(p.match(x) for p in allowed) for x in xs), (lang, xs)
        # A clock time seen twice has its new day between: never two unexplained «18:00».
        for i, x in enumerate(xs):
            if x in xs[:i]:
                assert any(not allowed[0].match(between) for between in xs[xs.index(x) : i]), xs
        assert "UTC" in label
        if kind == "time":
            assert ("дек." if lang == "ru" else "Dec") in label, label
        # Numbers as the language writes them: «1 000» (a no-break space) and «1,000».
        big = [y for y in ys if len(y) > 3]
        assert big, ys
        assert all(("\u00a0" in y) if lang == "ru" else ("," in y) for y in big), (lang, ys)


def test_matplotlib_is_imported_only_to_draw_a_chart() -> None:
    code = (
        "import sys, bot.app, bot.handlers, bot.chart\n"
        "assert 'matplotlib' not in sys.modules, 'imported at start'\n"
        "bot.chart.render_balance_chart([(1.0e9, 5)], title='x', lang='ru')\n"
        "assert 'matplotlib' in sys.modules\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr


async def test_chart_without_matplotlib_says_so(
    harness: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A plain install (no chart extra): /chart answers that charts are not installed, with the
    extra to install, instead of failing to draw."""
    import importlib.util

    from bot import chart

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util,
        "find_spec",
        lambda name, *a: None if name == "matplotlib" else real(name, *a),
    )
    chart.available.cache_clear()
    try:
        assert not chart.available()
        _, b, _, _ = harness.users
        await play_round(harness, "classic36", buttons=False, next_round=False)
        before = len(harness.calls("sendPhoto"))
        seen = len(harness.private(b).all_messages)
        await harness.say(b, "/chart")
        assert len(harness.calls("sendPhoto")) == before
        said = harness.private_since(b, seen) or harness.bot_texts_since(0)[-1:]
        assert said == [plain(render.text("chart-unavailable", "ru"))]
        assert "ochko-bot[chart]" in said[0]
    finally:
        chart.available.cache_clear()
