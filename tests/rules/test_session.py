"""Whole-session rules: leaving and joining, timeouts, recycling the stock, ending early."""

from __future__ import annotations

import pytest

from rules.errors import DeckExhausted
from rules.events import (
    BankPassed,
    BottomCardShown,
    CardDealt,
    DeckShuffled,
    LeaveScheduled,
    PlayerLeft,
    PlayerSeated,
    SatOut,
    SessionEnded,
    Stood,
)
from rules.game import Game
from rules.table import HandStatus, Phase
from rules.variants import CLASSIC36, with_overrides
from tests.rules.helpers import Recorder, balances, moves, of, table

P3 = [(1, 100), (2, 50), (3, 50)]


def classic(deck: list[str], bank: int = 40, players: list[tuple[int, int]] = P3) -> Recorder:
    run = Recorder(table("classic36", players, decks=[deck], lots=[0]))
    run("start")
    run("set_bank", 1, bank)
    return run


# ---------------------------------------------------------------- leaving and joining


def test_leaving_mid_round_takes_effect_at_round_end_and_the_leaver_stands() -> None:
    run = classic(["10S", "9S", "7H", "8D"])
    run("stake", 2, 5)
    run("hit", 2)  # 18
    events = run("leave", 2)  # his turn: he stands now
    assert of(events, LeaveScheduled) == [LeaveScheduled(2)]
    assert of(events, Stood) == [Stood(2, "leaving")]
    assert run.game.is_seated(2)
    assert run.game.whose_turn() == 3
    run("stake", 3, 5)
    run("stand", 3)
    events = run("stand", 1)  # 7: loses to 18 and 9
    assert moves(events) == [("bank", 2, 5, "win"), ("bank", 3, 5, "win")]
    assert of(events, PlayerLeft) == [PlayerLeft(2)]
    assert not run.game.is_seated(2)
    assert balances(run.game) == {1: 60, 3: 55}


def test_a_leaver_not_on_turn_sits_out_when_his_stake_turn_comes() -> None:
    run = classic(["10S", "9S", "7H"])
    run("leave", 3)
    run("stake", 2, 5)
    events = run("stand", 2)
    assert [(e.player, e.reason) for e in of(events, SatOut)] == [(3, "leaving")]


def test_a_leaver_who_staked_stands_when_his_draw_comes() -> None:
    run = Recorder(table("home36", [(1, 30), (2, 100), (3, 100)], decks=[["10S", "9S", "7H"]]))
    run("start")
    run("stake", 2, 5)
    run("stake", 3, 5)
    run("leave", 3)
    events = run("stand", 2)
    assert Stood(3, "leaving") in events
    assert run.game.phase is Phase.BANKER


def test_banker_leaving_mid_round_passes_the_bank_at_round_end() -> None:
    run = classic(["10S", "9S", "7H"])
    run("leave", 1)
    run("stake", 2, 5)
    run("stand", 2)
    run("stake", 3, 5)
    events = run("stand", 3)  # the banker stands for leaving: 7 < 10 and 9
    assert Stood(1, "leaving") in events
    assert moves(events) == [
        ("bank", 2, 5, "win"),
        ("bank", 3, 5, "win"),
        ("bank", 1, 30, "bank_returned"),
    ]
    assert of(events, BankPassed) == [BankPassed(1, 2, 30, "leaving")]
    assert of(events, PlayerLeft) == [PlayerLeft(1)]
    assert run.game.banker == 2 and run.game.players == [2, 3]


def test_leaving_between_rounds_is_immediate_and_ends_a_table_of_one() -> None:
    run = classic(["10S", "9S", "7H", "AS", "AD"], bank=10)
    run("stake", 2, 10)
    run("hit", 2)  # 21: the bank is broken and passes to 2
    assert run.game.phase is Phase.ROUND_OVER
    events = run("leave", 3)
    assert of(events, PlayerLeft) == [PlayerLeft(3)]
    assert run.game.phase is Phase.ROUND_OVER
    events = run("leave", 1)
    assert of(events, SessionEnded)[0].reason == "no_players"
    assert run.game.phase is Phase.ENDED


def test_joining_between_rounds() -> None:
    run = classic(["10S", "9S", "7H"])
    run("stake", 2, 1)
    run("stand", 2)
    run("stake", 3, 1)
    run("stand", 3)
    run("stand", 1)
    events = run("join", 4, 30)
    assert of(events, PlayerSeated) == [PlayerSeated(4, 30)]
    run("next_round")
    assert run.game.order == [2, 3, 4]


def test_joining_in_the_lobby_and_starting() -> None:
    game = Game(CLASSIC36)
    assert not game.can_start()
    game.join(5, 10)
    game.join(6, 0)
    assert not game.can_start()  # two seats, but only one with chips
    game.join(7, 10)
    assert game.legal_actions().actions == {"join", "leave", "start", "end"}


# ---------------------------------------------------------------- timeouts


def test_banker_timeout_declines_and_the_next_banker_is_asked() -> None:
    run = Recorder(table("classic36", P3, lots=[0]))
    run("start")
    events = run("timeout")
    assert of(events, BankPassed) == [BankPassed(1, 2, 0, "declined")]
    legal = run.game.legal_actions()
    assert (legal.phase, legal.actor) == (Phase.BANK, 2)


def test_everyone_declining_ends_the_session() -> None:
    run = Recorder(table("classic36", P3, lots=[0]))
    run("start")
    run("timeout")
    run("pass_bank", 2)
    events = run("timeout")
    assert [e.reason for e in of(events, SessionEnded)] == ["no_banker"]
    assert run.game.phase is Phase.ENDED
    assert balances(run.game) == {1: 100, 2: 50, 3: 50}


def test_staker_timeout_sits_out_and_drawer_timeout_stands() -> None:
    run = classic(["10S", "9S", "7H"])
    events = run("timeout")
    assert of(events, SatOut) == [SatOut(2, "timeout")]
    run("stake", 3, 5)
    events = run("timeout")
    assert of(events, Stood) == [Stood(3, "timeout")]
    assert run.game.phase is Phase.BANKER
    events = run("timeout")  # the banker stands too: 7 < 9
    assert moves(events) == [("bank", 3, 5, "win")]
    assert run.game.hands[2].status is HandStatus.OUT


# ---------------------------------------------------------------- the stock


# Nine players bust on their fourth card; the tenth draws his third card, the bottom card (KH),
# and his fourth comes from the discards shuffled back in.
RECYCLE_DECK = [
    "8S",
    "QC",
    "KC",
    "9S",
    "7C",
    "AD",
    "9H",
    "AS",
    "6C",
    "7D",
    "6D",
    "KD",
    "AH",
    "QH",
    "8C",
    "8D",
    "7S",
    "KS",
    "7H",
    "8H",
    "JH",
    "10D",
    "JD",
    "AC",
    "9C",
    "JS",
    "QD",
    "9D",
    "6S",
    "JC",
    "10S",
    "6H",
    "QS",
    "10H",
    "10C",
    "KH",
]


def test_bottom_card_dealt_last_then_discards_recycled() -> None:
    variant = with_overrides(CLASSIC36, {"max_seats": 10})
    players = [(p, 20) for p in range(1, 10)] + [(10, 100)]
    run = Recorder(table(variant, players, decks=[RECYCLE_DECK, ["JH"]], lots=[9]))
    run("start")
    events = run("set_bank", 10, 100)
    assert of(events, BottomCardShown) == [BottomCardShown("KH")]
    assert run.game.order == list(range(1, 10))
    for p in range(1, 10):
        run("stake", p, 1)
        events = []
        while run.game.whose_turn() == p and run.game.phase is Phase.DRAW:
            events += run("hit", p)
    last = of(events, CardDealt)
    assert [e.card for e in last] == ["10C", "KH", "JH"]  # the bottom card, then a recycled one
    shuffles = of(events, DeckShuffled)
    assert [(s.cards, s.recycled) for s in shuffles] == [(32, True)]
    assert shuffles[0].commitment == run.game.log[-1]["commitment"]
    assert [entry["a"] for entry in run.game.log[-2:]] == ["hit", "shuffle"]
    assert run.game.log[-1]["order"][0] == "JH"
    assert run.game.hands[9].codes == ("6C", "10C", "KH", "JH")
    assert run.game.phase is Phase.ROUND_OVER  # everyone busted: no banker play
    assert run.game.bank == 109
    replayed = Game.replay(variant, run.game.log)
    assert replayed.to_json() == run.game.to_json()


def test_no_cards_left_at_all_is_refused() -> None:
    run = classic(["10S", "9S", "7H"])
    run("stake", 2, 1)
    data = run.game.to_dict()
    data["stock"], data["discards"] = [], []
    game = Game.from_dict(data)
    with pytest.raises(DeckExhausted):
        game.verify_hit(2)
    assert not game.can_dark(2)
    assert "hit" not in game.legal_actions().actions


def test_every_round_is_a_fresh_shuffle() -> None:
    run = classic([])
    for p in (2, 3):
        run("stake", p, 1)
        run("stand", p)
    run("stand", 1)
    run("next_round")
    shuffles = [entry for entry in run.game.log if entry["a"] == "shuffle"]
    assert len(shuffles) == 2
    assert all(len(entry["order"]) == 36 for entry in shuffles)
    assert run.game.discards == []


# ---------------------------------------------------------------- ending


def test_end_mid_round_voids_unsettled_stakes_and_returns_the_bank() -> None:
    run = classic(["10S", "9S", "7H", "AS", "8D"])
    run("stake", 2, 10)
    run("hit", 2)  # 21: paid at once, stays paid
    run("stake", 3, 20)
    run("hit", 3)  # 17, unsettled
    events = run("end")
    assert moves(events) == [("bank", 1, 30, "bank_returned")]
    ended = of(events, SessionEnded)[0]
    assert ended.reason == "ended"
    assert dict(ended.balances) == {1: 90, 2: 60, 3: 50}
    assert run.game.bank == 0
    assert run.game.hands[3].outcome == "void"
    assert run.game.phase is Phase.ENDED
    assert run.game.legal_actions().actions == frozenset()


def test_end_in_the_lobby() -> None:
    game = table("home36", [(1, 5)])
    events = game.end()
    assert of(events, SessionEnded)[0].balances == ((1, 5),)
