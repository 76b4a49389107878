"""Each achievement from a fixed deck: the round is played by the engine, its result judged by
rules.achievements (and a round that falls just short earns nothing)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from rules.achievements import CODES, History, candidates, earned
from rules.events import RoundSettled
from rules.variants import PRESETS
from tests.rules.helpers import Recorder, of, table

P3 = [(1, 100), (2, 50), (3, 50)]  # player 1 banks in classic36 (the lot says 0)


def played(
    deck: list[str],
    script: list[tuple[Any, ...]],
    *,
    bank: int = 40,
    players: list[tuple[int, int]] = P3,
    preset: str = "classic36",
) -> RoundSettled:
    """One round of ``preset`` with player 1 banking ``bank``, played by ``script``."""
    run = Recorder(table(preset, players, decks=[deck], lots=[0]))
    run("start")
    run("set_bank", 1, bank)
    for action, *args in script:
        run(action, *args)
    settled = of(run.events, RoundSettled)
    assert len(settled) == 1, "the script must settle the round"
    return settled[0]


def judged(settled: RoundSettled, starting: int = 1000, **history: History) -> list[Any]:
    people = {int(p.removeprefix("p")): h for p, h in history.items()}
    return earned(settled, PRESETS["classic36"], starting=starting, history=people)


# Player 2 stakes and draws, then player 3, then the banker: classic36's order.
STAND_3 = [("stake", 3, 10), ("stand", 3), ("stand", 1)]


def test_golden_ochko() -> None:
    settled = played(["AS", "9H", "7H", "AH"], [("stake", 2, 10), ("hit", 2), *STAND_3])
    assert judged(settled) == [(2, "golden")]


def test_natural_and_twenty_one_by_drawing() -> None:
    natural = played(["AS", "9H", "7H", "10D"], [("stake", 2, 10), ("hit", 2), *STAND_3])
    assert judged(natural) == [(2, "natural")]
    drawn = played(
        ["6S", "9H", "7H", "6D", "9C"], [("stake", 2, 10), ("hit", 2), ("hit", 2), *STAND_3]
    )
    assert judged(drawn) == [(2, "long_21")]
    short = played(
        ["6S", "9H", "7H", "6D", "8C"],
        [("stake", 2, 10), ("hit", 2), ("hit", 2), ("stand", 2), *STAND_3],
    )
    assert judged(short) == []  # 20: nothing


def test_a_dark_card_to_21() -> None:
    settled = played(
        ["6S", "9H", "7H", "6D", "9C"], [("stake", 2, 10), ("hit", 2), ("dark", 2), *STAND_3]
    )
    assert judged(settled) == [(2, "long_21"), (2, "dark_21")]
    # A dark card that does not reach 21 earns nothing.
    short = played(
        ["6S", "9H", "7H", "6D", "8C"], [("stake", 2, 10), ("hit", 2), ("dark", 2), *STAND_3]
    )
    assert judged(short) == []


def test_five_cards_without_a_bust() -> None:
    # J2 J2 Q3 Q3 K4 = 14: the fifth card stands the hand by itself.
    hits = [("hit", 2)] * 4
    settled = played(
        ["JS", "9H", "7H", "JD", "QS", "QD", "KS"], [("stake", 2, 10), *hits, *STAND_3]
    )
    assert judged(settled) == [(2, "five_cards")]
    # Four cards are not enough.
    four = played(
        ["JS", "9H", "7H", "JD", "QS", "QD"], [("stake", 2, 10), *hits[:3], ("stand", 2), *STAND_3]
    )
    assert judged(four) == []


def test_va_bank_won_and_lost() -> None:
    # Player 2 stakes the whole bank (40) and wins; player 3's loss keeps the bank whole.
    won = played(["9S", "6H", "7H"], [("stake", 2, 40), ("stand", 2), *STAND_3])
    assert [r.whole_bank for r in won.results] == [True, False]
    assert judged(won) == [(2, "va_bank")]
    lost = played(["6S", "9H", "7H"], [("stake", 2, 40), ("stand", 2), *STAND_3])
    assert judged(lost) == []
    # One chip under the bank is not ва-банк.
    under = played(["9S", "6H", "7H"], [("stake", 2, 39), ("stand", 2), *STAND_3])
    assert judged(under) == []


def test_all_own_chips_staked_and_won() -> None:
    players = [(1, 100), (2, 30), (3, 50)]
    won = played(["9S", "6H", "7H"], [("stake", 2, 30), ("stand", 2), *STAND_3], players=players)
    assert judged(won) == [(2, "all_chips")]
    under = played(["9S", "6H", "7H"], [("stake", 2, 29), ("stand", 2), *STAND_3], players=players)
    assert judged(under) == []


def test_the_bank_broken_by_a_21() -> None:
    # Ва-банк and 21 at once: the bank is empty, player 3 cannot stake, the round is over.
    settled = played(["10S", "9H", "7H", "AD"], [("stake", 2, 40), ("hit", 2)])
    assert settled.bank == 0
    assert judged(settled) == [(2, "natural"), (2, "va_bank"), (2, "bank_broken")]


def test_the_bank_broken_by_the_last_winner_paid() -> None:
    # Both win at the showdown; paid in turn order, player 3's win empties the bank.
    settled = played(
        ["9S", "9H", "7H"],
        [("stake", 2, 30), ("stand", 2), *STAND_3],
    )
    assert settled.bank == 0
    assert [r.broke_bank for r in settled.results] == [False, True]
    assert judged(settled) == [(3, "bank_broken")]


def test_the_banker_sweeps_the_table() -> None:
    settled = played(["6S", "6H", "7H"], [("stake", 2, 10), ("stand", 2), *STAND_3])
    assert judged(settled) == [(1, "swept")]
    # Against one player it is a plain win.
    one = played(
        ["6S", "7H"], [("stake", 2, 10), ("stand", 2), ("stand", 1)], players=[(1, 100), (2, 50)]
    )
    assert judged(one) == []


def test_a_banker_golden_ochko() -> None:
    settled = played(
        ["9S", "6H", "AH", "AD"], [("stake", 2, 10), ("stand", 2), *STAND_3[:2], ("hit", 1)]
    )
    assert (1, "golden") in judged(settled)


def test_a_big_win_is_the_starting_chips_in_one_round() -> None:
    won = played(["9S", "6H", "7H"], [("stake", 2, 40), ("stand", 2), *STAND_3])
    assert (2, "big_win") in judged(won, starting=40)
    assert (2, "big_win") not in judged(won, starting=41)
    swept = played(["6S", "6H", "7H"], [("stake", 2, 10), ("stand", 2), *STAND_3])
    assert judged(swept, starting=20) == [(1, "swept"), (1, "big_win")]


def test_five_wins_in_a_row() -> None:
    won = played(["9S", "6H", "7H"], [("stake", 2, 10), ("stand", 2), *STAND_3])
    assert candidates(won, 1000) == ([2], [])
    assert judged(won, p2=History(streak=5)) == [(2, "streak")]
    assert judged(won, p2=History(streak=4)) == []
    # A loser's streak (from before) earns nothing this round.
    assert judged(won, p3=History(streak=7)) == []


def test_from_a_refill_to_twice_the_starting_chips() -> None:
    won = played(["9S", "6H", "7H"], [("stake", 2, 40), ("stand", 2), *STAND_3])
    # Player 2 now has 90, twice 45; the banker 60 and the 10 left in the bank.
    assert candidates(won, 45) == ([2], [2])
    assert candidates(won, 35) == ([2], [1, 2])
    assert judged(won, starting=44, p2=History(refilled=True)) == [(2, "va_bank"), (2, "comeback")]
    assert judged(won, starting=46, p2=History(refilled=True)) == [(2, "va_bank")]
    assert judged(won, starting=44, p2=History(refilled=False)) == [(2, "va_bank")]


def test_a_natural_of_the_deal_in_twodecks104() -> None:
    players = [(1, 100), (2, 100), (3, 100)]
    run = Recorder(table("twodecks104", players, decks=[["AS", "5H", "8S", "KD", "5C", "6C"]]))
    run("start")
    run("set_bank", 1, 50)
    run("stake", 2, 10)
    run("stake", 3, 10)
    run("stand", 1)
    run("stand", 3)
    settled = of(run.events, RoundSettled)[0]
    found = earned(settled, PRESETS["twodecks104"], starting=1000)
    assert found == [(2, "natural")]


def test_every_code_is_reached_by_some_test_here() -> None:
    source = Path(__file__).read_text(encoding="utf-8")
    assert all(f'"{code}")' in source for code in CODES)


@pytest.mark.parametrize("preset", ["home36", "big54"])
def test_the_golden_ochko_of_the_home_rules(preset: str) -> None:
    players = [(1, 100), (2, 50), (3, 50)]
    run = Recorder(table(preset, players, decks=[["AS", "9H", "7H", "AH"]], lots=[0]))
    run("start")
    run("stake", 2, 10)
    run("stake", 3, 10)
    run("hit", 2)
    run("stand", 3)
    run("stand", 1)
    settled = of(run.events, RoundSettled)[0]
    assert earned(settled, PRESETS[preset], starting=1000)[:1] == [(2, "golden")]
