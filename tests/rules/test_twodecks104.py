"""Scripted rounds of twodecks104 (001: two decks, naturals, the banker buys first)."""

from __future__ import annotations

import pytest

from rules.errors import NotYourTurn, OptionDisabled
from rules.events import (
    BankerChosen,
    BankerTurn,
    BankPassed,
    Busted,
    CardDealt,
    NaturalsSettled,
    RoundSettled,
    SessionEnded,
    Stood,
)
from rules.table import HandStatus, Phase
from tests.rules.helpers import Recorder, balances, moves, of, table

P3 = [(1, 100), (2, 100), (3, 100)]


def staked(deck: list[str], stakes: tuple[int, int], bank: int = 50) -> Recorder:
    """Player 1 banks ``bank``; 2 and 3 stake before any card is dealt; the deal follows."""
    run = Recorder(table("twodecks104", P3, decks=[deck], lots=[0]))
    run("start")
    events = run("set_bank", 1, bank)
    assert not of(events, CardDealt)  # stakes come before the deal
    assert run.game.legal_actions().phase is Phase.STAKE
    assert run.game.stake_range(2) == (1, bank)
    run("stake", 2, stakes[0])
    assert run.game.stake_range(3) == (1, bank)  # each stake up to the bank, not shared
    run("stake", 3, stakes[1])
    return run


def test_two_cards_each_all_face_down() -> None:
    run = staked(["10S", "9S", "8S", "5D", "5H", "6C"], (10, 20))
    dealt = of(run.events, CardDealt)
    assert [(e.player, e.card, e.face_up) for e in dealt] == [
        (2, "10S", False),
        (3, "9S", False),
        (1, "8S", False),
        (2, "5D", False),
        (3, "5H", False),
        (1, "6C", False),
    ]
    assert not of(run.events, NaturalsSettled)
    # The banker buys first.
    assert of(run.events, BankerTurn) == [BankerTurn(1)]
    legal = run.game.legal_actions()
    assert (legal.phase, legal.actor) == (Phase.BANKER, 1)
    assert "dark" not in legal.actions
    with pytest.raises(OptionDisabled):
        run.game.verify_dark(1)
    assert len(run.game.stock) == 104 - 6


def test_banker_natural_takes_every_stake() -> None:
    run = staked(["10S", "KH", "AS", "5D", "AH", "KD"], (10, 20))
    # Player 3 also has a natural, but the banker's natural takes every stake.
    assert of(run.events, NaturalsSettled) == [NaturalsSettled(True, ())]
    assert moves(run.events) == [
        (1, "bank", 50, "bank_funded"),
        (2, "bank", 10, "stake_lost"),
        (3, "bank", 20, "stake_lost"),
        ("bank", 1, 80, "bank_returned"),
    ]
    assert of(run.events, BankPassed) == [BankPassed(1, 2, 80, "every_round")]
    assert balances(run.game) == {1: 130, 2: 90, 3: 80}
    assert run.game.phase is Phase.ROUND_OVER


def test_player_natural_paid_double_before_any_buying() -> None:
    run = staked(["10S", "9S", "8S", "AS", "5H", "6C"], (10, 20))
    assert of(run.events, NaturalsSettled) == [NaturalsSettled(False, (2,))]
    assert ("bank", 2, 20, "natural") in moves(run.events)
    assert run.game.hands[2].status is HandStatus.WON
    assert run.game.bank == 30
    assert run.game.whose_turn() == 1  # then the banker buys


def test_banker_bust_pays_standing_players_double_and_quits_busted_ones() -> None:
    deck = ["10S", "9S", "8S", "8D", "5H", "6C", "9D", "KD", "QD"]
    run = staked(deck, (10, 20))
    events = run("hit", 1)  # 8 + 6 + 9 = 23: bust, but hidden
    assert not of(events, Busted)
    assert not run.game.hands[1].revealed
    assert run.game.hands[1].status is HandStatus.BUST
    assert (run.game.phase, run.game.whose_turn()) == (Phase.DRAW, 2)
    run("stand", 2)  # 18
    run("hit", 3)  # 14 + K = 24
    events = run.take()
    assert of(events, Busted) == [Busted(3, 24, ("9S", "5H", "KD"))]
    settled = of(events, RoundSettled)[0]
    assert settled.banker_bust
    assert [(r.player, r.outcome, r.net) for r in settled.results] == [
        (2, "win", 20),
        (3, "push", 0),
    ]
    assert moves(events) == [
        (1, "bank", 50, "bank_funded"),
        ("bank", 2, 20, "banker_bust"),
        ("bank", 1, 30, "bank_returned"),
    ]
    assert balances(run.game) == {1: 80, 2: 120, 3: 100}


def test_banker_standing_busted_players_lose_and_higher_wins() -> None:
    deck = ["10S", "9S", "8S", "8D", "QH", "9C", "KD"]
    run = staked(deck, (10, 20))
    run("stand", 1)  # 17
    events = run("hit", 2)  # 18 + 10 = 28
    assert of(events, Busted) == [Busted(2, 28, ("10S", "8D", "KD"))]
    assert moves(events) == []  # settled at the showdown, against the banker
    events = run("stand", 3)  # 19 > 17
    assert moves(events) == [
        (2, "bank", 10, "stake_lost"),
        ("bank", 3, 20, "win"),
        ("bank", 1, 40, "bank_returned"),
    ]
    assert balances(run.game) == {1: 90, 2: 90, 3: 120}


def test_at_most_three_bought_cards() -> None:
    deck = ["2S", "9S", "8S", "3S", "5H", "6C", "2D", "3D", "2H"]
    run = staked(deck, (10, 20))
    run("stand", 1)
    run("hit", 2)
    run("hit", 2)
    events = run("hit", 2)  # 2 + 3 + 2 + 3 + 2 = 12, five cards: stands by itself
    assert of(events, Stood) == [Stood(2, "max_cards")]
    assert len(run.game.hands[2].cards) == 5
    assert run.game.whose_turn() == 3
    with pytest.raises(NotYourTurn):
        run.game.verify_hit(2)


def test_twenty_one_while_buying_waits_for_the_showdown() -> None:
    deck = ["10S", "9S", "8S", "5D", "5H", "9C", "6D"]
    run = staked(deck, (10, 20))
    run("stand", 1)  # 17
    events = run("hit", 2)  # 21
    assert of(events, Stood) == [Stood(2, "twenty_one")]
    assert moves(events) == []
    run("stand", 3)  # 14 < 17
    assert moves(run.events)[-3:] == [
        (3, "bank", 20, "stake_lost"),
        ("bank", 2, 10, "win"),
        ("bank", 1, 60, "bank_returned"),
    ]


def test_a_dry_bank_pays_double_as_far_as_it_goes() -> None:
    deck = ["10S", "9S", "8S", "8D", "9H", "6C", "9D"]
    run = staked(deck, (10, 10), bank=10)
    run("hit", 1)  # 23
    run("stand", 2)
    run("stand", 3)
    settled = of(run.events, RoundSettled)[0]
    assert [(r.player, r.outcome, r.net) for r in settled.results] == [
        (2, "win", 10),  # 20 due, 10 paid
        (3, "push", 0),
    ]


def test_bank_passes_every_round_until_everyone_has_dealt() -> None:
    run = Recorder(table("twodecks104", P3, lots=[1]))
    run("start")
    assert run.game.banker == 2
    dealers = []
    for _ in range(3):
        dealers.append(run.game.banker)
        run("set_bank", run.game.banker, 10)
        for p in list(run.game.order):
            if run.game.whose_turn() == p:
                run("stake", p, 1)
        while run.game.in_round:
            run("stand", run.game.whose_turn())
        if run.game.phase is Phase.ROUND_OVER:
            run("next_round")
    assert dealers == [2, 3, 1]
    assert run.game.phase is Phase.ENDED
    ended = of(run.events, SessionEnded)
    assert [e.reason for e in ended] == ["all_dealt"]
    passes = [(e.old_banker, e.new_banker, e.reason) for e in of(run.events, BankPassed)]
    assert passes == [(2, 3, "every_round"), (3, 1, "every_round"), (1, None, "every_round")]
    assert of(run.events, BankerChosen)[0] == BankerChosen(2, by_lot=True)
    assert run.game.bank == 0
    assert sum(balances(run.game).values()) == 300
