"""The log of a busy bot: an action that changes the course of a game is one INFO line with the
kinds of what happened; a card, a stake or a stand alone only at DEBUG, never with the cards."""

from __future__ import annotations

import logging

import pytest

from bot.callbacks import Act
from tests.bot.conftest import Harness

LOGGER = "bot.actions"  # where an action is handed on (logged once, after its answer)


def _lines(caplog: pytest.LogCaptureFixture, level: int) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == LOGGER and r.levelno == level]


async def test_rounds_are_info_and_cards_debug(
    harness: Harness, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG, logger=LOGGER)
    anya, boris = harness.users[:2]
    harness.script(decks=[["10S", "9S", "7H", "AS", "8D", "KD", "10D"]], lots=[0])
    await harness.say(anya, "/newgame classic36")
    await harness.press_act(boris, harness.table(), Act.JOIN)
    await harness.press_act(boris, harness.table(), Act.START)
    game_id = (await harness.stored()).game_id
    info = _lines(caplog, logging.INFO)
    assert any("events=seated" in line for line in info), info
    assert any("events=banker_chosen" in line for line in info), info
    caplog.clear()
    await harness.press_act(anya, harness.table(), Act.BANK, 100)  # the bank named
    await harness.press_act(boris, harness.table(), Act.BET, 50)  # a stake: nothing at INFO
    info, debug = _lines(caplog, logging.INFO), _lines(caplog, logging.DEBUG)
    assert len(info) == 1 and "bank_set" in info[0], info
    assert len(debug) == 1, debug
    assert debug[0].startswith(f"game={game_id} chat={harness.group.id} events=stake"), debug
    assert not any(code in line for line in info + debug for code in ("10S", "9S", "AS"))
