"""Turn timers (the bot's clock moved on, a stale timer fired by hand) and a restart in the
middle of a round: the new process re-arms the timers from the stored deadlines and finishes
the round."""

from __future__ import annotations

import time
from pathlib import Path

from bot import render
from bot.callbacks import Act
from bot.handlers import endgame
from localbotapi import BotApiServer
from rules.cards import Card
from storage import StoredGame
from tests.bot.conftest import (
    Harness,
    hand_codes,
    make_settings,
    plain,
    restart_harness,
    start_harness,
    stop_harness,
)
from tests.bot.fake_clock import FakeClock
from tests.bot.test_refusals import classic_at_stake

DECK = ["6S", "9S", "7H", "6H", "6D", "8D", "KD", "10D"]


def hand_status(stored: StoredGame, player: int) -> str:
    for hand in stored.state["engine"]["hands"]:
        if hand["player"] == player:
            return str(hand["status"])
    raise AssertionError(player)


async def test_the_player_on_turn_stands_when_the_timer_runs_out(harness: Harness) -> None:
    a, b, c, _ = harness.users
    await classic_at_stake(harness, DECK)
    await harness.say(b, "/bet 50")
    await harness.say(b, "/hit")  # 6 + 6 = 12, still drawing
    stored = await harness.stored()
    assert stored.deadline is not None
    assert harness.rt.timers.pending() == 1
    # Not yet: a timer that fires early is stale and changes nothing.
    await harness.fire_timer(stored.game_id)
    assert (await harness.stored()).version == stored.version
    assert harness.rt.timers.pending() == 1  # re-armed to the stored deadline
    # After the turn timeout Борис stands by himself and Вика is to stake.
    await harness.advance_clock(harness.rt.settings.turn_timeout + 1)
    after = await harness.stored()
    assert after.version == stored.version + 1
    assert hand_status(after, b.id) == "stood"
    assert hand_codes(after, b.id) == ["6S", "6H"]
    assert (after.state["engine"]["phase"], after.state["engine"]["turn"]) == ("stake", c.id)
    assert after.deadline is not None and after.deadline > stored.deadline
    assert await harness.balance(b) == 1000  # nothing settled yet
    # The table says so, and it now waits for Вика.
    assert "Вика" in harness.table().content
    assert harness.acts(harness.table())[0].act is Act.BET
    # The same timer firing again is stale: the deadline moved on.
    await harness.fire_timer(stored.game_id)
    assert (await harness.stored()).version == after.version
    # Вика times out at the stake: she sits the round out; the banker is on the clock.
    await harness.advance_clock(harness.rt.settings.turn_timeout + 1)
    later = await harness.stored()
    assert hand_status(later, c.id) == "out"
    assert (later.state["engine"]["phase"], later.state["engine"]["turn"]) == ("banker", a.id)
    # The banker times out too: he stands on 7 and the showdown is posted.
    count = len(harness.group.all_messages)
    await harness.advance_clock(harness.rt.settings.turn_timeout + 1)
    final = await harness.stored()
    assert final.state["engine"]["phase"] == "round_over"
    posted = harness.bot_texts_since(count)
    assert len(posted) == 1 and render.card(Card.parse("7H")) in posted[0]
    assert [await harness.balance(u) for u in (a, b, c)] == [900, 1050, 1000]  # 12 beats 7
    assert final.state["engine"]["bank"] == 50
    assert (await harness.rt.storage.check_ledger(harness.group.id)).ok


async def test_a_timer_for_a_finished_game_does_nothing(harness: Harness) -> None:
    a, _, _, _ = harness.users
    stored = await classic_at_stake(harness)
    await harness.end_game(a)
    ended = await harness.rt.storage.load_game(stored.game_id)
    assert ended is not None and ended.status == "finished" and ended.deadline is None
    await harness.advance_clock(3600)
    count = len(harness.server.requests)
    await harness.fire_timer(stored.game_id)
    again = await harness.rt.storage.load_game(stored.game_id)
    assert again is not None and again.version == ended.version
    assert harness.rt.timers.pending() == 0
    assert [r.method for r in harness.server.requests[count:]] == ["getUpdates"]


async def test_restart_mid_round_rearms_timers_and_finishes_the_round(tmp_path: Path) -> None:
    server = BotApiServer(flood_limits=False)
    first = await start_harness(server, make_settings(tmp_path))
    a, b, c, _ = first.users
    try:
        await classic_at_stake(first, ["10S", "9S", "7H", "AS", "8D", "KD", "10D"])
        await first.say(b, "/bet 50")
        before = await first.stored()
        table_id = (await first.screen(before)).table_message_id
    finally:
        await stop_harness(first)
    # Telegram keeps updates sent while the bot is down.
    await b.send(first.group, "/hit")
    second = await restart_harness(first)
    try:
        assert second.rt.timers.pending() == 1  # re-armed from the stored deadline
        await second.pump()
        after = await second.stored()
        assert after.version == before.version + 1
        assert await second.balance(b) == 1050  # 10 + A = 21, paid at once
        assert (await second.screen(after)).table_message_id == table_id  # the same table, edited
        await second.say(c, "/bet 25")
        await second.say(c, "/dark")
        await second.say(a, "/hit")
        count = len(second.group.all_messages)
        await second.say(a, "/hit")  # 7 + 4 + 10 = 21
        results = second.bot_texts_since(count)
        assert len(results) == 1 and "Вика — 975" in results[0]
        assert [await second.balance(u) for u in (a, b, c)] == [900, 1050, 975]
        assert (await second.rt.storage.check_ledger(second.group.id)).ok
        assert second.rt.timers.pending() == 1  # the round-over timer
    finally:
        await stop_harness(second)


async def test_an_overdue_timer_fires_on_start(tmp_path: Path) -> None:
    server = BotApiServer(flood_limits=False)
    first = await start_harness(server, make_settings(tmp_path))
    _, b, c, _ = first.users
    try:
        # The bank is named "two minutes ago": Борис's stake deadline passed while the bot
        # was down.
        await first.advance_clock(-120)
        stored = await classic_at_stake(first)
        assert stored.deadline is not None and stored.deadline < time.time()
    finally:
        await stop_harness(first)
    second = await restart_harness(first)
    try:
        await second.rt.scheduler.settle()  # what is overdue runs at once, by itself
        await second.pump()
        after = await second.stored()
        assert after.version == stored.version + 1
        assert hand_status(after, b.id) == "out"  # Борис sat the round out
        assert (after.state["engine"]["phase"], after.state["engine"]["turn"]) == ("stake", c.id)
        assert second.rt.timers.pending() == 1  # Вика's turn is on the clock now
    finally:
        await stop_harness(second)


async def test_an_end_question_closes_itself_after_a_restart(tmp_path: Path) -> None:
    """«End the game?» keeps its expiry in the database: unanswered, it closes itself in time
    even when the process that asked restarted meanwhile."""
    server = BotApiServer(flood_limits=False)
    first = await start_harness(server, make_settings(tmp_path))
    a = first.users[0]
    try:
        await classic_at_stake(first)
        await first.say(a, "/endgame")
        question = first.group.last_with_buttons()
        assert question is not None and question.content.split("\n")[0].endswith(
            ", точно завершить игру?"
        )
        await first.advance_clock(10)
    finally:
        await stop_harness(first)
    # The new process's clock goes on from the old one's.
    second = await restart_harness(first, FakeClock(first.clock()))
    try:
        await second.advance_clock(endgame.END_CONFIRM_SECONDS - 11)
        assert question.inline_keyboard  # not yet
        await second.advance_clock(1)
        assert not question.inline_keyboard
        assert question.content == plain(render.text("endgame-expired", "ru"))
        assert (await second.stored()).status != "finished"
    finally:
        await stop_harness(second)


async def test_an_end_question_overdue_at_a_restart_closes_at_once(tmp_path: Path) -> None:
    """The process was down when the question's time ran out (for days, even): the next one
    closes it as it starts, and keeps no deadline behind."""
    server = BotApiServer(flood_limits=False)
    first = await start_harness(server, make_settings(tmp_path))
    a = first.users[0]
    try:
        await classic_at_stake(first)
        await first.say(a, "/endgame")
        question = first.group.last_with_buttons()
        assert question is not None and question.content.split("\n")[0].endswith(
            ", точно завершить игру?"
        )
        assert await first.rt.storage.deadlines(endgame.ASK_KIND) != []
    finally:
        await stop_harness(first)
    second = await restart_harness(first, FakeClock(first.clock() + 3 * 86_400.0))
    try:
        await second.advance_clock(0)
        assert not question.inline_keyboard
        assert question.content == plain(render.text("endgame-expired", "ru"))
        assert (await second.stored()).status != "finished"
        assert await second.rt.storage.deadlines(endgame.ASK_KIND) == []
    finally:
        await stop_harness(second)
