"""Game.copy(): the same state as a JSON round trip, sharing nothing mutable with the original.

Every state a session passes through is copied and checked: the copy serializes exactly as the
original and as ``Game.from_dict(original.to_dict())``; no list, dict, seat or hand is shared;
every legal action on the copy leaves the original as it was and vice versa; and a copy given a
random source plays the next shuffles and lots from that source, exactly like ``from_dict``.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rules.events import Event
from rules.game import Game, new_game
from rules.randomness import SystemRandomSource, seeded
from rules.table import HandStatus, Phase
from rules.variants import CLASSIC36, PRESETS, BankMode, Variant, with_overrides
from tests.rules.helpers import ScriptedSource
from tests.rules.test_properties import new_table, play
from tests.rules.test_session import RECYCLE_DECK

PRESET_NAMES = list(PRESETS)
NEWCOMER = 77

Move = tuple[str, tuple[Any, ...]]


def legal_moves(game: Game) -> list[Move]:
    """Every legal action now (both ends of an amount range), as (method, arguments)."""
    legal = game.legal_actions()
    found: list[Move] = []
    for action in sorted(legal.actions):
        if action == "join":
            found.append((action, (NEWCOMER, 50)))
        elif action == "leave":
            found.extend((action, (p,)) for p in game.players)
        elif action == "pass_bank":
            found.append((action, (game.banker,)))
        elif action in ("set_bank", "stake"):
            found.extend((action, (legal.actor, a)) for a in {legal.minimum, legal.maximum})
        elif action in ("hit", "dark", "stand"):
            found.append((action, (legal.actor,)))
        else:
            found.append((action, ()))
    return [(a, args) for a, args in found if getattr(game, f"can_{a}")(*args)]


def act(game: Game, move: Move) -> list[Event]:
    action, args = move
    events: list[Event] = getattr(game, action)(*args)
    return events


def assert_nothing_shared(a: Game, b: Game) -> None:
    """No mutable container, seat or hand of one game belongs to the other."""
    assert a.variant is b.variant  # frozen: shared on purpose
    for name in ("seats", "stock", "discards", "hands", "order", "shuffles", "log", "_events"):
        assert getattr(a, name) is not getattr(b, name), name
    for sa, sb in zip(a.seats, b.seats, strict=True):
        assert sa is not sb
    for p in a.hands:
        ha, hb = a.hands[p], b.hands[p]
        assert ha is not hb
        assert ha.cards is not hb.cards
        assert ha.face_up is not hb.face_up
        assert ha.dark is not hb.dark
    for xa, xb in zip(a.shuffles, b.shuffles, strict=True):
        assert xa is not xb
        assert xa["order"] is not xb["order"]
        assert xa["dealt"] is not xb["dealt"]


def check_copy(game: Game, salt: int) -> None:
    """All the promises of copy() at the current state of ``game`` (left unchanged)."""
    state = game.to_dict()
    copy = game.copy()
    assert copy.to_dict() == state
    assert copy.to_dict() == Game.from_dict(state).to_dict()
    assert copy.legal_actions() == game.legal_actions()
    assert copy._events == []
    assert isinstance(copy.source, SystemRandomSource) and copy.source is not game.source
    assert_nothing_shared(game, copy)
    for index, move in enumerate(legal_moves(game)):
        # Acting on the copy leaves the original alone.
        copy = game.copy()
        act(copy, move)
        assert game.to_dict() == state, move
        # Acting on the original leaves the copy alone.
        original = Game.from_dict(state)
        copy = original.copy()
        act(original, move)
        assert copy.to_dict() == state, move
        # With the same source, the copy plays on exactly as the JSON round trip does.
        seed = salt * 1000 + index
        copy = game.copy(seeded(seed))
        twin = Game.from_dict(state, seeded(seed))
        assert act(copy, move) == act(twin, move), move
        assert copy.to_dict() == twin.to_dict(), move
    assert game.to_dict() == state


def drive(
    game: Game, rng: random.Random, steps: int, *, greed: float = 0.7, ending: float = 0.01
) -> Iterator[Game]:
    """Random legal play that draws (hit or dark) with probability ``greed`` when it may and
    ends the session with probability ``ending``: yields the game before every step and once
    more at the end."""
    for _ in range(steps):
        yield game
        moves = [m for m in legal_moves(game) if m[0] not in ("end", "join", "leave")]
        if not moves or rng.random() < ending:
            moves = [("end", ())] if game.can_end() else []
        if not moves:
            break
        drawing = [m for m in moves if m[0] in ("hit", "dark")]
        act(game, rng.choice(drawing if drawing and rng.random() < greed else moves))
    yield game


def session(variant: Variant, seats: int, seed: int, *, house: bool = False) -> Game:
    """``seats`` players with 100 chips each; with ``house``, player 0 is the house banker."""
    game = Game(variant, seeded(seed))
    if house:
        game.join(0, 5_000, house=True)
    for player in range(1, seats + 1 - int(house)):
        game.join(player, 100)
    return game


@pytest.mark.parametrize("name", PRESET_NAMES)
def test_copy_at_every_state_of_random_sessions(name: str) -> None:
    variant = PRESETS[name]
    phases: set[Phase] = set()
    dark = False
    for seed in range(4):
        seats = variant.min_seats if seed % 2 else variant.max_seats
        game = session(variant, seats, seed, house=seed >= 2)
        assert (game.house == 0) == (seed >= 2)
        for state in drive(game, random.Random(seed), 150):
            check_copy(state, seed)
            phases.add(state.phase)
            dark = dark or any(any(h.dark) for h in state.hands.values())
    # The sessions reached every kind of state worth copying.
    named = variant.bank_mode is BankMode.NAMED  # an all-in bank is never asked for
    assert phases == set(Phase) - (set() if named else {Phase.BANK})
    assert dark == variant.dark_draw


def test_copy_around_the_recycling_of_the_stock() -> None:
    """The scripted table of test_session whose stock runs out mid-round: copies with an empty
    stock must recycle the discards (their own) exactly like the JSON round trip."""
    variant = with_overrides(CLASSIC36, {"max_seats": 10})
    players = [(p, 20) for p in range(1, 10)] + [(10, 100)]
    source = ScriptedSource(decks=[RECYCLE_DECK, ["JH"]], lots=[9])
    game = new_game(variant, players, source=source)
    game.start()
    game.set_bank(10, 100)
    emptied = 0
    while game.phase in (Phase.STAKE, Phase.DRAW):
        check_copy(game, 7)
        emptied += not game.stock
        player = game.whose_turn()
        assert player is not None
        if game.phase is Phase.STAKE:
            game.stake(player, 1)
        else:
            game.hit(player)
    check_copy(game, 7)  # the last hit recycled the discards and ended the round
    assert emptied and game.phase is Phase.ROUND_OVER
    assert [shuffle["recycled"] for shuffle in game.shuffles] == [False, True]


@pytest.mark.parametrize("name", PRESET_NAMES)
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_copy_after_random_legal_and_illegal_actions(name: str, data: st.DataObject) -> None:
    game = new_table(name, data)
    if game.can_start() and data.draw(st.booleans(), label="start now?"):
        game.start()
    play(game, data, data.draw(st.integers(0, 80), label="steps"))
    check_copy(game, data.draw(st.integers(0, 99), label="salt"))


def test_copy_takes_the_given_source_for_the_lot_and_the_deck() -> None:
    game = new_game(CLASSIC36, [(1, 100), (2, 100), (3, 100)], source=seeded(1))
    copy = game.copy(ScriptedSource(decks=[["AS", "KD", "QC", "JH"]], lots=[2]))
    copy.start()
    assert copy.banker == 3
    copy.set_bank(3, 30)
    assert copy.log[-1]["a"] == "shuffle" and copy.log[-1]["order"][:4] == ["AS", "KD", "QC", "JH"]
    assert copy.hands[1].codes == ("AS",)
    assert game.phase is Phase.LOBBY and game.log == copy.log[:3]
    # The original stayed in the lobby: another copy starts over with its own script.
    source = ScriptedSource(decks=[["6H"]], lots=[1])
    other = game.copy(source)
    assert other.source is source
    other.start()
    assert other.banker == 2


def test_a_copy_mid_round_plays_its_own_hand() -> None:
    game = new_game(CLASSIC36, [(1, 100), (2, 100), (3, 100)], source=ScriptedSource(lots=[0]))
    game.start()
    game.set_bank(1, 40)
    game.stake(2, 5)
    assert game.phase is Phase.DRAW and game.whose_turn() == 2
    before = game.to_dict()
    copy = game.copy(ScriptedSource())
    copy.dark(2)
    assert copy.hands[2].dark == [False, True]
    assert copy.hands[2].status is HandStatus.STOOD
    assert game.hands[2].dark == [False] and game.hands[2].status is HandStatus.DRAWING
    assert len(game.stock) == len(copy.stock) + 1
    assert game.to_dict() == before
    game.stand(2)
    assert copy.hands[2].status is HandStatus.STOOD and copy.whose_turn() == 3
    assert game.hands[2].dark == [False]
