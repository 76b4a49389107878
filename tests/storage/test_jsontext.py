"""storage/jsontext.py: orjson writes the very text the standard library's compact encoder wrote
before it (the rows of existing databases and of both backends compare equal), and reads back
what it wrote."""

from __future__ import annotations

import itertools
import json
import random
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from rules.variants import PRESETS
from storage.jsontext import dumps, dumps_sorted, loads
from tests.rules.test_copy import act, legal_moves, session


def _standard(value: Any, **options: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), **options)


# What stored values are made of: no floats (chips and cards are whole numbers).
_scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**63 - 1)
    | st.text(st.characters(exclude_categories=("Cs",)))
)
_values = st.recursive(
    _scalars,
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(), inner, max_size=5),
    max_leaves=30,
)


@given(_values)
def test_the_text_is_the_standard_compact_json(value: Any) -> None:
    assert dumps(value) == _standard(value)
    assert dumps_sorted(value) == _standard(value, sort_keys=True)
    assert loads(dumps(value)) == value


def test_played_game_states_store_as_before() -> None:
    """Every preset, with and without the house as banker: the state after each move."""
    for (name, variant), house in itertools.product(PRESETS.items(), (False, True)):
        game = session(variant, variant.max_seats, seed=7, house=house)
        rng = random.Random(7)
        for _ in range(150):
            moves = [m for m in legal_moves(game) if m[0] not in ("end", "leave")]
            if not moves:
                break
            act(game, rng.choice(moves))
            state = game.to_dict()
            assert dumps(state) == _standard(state), name
            assert loads(dumps(state)) == state


def test_keys_that_are_numbers_become_strings_as_before() -> None:
    hands = {1001: 55, 1002: 56}
    assert dumps(hands) == _standard(hands) == '{"1001":55,"1002":56}'
    assert dumps_sorted({"б": 1, "а": [1, 2]}) == '{"а":[1,2],"б":1}'
