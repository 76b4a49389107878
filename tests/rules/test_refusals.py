"""Every refusal is typed, says why, and leaves the state byte-for-byte unchanged."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from rules.errors import (
    AlreadyLeaving,
    AlreadySeated,
    AmountOutOfRange,
    BankerDoesNotStake,
    BankerNamesBank,
    BankerNoDark,
    BankFirst,
    BankNamed,
    CannotAfford,
    CannotPassBank,
    DarkDrawOff,
    GameOver,
    NoBankToName,
    NotEnoughPlayers,
    NotSeated,
    NotYourTurn,
    RoundOn,
    RulesError,
    StakeFirst,
    TableFull,
    TooManyCards,
    WrongPhase,
    YourDraw,
)
from rules.game import Game
from rules.state import MAX_AMOUNT
from rules.table import Phase
from rules.variants import CLASSIC36, with_overrides
from tests.rules.helpers import table

P3 = [(1, 100), (2, 50), (3, 50)]


def lobby() -> Game:
    return table("classic36", [(1, 100)])


def lobby2() -> Game:
    return table("classic36", [(1, 100), (2, 0)])


def full() -> Game:
    return table("home36", [(p, 10) for p in range(1, 5)])


def bank() -> Game:
    game = table("classic36", P3, decks=[["10S", "9S", "7H", "8D"]])
    game.start()
    return game


def staking() -> Game:
    game = bank()
    game.set_bank(1, 40)
    return game


def drawing() -> Game:
    game = staking()
    game.stake(2, 10)
    return game


def banker_drawing() -> Game:
    game = drawing()
    game.stand(2)
    game.stake(3, 5)
    game.stand(3)
    assert game.phase is Phase.BANKER
    return game


def no_dark() -> Game:
    variant = with_overrides(CLASSIC36, {"dark_draw": False})
    game = table(variant, P3)
    game.start()
    game.set_bank(1, 40)
    game.stake(2, 10)
    return game


def home_staking() -> Game:
    game = table("home36", [(1, 30), (2, 9), (3, 100)])
    game.start()
    return game


def twodecks_banker() -> Game:
    game = table("twodecks104", P3, decks=[["10S", "9S", "8S", "5D", "5H", "6C"]])
    game.start()
    game.set_bank(1, 40)
    game.stake(2, 5)
    game.stake(3, 5)
    assert game.phase is Phase.BANKER
    return game


def round_over() -> Game:
    game = banker_drawing()
    game.stand(1)
    assert game.phase is Phase.ROUND_OVER
    return game


def third_round() -> Game:
    """The banker's third round of the three after which he may pass the bank."""
    game = round_over()
    for _ in range(1):
        game.next_round()
        if game.phase is Phase.BANK:
            game.set_bank(1, 40)
        while game.phase is not Phase.ROUND_OVER:
            turn = game.turn
            assert turn is not None
            if game.phase is Phase.STAKE:
                game.stake(turn, 1)
            else:
                game.stand(turn)
    game.next_round()
    if game.phase is Phase.BANK:
        game.set_bank(1, 40)
    assert game.banker == 1 and game.banker_rounds == 2 and game.phase is Phase.STAKE
    return game


def five_cards() -> Game:
    """A hand that somehow holds five cards while its owner is still drawing."""
    game = drawing()
    data = game.to_dict()
    hand = next(h for h in data["hands"] if h["player"] == 2)
    hand["cards"] = ["6S", "6H", "JC", "JD", "QS"]
    hand["face_up"] = [False] * 5
    hand["dark"] = [False] * 5
    data["stock"] = [c for c in data["stock"] if c not in hand["cards"]]
    return Game.from_dict(data)


def leaving() -> Game:
    game = drawing()
    game.leave(3)
    return game


def ended() -> Game:
    game = drawing()
    game.end()
    return game


Case = tuple[Callable[[], Game], str, tuple[Any, ...], type[RulesError], dict[str, Any]]

CASES: list[Case] = [
    # lobby
    (lobby, "start", (), NotEnoughPlayers, {"minimum": 2, "missing": 1}),
    (lobby2, "start", (), NotEnoughPlayers, {"minimum": 2, "missing": 1}),
    (lobby, "join", (1, 10), AlreadySeated, {"player": 1}),
    (lobby, "join", (2, -1), AmountOutOfRange, {"minimum": 0, "maximum": MAX_AMOUNT}),
    (lobby, "join", (2, MAX_AMOUNT + 1), AmountOutOfRange, {"minimum": 0, "maximum": MAX_AMOUNT}),
    (full, "join", (5, 10), TableFull, {"seats": 4}),
    (lobby, "leave", (9,), NotSeated, {"player": 9}),
    # Someone not seated is told so, not that the game has not started (waiting won't help).
    *[
        (lobby, action, args, NotSeated, {"player": 9})
        for action, args in [
            ("stake", (9, 10)),
            ("set_bank", (9, 10)),
            ("hit", (9,)),
            ("stand", (9,)),
            ("dark", (9,)),
            ("pass_bank", (9,)),
        ]
    ],
    (drawing, "stake", (9, 5), NotSeated, {"player": 9}),
    (lobby, "set_bank", (1, 10), WrongPhase, {"phase": "lobby", "expected": "bank"}),
    (lobby, "stake", (1, 10), WrongPhase, {"phase": "lobby", "expected": "stake"}),
    (lobby, "hit", (1,), WrongPhase, {"phase": "lobby", "expected": "draw"}),
    (lobby, "stand", (1,), WrongPhase, {"phase": "lobby", "expected": "draw"}),
    (lobby, "timeout", (), WrongPhase, {"phase": "lobby"}),
    (lobby, "next_round", (), WrongPhase, {"phase": "lobby", "expected": "round_over"}),
    (lobby, "pass_bank", (1,), WrongPhase, {"player": 1, "phase": "lobby"}),  # no banker yet
    # the banker names the bank
    (bank, "set_bank", (1, 0), AmountOutOfRange, {"minimum": 1, "maximum": 100, "what": "bank"}),
    (bank, "set_bank", (1, 101), AmountOutOfRange, {"minimum": 1, "maximum": 100}),
    (bank, "set_bank", (1, -3), AmountOutOfRange, {"minimum": 1, "maximum": 100}),
    (bank, "set_bank", (2, 10), BankerNamesBank, {"player": 2, "turn": 1, "banker": 1}),
    (bank, "set_bank", (9, 10), NotSeated, {"player": 9}),
    (bank, "pass_bank", (2,), CannotPassBank, {"player": 2}),
    (bank, "start", (), WrongPhase, {"phase": "bank"}),
    (bank, "join", (2, 5), AlreadySeated, {"player": 2}),
    # stakes
    (staking, "stake", (3, 5), NotYourTurn, {"player": 3, "turn": 2}),
    (staking, "stake", (1, 5), BankerDoesNotStake, {"player": 1, "turn": 2}),
    (staking, "stake", (9, 5), NotSeated, {"player": 9}),
    (staking, "stake", (2, 0), AmountOutOfRange, {"minimum": 1, "maximum": 40}),
    (staking, "stake", (2, -5), AmountOutOfRange, {"minimum": 1, "maximum": 40}),
    (staking, "stake", (2, 41), AmountOutOfRange, {"minimum": 1, "maximum": 40}),
    # Above what the bank allows: out of range, whatever the balance could cover.
    (staking, "stake", (2, 51), AmountOutOfRange, {"minimum": 1, "maximum": 40}),
    (staking, "stake", (2, 10**15), AmountOutOfRange, {"minimum": 1, "maximum": 40}),
    (staking, "hit", (2,), StakeFirst, {"phase": "stake", "minimum": 1, "maximum": 40}),
    (staking, "dark", (2,), StakeFirst, {"phase": "stake", "expected": "draw"}),
    (staking, "stand", (2,), StakeFirst, {"phase": "stake", "maximum": 40}),
    (staking, "next_round", (), WrongPhase, {"phase": "stake", "expected": "round_over"}),
    # The banker's /passbank mid-round says the real condition at once: in his first round of
    # three it is the rounds (0 played), not «wait for the round's end» and then the rounds.
    (staking, "pass_bank", (1,), CannotPassBank, {"rounds": 3, "played": 0, "why": "rounds"}),
    (drawing, "pass_bank", (1,), CannotPassBank, {"rounds": 3, "played": 0, "why": "rounds"}),
    (third_round, "pass_bank", (1,), RoundOn, {"action": "pass_bank", "turn": 2}),
    (home_staking, "pass_bank", (1,), CannotPassBank, {"why": "never"}),
    # While someone is on the clock, anybody else's move is "not your turn", whatever it is.
    (staking, "set_bank", (1, 5), BankNamed, {"player": 1, "turn": 2, "bank": 40}),
    (staking, "hit", (3,), NotYourTurn, {"player": 3, "turn": 2, "phase": "stake"}),
    (staking, "stand", (1,), NotYourTurn, {"player": 1, "turn": 2}),
    (staking, "hit", (9,), NotSeated, {"player": 9}),
    (drawing, "stake", (3, 5), NotYourTurn, {"player": 3, "turn": 2, "phase": "draw"}),
    (bank, "stake", (2, 5), WrongPhase, {"player": 2, "turn": 1, "phase": "bank"}),
    (home_staking, "stake", (2, 5), CannotAfford, {"minimum": 1, "maximum": 4, "balance": 9}),
    (home_staking, "stake", (2, 0), AmountOutOfRange, {"minimum": 1, "maximum": 4}),
    # drawing
    (drawing, "hit", (3,), NotYourTurn, {"player": 3, "turn": 2}),
    (drawing, "hit", (1,), NotYourTurn, {"player": 1, "turn": 2}),
    (drawing, "hit", (9,), NotSeated, {"player": 9}),
    (drawing, "dark", (3,), NotYourTurn, {"player": 3, "turn": 2}),
    (drawing, "stand", (3,), NotYourTurn, {"player": 3, "turn": 2}),
    (drawing, "stake", (2, 5), YourDraw, {"phase": "draw", "action": "stake"}),
    (no_dark, "dark", (2,), DarkDrawOff, {"option": "dark_draw"}),
    (banker_drawing, "dark", (1,), BankerNoDark, {"option": "dark_draw"}),
    (banker_drawing, "hit", (2,), NotYourTurn, {"player": 2, "turn": 1}),
    (twodecks_banker, "dark", (1,), DarkDrawOff, {"option": "dark_draw"}),
    (twodecks_banker, "hit", (2,), NotYourTurn, {"player": 2, "turn": 1}),
    (five_cards, "hit", (2,), TooManyCards, {"maximum": 5}),
    (five_cards, "dark", (2,), TooManyCards, {"maximum": 5}),
    (leaving, "leave", (3,), AlreadyLeaving, {"player": 3}),
    # between rounds
    (round_over, "pass_bank", (1,), CannotPassBank, {"rounds": 3, "played": 1}),
    (round_over, "pass_bank", (2,), CannotPassBank, {"banker": 1, "why": "not_banker"}),
    (round_over, "timeout", (), WrongPhase, {"phase": "round_over"}),
    (round_over, "hit", (2,), WrongPhase, {"phase": "round_over", "expected": "draw"}),
    (round_over, "start", (), WrongPhase, {"phase": "round_over"}),
    # after the end
    *[
        (ended, action, args, GameOver, {})
        for action, args in [
            ("join", (9, 5)),
            ("leave", (2,)),
            ("start", ()),
            ("set_bank", (1, 5)),
            ("pass_bank", (1,)),
            ("stake", (2, 5)),
            ("hit", (2,)),
            ("dark", (2,)),
            ("stand", (2,)),
            ("timeout", ()),
            ("next_round", ()),
            ("end", ()),
        ]
    ],
]


def _id(case: Case) -> str:
    setup, action, args, error, _ = case
    return f"{setup.__name__}-{action}{args}-{error.__name__}"


@pytest.mark.parametrize("case", CASES, ids=[_id(case) for case in CASES])
def test_refusal(case: Case) -> None:
    setup, action, args, error, params = case
    game = setup()
    before = game.to_json()
    log_length = len(game.log)
    # verify_x raises the typed error with its parameters ...
    with pytest.raises(error) as info:
        getattr(game, f"verify_{action}")(*args)
    assert type(info.value) is error
    assert info.value.code == error.code
    assert str(info.value)
    for key, value in params.items():
        assert info.value.params[key] == value, key
    # ... can_x says no ...
    assert getattr(game, f"can_{action}")(*args) is False
    # ... and the action itself refuses without touching the state.
    with pytest.raises(error):
        getattr(game, action)(*args)
    assert game.to_json() == before
    assert len(game.log) == log_length


def test_legal_actions_agree_with_can() -> None:
    checks: list[tuple[Callable[[], Game], str, tuple[Any, ...]]] = [
        (bank, "set_bank", (1, 100)),
        (staking, "stake", (2, 40)),
        (drawing, "hit", (2,)),
        (drawing, "dark", (2,)),
        (drawing, "stand", (2,)),
        (banker_drawing, "hit", (1,)),
        (round_over, "next_round", ()),
    ]
    for setup, action, args in checks:
        game = setup()
        legal = game.legal_actions()
        assert action in legal.actions
        assert getattr(game, f"can_{action}")(*args)
    assert "dark" not in banker_drawing().legal_actions().actions
    assert "hit" not in five_cards().legal_actions().actions


# The refusal said as its real reason, with the way forward (rules.refusals): the same for every
# caller of verify_x, whoever draws it (the chat, the Mini App).
def test_a_move_of_another_stage_by_the_one_to_act_says_what_to_do() -> None:
    game = bank()
    with pytest.raises(BankFirst) as named:
        game.verify_hit(1)  # the banker, whose turn it is to name the bank
    assert named.value.params == named.value.params | {"minimum": 1, "maximum": 100}
    game.set_bank(1, 40)
    with pytest.raises(StakeFirst) as staked:
        game.verify_start(2)  # /deal typed by the one to stake
    assert staked.value.params["maximum"] == 40
    with pytest.raises(RoundOn) as on:
        game.verify_next_round(3)  # someone else
    assert on.value.params["action"] == "next_round" and on.value.params["turn"] == 2
    # Without a person (the engine's own steps, a replay), the plain refusal.
    with pytest.raises(WrongPhase) as plain:
        game.verify_next_round()
    assert type(plain.value) is WrongPhase


def test_too_few_players_says_how_many_more_must_sit_down() -> None:
    with pytest.raises(NotEnoughPlayers) as few:
        lobby().verify_start(1)  # the one seated: how many more must sit down
    assert few.value.params["missing"] == 1


def test_naming_the_bank_where_the_banker_puts_up_everything() -> None:
    game = table("home36", P3)
    game.start()
    with pytest.raises(NoBankToName):
        game.verify_set_bank(2, 10)
