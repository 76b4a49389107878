"""The 💡 odds: a button for whoever draws (table and private hand), an alert only the presser
sees with the exact figures, and /odds that never posts the odds into the group."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.callbacks import Act
from localbotapi import BotApiServer
from tests.bot.conftest import Harness, make_settings, start_harness, stop_harness

# Борис gets 10♠, Вика 9♠, the banker Аня 7♥ face up; then K♠. The bottom card is A♣ (the last
# card of the canonical order that the script leaves).
DECK = ["10S", "9S", "7H", "KS"]
# Борис sees 10♠ 7♥ A♣: 33 candidates; 10 never busts; 21 with the 3 aces left.
FIRST = "Перебор: 0 из 33 (0,0%) · Очко: 3 из 33 (9,1%)"
# After K♠ (14) he sees 10♠ K♠ 7♥ A♣: 32 candidates. Bust on 8 ×4, 9 ×4 (Вика's 9♠ is hidden
# from him), 10 ×3, A ×3 = 14 (43,75%); 21 on the 3 sevens left (9,375%).
SECOND = "Перебор: 14 из 32 (43,8%) · Очко: 3 из 32 (9,4%)"


async def deal(h: Harness) -> None:
    a, b, c, _ = h.users
    h.script(decks=[DECK], lots=[0])
    await h.say(a, "/newgame classic36")
    await h.press_act(b, h.table(), Act.JOIN)
    await h.press_act(c, h.table(), Act.JOIN)
    await h.say(a, "/deal")
    await h.say(a, "/bank 100")
    await h.say(b, "/bet 10")


async def test_odds_button_alert_shows_exact_figures(harness: Harness) -> None:
    h = harness
    _, b, c, _ = h.users
    await deal(h)
    acts = {button.act for button in h.acts(h.table())}
    assert {Act.HIT, Act.STAND, Act.ODDS} <= acts
    # The private hand of the one drawing has the button too.
    own = h.private(b).last_with_buttons()
    assert own is not None and Act.ODDS in {button.act for button in h.acts(own)}
    answer = await h.press_act(b, h.table(), Act.ODDS)
    assert answer.show_alert and answer.text == FIRST
    await h.press_act(b, h.table(), Act.HIT)
    answer = await h.press_act(b, h.table(), Act.ODDS)
    assert answer.text == SECOND
    # Someone not drawing gets a short refusal, not Борис's odds.
    answer = await h.press_act(c, h.table(), Act.ODDS)
    assert answer.show_alert and answer.text is not None and "Перебор" not in answer.text
    # Nothing of it reached the group.
    assert not any("Перебор" in text for text in h.group_texts())


async def test_odds_command_goes_to_the_private_chat(harness: Harness) -> None:
    h = harness
    _, b, c, _ = h.users
    await deal(h)
    before = len(h.private_texts(b))
    await h.say(b, "/odds")
    assert FIRST in h.private_texts(b)[before:]
    assert not any("Перебор" in text for text in h.group_texts())
    # Typed in the private chat: the answer comes there.
    await h.say(b, "/odds", h.bot)
    assert h.private_texts(b)[-1] == FIRST
    # Вика is not drawing: no figures for her anywhere.
    await h.say(c, "/odds")
    assert not any("Перебор" in text for text in h.private_texts(c))
    assert not any("Перебор" in text for text in h.group_texts())


@pytest.fixture
async def closed(tmp_path: Path) -> AsyncIterator[Harness]:
    """Only Аня has opened the private chat with the bot."""
    server = BotApiServer(flood_limits=False)
    h = await start_harness(server, make_settings(tmp_path), opened=1)
    try:
        yield h
    finally:
        await stop_harness(h)


async def test_odds_command_without_private_chat_points_to_the_button(closed: Harness) -> None:
    h = closed
    _, b, _, _ = h.users
    await deal(h)
    count = len(h.group.all_messages)
    await h.say(b, "/odds")
    new = h.bot_texts_since(count)
    assert new and "💡" in new[-1]
    assert not any("Перебор" in text for text in h.group_texts())
    # The button still works: the alert is his alone.
    answer = await h.press_act(b, h.table(), Act.ODDS)
    assert answer.text == FIRST
