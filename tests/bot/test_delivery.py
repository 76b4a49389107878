"""Delivery under Telegram's real conditions: double taps, turn notices and mentions, the turn
clock, lasting refusals, a deleted table, a group upgraded to a supergroup, the bot removed,
edited commands and restarts — through the real Application and the local Bot API server."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from telegram import Update

from bot.callbacks import Act
from bot.game_state import View
from bot.service import Actor, Command, Request
from localbotapi import BotApiServer
from tests.bot.conftest import (
    Harness,
    hand_codes,
    make_settings,
    restart_harness,
    start_harness,
    stop_harness,
)
from tests.bot.test_refusals import classic_at_stake


async def pump_together(h: Harness) -> None:
    """Deliver every pending update at once, concurrently (as PTB's concurrent updates do)."""
    _, body = await h.server.dispatch(h.bot.token, "getUpdates", {"offset": h.offset, "timeout": 0})
    updates = body["result"]
    if updates:
        h.offset = updates[-1]["update_id"] + 1
    await asyncio.gather(
        *(h.app.process_update(Update.de_json(data, h.app.bot)) for data in updates)
    )
    await h.rt.delivery.drain()


def turn_message(h: Harness, user_index: int):  # type: ignore[no-untyped-def]
    message = h.private(h.users[user_index]).last_with_buttons()
    assert message is not None, f"no turn message for {h.users[user_index].first_name}"
    return message


async def test_ten_identical_presses_deal_one_card(harness: Harness) -> None:
    h = harness
    b = h.users[1]
    stored = await classic_at_stake(h)
    await h.press_act(b, turn_message(h, 1), Act.BET, 10)
    message = turn_message(h, 1)
    before = len(hand_codes(await h.stored(), b.id))
    data = h.data_of(message, Act.HIT)
    queries = [await b.press(message, data=data) for _ in range(10)]
    await pump_together(h)
    answers = [await q.wait(timeout=5) for q in queries]
    after = await h.stored()
    assert len(hand_codes(after, b.id)) == before + 1, "a burst of presses dealt more than one"
    assert after.version == stored.version + 2  # the stake and one card
    assert not any(a.show_alert for a in answers), [a.text for a in answers]
    repeats = [a for a in answers if a.text and a.text.startswith("✅ Уже принято")]
    assert len(repeats) == 9, [a.text for a in answers]
    assert all("Ваши карты" in (a.text or "") for a in repeats)


async def test_the_turn_is_a_new_private_message_and_the_old_one_loses_its_buttons(
    harness: Harness,
) -> None:
    h = harness
    a, b, c = h.users[:3]
    await classic_at_stake(h)
    # Борис is on turn: a new message in his private chat carries the stake buttons.
    notice = turn_message(h, 1)
    assert h.acts(notice)[0].act is Act.BET
    send = [r for r in h.calls("sendMessage", b.id) if r.params.get("disable_notification")]
    assert all(r.result["message_id"] != notice.message_id for r in send), "the notice was quiet"
    await h.press_act(b, notice, Act.BET, 10)
    await h.press_act(b, turn_message(h, 1), Act.STAND)
    # Вика's turn: her notice; Борис's turn messages have no live buttons left.
    assert h.acts(turn_message(h, 2))[0].act is Act.BET
    assert h.private(b).last_with_buttons() is None
    del a, c


async def test_the_turn_clock_starts_when_the_prompt_is_delivered(harness: Harness) -> None:
    h = harness
    b = h.users[1]
    stored = await classic_at_stake(h)
    outcome = await h.rt.service.act(
        Request(stored.game_id, Actor(b.id, "Борис"), Command("bet", 10))
    )
    assert outcome.stored.deadline is None  # committed, not yet shown to anyone
    assert (await h.stored()).deadline is None
    await h.rt.delivery.committed(View(outcome.stored, outcome.game, outcome.meta, outcome.chat))
    await h.rt.delivery.drain()
    shown = await h.stored()
    assert shown.deadline is not None
    assert shown.deadline >= h.rt.service.clock() + h.rt.service.turn_timeout - 5


@pytest.fixture
async def half_private(tmp_path: Path) -> AsyncIterator[Harness]:
    """Four players; Вика and Гоша never opened the private chat with the bot."""
    h = await start_harness(BotApiServer(flood_limits=False), make_settings(tmp_path), opened=2)
    try:
        yield h
    finally:
        await stop_harness(h)


async def test_a_player_without_a_private_chat_is_mentioned_once_per_turn(
    half_private: Harness,
) -> None:
    h = half_private
    a, b, c = h.users[:3]
    h.script(decks=[], lots=[0])
    await h.say(a, "/newgame classic36")
    await h.say(b, "/join")
    await h.say(c, "/join")
    await h.say(a, "/deal")
    await h.say(a, "/bank 100")
    await h.press_act(b, turn_message(h, 1), Act.BET, 10)
    await h.press_act(b, turn_message(h, 1), Act.STAND)
    stored = await h.stored()
    assert stored.state["engine"]["turn"] == c.id
    mentions = [m for m in h.group.messages if m.from_bot and "ваш ход" in m.content]
    assert len(mentions) == 1 and c.first_name in mentions[0].content
    mentioned = [e["user"]["id"] for e in mentions[0].entities if e["type"] == "text_mention"]
    assert mentioned == [c.id]  # a text mention: it notifies her
    # Her stake keeps the turn (she draws next): no second mention for the same turn.
    await h.press_act(c, h.table(), Act.BET, 10)
    mentions = [m for m in h.group.messages if m.from_bot and "ваш ход" in m.content]
    assert len(mentions) == 1


async def test_a_turn_mentioned_is_not_mentioned_again_after_a_restart(tmp_path: Path) -> None:
    first = await start_harness(BotApiServer(flood_limits=False), make_settings(tmp_path), opened=2)
    a, b, c = first.users[:3]

    def mentions(h: Harness) -> list[str]:
        return [m.content for m in h.group.messages if m.from_bot and "ваш ход" in m.content]

    try:
        first.script(decks=[], lots=[0])
        await first.say(a, "/newgame classic36")
        await first.say(b, "/join")
        await first.say(c, "/join")
        await first.say(a, "/deal")
        await first.say(a, "/bank 100")
        await first.press_act(b, turn_message(first, 1), Act.BET, 10)
        await first.press_act(b, turn_message(first, 1), Act.STAND)
        assert len(mentions(first)) == 1 and c.first_name in mentions(first)[0]
    finally:
        await stop_harness(first)
    second = await restart_harness(first)
    try:
        # Her stake keeps the turn: the restarted bot knows it mentioned it already.
        await second.press_act(c, second.table(), Act.BET, 10)
        stored = await second.stored()
        assert stored.state["engine"]["turn"] == c.id
        assert len(mentions(second)) == 1
    finally:
        await stop_harness(second)


async def test_a_lasting_refusal_ends_the_game_with_stakes_returned_and_stops_sending(
    harness: Harness,
) -> None:
    h = harness
    b = h.users[1]
    stored = await classic_at_stake(h)
    balances = {u.id: await h.balance(u) for u in h.users[:3]}
    # The bot lost the right to write in the group, and Telegram sent no membership update.
    for method in ("sendMessage", "editMessageText", "editMessageReplyMarkup"):
        h.server.fail_next(
            method,
            status=400,
            count=1000,
            description="Bad Request: not enough rights to send text messages to the chat",
            chat_id=h.group.id,
        )
    await h.press_act(b, turn_message(h, 1), Act.BET, 10)
    refused = [r for r in h.server.requests if r.chat_id == h.group.id and r.status == 400]
    assert 1 <= len(refused) <= 2
    game = await h.rt.storage.load_game(stored.game_id)
    assert game is not None and game.status == "finished"
    # The stake came back, and the bank went back to its banker: everyone as before the round.
    assert {u.id: await h.balance(u) for u in h.users[:3]} == {u.id: 1000 for u in h.users[:3]}
    assert sum(balances.values()) + stored.bank == 3000
    assert (await h.rt.storage.check_ledger(h.group.id)).ok
    # More activity in other chats sends nothing more to this one.
    count = len([r for r in h.server.requests if r.chat_id == h.group.id])
    await h.say(b, "/help", h.bot)
    assert len([r for r in h.server.requests if r.chat_id == h.group.id]) == count


async def test_the_bot_removed_from_the_group_ends_its_games(harness: Harness) -> None:
    h = harness
    stored = await classic_at_stake(h)
    balances = {u.id: await h.balance(u) for u in h.users[:3]}
    h.server.remove_bot(h.bot, h.group, kicked=True)
    await h.pump()
    game = await h.rt.storage.load_game(stored.game_id)
    assert game is not None and game.status == "finished"
    assert {u.id: await h.balance(u) for u in h.users[:3]} == {u.id: 1000 for u in h.users[:3]}
    assert sum(balances.values()) + stored.bank == 3000
    assert not [r for r in h.server.requests if r.chat_id == h.group.id and r.status == 403]


async def test_a_deleted_table_is_posted_anew(harness: Harness) -> None:
    h = harness
    b = h.users[1]
    stored = await h.screen(await classic_at_stake(h))
    assert stored.table_message_id is not None
    h.server.delete_message(h.group, stored.table_message_id, by=h.users[0])
    await h.press_act(b, turn_message(h, 1), Act.BET, 10)
    after = await h.screen()
    assert after.table_message_id not in (None, stored.table_message_id)
    table = h.group.message(after.table_message_id)
    assert table is not None and "Борис" in table.content


@pytest.fixture
async def basic_group(tmp_path: Path) -> AsyncIterator[Harness]:
    """The harness in a basic group (the kind that gets upgraded to a supergroup)."""
    server = BotApiServer(flood_limits=False)
    h = await start_harness(server, make_settings(tmp_path))
    h.group = server.create_group("Очко", members=h.users, admins=h.users[:1], chat_type="group")
    try:
        yield h
    finally:
        await stop_harness(h)


async def test_a_group_upgraded_mid_round_plays_on_in_the_supergroup(basic_group: Harness) -> None:
    h = basic_group
    a, b, c = h.users[:3]
    old = h.group
    stored = await classic_at_stake(h)
    balances = {u.id: await h.balance(u) for u in (a, b, c)}
    new = h.server.migrate_group(old)
    await h.pump()
    h.group = new
    moved = await h.rt.storage.load_game(stored.game_id)
    assert moved is not None and moved.chat_id == new.id and moved.status == "active"
    assert {u.id: await h.balance(u, new) for u in (a, b, c)} == balances
    # The table goes on in the supergroup; play continues there.
    await h.press_act(b, turn_message(h, 1), Act.BET, 10)
    assert (await h.stored(chat=new)).state["engine"]["turn"] == b.id
    assert any(m.from_bot and "Борис" in m.content for m in new.messages)
    assert not [r for r in h.server.requests if r.chat_id == old.id and r.time > 0 and not r.ok][1:]
    assert (await h.rt.storage.check_ledger(new.id)).ok


async def test_an_edited_command_does_not_run_again(harness: Harness) -> None:
    h = harness
    a = h.users[0]
    await h.say(a, "/newgame")
    stored = await h.stored()
    await h.say(a, "/cancel")
    assert (await h.rt.storage.load_game(stored.game_id)).status == "finished"  # type: ignore[union-attr]
    sent = h.processed[-1]["message"]
    await h.push({"edited_message": {**sent, "text": "/newgame", "edit_date": sent["date"] + 1}})
    assert await h.rt.storage.load_active_game(h.group.id, 0) is None


async def test_after_a_crash_no_edit_is_answered_not_modified(harness: Harness) -> None:
    h = harness
    b = h.users[1]
    await classic_at_stake(h)
    await h.press_act(b, turn_message(h, 1), Act.BET, 10)
    # A crash: the process dies with nothing flushed (what it had not committed is rolled
    # back, as the OS does for a dead process), and starts again on the same database.
    await h.rt.delivery.stop()
    await h.rt.scheduler.stop()
    await h.rt.storage.stop()
    await h.app.shutdown()
    again = await restart_harness(h)
    try:
        await again.pump()
        await again.press_act(b, turn_message(again, 1), Act.HIT)
        not_modified = [r for r in again.server.errors if "not modified" in (r.description or "")]
        assert not_modified == []
    finally:
        await stop_harness(again)


async def test_a_transient_failure_is_retried_with_backoff(harness: Harness) -> None:
    h = harness
    b = h.users[1]
    await classic_at_stake(h)
    edits_before = len(h.calls("editMessageText", h.group.id))
    h.server.fail_next("editMessageText", status=502, count=2, chat_id=h.group.id)
    await h.press_act(b, turn_message(h, 1), Act.BET, 10)
    edits = h.calls("editMessageText", h.group.id)[edits_before:]
    # Two failures, then the table shows the stake; the waits between were 1 s, then 2 s.
    assert [r.status for r in edits] == [502, 502, 200], [r.status for r in edits]
    assert edits[1].time - edits[0].time >= 0.9
    assert edits[2].time - edits[1].time >= 1.9
    assert "ставка 10" in h.group.message((await h.screen()).table_message_id or 0).content  # type: ignore[union-attr]


async def test_update_ids_older_than_a_day_are_forgotten(harness: Harness) -> None:
    """processed_updates is pruned by age: a day later an id can be claimed again (Telegram
    re-sends an update for at most a day; ids may restart only after a week of silence)."""
    from bot import app as app_module

    storage = harness.rt.storage
    update_id = 987_654_321
    async with storage.transaction() as tx:
        assert await tx.claim_update(update_id)
    await harness.advance_clock(app_module.PRUNE_INTERVAL)  # the hourly prune ran
    assert await storage.is_processed(update_id)  # a fresh id stays
    await harness.advance_clock(app_module.PROCESSED_KEEP)  # and ran again a day later
    assert not await storage.is_processed(update_id)


async def test_a_table_held_back_by_the_budget_is_rendered_only_when_it_may_go(
    harness: Harness,
) -> None:
    """Versions committed while the group's budget holds table edits back are never rendered:
    only the one the chat is shown when the edit may go."""
    h = harness
    b, c = h.users[1:3]
    stored = await classic_at_stake(h)
    delivery = h.rt.delivery
    rendered: list[int] = []
    render_table = delivery.screens.table

    def recording(view: View) -> Any:
        rendered.append(view.version)
        return render_table(view)

    delivery.screens.table = recording  # type: ignore[method-assign]
    delivery.lanes.table_gap = 60.0  # the table was just edited: the next edit waits a minute
    moves = [(b, Command("bet", 10)), (b, Command("stand")), (c, Command("bet", 20))]
    for user, command in moves:
        actor = Actor(user.id, user.first_name)
        outcome = await h.rt.service.act(Request(stored.game_id, actor, command))
        await delivery.committed(View(outcome.stored, outcome.game, outcome.meta, outcome.chat))
        await asyncio.sleep(0.05)  # the lanes look at what is behind
    assert rendered == []
    delivery.lanes.table_gap = 0.0
    delivery.lanes.want(h.group.id, ("g", stored.game_id))
    await delivery.drain()
    assert set(rendered) == {outcome.stored.version}
    assert "20" in (h.table().text or "")  # Вика's stake
