"""Scripted rounds of classic36 (the encyclopedic rules, 002), checking every chip."""

from __future__ import annotations

import pytest

from rules.errors import CannotPassBank, NotYourTurn
from rules.events import (
    BankBroken,
    BankerChosen,
    BankerTurn,
    BankPassed,
    BankSet,
    BottomCardShown,
    Busted,
    CardDealt,
    RoundSettled,
    SatOut,
    Stood,
    TwentyOne,
)
from rules.table import HandStatus, Phase
from rules.variants import CLASSIC36, with_overrides
from tests.rules.helpers import Recorder, balances, moves, of, table

P3 = [(1, 100), (2, 50), (3, 50)]


def opened(deck: list[str], bank: int = 40, players: list[tuple[int, int]] = P3) -> Recorder:
    """A classic36 table with player 1 banking ``bank`` and the first deal done."""
    run = Recorder(table("classic36", players, decks=[deck], lots=[0]))
    run("start")
    run("set_bank", 1, bank)
    return run


def test_lot_named_bank_first_deal_and_bottom_card() -> None:
    game = table("classic36", P3, decks=[["10S", "9S", "7H"]], lots=[2])
    events = game.start()
    assert of(events, BankerChosen) == [BankerChosen(3, by_lot=True)]
    legal = game.legal_actions()
    assert (legal.phase, legal.actor) == (Phase.BANK, 3)
    assert (legal.minimum, legal.maximum) == (1, 50)
    assert legal.actions == {"set_bank", "pass_bank", "timeout", "end"}
    events = game.set_bank(3, 30)
    assert moves(events) == [(3, "bank", 30, "bank_funded")]
    assert of(events, BankSet) == [BankSet(3, 30)]
    # The banker is seat 3: turn order starts at his left and wraps (1, then 2).
    assert game.order == [1, 2]
    dealt = of(events, CardDealt)
    assert [(e.player, e.card, e.face_up, e.dark) for e in dealt] == [
        (1, "10S", False, False),
        (2, "9S", False, False),
        (3, "7H", True, False),  # the banker's own card is dealt last, face up
    ]
    # The bottom card is the deck's last card (canonical order puts AC there) and shown to all.
    assert of(events, BottomCardShown) == [BottomCardShown("AC")]
    assert game.bottom is not None and game.bottom.code == "AC"
    assert game.stock[-1].code == "AC"
    assert balances(game) == {1: 100, 2: 50, 3: 20}
    assert game.bank == 30
    legal = game.legal_actions()
    assert (legal.phase, legal.actor, legal.minimum, legal.maximum) == (Phase.STAKE, 1, 1, 30)


def test_counterclockwise_turn_order() -> None:
    variant = with_overrides(CLASSIC36, {"turn_order": "counterclockwise"})
    game = table(variant, [(1, 10), (2, 10), (3, 10), (4, 10)], lots=[1])
    game.start()
    game.set_bank(2, 5)
    assert game.order == [1, 4, 3]
    assert game.whose_turn() == 1


def test_bank_limit_override_caps_the_named_bank() -> None:
    variant = with_overrides(CLASSIC36, {"bank_limit": 25})
    game = table(variant, P3)
    game.start()
    assert game.legal_actions().maximum == 25
    assert not game.can_set_bank(1, 26)


def test_stake_then_draw_twenty_one_paid_at_once() -> None:
    run = opened(["10S", "9S", "7H", "AS"])
    run("stake", 2, 10)
    assert run.game.legal_actions().actions == {"hit", "dark", "stand", "timeout", "end"}
    events = run("hit", 2)
    assert moves(events) == [("bank", 2, 10, "twenty_one")]
    assert of(events, TwentyOne) == [TwentyOne(2, False, 10, ("10S", "AS"), due=10)]
    assert run.game.hands[2].status is HandStatus.WON
    assert run.game.bank == 30
    # The cap is the bank as it stands now.
    assert run.game.stake_range(3) == (1, 30)
    assert balances(run.game) == {1: 60, 2: 60, 3: 50}


def test_va_bank_stakes_the_whole_bank() -> None:
    run = opened(["10S", "9S", "7H", "8D", "KD", "10D"], bank=30)
    run("stake", 2, 1)
    run("stand", 2)
    assert run.game.legal_actions().maximum == 30
    assert not run.game.can_stake(3, 31)
    run("stake", 3, 30)  # ва-банк
    run("hit", 3)  # 9 + 8 = 17
    events = run("stand", 3)
    assert of(events, BankerTurn) == [BankerTurn(1)]
    assert run.game.legal_actions().actor == 1
    run("hit", 1)  # 7 + 4 = 11
    events = run("hit", 1)  # 11 + 10 = 21: the banker stands by himself
    assert of(events, Stood) == [Stood(1, "twenty_one")]
    settled = of(events, RoundSettled)[0]
    assert moves(events) == [(2, "bank", 1, "stake_lost"), (3, "bank", 30, "stake_lost")]
    assert settled.banker_total == 21
    assert [(r.player, r.outcome, r.net) for r in settled.results] == [
        (2, "lose", -1),
        (3, "lose", -30),
    ]
    assert run.game.bank == 61
    assert balances(run.game) == {1: 70, 2: 49, 3: 20}
    assert run.game.phase is Phase.ROUND_OVER


def test_golden_point_paid_at_once() -> None:
    run = opened(["AS", "9S", "7H", "AH"])
    run("stake", 2, 7)
    events = run("hit", 2)
    assert moves(events) == [("bank", 2, 7, "twenty_one")]
    assert of(events, TwentyOne) == [TwentyOne(2, True, 7, ("AS", "AH"), due=7)]


def test_bust_costs_the_stake_only_and_is_shown_at_once() -> None:
    run = opened(["10S", "9S", "7H", "9D", "KS"])
    run("stake", 2, 8)
    run("hit", 2)  # 19
    events = run("hit", 2)  # 23
    assert of(events, Busted) == [Busted(2, 23, ("10S", "9D", "KS"))]
    assert moves(events) == [(2, "bank", 8, "stake_lost")]
    assert run.game.hands[2].revealed
    assert run.game.bank == 48
    assert run.game.legal_actions().actor == 3


def test_dark_draw_hidden_from_its_owner_and_ends_drawing() -> None:
    run = opened(["10S", "9S", "7H", "8D"])
    run("stake", 2, 5)
    events = run("dark", 2)
    assert of(events, CardDealt) == [CardDealt(2, "8D", False, True)]
    assert of(events, Stood) == [Stood(2, "dark")]
    hand = run.game.hands[2]
    assert hand.visible_to_owner()[1] is None
    assert hand.visible_to_others() == [None, None]
    assert run.game.legal_actions().actor == 3
    with pytest.raises(NotYourTurn) as refused:  # 3 is staking now; 2 never draws again
        run.game.verify_hit(2)
    assert refused.value.params["turn"] == 3
    run("stake", 3, 5)
    with pytest.raises(NotYourTurn):
        run.game.verify_hit(2)


def test_dark_bust_is_found_at_the_showdown_and_costs_the_stake() -> None:
    run = opened(["10S", "9S", "7H", "8D", "KD", "QD"])
    run("stake", 2, 5)
    run("hit", 2)  # 18
    events = run("dark", 2)  # + K = 22, unseen
    assert not of(events, Busted) and moves(events) == []
    run("stake", 3, 5)
    run("stand", 3)  # 9
    events = run("hit", 1)  # banker 7 + Q = 10
    events += run("stand", 1)
    settled = of(events, RoundSettled)[0]
    results = {r.player: r for r in settled.results}
    assert results[2].bust and results[2].dark and results[2].outcome == "lose"
    assert moves(events) == [(2, "bank", 5, "stake_lost"), (3, "bank", 5, "stake_lost")]
    assert run.game.hands[2].revealed


def test_banker_plays_last_and_his_bust_pays_standing_players() -> None:
    run = opened(["10S", "9S", "7H", "8D", "6D", "10D", "9D"])
    run("stake", 2, 10)
    run("hit", 2)  # 18
    run("stand", 2)
    run("stake", 3, 15)
    run("hit", 3)  # 15
    run("stand", 3)
    assert run.game.phase is Phase.BANKER
    run("hit", 1)  # 17
    events = run("hit", 1)  # 26
    assert of(events, Busted) == [Busted(1, 26, ("7H", "10D", "9D"))]
    assert moves(events) == [("bank", 2, 10, "banker_bust"), ("bank", 3, 15, "banker_bust")]
    assert run.game.bank == 15
    assert balances(run.game) == {1: 60, 2: 60, 3: 65}


def test_tie_is_a_push() -> None:
    run = opened(["10S", "9S", "7H", "8D", "JD", "KD", "7D"])
    run("stake", 2, 10)
    run("hit", 2)  # 18
    run("stand", 2)
    run("stake", 3, 10)
    run("hit", 3)  # 11
    run("stand", 3)
    run("hit", 1)  # 11
    events = run("hit", 1)  # 18
    events += run("stand", 1)
    settled = of(events, RoundSettled)[0]
    assert [(r.player, r.outcome, r.net) for r in settled.results] == [
        (2, "push", 0),
        (3, "lose", -10),
    ]
    assert moves(events) == [(3, "bank", 10, "stake_lost")]


def test_banker_does_not_play_when_nobody_is_left_to_compare() -> None:
    run = opened(["10S", "9S", "7H", "AS", "AD"], bank=40)
    run("stake", 2, 5)
    run("hit", 2)  # 21
    run("stake", 3, 5)
    events = run("hit", 3)  # 20
    events += run("stand", 3)
    assert of(events, BankerTurn) == [BankerTurn(1)]
    run.take()
    run("stand", 1)  # 7 < 20
    assert moves(run.events) == [("bank", 3, 5, "win")]


def test_bank_broken_passes_left() -> None:
    run = opened(["10S", "9S", "7H", "AS"], bank=10)
    run("stake", 2, 10)  # ва-банк
    events = run("hit", 2)
    assert moves(events) == [("bank", 2, 10, "twenty_one")]
    assert of(events, SatOut) == [SatOut(3, "bank_empty")]
    assert of(events, BankBroken) == [BankBroken(1)]
    assert of(events, BankPassed) == [BankPassed(1, 2, 0, "broken")]
    assert of(events, BankerChosen) == [BankerChosen(2, by_lot=False)]
    assert run.game.phase is Phase.ROUND_OVER and run.game.banker == 2
    run("next_round")
    legal = run.game.legal_actions()
    assert (legal.phase, legal.actor, legal.maximum) == (Phase.BANK, 2, 60)


def _quiet_round(run: Recorder) -> None:
    """Both players stake 1 and stand on their first card; the banker stands on his."""
    run("stake", 2, 1)
    run("stand", 2)
    run("stake", 3, 1)
    run("stand", 3)
    run("stand", 1)


def test_voluntary_pass_after_three_rounds_returns_the_bank() -> None:
    # Canonical order: 2 gets 6S, 3 gets 7S, the banker 8S, so both players lose 1 a round.
    run = opened([], bank=20)
    _quiet_round(run)
    for played in (1, 2):
        with pytest.raises(CannotPassBank) as info:
            run.game.verify_pass_bank(1)
        assert info.value.params == {"rounds": 3, "played": played, "why": "rounds"}
        assert "pass_bank" not in run.game.legal_actions().actions
        run("next_round")
        _quiet_round(run)
    assert run.game.bank == 26
    assert "pass_bank" in run.game.legal_actions().actions
    with pytest.raises(CannotPassBank):
        run.game.verify_pass_bank(2)
    events = run("pass_bank", 1)
    assert moves(events) == [("bank", 1, 26, "bank_returned")]
    assert of(events, BankPassed) == [BankPassed(1, 2, 26, "voluntary")]
    assert run.game.bank == 0 and run.game.banker == 2
    assert balances(run.game) == {1: 106, 2: 47, 3: 47}


def test_bank_runs_dry_winners_paid_in_turn_order() -> None:
    players = [(1, 100), (2, 50), (3, 50), (4, 50)]
    deck = ["10S", "9S", "8S", "7H", "8D", "10D", "8C", "10C", "9C"]
    run = opened(deck, bank=15, players=players)
    for p in (2, 3, 4):  # the cap is the bank as it stands: 15 each time
        assert run.game.stake_range(p) == (1, 15)
        run("stake", p, 10)
        run("hit", p)
        run("stand", p)  # 18, 17, 18
    run("hit", 1)  # 7 + 10 = 17
    events = run("hit", 1)  # 26: bust, 30 due from a bank of 15
    assert moves(events) == [("bank", 2, 10, "banker_bust"), ("bank", 3, 5, "banker_bust")]
    settled = of(events, RoundSettled)[0]
    assert [(r.player, r.outcome, r.net) for r in settled.results] == [
        (2, "win", 10),
        (3, "win", 5),  # partly paid: what was left
        (4, "push", 0),  # nothing left: the stake comes back (it never moved)
    ]
    assert of(events, BankBroken) == [BankBroken(1)]
    assert balances(run.game) == {1: 85, 2: 60, 3: 55, 4: 50}


def test_losses_go_into_the_bank_before_winners_are_paid() -> None:
    players = [(1, 100), (2, 50), (3, 50), (4, 50)]
    deck = ["10S", "9S", "8S", "7H", "JD", "10D", "AC", "10C"]
    run = opened(deck, bank=10, players=players)
    for p in (2, 3, 4):
        run("stake", p, 10)
        run("hit", p)  # 12, 19, 19
        run("stand", p)
    run("hit", 1)  # 7 + 10 = 17
    run.take()
    run("stand", 1)
    # The bank of 10 could pay only one winner, but 2's loss comes in first.
    assert moves(run.events) == [
        (2, "bank", 10, "stake_lost"),
        ("bank", 3, 10, "win"),
        ("bank", 4, 10, "win"),
    ]
    assert run.game.bank == 0
    assert of(run.events, BankBroken) == [BankBroken(1)]
    assert balances(run.game) == {1: 90, 2: 40, 3: 60, 4: 60}
