"""Chips are whole numbers: a float or a boolean amount is refused, never rounded, and the
state stays byte-for-byte equal."""

from __future__ import annotations

from typing import Any

import pytest

from rules.errors import AmountOutOfRange
from tests.rules.helpers import table


@pytest.mark.parametrize("amount", [1.5, 10.0, True, "10", None])
def test_stake_must_be_whole(amount: Any) -> None:
    game = table("classic36", [(1, 100), (2, 100)])
    game.start()
    game.set_bank(1, 50)
    before = game.to_json()
    with pytest.raises(AmountOutOfRange) as refused:
        game.stake(2, amount)
    assert refused.value.params == {"minimum": 1, "maximum": 50, "what": "stake"}
    assert game.to_json() == before


@pytest.mark.parametrize("amount", [2.5, True])
def test_bank_and_balance_must_be_whole(amount: Any) -> None:
    game = table("classic36", [(1, 100), (2, 100)])
    with pytest.raises(AmountOutOfRange):
        game.join(3, amount)
    game.start()
    before = game.to_json()
    with pytest.raises(AmountOutOfRange):
        game.set_bank(1, amount)
    assert game.to_json() == before
