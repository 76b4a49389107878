"""A way back for broke players: a balance that cannot cover the smallest stake gets no seat
(and is told why and when chips come back), and once a day it is topped up to the starting
balance as the player sits down — by the seat button, /join or /newgame — recorded in the
ledger as issued chips."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from bot import render
from bot.callbacks import Act
from localbotapi import FakeUser
from storage import Account, SqliteStorage, Transfer
from tests.bot.conftest import Harness, plain
from tests.bot.test_commands import setting

DAY = 24 * 3600.0


async def lose_chips(h: Harness, loser: FakeUser, winner: FakeUser, keep: int = 0) -> None:
    """``loser`` loses all his chips but ``keep`` to ``winner`` (as after a bad night): the
    chips stay in the chat, moved in the ledger."""
    start = h.rt.service.starting_balance
    async with h.rt.storage.transaction() as tx:
        player = await tx.ensure_player(h.group.id, loser.id, loser.first_name, start)
        await tx.ensure_player(h.group.id, winner.id, winner.first_name, start)
        transfer = Transfer(
            Account.player(loser.id), Account.player(winner.id), player.balance - keep, "lost"
        )
        await tx.apply_transfers(h.group.id, None, None, [transfer])
    assert await h.balance(loser) == keep


def advance_clocks(h: Harness, seconds: float) -> None:
    """Move both clocks a refill is judged by: the storage's (when chips were issued) and the
    service's (how long the refusal says to wait)."""
    storage = h.rt.storage
    assert isinstance(storage, SqliteStorage)
    base = storage._clock
    storage._clock = lambda: base() + seconds
    service_base = h.rt.service.clock
    h.rt.service.clock = lambda: service_base() + seconds


def issue_rows(h: Harness, user: FakeUser) -> list[tuple[object, ...]]:
    """The ledger's rows of chips issued to ``user`` in the group (read from the file)."""
    assert h.settings is not None
    path = Path(h.settings.database_url.removeprefix("sqlite:///"))
    conn = sqlite3.connect(path)
    try:
        return conn.execute(
            "SELECT source_kind, target_kind, target_id, amount, target_after FROM ledger "
            "WHERE chat_id = ? AND source_kind = 'issue' AND target_id = ? ORDER BY entry_id",
            (h.group.id, user.id),
        ).fetchall()
    finally:
        conn.close()


async def seated(h: Harness, user: FakeUser) -> bool:
    return any(s["player"] == user.id for s in (await h.stored()).state["engine"]["seats"])


async def seat_minimum(h: Harness) -> int:
    return h.rt.service.game(await h.stored()).seat_minimum()


async def assert_books(h: Harness, issued: int) -> None:
    check = await h.rt.storage.check_ledger(h.group.id)
    assert check.ok, check
    assert check.issued == issued, check


def wait_refusal(balance: int, minimum: int, hours: int, minutes: int) -> str:
    params = {"balance": balance, "minimum": minimum, "refill": 1000}
    return render.refusal("no_chips_wait", params | {"hours": hours, "minutes": minutes}, "ru")


async def test_the_seat_button_refills_a_broke_player_and_seats_him(harness: Harness) -> None:
    a, b, _, _ = harness.users
    await lose_chips(harness, a, b)
    await harness.say(b, "/newgame")
    answer = await harness.press_act(a, harness.table(), Act.JOIN)
    assert not answer.show_alert, answer
    assert answer.text == render.text("refill-toast", "ru", amount=1000)
    assert "+1 000" in plain(answer.text or "").replace("\u202f", " ").replace("\xa0", " ")
    assert await seated(harness, a)
    assert await harness.balance(a) == 1000
    seat = next(s for s in (await harness.stored()).state["engine"]["seats"] if s["player"] == a.id)
    assert seat["balance"] == 1000  # seated with the refilled chips, not with nothing
    assert issue_rows(harness, a) == [("issue", "player", a.id, 1000, 1000)]
    await assert_books(harness, issued=1000)
    # Борис, who has his chips, is given nothing.
    assert issue_rows(harness, b) == []


async def test_join_refills_a_nearly_broke_player_and_says_so(harness: Harness) -> None:
    a, b, _, _ = harness.users
    await harness.say(b, "/newgame home36")
    minimum = await seat_minimum(harness)
    assert minimum > 1  # home36 fines a bust: a stake of 1 needs its fine covered too
    await lose_chips(harness, a, b, keep=minimum - 1)
    count = len(harness.private(a).all_messages)
    await harness.say(a, "/join")
    assert await seated(harness, a)
    assert await harness.balance(a) == 1000
    amount = 1000 - (minimum - 1)
    assert issue_rows(harness, a) == [("issue", "player", a.id, amount, 1000)]
    await assert_books(harness, issued=amount)
    done = render.text("refill-done", "ru", name="Аня", amount=amount, balance=1000)
    assert plain(done) in harness.private_since(a, count)


async def test_a_broke_player_waits_a_day_for_the_next_refill(harness: Harness) -> None:
    a, b, _, _ = harness.users
    await lose_chips(harness, a, b)
    await harness.say(a, "/newgame")  # a refill on opening a table, too
    assert await seated(harness, a) and await harness.balance(a) == 1000
    await harness.say(a, "/cancel")
    await lose_chips(harness, a, b)  # another bad night, three hours later
    await harness.say(b, "/newgame")
    advance_clocks(harness, 3 * 3600)
    minimum = await seat_minimum(harness)

    # Refused, with the wait named, on the button and on /join; no seat, nothing issued.
    refused = wait_refusal(0, minimum, hours=21, minutes=0)
    assert "через 21 ч 0 мин" in plain(refused)
    answer = await harness.press_act(a, harness.table(), Act.JOIN)
    assert answer.show_alert and answer.text == refused
    count = len(harness.private(a).all_messages)
    advance_clocks(harness, 59 * 60)  # the wait counts down
    await harness.say(a, "/join")
    assert harness.private_since(a, count) == [wait_refusal(0, minimum, hours=20, minutes=1)]
    assert not await seated(harness, a)
    assert await harness.balance(a) == 0
    assert len(issue_rows(harness, a)) == 1
    await assert_books(harness, issued=1000)

    # A day after the first refill the next one comes.
    advance_clocks(harness, DAY - 3 * 3600 - 59 * 60)
    answer = await harness.press_act(a, harness.table(), Act.JOIN)
    assert not answer.show_alert, answer
    assert answer.text == render.text("refill-toast", "ru", amount=1000)
    assert await seated(harness, a) and await harness.balance(a) == 1000
    assert [row[3] for row in issue_rows(harness, a)] == [1000, 1000]
    await assert_books(harness, issued=2000)


async def test_refill_switched_off_refuses_the_seat_and_says_so(harness: Harness) -> None:
    a, b, _, _ = harness.users
    await harness.say(a, "/settings")
    menu = harness.group.last_with_buttons()
    assert menu is not None
    refill_buttons = [d for _, d in menu.flat_buttons if d and d.endswith(":refill:off")]
    assert len(refill_buttons) == 1, menu.buttons  # one row for the option
    answer = await harness.press_data(a, menu, setting(menu, "refill", "off"))
    assert not answer.show_alert, answer
    assert not (await harness.rt.storage.get_chat(harness.group.id)).daily_refill

    await lose_chips(harness, a, b)
    # Not even the table's creator: /newgame opens nothing.
    count = len(harness.private(a).all_messages)
    await harness.say(a, "/newgame")
    assert await harness.rt.storage.load_active_game(harness.group.id, 0) is None
    await harness.say(b, "/newgame")
    minimum = await seat_minimum(harness)
    off = render.refusal("no_chips_refill_off", {"balance": 0, "minimum": minimum}, "ru")
    assert "выключено" in off and "/settings" in off
    assert harness.private_since(a, count) == [off]
    answer = await harness.press_act(a, harness.table(), Act.JOIN)
    assert answer.show_alert and answer.text == off
    assert not await seated(harness, a)
    assert await harness.balance(a) == 0
    assert issue_rows(harness, a) == []
    await assert_books(harness, issued=0)


async def test_a_duplicated_update_issues_once(harness: Harness) -> None:
    a, b, _, _ = harness.users
    await lose_chips(harness, a, b)
    await harness.say(b, "/newgame")
    await harness.say(a, "/join")
    join = harness.processed[-1]
    assert await harness.balance(a) == 1000
    # He leaves and loses again; Telegram then delivers the old /join once more.
    await harness.say(a, "/leave")
    await lose_chips(harness, a, b)
    count = len(harness.private(a).all_messages)
    group_count = len(harness.group.all_messages)
    await harness.redeliver(join)
    assert not await seated(harness, a)
    assert await harness.balance(a) == 0
    assert len(issue_rows(harness, a)) == 1
    await assert_books(harness, issued=1000)
    assert harness.private_since(a, count) == []
    assert harness.bot_texts_since(group_count) == []
    # A seat button's press delivered twice issues once as well.
    _, _, c, _ = harness.users
    await lose_chips(harness, c, b)
    answer = await harness.press_act(c, harness.table(), Act.JOIN)
    press = harness.processed[-1]
    assert answer.text == render.text("refill-toast", "ru", amount=1000)
    await harness.redeliver(press)
    assert await seated(harness, c) and await harness.balance(c) == 1000
    assert issue_rows(harness, c) == [("issue", "player", c.id, 1000, 1000)]
    await assert_books(harness, issued=2000)


async def test_balance_of_a_broke_player_says_how_his_chips_come_back(harness: Harness) -> None:
    a, b, c, _ = harness.users

    async def balance_answer(user: FakeUser) -> list[str]:
        count = len(harness.private(user).all_messages)
        await harness.say(user, "/balance")
        return harness.private_since(user, count)

    def note(code: str, **params: int) -> str:
        return plain(render.text(f"refill-balance_{code}", "ru", refill=1000, **params))

    # Someone with chips is told his balance only.
    (answer,) = await balance_answer(b)
    assert "\n" not in answer and "Фишек не хватает" not in answer
    await lose_chips(harness, a, b)
    (answer,) = await balance_answer(a)
    assert answer.endswith("\n" + note("ready", minimum=1)), answer
    # After a refill and another bad night: the wait; after a day: ready again.
    await harness.say(a, "/newgame")
    await harness.say(a, "/cancel")
    await lose_chips(harness, a, b)
    advance_clocks(harness, 2 * 3600 + 30 * 60)
    (answer,) = await balance_answer(a)
    assert answer.endswith("\n" + note("wait", minimum=1, hours=21, minutes=30)), answer
    assert "через 21 ч 30 мин" in answer
    advance_clocks(harness, DAY)
    (answer,) = await balance_answer(a)
    assert answer.endswith("\n" + note("ready", minimum=1)), answer
    assert len(issue_rows(harness, a)) == 1  # /balance only tells: the seat refills
    # The running table's seat minimum counts (home36 fines a bust: 2 needed), and the setting.
    await harness.say(b, "/newgame home36")
    await lose_chips(harness, c, b, keep=1)
    (answer,) = await balance_answer(c)
    assert answer.endswith("\n" + note("ready", minimum=2)), answer
    await harness.say(a, "/settings")
    menu = harness.group.last_with_buttons()
    assert menu is not None
    await harness.press_data(a, menu, setting(menu, "refill", "off"))
    (answer,) = await balance_answer(c)
    assert answer.endswith("\n" + note("off", minimum=2)), answer
