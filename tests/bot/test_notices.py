"""A call to play through the handlers: /notify and the 🔔 button, one private notice per
table to those who asked (never the opener, never a closed private chat, at most the chat's
cap an hour), its buttons (seat me; stop), the 📣 setting, and those who leave the group or
block the bot taken off the list."""

from __future__ import annotations

import pytest
from telegram import Update

from bot import render
from bot.callbacks import NoticeAct, NoticeButton, SettingButton
from bot.outcomes import Outcome
from localbotapi import FakeUser, Message
from tests.bot.conftest import Harness, plain

ON, OFF = plain(render.switched(True, "ru")), plain(render.switched(False, "ru"))


def notices(h: Harness, user: FakeUser) -> list[Message]:
    """The notices in ``user``'s private chat, oldest first."""
    return [
        m
        for m in h.private(user).all_messages
        if m.from_bot and any(d and d.startswith("n:join:") for _, d in m.flat_buttons)
    ]


def switch_of(message: Message) -> str:
    data = NoticeButton(NoticeAct.SWITCH).encode()
    assert data in [d for _, d in message.flat_buttons], message.buttons
    return data


async def subscribed(h: Harness, user: FakeUser) -> bool:
    return await h.rt.storage.is_subscribed(h.group.id, user.id)


async def reopen(h: Harness, opener: FakeUser) -> None:
    """The opener closes his lobby and opens another: a new table."""
    await h.say(opener, "/cancel")
    await h.say(opener, "/newgame")


async def test_a_table_opens_and_only_those_who_asked_are_called(harness: Harness) -> None:
    h = harness
    a, b, c, d = h.users
    for user in (a, b, c):
        await h.say(user, "/notify")
        assert plain(h.private_texts(user)[-1]) == ON  # answered privately
    assert not await subscribed(h, d)
    await h.say(a, "/newgame")
    stored = await h.stored()
    # Борис and Вика are called; Аня opened the table, Гоша never asked.
    assert [len(notices(h, u)) for u in (a, b, c, d)] == [0, 1, 1, 0]
    said = render.notice(
        chat_id=h.group.id, chat_title="Очко", game_id=stored.game_id, opener="Аня", lang="ru"
    )
    notice = notices(h, b)[0]
    assert notice.content == plain(said.text)
    assert "«Очко»" in notice.content and "Аня" in notice.content
    join = NoticeButton(NoticeAct.JOIN, stored.game_id).encode()
    off = NoticeButton(NoticeAct.OFF, h.group.id).encode()
    assert [d for _, d in notice.flat_buttons] == [join, off]  # every notice carries its opt-out
    # Its button seats him, as the lobby's does; the lobby shows it.
    answer = await h.press_data(b, notice, join)
    assert not answer.show_alert and answer.text == plain(render.text("joined", "ru"))
    assert h.rt.service.game(await h.stored()).is_seated(b.id)
    assert "Борис" in h.table().content
    # Pressed again: nothing changes twice.
    answer = await h.press_data(b, notice, join)
    assert h.rt.service.game(await h.stored()).players.count(b.id) == 1


async def test_one_notice_per_table_even_when_the_update_comes_twice(harness: Harness) -> None:
    h = harness
    a, b, _, _ = h.users
    await h.say(b, "/notify")
    await h.say(a, "/newgame")
    assert len(notices(h, b)) == 1
    opened = next(u for u in reversed(h.processed) if "/newgame" in str(u.get("message")))
    await h.redeliver(opened)
    await h.rt.notices.table_opened(await _lobby_outcome(h))  # decided again: claimed already
    await h.deliver()
    assert len(notices(h, b)) == 1


async def test_a_switch_that_comes_twice_switches_once(harness: Harness) -> None:
    """Telegram may deliver an update twice: /notify and the 🔔 switch, so the second delivery
    must not switch back."""
    h = harness
    a, b, _, _ = h.users
    await h.say(b, "/notify")
    assert await subscribed(h, b)
    typed = next(u for u in reversed(h.processed) if "/notify" in str(u.get("message")))
    await h.redeliver(typed)
    assert await subscribed(h, b)
    await h.say(a, "/newgame")
    await h.press_data(b, h.table(), switch_of(h.table()))
    assert not await subscribed(h, b)
    pressed = next(u for u in reversed(h.processed) if "callback_query" in u)
    await h.redeliver(pressed)
    assert not await subscribed(h, b)


async def _lobby_outcome(h: Harness) -> Outcome:
    """The lobby's committed outcome, as the handler had it (for deciding its notices again)."""
    stored = await h.stored()
    view = h.rt.delivery.views()[stored.game_id]
    return Outcome(stored, view.game, view.meta, [], view.chat)


@pytest.mark.parametrize("harness", [3], indirect=True)
async def test_no_notice_without_an_open_private_chat(harness: Harness) -> None:
    h = harness
    a, b, _, d = h.users  # Гоша never wrote to the bot
    await h.say(d, "/notify")
    # Answered in the group, saying where the call would come.
    assert h.group.messages[-1].content == plain(render.switched(True, "ru", private_open=False))
    assert await subscribed(h, d)
    await h.say(b, "/notify")
    await h.say(a, "/newgame")
    assert len(notices(h, b)) == 1
    assert not h.private(d).all_messages
    assert not [r for r in h.server.errors if r.chat_id == d.id]  # not even tried


async def test_at_most_the_chats_cap_an_hour(harness: Harness) -> None:
    h = harness
    a, b, _, _ = h.users
    await h.say(a, "/settings")
    menu = h.table()
    assert "📣" in menu.content
    one = SettingButton(h.group.id, "notices", "1").encode()
    refused = await h.press_data(b, menu, one)  # not an admin
    assert refused.show_alert
    assert (await h.rt.storage.get_chat(h.group.id)).notices_per_hour == 3
    assert not (await h.press_data(a, menu, one)).show_alert
    assert (await h.rt.storage.get_chat(h.group.id)).notices_per_hour == 1
    await h.say(b, "/notify")
    await h.say(a, "/newgame")
    await reopen(h, a)
    assert len(notices(h, b)) == 1  # the second table within the hour: no call
    await h.advance_clock(3601)
    await reopen(h, a)
    assert len(notices(h, b)) == 2


async def test_an_admin_turns_the_calls_off(harness: Harness) -> None:
    h = harness
    a, b, _, _ = h.users
    await h.say(a, "/settings")
    await h.press_data(a, h.table(), SettingButton(h.group.id, "notices", "0").encode())
    await h.say(b, "/notify")
    await h.say(a, "/newgame")
    assert notices(h, b) == []


async def test_opting_out_by_the_notice_the_command_and_the_bell(harness: Harness) -> None:
    h = harness
    a, b, c, d = h.users
    await h.say(b, "/notify on")
    await h.say(c, "/notify")
    await h.say(a, "/newgame")
    # 🔕 on the notice: no more calls from this chat.
    notice = notices(h, b)[0]
    answer = await h.press_data(b, notice, NoticeButton(NoticeAct.OFF, h.group.id).encode())
    assert answer.text == OFF and not answer.show_alert
    assert not await subscribed(h, b)
    # /notify again switches off; /notify off says so whatever it was.
    await h.say(c, "/notify")
    assert plain(h.private_texts(c)[-1]) == OFF
    await h.say(c, "/notify off")
    assert not await subscribed(h, c)
    await h.say(c, "/notify maybe")
    assert plain(h.private_texts(c)[-1]) == plain(render.text("notice-usage", "ru"))
    # The lobby's 🔔 switches the presser's own, and the toast says which.
    lobby = h.table()
    answer = await h.press_data(d, lobby, switch_of(lobby))
    assert answer.text == ON and await subscribed(h, d)
    answer = await h.press_data(d, lobby, switch_of(lobby))
    assert answer.text == OFF and not await subscribed(h, d)
    await reopen(h, a)
    assert [len(notices(h, u)) for u in (b, c, d)] == [1, 1, 0]


async def test_the_bell_on_a_result(harness: Harness) -> None:
    h = harness
    a, b, _, _ = h.users
    h.script(decks=[["10S", "9S", "7H", "AS", "8D", "KD", "10D"]], lots=[0])
    # A round of two, to its end: the banker stands after Борис.
    moves = ["/newgame", "/join", "/deal", "/bank 100", "/bet 50", "/stand", "/stand"]
    for user, move in zip([a, b, a, a, b, b, a], moves, strict=True):
        await h.say(user, move)
    result = h.table()
    assert "🏁" in result.content, result.content
    answer = await h.press_data(b, result, switch_of(result))
    assert answer.text == ON and await subscribed(h, b)


async def test_buttons_that_are_not_his(harness: Harness) -> None:
    h = harness
    a, b, c, _ = h.users
    await h.say(b, "/notify")
    await h.say(a, "/newgame")
    game_id = (await h.stored()).game_id
    join = NoticeButton(NoticeAct.JOIN, game_id).encode()
    # Вика was sent no notice of this table: a forged seat button seats nobody.
    answer = await h.press_raw(c, h.private(c).messages[-1], join)
    assert answer.show_alert
    assert not h.rt.service.game(await h.stored()).is_seated(c.id)
    # A group's bell pressed in a private chat, a notice's button in the group: stale.
    assert (await h.press_raw(b, notices(h, b)[0], "n:sw")).show_alert
    assert (await h.press_raw(b, h.table(), join)).show_alert


async def test_who_leaves_the_group_leaves_the_list(harness: Harness) -> None:
    h = harness
    a, b, c, d = h.users
    for user in (b, c, d):
        await h.say(user, "/notify")
    h.server.remove_member(h.group, b)  # the service message
    await h.pump()
    assert not await subscribed(h, b)
    # Where the bot is an admin Telegram also sends chat_member updates (asked for by the bot).
    h.bot.allowed_updates = list(Update.ALL_TYPES)
    change = {
        "chat": h.group.to_dict(),
        "from": a.to_dict(),
        "date": 1,
        "old_chat_member": {"status": "member", "user": c.to_dict()},
        "new_chat_member": {"status": "kicked", "user": c.to_dict(), "until_date": 0},
    }
    await h.push({"chat_member": change})
    assert not await subscribed(h, c)
    assert await subscribed(h, d)
    await h.say(a, "/newgame")
    assert [len(notices(h, u)) for u in (b, c, d)] == [0, 0, 1]


async def test_who_blocked_the_bot_leaves_the_list(harness: Harness) -> None:
    h = harness
    a, b, c, _ = h.users
    await h.say(b, "/notify")
    await h.say(c, "/notify")
    b.block(h.bot)
    await h.say(a, "/newgame")
    assert [r.status for r in h.server.errors if r.chat_id == b.id] == [403]
    assert not await subscribed(h, b)
    user = await h.rt.storage.get_user(b.id)
    assert user is not None and not user.private_opened
    assert len(notices(h, c)) == 1  # the others are called all the same
