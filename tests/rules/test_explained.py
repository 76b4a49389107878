"""What the engine tells the bot so the table can explain itself: what a win was owed, how much
the bank can still cover, whose turn it is, and why a session ended."""

from __future__ import annotations

import pytest

from rules.errors import NotYourTurn
from rules.events import PlayerLeft, PlayerSeated, RoundSettled, SessionEnded
from rules.game import Game
from rules.table import Phase
from tests.rules.helpers import Recorder, of, table

P3 = [(1, 100), (2, 100), (3, 100)]
# classic36, one card each (2, 3, the banker 1), then 2 and 3 draw a nine: 19 against 13.
TWO_WINNERS = ["10S", "10H", "6D", "9S", "9H", "7C"]


def two_winners() -> Recorder:
    run = Recorder(table("classic36", P3, decks=[TWO_WINNERS], lots=[0]))
    run("start")
    run("set_bank", 1, 100)
    return run


def test_a_dry_bank_pays_less_than_due_and_says_what_was_due() -> None:
    run = two_winners()
    run("stake", 2, 60)
    run("hit", 2)
    run("stand", 2)
    run("stake", 3, 60)
    run("hit", 3)
    run("stand", 3)
    events = run("hit", 1)  # 6 + 7 = 13: he stands below both
    if run.game.turn == 1:
        events += run("stand", 1)
    (settled,) = of(events, RoundSettled)
    first, second = settled.results
    assert (first.net, first.due) == (60, 60)  # paid in full
    assert (second.outcome, second.net, second.due) == ("win", 40, 60)  # the bank ran dry
    assert settled.bank == 0


def test_stake_cover_counts_what_the_bank_may_owe_the_others() -> None:
    run = two_winners()
    game = run.game
    assert game.stake_cover(2) == 100
    run("stake", 2, 60)
    # Борис may win 60 first: of the bank of 100 only 40 is sure for Вика, though she may
    # stake up to the whole bank.
    assert game.stake_cover(3) == 40
    assert game.stake_range(3) == (1, 100)
    # The round trip keeps nothing extra: the cover is computed from the hands.
    assert Game.from_dict(game.to_dict()).stake_cover(3) == 40


def test_cover_of_a_double_payout_counts_twice() -> None:
    # twodecks104 pays twice for a natural or a bust banker.
    run = Recorder(table("twodecks104", P3, lots=[0]))
    run("start")
    run("set_bank", 1, 50)
    assert run.game.stake_cover(2) == 25
    run("stake", 2, 10)
    assert run.game.stake_cover(3) == 15  # (50 - 2 * 10) // 2


def test_out_of_turn_is_not_your_turn_in_any_phase() -> None:
    run = two_winners()
    with pytest.raises(NotYourTurn) as refused:
        run.game.verify_hit(3)  # Борис is staking
    assert refused.value.params == {"player": 3, "turn": 2, "phase": "stake"}


def test_a_newcomer_during_a_round_sits_in_from_the_next_one() -> None:
    run = two_winners()
    events = run("join", 4, 50)
    assert of(events, PlayerSeated) == [PlayerSeated(4, 50)]
    assert 4 not in run.game.order and 4 not in run.game.hands
    run("stake", 2, 10)
    run("stand", 2)
    run("stake", 3, 10)
    run("stand", 3)
    if run.game.turn == 1:
        run("stand", 1)
    assert run.game.phase is Phase.ROUND_OVER
    run("next_round")
    assert 4 in run.game.order


def test_a_newcomer_who_leaves_during_the_round_goes_at_once() -> None:
    run = two_winners()
    run("join", 4, 50)
    events = run("leave", 4)
    assert of(events, PlayerLeft) == [PlayerLeft(4)]
    assert not run.game.is_seated(4)
    assert run.game.phase is Phase.STAKE and run.game.turn == 2


def test_the_banker_leaving_before_naming_the_bank_hands_the_naming_on() -> None:
    run = Recorder(table("classic36", P3, lots=[0]))
    run("start")
    assert (run.game.phase, run.game.turn) == (Phase.BANK, 1)
    run("leave", 1)
    # No round was played: the next banker names the bank now, no "round over".
    assert (run.game.phase, run.game.turn, run.game.banker) == (Phase.BANK, 2, 2)
    assert run.game.round_no == 0


def test_twodecks_end_says_who_declined_and_who_was_broke() -> None:
    # The banker (1) has a natural: 3 and 4 lose everything they staked.
    deck = ["5S", "5H", "5D", "AS", "6S", "6H", "6D", "KS"]
    players = [(1, 200), (2, 100), (3, 100), (4, 100)]
    run = Recorder(table("twodecks104", players, decks=[deck], lots=[0]))
    run("start")
    run("set_bank", 1, 200)
    run("stake", 2, 1)
    run("stake", 3, 100)
    run("stake", 4, 100)
    assert run.game.phase is Phase.ROUND_OVER
    assert run.game.banker == 2  # the bank passes every round
    run("next_round")
    assert (run.game.phase, run.game.turn) == (Phase.BANK, 2)
    events = run("pass_bank", 2)  # Борис declines; 3 and 4 have nothing, 1 has dealt
    (ended,) = of(events, SessionEnded)
    assert ended.reason == "no_banker"  # not "everyone has dealt": only 1 did
    assert ended.declined == (2,)
    assert ended.broke == (3, 4)
    assert ended.dealt == (1,)


def test_every_one_dealt_is_all_dealt() -> None:
    run = Recorder(table("twodecks104", [(1, 100), (2, 100)], lots=[0]))
    run("start")
    for banker in (1, 2):
        assert run.game.banker == banker
        run("set_bank", banker, 10)
        other = 3 - banker
        run("stake", other, 1)
        while run.game.turn is not None:
            run("stand", run.game.turn)
        if run.game.phase is Phase.ROUND_OVER:
            run("next_round")
    (ended,) = of(run.events, SessionEnded)
    assert (ended.reason, ended.declined, ended.dealt) == ("all_dealt", (), (1, 2))


def test_end_with_a_reason_is_logged_and_replayed() -> None:
    run = two_winners()
    events = run("end", "expired")
    (ended,) = of(events, SessionEnded)
    assert ended.reason == "expired"
    replayed = Game.replay(run.game.variant, run.game.log)
    assert replayed.to_dict() == run.game.to_dict()
    with pytest.raises(Exception, match="unknown reason"):
        two_winners().game.end("bored")


def test_decliners_survive_the_round_trip_and_copy() -> None:
    run = Recorder(table("classic36", [(1, 100), (2, 100), (3, 100), (4, 100)], lots=[0]))
    run("start")
    run("pass_bank", 1)  # 1 declines; 2 names the bank next
    assert run.game.decliners == [1]
    assert Game.from_dict(run.game.to_dict()).decliners == [1]
    assert run.game.copy().decliners == [1]
    run("set_bank", 2, 10)
    assert run.game.decliners == []
