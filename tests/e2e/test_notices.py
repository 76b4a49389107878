"""A call to play on the real process: people opt in (/notify, the lobby's 🔔), a table opens,
the notice reaches only those who asked and can be written to (not the opener), its 🪑 seats
its reader at the table, and its 🔕 (or the 🔔 again) stops the calls."""

from __future__ import annotations

from bot import render
from localbotapi.models import Chat, FakeUser, Message
from tests.e2e.conftest import E2E

SEAT = render.text("btn-join", "ru")
STOP = render.text("notice-btn-off", "ru")
BELL = render.text("notice-btn-switch", "ru")
ON = render.text("notice-on", "ru")
OFF = render.text("notice-off", "ru")


def notices(user: FakeUser, e2e: E2E) -> list[Message]:
    """The calls to play in ``user``'s private chat: what he sees with a 🪑 on it."""
    chat = user.private_chat(e2e.bot)
    return [m for m in chat.bot_messages if any(t == SEAT for t, _ in m.flat_buttons)]


def closed(e2e: E2E, group: Chat) -> bool:
    row = e2e.db.game(group.id)
    return row is not None and row.status == "finished"


def seated(e2e: E2E, group: Chat) -> list[int]:
    row = e2e.db.game(group.id)
    return row.game.players if row is not None and row.status != "finished" else []


async def lobby(group: Chat, after: Message | None = None) -> Message:
    return await group.wait_for(
        lambda m: any(t == BELL for t, _ in m.flat_buttons), timeout=30, after=after
    )


async def test_a_call_to_play_end_to_end(e2e: E2E) -> None:
    group, users = e2e.group_with_players("Пятница", 4)
    alfa, bravo, charlie, delta = users
    await e2e.start_bot()
    await e2e.open_private([alfa, bravo, charlie])  # Delta never writes to the bot

    # Opting in: /notify (answered privately), or in the group for Delta, who cannot be told.
    for user in (bravo, delta):
        await user.send(group, "/notify")
    await bravo.private_chat(e2e.bot).wait_for(ON[:20], timeout=30)
    await group.wait_for(render.text("notice-on_closed", "ru")[:30], timeout=30)

    # A first table: Bravo is called; Charlie asks with its 🔔, and the toast says so.
    await alfa.send(group, "/newgame")
    first = await lobby(group)
    await e2e.wait_until(lambda: len(notices(bravo, e2e)) == 1, "Bravo's first call")
    answer = await (await charlie.press(first, BELL)).wait(timeout=30)
    assert answer.text == ON
    await alfa.send(group, "/cancel")
    await e2e.wait_until(lambda: closed(e2e, group), "the first lobby closed")

    # A table opens: Bravo and Charlie are called, privately; Alfa opened it, Delta cannot be.
    await alfa.send(group, "/newgame")
    second = await lobby(group, after=first)
    await e2e.wait_until(
        lambda: len(notices(bravo, e2e)) == 2 and len(notices(charlie, e2e)) == 1,
        "Bravo's and Charlie's calls",
    )
    # The call of the closed table seats nobody; the new one is read.
    stale = await (await bravo.press(notices(bravo, e2e)[0], SEAT)).wait(timeout=30)
    assert stale.show_alert and bravo.id not in seated(e2e, group)
    call = notices(bravo, e2e)[-1]
    assert "Пятница" in call.content and alfa.first_name in call.content
    assert [t for t, _ in call.flat_buttons] == [SEAT, STOP]
    assert notices(alfa, e2e) == [] and notices(delta, e2e) == []
    assert not delta.private_chat(e2e.bot).bot_messages

    # Its 🪑 seats Bravo at that table, as the group's lobby then shows.
    answer = await (await bravo.press(call, SEAT)).wait(timeout=30)
    assert answer.text == render.text("joined", "ru") and not answer.show_alert
    await e2e.wait_until(lambda: bravo.id in seated(e2e, group), "Bravo seated")
    await e2e.wait_until(lambda: bravo.first_name in second.content, "the lobby showing Bravo")

    # Opting out: Charlie with the call's 🔕, Bravo with the lobby's 🔔.
    answer = await (await charlie.press(notices(charlie, e2e)[0], STOP)).wait(timeout=30)
    assert answer.text == OFF
    answer = await (await bravo.press(second, BELL)).wait(timeout=30)
    assert answer.text == OFF
    await alfa.send(group, "/cancel")
    await e2e.wait_until(lambda: closed(e2e, group), "the second lobby closed")
    await alfa.send(group, "/newgame")
    await lobby(group, after=second)
    # Nobody is called any more: the list holds Delta alone (and Alfa, who asks now: his
    # answer shows the private chats still flow).
    await alfa.send(group, "/notify")
    await alfa.private_chat(e2e.bot).wait_for(ON[:20], timeout=30)
    listed = "SELECT user_id FROM notice_subscribers WHERE chat_id = ? ORDER BY user_id"
    assert e2e.db.query(listed, (group.id,)) == sorted([(alfa.id,), (delta.id,)])
    third = e2e.db.game(group.id)
    assert third is not None
    claimed = "SELECT COUNT(*) FROM notices_sent WHERE game_id = ?"
    assert e2e.db.query(claimed, (third.game_id,)) == [(0,)]
    assert len(notices(bravo, e2e)) == 2 and len(notices(charlie, e2e)) == 1
    e2e.assert_within_limits()
