"""Property tests over random legal and illegal action sequences, for every preset.

After every step: chips are conserved (only joining and leaving players bring or take chips), no
balance or bank is negative, a refused action leaves the JSON state identical, and an action the
engine calls legal succeeds. At the end: the JSON round trip is exact, a replay of the log
reproduces the state, and end() always ends the session with the bank returned.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rules.errors import RulesError
from rules.events import Event, PlayerLeft, PlayerSeated
from rules.game import Game, new_game
from rules.randomness import seeded
from rules.table import Phase
from rules.variants import PRESETS, BankMode, with_overrides
from tests.rules.helpers import balances, moves

PRESET_NAMES = list(PRESETS)
ACTIONS = [
    "join",
    "leave",
    "start",
    "set_bank",
    "pass_bank",
    "stake",
    "hit",
    "dark",
    "stand",
    "timeout",
    "next_round",
]
OUTSIDERS = [90, 91]
AMOUNTS = st.one_of(
    st.integers(-3, 3),
    st.integers(-(10**6), 10**6),
    st.integers(0, 300),
    st.sampled_from([10**12, 10**12 + 1, 10**18]),
)
SETTINGS = settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def call(game: Game, action: str, player: int, amount: int) -> list[Event]:
    if action in ("join", "set_bank", "stake"):
        return list(getattr(game, action)(player, amount))
    if action in ("leave", "pass_bank", "hit", "dark", "stand"):
        return list(getattr(game, action)(player))
    return list(getattr(game, action)())


def can(game: Game, action: str, player: int, amount: int) -> bool:
    method = getattr(game, f"can_{action}")
    if action in ("join", "set_bank", "stake"):
        return bool(method(player, amount))
    if action in ("leave", "pass_bank", "hit", "dark", "stand"):
        return bool(method(player))
    return bool(method())


def chips_brought(before: dict[int, int], events: list[Event]) -> int:
    """Chips that came to the table (joins) minus chips that left it (leavers' balances)."""
    change = 0
    for event in events:
        if isinstance(event, PlayerSeated):
            change += event.balance
        elif isinstance(event, PlayerLeft):
            carried = before.get(event.player, 0)
            for source, target, amount, _ in moves(events):
                carried += amount if target == event.player else 0
                carried -= amount if source == event.player else 0
            change -= carried
    return change


def check_invariants(game: Game) -> None:
    assert game.bank >= 0
    assert all(seat.balance >= 0 for seat in game.seats)
    if game.phase is Phase.ENDED:
        assert game.bank == 0
    if game.phase in (Phase.LOBBY, Phase.ROUND_OVER):
        assert game.turn is None or game.phase is Phase.ROUND_OVER


def pick_legal(game: Game, data: st.DataObject) -> tuple[str, int, int, bool]:
    """A move from legal_actions(); the last item says whether it must succeed."""
    legal = game.legal_actions()
    options = sorted(legal.actions - {"end"})
    action = data.draw(st.sampled_from(options), label="legal action")
    if action in ("join", "leave"):
        player = data.draw(st.sampled_from(game.players + OUTSIDERS), label="who")
        return action, player, data.draw(st.integers(0, 200), label="balance"), False
    if action == "pass_bank":
        return action, game.banker or 0, 0, True
    if action in ("set_bank", "stake"):
        amount = data.draw(st.integers(legal.minimum, legal.maximum), label="amount")
        return action, legal.actor or 0, amount, True
    return action, legal.actor or 0, 0, True


def play(game: Game, data: st.DataObject, steps: int) -> None:
    for _ in range(steps):
        if game.is_over:
            break
        if data.draw(st.integers(0, 3), label="legal?") > 0:
            action, player, amount, must = pick_legal(game, data)
        else:
            action = data.draw(st.sampled_from(ACTIONS), label="action")
            player = data.draw(st.sampled_from(game.players + OUTSIDERS), label="player")
            amount = data.draw(AMOUNTS, label="amount")
            must = False
        before_json = game.to_json()
        before_total = game.total_chips()
        before = balances(game)
        allowed = can(game, action, player, amount)
        assert game.to_json() == before_json  # asking changes nothing
        try:
            events = call(game, action, player, amount)
        except RulesError:
            assert not allowed and not must, (action, player, amount)
            assert game.to_json() == before_json
            continue
        assert allowed, (action, player, amount)
        assert game.total_chips() == before_total + chips_brought(before, events)
        check_invariants(game)


def new_table(name: str, data: st.DataObject) -> Game:
    variant = PRESETS[name]
    count = data.draw(st.integers(variant.min_seats, variant.max_seats), label="seats")
    money = st.one_of(st.integers(0, 3), st.integers(0, 200))
    seats = [(p, data.draw(money, label="balance")) for p in range(1, count + 1)]
    seed = data.draw(st.integers(0, 2**32 - 1), label="seed")
    return new_game(variant, seats, source=seeded(seed))


def finish_checks(game: Game) -> None:
    text = game.to_json()
    assert Game.from_json(text).to_json() == text
    assert Game.replay(game.variant, game.log).to_json() == text
    if not game.is_over:
        total = game.total_chips()
        game.end()
        assert game.phase is Phase.ENDED
        assert game.bank == 0
        assert game.total_chips() == total
        assert game.legal_actions().actions == frozenset()


@pytest.mark.parametrize("name", PRESET_NAMES)
@SETTINGS
@given(data=st.data())
def test_random_sessions_keep_every_invariant(name: str, data: st.DataObject) -> None:
    game = new_table(name, data)
    if game.can_start() and data.draw(st.integers(0, 9), label="start now?") > 0:
        game.start()
    play(game, data, data.draw(st.integers(1, 150), label="steps"))
    finish_checks(game)


def policy_step(game: Game) -> str:
    """The bot's idle policy: timeouts on the clock, next round between rounds."""
    if game.phase is Phase.ROUND_OVER:
        game.next_round()
        return "next_round"
    if game.can_timeout():
        game.timeout()
        return "timeout"
    if game.can_start():
        game.start()
        return "start"
    game.end()
    return "end"


@pytest.mark.parametrize("name", PRESET_NAMES)
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_every_session_terminates(name: str, data: st.DataObject) -> None:
    game = new_table(name, data)
    play(game, data, data.draw(st.integers(0, 60), label="steps"))
    # Every round finishes within a bounded number of idle steps, so the session never stalls.
    seats = PRESETS[name].max_seats + 2
    rounds_before = game.round_no
    for _ in range(seats * 4 * 10):
        if game.is_over:
            break
        policy_step(game)
        check_invariants(game)
    # Idle rounds may repeat while a bank stands (the bot's idle expiry ends such a table),
    # but no round ever stalls: the session either ended or rounds kept completing.
    assert game.is_over or game.round_no > rounds_before
    finish_checks(game)


@pytest.mark.parametrize("name", PRESET_NAMES)
def test_a_playing_session_terminates(name: str) -> None:
    """Everyone stakes the minimum and stands on 15; rounds go on until someone ends it."""
    variant = PRESETS[name]
    game = new_game(variant, [(p, 30) for p in range(1, variant.max_seats + 1)], source=seeded(1))
    game.start()
    steps = 0
    while not game.is_over and game.round_no < 200 and steps < 20_000:
        steps += 1
        legal = game.legal_actions()
        actor = legal.actor
        if legal.phase is Phase.ROUND_OVER:
            game.next_round()
        elif legal.phase is Phase.BANK and actor is not None:
            game.set_bank(actor, legal.maximum)
        elif legal.phase is Phase.STAKE and actor is not None:
            game.stake(actor, legal.minimum)
        elif actor is not None and "hit" in legal.actions and game.hand_value(actor).total < 15:
            game.hit(actor)
        elif actor is not None:
            game.stand(actor)
        check_invariants(game)
        assert game.total_chips() == 30 * variant.max_seats
    if variant.end_when_all_dealt:
        assert game.is_over and game.round_no == variant.max_seats
    finish_checks(game)


@pytest.mark.parametrize("name", PRESET_NAMES)
def test_idle_bankers_end_a_named_bank_session(name: str) -> None:
    """Where the banker names the bank, idle bankers decline in turn and the session ends."""
    variant = PRESETS[name]
    if variant.bank_mode is not BankMode.NAMED:
        variant = with_overrides(PRESETS["classic36"], {"max_seats": variant.max_seats})
    game = new_game(variant, [(p, 10) for p in range(1, variant.max_seats + 1)], source=seeded(2))
    game.start()
    for _ in range(variant.max_seats):
        assert game.phase is Phase.BANK
        game.timeout()
    assert game.is_over
    assert game.total_chips() == 10 * variant.max_seats
