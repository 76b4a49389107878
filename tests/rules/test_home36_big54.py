"""Scripted rounds of home36 (000) and big54 (000 with the 54-card deck), checking every chip."""

from __future__ import annotations

import pytest

from rules.errors import CannotAfford, CannotPassBank, TableFull
from rules.events import (
    BankBroken,
    BankPassed,
    BankSet,
    BottomCardShown,
    Busted,
    CardDealt,
    RoundSettled,
    TwentyOne,
)
from rules.table import Phase
from rules.variants import HOME36, with_overrides
from tests.rules.helpers import Recorder, balances, moves, of, table


def started(
    players: list[tuple[int, int]], deck: list[str], variant: str = "home36"
) -> tuple[Recorder, list[object]]:
    run = Recorder(table(variant, players, decks=[deck], lots=[0]))
    return run, list(run("start"))


def test_whole_balance_is_the_bank_and_everyone_stakes_first() -> None:
    run, events = started([(1, 30), (2, 100), (3, 100)], ["10S", "9S", "7H"])
    assert moves(events) == [(1, "bank", 30, "bank_funded")]  # type: ignore[arg-type]
    assert of(events, BankSet) == [BankSet(1, 30)]  # type: ignore[arg-type]
    assert not of(events, BottomCardShown)  # type: ignore[arg-type]
    dealt = of(events, CardDealt)  # type: ignore[arg-type]
    assert [(e.player, e.face_up) for e in dealt] == [(2, False), (3, False), (1, True)]
    assert balances(run.game) == {1: 0, 2: 100, 3: 100}
    assert run.game.bank == 30
    legal = run.game.legal_actions()
    assert (legal.phase, legal.actor) == (Phase.STAKE, 2)
    run("stake", 2, 5)
    # Everyone stakes before anyone draws.
    assert run.game.legal_actions().phase is Phase.STAKE
    assert run.game.whose_turn() == 3
    run("stake", 3, 5)
    assert (run.game.phase, run.game.whose_turn()) == (Phase.DRAW, 2)


def test_shared_cap_with_three_at_the_table() -> None:
    run, _ = started([(1, 30), (2, 100), (3, 100)], [])
    assert run.game.stake_range(2) == (1, 29)  # bank − 1, keeping 1 for player 3
    assert not run.game.can_stake(2, 30)
    run("stake", 2, 29)
    assert run.game.stake_range(3) == (1, 1)


def test_shared_cap_with_four_at_the_table() -> None:
    run, _ = started([(1, 30), (2, 100), (3, 100), (4, 100)], [])
    assert run.game.stake_range(2) == (1, 28)  # bank − 2
    run("stake", 2, 10)
    assert run.game.stake_range(3) == (1, 19)  # 30 − 10 − 1
    run("stake", 3, 19)
    assert run.game.stake_range(4) == (1, 1)


def test_minimum_stake_of_one_even_when_the_bank_is_one() -> None:
    # 2 and 3 stand on 6 and 7; the banker busts with 8 + 10 + 9: two winners, a bank of 1.
    run, _ = started([(1, 1), (2, 10), (3, 10)], ["6S", "7S", "8D", "10D", "9D"])
    assert run.game.bank == 1
    assert run.game.stake_range(2) == (1, 1)
    run("stake", 2, 1)
    assert run.game.stake_range(3) == (1, 1)
    run("stake", 3, 1)
    run("stand", 2)
    run("stand", 3)
    run("hit", 1)
    run.take()
    events = run("hit", 1)
    # Winners are paid in turn order as far as the bank goes; 3 takes his stake back.
    assert moves(events) == [("bank", 2, 1, "banker_bust")]
    settled = of(events, RoundSettled)[0]
    assert [(r.player, r.outcome) for r in settled.results] == [(2, "win"), (3, "push")]
    assert of(events, BankBroken) == [BankBroken(1)]
    assert of(events, BankPassed) == [BankPassed(1, 2, 0, "broken")]
    assert balances(run.game) == {1: 0, 2: 11, 3: 10}


def test_bust_fine_equals_the_stake() -> None:
    run, _ = started([(1, 30), (2, 100), (3, 100)], ["10S", "9S", "7H", "8D", "KD"])
    run("stake", 2, 6)
    run("stake", 3, 6)
    run("hit", 2)  # 18
    events = run("hit", 2)  # 22
    assert of(events, Busted) == [Busted(2, 22, ("10S", "8D", "KD"))]
    assert moves(events) == [(2, "bank", 6, "stake_lost"), (2, "bank", 6, "bust_fine")]
    assert run.game.bank == 42
    assert balances(run.game)[2] == 88


def test_a_stake_needs_its_fine_covered() -> None:
    run, _ = started([(1, 30), (2, 9), (3, 100)], [])
    assert run.game.stake_range(2) == (1, 4)  # 4 + 4 ≤ 9 < 5 + 5
    with pytest.raises(CannotAfford) as info:
        run.game.verify_stake(2, 5)
    assert info.value.params == {"minimum": 1, "maximum": 4, "balance": 9}
    assert run.game.legal_actions().maximum == 4


def test_half_fine_override() -> None:
    variant = with_overrides(HOME36, {"bust_fine_percent": 50})
    run = Recorder(
        table(variant, [(1, 30), (2, 9), (3, 100)], decks=[["10S", "9S", "7H", "KD", "9D"]])
    )
    run("start")
    assert run.game.stake_range(2) == (1, 6)  # 6 + 3 ≤ 9 < 7 + 3
    run("stake", 2, 5)
    run("stake", 3, 1)
    run("hit", 2)  # 14
    events = run("hit", 2)  # 23
    assert moves(events) == [(2, "bank", 5, "stake_lost"), (2, "bank", 2, "bust_fine")]


def test_a_player_who_cannot_cover_one_sits_out() -> None:
    run, events = started([(1, 30), (2, 1), (3, 100)], [])
    assert [e.player for e in of(events, CardDealt)] == [3, 1]  # type: ignore[arg-type]
    assert run.game.whose_turn() == 3
    assert run.game.hands[2].status.value == "out"


def test_dark_bust_costs_no_fine() -> None:
    run, _ = started([(1, 30), (2, 100), (3, 100)], ["10S", "9S", "7H", "8D", "KD", "10D"])
    run("stake", 2, 6)
    run("stake", 3, 6)
    run("hit", 2)  # 18
    run("dark", 2)  # + K = 22, unseen
    run("stand", 3)  # 9
    run.take()
    run("hit", 1)  # 7 + 10 = 17
    run("stand", 1)
    assert moves(run.events) == [(2, "bank", 6, "stake_lost"), (3, "bank", 6, "stake_lost")]


def test_twenty_one_paid_at_once_and_no_voluntary_pass() -> None:
    run, _ = started([(1, 30), (2, 100), (3, 100)], ["10S", "9S", "7H", "AS", "6D"])
    run("stake", 2, 10)
    run("stake", 3, 10)
    events = run("hit", 2)
    assert moves(events) == [("bank", 2, 10, "twenty_one")]
    run("hit", 3)  # 15
    run("stand", 3)
    run("stand", 1)  # 7 < 15
    assert run.game.phase is Phase.ROUND_OVER
    assert run.game.bank == 10
    with pytest.raises(CannotPassBank, match="does not let the banker pass the bank"):
        run.game.verify_pass_bank(1)


def test_the_bank_stays_until_broken_then_the_next_banker_goes_all_in() -> None:
    run, _ = started([(1, 10), (2, 100), (3, 100)], ["10S", "9S", "7H", "AS", "AD"])
    run("stake", 2, 9)
    run("stake", 3, 1)
    run("hit", 2)  # 21: 9 paid
    run.take()
    events = run("hit", 3)  # 9 + A = 20
    events += run("stand", 3)
    events += run("stand", 1)  # 7 < 20: the last 1 goes
    assert moves(events) == [("bank", 3, 1, "win")]
    assert of(events, BankPassed) == [BankPassed(1, 2, 0, "broken")]
    events = run("next_round")
    assert moves(events) == [(2, "bank", 109, "bank_funded")]
    assert run.game.banker == 2 and run.game.bank == 109
    assert balances(run.game) == {1: 0, 2: 0, 3: 101}
    # The broke old banker cannot stake, so he sits out; only 3 plays against the bank.
    assert run.game.order == [3, 1]
    assert run.game.whose_turn() == 3


def test_seats_limit() -> None:
    game = table("home36", [(i, 10) for i in range(1, 5)])
    with pytest.raises(TableFull):
        game.verify_join(5, 10)


# ---------------------------------------------------------------- big54


def test_big54_six_seats_and_jokers() -> None:
    players = [(i, 100) for i in range(1, 7)]
    deck = ["X1", "X2", "AS", "10S", "9S", "7H", "AD", "10D"]
    run = Recorder(table("big54", players, decks=[deck]))
    with pytest.raises(TableFull):
        run.game.verify_join(7, 10)
    run("start")
    assert run.game.bank == 100
    assert len(run.game.stock) + 6 == 54
    for p in range(2, 7):
        run("stake", p, 1)
    run.take()
    events = run("hit", 2)  # joker + A = 21
    assert of(events, TwentyOne) == [TwentyOne(2, False, 1, ("X1", "AD"), due=1)]
    events = run("hit", 3)  # joker + 10 = 21
    assert of(events, TwentyOne) == [TwentyOne(3, False, 1, ("X2", "10D"), due=1)]
    assert moves(run.events) == [("bank", 2, 1, "twenty_one"), ("bank", 3, 1, "twenty_one")]


def test_big54_two_jokers_make_twenty_one() -> None:
    run = Recorder(table("big54", [(1, 50), (2, 50)], decks=[["X1", "7H", "X2"]]))
    run("start")
    run("stake", 2, 3)
    events = run("hit", 2)
    assert moves(events) == [("bank", 2, 3, "twenty_one")]
    assert of(events, TwentyOne)[0].cards == ("X1", "X2")
