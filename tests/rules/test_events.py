"""Event.from_dict(): every event back from its stored JSON form, by kind, exactly as it was.

The bot stores the events it shows later (a round's result, how a session ended, the table's
news) as ``to_dict()`` JSON and decodes them with ``Event.from_dict``: every event of random
sessions of every preset must come back equal, of its own class, with tuples and nested records
(transfers, results, shuffles) rebuilt; forms stored before a field existed take its default.
"""

from __future__ import annotations

import inspect
import json
import random
from typing import Any

import pytest

from rules import events as events_module
from rules.events import (
    EVENT_TYPES,
    BankPassed,
    ChipsMoved,
    Event,
    PlayerResult,
    RevealedShuffle,
    RoundSettled,
    SessionEnded,
    Stood,
    Transfer,
)
from rules.variants import PRESETS
from tests.rules.test_copy import act, legal_moves, session


def stored(event: Event) -> dict[str, Any]:
    """What the bot keeps: the event's dict through JSON (tuples become lists)."""
    loaded: dict[str, Any] = json.loads(json.dumps(event.to_dict()))
    return loaded


def test_every_event_class_has_its_own_kind() -> None:
    declared = {
        cls
        for _, cls in inspect.getmembers(events_module, inspect.isclass)
        if issubclass(cls, Event) and cls is not Event
    }
    assert set(EVENT_TYPES.values()) == declared
    assert all(EVENT_TYPES[cls.kind] is cls for cls in declared)


@pytest.mark.parametrize("name", list(PRESETS))
def test_every_event_of_random_sessions_comes_back(name: str) -> None:
    variant = PRESETS[name]
    kinds: set[str] = set()
    for seed in range(3):
        game = session(variant, variant.max_seats, seed, house=seed == 2)
        rng = random.Random(seed)
        for _ in range(200):
            moves = [m for m in legal_moves(game) if m[0] not in ("join", "leave")]
            if not moves:
                break
            # Rarely the end, so that most sessions play many rounds first.
            playing = [m for m in moves if m[0] != "end"] if rng.random() > 0.01 else []
            for event in act(game, rng.choice(playing or moves)):
                decoded = Event.from_dict(stored(event))
                assert type(decoded) is type(event)
                assert decoded == event
                assert type(event).from_dict(stored(event)) == event
                kinds.add(event.kind)
    # The sessions produced the kinds with nested records and tuples.
    assert {"round_settled", "chips", "session_ended", "card_dealt", "shuffled"} <= kinds


def test_nested_records_are_rebuilt() -> None:
    settled = RoundSettled(
        round_no=3,
        banker=1,
        banker_cards=("10S", "7H"),
        banker_total=17,
        banker_bust=False,
        results=(
            PlayerResult(2, "win", 10, 10, 19, ("9S", "KH"), False, False, False, False, True),
        ),
        bank=90,
        balances=((1, 900), (2, 1010)),
        shuffles=(RevealedShuffle("c" * 64, "s", ("10S", "7H"), ("10S",), recycled=True),),
    )
    decoded = RoundSettled.from_dict(stored(settled))
    assert decoded == settled
    assert isinstance(decoded.results[0], PlayerResult)
    assert isinstance(decoded.shuffles[0], RevealedShuffle)
    assert decoded.balances == ((1, 900), (2, 1010))
    chips = ChipsMoved(Transfer("bank", 2, 10, "win"))
    assert Event.from_dict(stored(chips)).transfer == Transfer("bank", 2, 10, "win")
    passed = BankPassed(1, None, 0, "declined")
    assert Event.from_dict(stored(passed)) == passed


def test_forms_stored_before_a_field_existed_take_its_default() -> None:
    result = {
        "player": 2,
        "outcome": "lose",
        "stake": 5,
        "net": -5,
        "total": 15,
        "cards": ["9S", "6H"],
        "bust": False,
        "twenty_one": False,
        "golden": False,
        "natural": False,
        "dark": False,
    }  # no "due"
    old = {
        "kind": "round_settled",
        "round_no": 1,
        "banker": 1,
        "banker_cards": ["10S", "9H"],
        "banker_total": 19,
        "banker_bust": False,
        "results": [result],
        "bank": 105,
        "balances": [[1, 895], [2, 995]],
    }  # no "shuffles"
    decoded = RoundSettled.from_dict(old)
    assert decoded.shuffles == ()
    assert decoded.results[0].due == 0
    assert decoded.results[0].cards == ("9S", "6H")
    shuffle = {"commitment": "c", "salt": "s", "order": ["6S"]}  # no "dealt" nor "recycled"
    with_shuffle = RoundSettled.from_dict({**old, "shuffles": [shuffle]})
    assert with_shuffle.shuffles == (RevealedShuffle("c", "s", ("6S",), (), False),)
    ended = SessionEnded.from_dict({"kind": "session_ended", "reason": "ended", "balances": []})
    assert (ended.declined, ended.broke, ended.dealt) == ((), (), ())


def test_a_kind_that_is_not_asked_for_is_refused() -> None:
    stood = stored(Stood(2, "choice"))
    with pytest.raises(ValueError, match="kind 'stood'"):
        RoundSettled.from_dict(stood)
    with pytest.raises(ValueError, match="kind 'nonsense'"):
        Event.from_dict({**stood, "kind": "nonsense"})
