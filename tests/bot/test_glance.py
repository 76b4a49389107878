"""The group's table reads at a glance on a phone (issue #30): a classic table of four mid-round,
played through the real handlers in both languages, is at most ten lines, and every line but
the players' rows fits the message bubble of a 360 px wide phone without wrapping; it shows no
deck hash, only the news of the turn being played (one emoji a line at most), and the ⚠ note
exactly when a ⚠ stake button is there. No message keeps a countdown that has gone stale.

"Fits a 360 px phone", concretely: Telegram's message bubble on a phone 360 px wide holds about
34–36 characters of its default font a line; we take 34, an emoji (or a suit sign, which a
phone may draw as one) counting as 2.
"""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path

import pytest

from bot import i18n, render
from bot.callbacks import Act, parse_game
from bot.webapp import view
from localbotapi import BotApiServer
from localbotapi.models import Message
from rules.events import RoundSettled
from rules.game import Game, new_game
from rules.table import Phase
from rules.variants import PRESETS
from tests.bot.conftest import (
    Harness,
    make_settings,
    plain,
    restart_harness,
    start_harness,
    stop_harness,
)
from tests.rules.helpers import ScriptedSource

PHONE_WIDTH = 34  # characters a line in the message bubble of a 360 px wide phone
TABLE_LINES = 10
# Аня banks (the lot); Борис 10♠, Вика 10♥, Гоша 6♣ and Аня 7♥ are dealt; Борис draws 9♥ (19)
# and stands, Вика draws 9♦ and 8♣ (27, bust): Гоша stakes next, the bank may owe Борис first.
DECK = ["10S", "10H", "6C", "7H", "9H", "9D", "8C", "QS"]
ROW = re.compile(r"^\d+\. ")  # a player's row: «1. Борис — …» (the one line allowed to wrap)


def width(line: str) -> int:
    """How wide a line is, in characters of the phone's font: emoji count 2."""
    return sum(_char_width(c) for c in line)


def _char_width(c: str) -> int:
    if unicodedata.combining(c) or c in "\u200d\ufe0e\ufe0f":
        return 0
    return 2 if _emoji(c) else 1


def _emoji(c: str) -> bool:
    """An emoji, or a symbol a phone may draw as one (♠ ♥ ⚠ ✋ ⏱ …)."""
    code = ord(c)
    return (
        unicodedata.east_asian_width(c) in "WF"
        or 0x2300 <= code <= 0x23FF
        or 0x2600 <= code <= 0x27BF
        or 0x2B00 <= code <= 0x2BFF
        or code >= 0x1F000
    )


def emoji_count(line: str) -> int:
    return sum(1 for c in line if _emoji(c) and c not in "♠♥♦♣")


def test_width_counts_emoji_twice() -> None:
    assert width("🏦 Аня — банк 300") == 2 + 1 + 14
    assert width("K♣ ⚠") == 1 + 2 + 1 + 2
    assert width("⚠\ufe0f") == 2 and emoji_count("💥 Вика: 27 · 10♥") == 1


async def table_message(harness: Harness) -> Message:
    screen = await harness.screen()
    found = [m for m in harness.group.messages if m.message_id == screen.table_message_id]
    assert found, "no table message"
    return found[0]


def warned(message: Message) -> bool:
    """Whether a stake button of the message carries ⚠."""
    return any(
        "⚠" in label
        for label, data in message.flat_buttons
        if (b := parse_game(data)) is not None and b.act is Act.BET
    )


def check_glance(message: Message, lang: str, news: list[str]) -> list[str]:
    """The checks every table of the round passes; returns its lines."""
    lines = message.content.split("\n")
    assert len(lines) <= TABLE_LINES, lines
    wide = [line for line in lines if not ROW.match(line) and width(line) > PHONE_WIDTH]
    assert not wide, [(line, width(line)) for line in wide]
    # The news of the turn sit between the last seat row and the blank line above the prompt.
    blank = lines.index("")
    seats = max(i for i, line in enumerate(lines) if ROW.match(line) or line.startswith("🏦"))
    assert lines[seats + 1 : blank] == news, lines
    assert all(emoji_count(line) <= 1 for line in news), news
    note = plain(i18n.t("prompt-stake_cover", lang, cover=0)).split("0")[0]
    assert (note in message.content) == warned(message), (lines, message.buttons)
    return lines


@pytest.mark.parametrize("lang", ["ru", "en"])
async def test_a_table_of_four_mid_round_reads_at_a_glance(harness: Harness, lang: str) -> None:
    a, b, v, g = harness.users
    if lang == "en":
        await harness.say(a, "/lang en")  # the group's language
    harness.script(decks=[DECK], lots=[0])
    await harness.say(a, "/newgame")
    for user in (b, v, g):
        await harness.press_act(user, harness.table(), Act.JOIN)
    await harness.press_act(a, harness.table(), Act.START)
    table = await table_message(harness)
    lot = plain(i18n.t("news-banker_lot", lang, name="Аня"))
    assert lot in table.content  # the lot is the news of the banker's first decision…
    await harness.press_act(a, table, Act.BANK, 250)
    table = await table_message(harness)
    # …and not of Борис's turn. Nobody has moved yet: the deck's hash is on the table.
    check_glance(table, lang, [])
    stored = await harness.stored()
    commitment = stored.state["engine"]["shuffles"][-1]["commitment"]
    assert commitment[:16] in table.content
    assert not warned(table)  # the bank covers any stake of the first player

    await harness.press_act(b, table, Act.BET, 100)
    await harness.press_act(b, await table_message(harness), Act.HIT)
    await harness.press_act(b, await table_message(harness), Act.STAND)
    await harness.press_act(v, await table_message(harness), Act.BET, 100)
    await harness.press_act(v, await table_message(harness), Act.HIT)
    await harness.press_act(v, await table_message(harness), Act.HIT)  # 27: bust
    table = await table_message(harness)
    bust = plain(i18n.t("news-bust", lang, name="Вика", total=27))
    lines = check_glance(table, lang, [bust])
    assert warned(table)  # Гоша: the bank may owe Борис's 100 first
    assert lines[-1] == plain(i18n.t("prompt-stake_cover", lang, cover=i18n.number(250, lang)))
    assert commitment[:16] not in table.content  # mid-round: no hash
    assert len([line for line in lines if ROW.match(line)]) == 3

    await harness.press_act(g, table, Act.BET, 30)
    table = await table_message(harness)
    # Гоша's turn goes on (stake, then draw): the move that began it is still its news.
    check_glance(table, lang, [bust])
    assert not warned(table)
    await harness.press_act(g, table, Act.STAND)
    table = await table_message(harness)
    check_glance(table, lang, [])  # the banker's turn: Вика's bust was the last turn's


COUNTDOWN = plain(i18n.t("prompt-next_round_in", "ru", seconds=0)).split("0")[0]


async def play_to_result(harness: Harness, *, start: bool = False) -> Message:
    """A round of the four (Аня the banker, the others stake 10 and stand) to its result, which
    says when the next round starts; with ``start`` the game is opened and the bank set first."""
    a, b, v, g = harness.users
    if start:
        harness.script(decks=[DECK, DECK], lots=[0])
        await harness.say(a, "/newgame")
        for user in (b, v, g):
            await harness.press_act(user, harness.table(), Act.JOIN)
        await harness.press_act(a, harness.table(), Act.START)
        await harness.say(a, "/bank 250")
    for user in (b, v, g):
        await harness.say(user, "/bet 10")
        await harness.say(user, "/stand")
    while (await harness.stored()).state["engine"]["phase"] == "banker":
        await harness.say(a, "/stand")
    result = harness.table()
    assert "вскрываемся" in result.content and COUNTDOWN in result.content
    return result


async def test_no_countdown_outlives_its_round(harness: Harness) -> None:
    """The result says when the next round starts while it is the last word; once the next
    round is dealt, or the game is ended, that line is gone from it, with its buttons."""
    a, b, *_ = harness.users
    first = await play_to_result(harness, start=True)
    table = await table_message(harness)
    assert COUNTDOWN not in table.content  # the table left behind says the result is below
    await harness.press_act(b, first, Act.NEXT)
    assert COUNTDOWN not in first.content and not first.buttons, first.content
    assert "вскрываемся" in first.content and "/verify 1" in first.content

    # Round 2 to its end, then /endgame: the last result loses its countdown too.
    last = await play_to_result(harness)
    assert last is not first
    await harness.end_game(a)
    assert COUNTDOWN not in last.content and not last.buttons, last.content
    current = [m.content for m in harness.group.messages if m.from_bot]
    assert not [text for text in current if COUNTDOWN in text], current


# ------------------------------------------------------------------ the Mini App, the same way

NOW = 1_000_000.0


def _snap(game: Game, lang: str = "ru") -> render.Snapshot:
    return render.Snapshot(
        game_id=1,
        version=7,
        game=game,
        names={1: "Аня", 2: "Борис", 3: "Вика", 4: "Гоша"},
        creator_id=1,
        lang=lang,
        deadline=NOW + 42,
        private_ok=frozenset({1, 2, 3, 4}),
        bot_username="ochko_bot",
        now=NOW,
    )


def _to_goshas_stake() -> Game:
    """The table of the test above, on the engine alone: Гоша to stake, ⚠ above 250."""
    players = [(p, 1000) for p in (1, 2, 3, 4)]
    game = new_game(PRESETS["classic36"], players, source=ScriptedSource(decks=[DECK], lots=[0]))
    game.start(1)
    game.set_bank(1, 250)
    game.stake(2, 100)
    game.hit(2)
    game.stand(2)
    game.stake(3, 100)
    game.hit(3)
    game.hit(3)  # 27: bust
    return game


@pytest.mark.parametrize("lang", ["ru", "en"])
def test_the_page_explains_the_warning_to_whoever_is_offered_it(lang: str) -> None:
    s = _snap(_to_goshas_stake(), lang)
    note = plain(i18n.t("prompt-stake_cover", lang, cover=250))
    actor = view.game_state(s, 4)
    assert any(a["label"].startswith("⚠") for a in actor["actions"])
    assert actor["prompt"].endswith(note), actor["prompt"]
    # «фишки» on the page as in the chat: the banker's 750 and the bank of 350 are his 1 100.
    assert {seat["id"]: seat["balance"] for seat in actor["seats"]}[1] == 1100
    assert view.game_state(s, 1)["me"]["balance"] == 1100
    for other in (1, 2, 3):
        seen = view.game_state(s, other)
        assert not any("⚠" in a["label"] for a in seen["actions"])
        assert note not in seen["prompt"], seen["prompt"]


def test_between_rounds_the_page_counts_down_itself() -> None:
    game = _to_goshas_stake()
    game.stake(4, 30)
    events = game.stand(4)
    while game.legal_actions().phase is Phase.BANKER:
        events += game.stand(1)
    settled = next(e for e in events if isinstance(e, RoundSettled))
    s = _snap(game)
    state = view.game_state(s, 2)
    table = view.table_state(s, settled=settled)
    assert table["next_round_at"] == NOW + 42
    assert table["prompt"] == plain(i18n.t("prompt-next_round", "ru"))
    assert not re.search(r"\d", table["prompt"])  # the page's countdown gives the seconds
    assert table["result"] and not any(COUNTDOWN in line for line in table["result"]["lines"])
    assert COUNTDOWN in plain(render.result(s, settled).text)  # the chat's result says it
    assert state["next_round_at"] == NOW + 42


async def test_a_restart_between_rounds_still_takes_the_countdown_back(tmp_path: Path) -> None:
    """The bot restarts while a result says when the next round starts: once the next round
    is dealt, the restarted bot takes that line and the buttons off it all the same."""
    first = await start_harness(BotApiServer(flood_limits=False), make_settings(tmp_path))
    b = first.users[1]
    try:
        result = await play_to_result(first, start=True)
    finally:
        await stop_harness(first)
    second = await restart_harness(first)
    try:
        await second.press_act(b, result, Act.NEXT)
        assert (await second.stored()).state["engine"]["round_no"] == 2
        assert COUNTDOWN not in result.content and not result.buttons, result.content
        assert "вскрываемся" in result.content and "/verify 1" in result.content
        assert (await second.screen()).live_result is None
    finally:
        await stop_harness(second)
