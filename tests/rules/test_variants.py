"""The four presets against the brief's table, and per-chat overrides with precise refusals."""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

import pytest

from rules.cards import DeckKind
from rules.errors import InvalidVariant
from rules.variants import (
    BIG54,
    CLASSIC36,
    DEFAULT_PRESET,
    HOME36,
    OVERRIDABLE,
    PRESETS,
    TWODECKS104,
    BankMode,
    BankPassing,
    StakeCap,
    StakeTiming,
    TurnOrder,
    Values,
    Variant,
    preset,
    validate,
    with_overrides,
)

# The brief's section 2, row by row.
EXPECTED: dict[str, dict[str, Any]] = {
    "classic36": {
        "min_seats": 2,
        "max_seats": 8,
        "deck": DeckKind.SHORT36,
        "values": Values.RUSSIAN,
        "jokers_wild": False,
        "ace_low_on_bust": False,
        "bank_mode": BankMode.NAMED,
        "first_deal": 1,
        "banker_card_up": True,
        "show_bottom": True,
        "stake_timing": StakeTiming.PER_TURN,
        "stake_cap": StakeCap.BANK,
        "max_cards": 5,
        "instant_21": True,
        "golden_point": True,
        "naturals": False,
        "bust_fine_percent": 0,
        "dark_draw": True,
        "banker_first": False,
        "both_bust_quits": False,
        "bank_passing": BankPassing.WHEN_BROKEN,
        "voluntary_pass_after": 3,
        "end_when_all_dealt": False,
    },
    "home36": {
        "min_seats": 2,
        "max_seats": 4,
        "deck": DeckKind.SHORT36,
        "values": Values.RUSSIAN,
        "jokers_wild": False,
        "ace_low_on_bust": False,
        "bank_mode": BankMode.ALL_IN,
        "first_deal": 1,
        "banker_card_up": True,
        "show_bottom": False,
        "stake_timing": StakeTiming.BEFORE_DRAW,
        "stake_cap": StakeCap.SHARED,
        "max_cards": 5,
        "instant_21": True,
        "golden_point": True,
        "naturals": False,
        "bust_fine_percent": 100,
        "dark_draw": True,
        "banker_first": False,
        "both_bust_quits": False,
        "bank_passing": BankPassing.WHEN_BROKEN,
        "voluntary_pass_after": None,
        "end_when_all_dealt": False,
    },
    "twodecks104": {
        "min_seats": 2,
        "max_seats": 10,
        "deck": DeckKind.DOUBLE104,
        "values": Values.WESTERN,
        "jokers_wild": False,
        "ace_low_on_bust": True,
        "bank_mode": BankMode.NAMED,
        "first_deal": 2,
        "banker_card_up": False,
        "show_bottom": False,
        "stake_timing": StakeTiming.BEFORE_DEAL,
        "stake_cap": StakeCap.BANK,
        "max_cards": 5,
        "instant_21": False,
        "golden_point": False,
        "naturals": True,
        "bust_fine_percent": 0,
        "dark_draw": False,
        "banker_first": True,
        "both_bust_quits": True,
        "bank_passing": BankPassing.EVERY_ROUND,
        "voluntary_pass_after": None,
        "end_when_all_dealt": True,
    },
}
EXPECTED["big54"] = {
    **EXPECTED["home36"],
    "max_seats": 6,
    "deck": DeckKind.FULL54,
    "jokers_wild": True,
}


def test_presets_are_exactly_the_four() -> None:
    assert list(PRESETS) == ["classic36", "home36", "big54", "twodecks104"]
    assert DEFAULT_PRESET == "classic36"
    assert PRESETS["classic36"] is CLASSIC36
    assert PRESETS["home36"] is HOME36
    assert PRESETS["big54"] is BIG54
    assert PRESETS["twodecks104"] is TWODECKS104


@pytest.mark.parametrize("name", list(EXPECTED))
def test_preset_matches_the_brief(name: str) -> None:
    variant = PRESETS[name]
    assert variant.name == name
    for key, value in EXPECTED[name].items():
        assert getattr(variant, key) == value, key
    assert variant.bank_limit is None
    assert variant.turn_order is TurnOrder.CLOCKWISE


@pytest.mark.parametrize("name", list(PRESETS))
def test_presets_validate_and_round_trip(name: str) -> None:
    variant = PRESETS[name]
    validate(variant)
    data = variant.to_dict()
    assert all(not hasattr(value, "value") for value in data.values())  # plain JSON values
    assert Variant.from_dict(data) == variant


def test_variant_is_frozen() -> None:
    with pytest.raises(AttributeError):
        CLASSIC36.dark_draw = False  # type: ignore[misc]


def test_preset_lookup() -> None:
    assert preset("big54") is BIG54
    with pytest.raises(
        InvalidVariant,
        match=re.escape(
            "unknown preset 'poker'; known presets: classic36, home36, big54, twodecks104"
        ),
    ):
        preset("poker")


# ---------------------------------------------------------------- accepted overrides

ACCEPTED: list[tuple[str, dict[str, Any], str, Any]] = [
    ("classic36", {"bust_fine_percent": 50}, "bust_fine_percent", 50),
    ("classic36", {"bust_fine_percent": 100}, "bust_fine_percent", 100),
    ("home36", {"bust_fine_percent": 0}, "bust_fine_percent", 0),
    ("classic36", {"dark_draw": False}, "dark_draw", False),
    ("big54", {"dark_draw": False}, "dark_draw", False),
    ("classic36", {"ace_low_on_bust": True}, "ace_low_on_bust", True),
    ("home36", {"ace_low_on_bust": True}, "ace_low_on_bust", True),
    ("classic36", {"bank_limit": 50}, "bank_limit", 50),
    ("twodecks104", {"bank_limit": 1}, "bank_limit", 1),
    ("classic36", {"bank_limit": None}, "bank_limit", None),
    ("classic36", {"min_seats": 3}, "min_seats", 3),
    ("classic36", {"max_seats": 10}, "max_seats", 10),
    ("home36", {"max_seats": 2}, "max_seats", 2),
    ("classic36", {"turn_order": "counterclockwise"}, "turn_order", TurnOrder.COUNTERCLOCKWISE),
    ("classic36", {"turn_order": TurnOrder.CLOCKWISE}, "turn_order", TurnOrder.CLOCKWISE),
    ("twodecks104", {}, "name", "twodecks104"),
]


@pytest.mark.parametrize(("base", "overrides", "key", "value"), ACCEPTED)
def test_override_accepted(base: str, overrides: dict[str, Any], key: str, value: Any) -> None:
    variant = with_overrides(PRESETS[base], overrides)
    assert getattr(variant, key) == value
    # Nothing else changes.
    for field, original in PRESETS[base].to_dict().items():
        if field not in overrides:
            assert variant.to_dict()[field] == original
    assert Variant.from_dict(variant.to_dict()) == variant


def test_overridable_parameters() -> None:
    assert set(OVERRIDABLE) == {
        "bust_fine_percent",
        "dark_draw",
        "ace_low_on_bust",
        "bank_limit",
        "min_seats",
        "max_seats",
        "turn_order",
    }


# ---------------------------------------------------------------- refused overrides

ALLOWED = ", ".join(OVERRIDABLE)
WHOLE = "bust_fine_percent must be a whole number, not "
REFUSED: list[tuple[str, dict[str, Any], str]] = [
    ("classic36", {"deck": "54"}, f"cannot override deck; allowed: {ALLOWED}"),
    (
        "classic36",
        {"naturals": True, "jokers_wild": True},
        f"cannot override jokers_wild, naturals; allowed: {ALLOWED}",
    ),
    ("classic36", {"colour": "red"}, f"cannot override colour; allowed: {ALLOWED}"),
    ("classic36", {"dark_draw": 1}, "dark_draw must be true or false, not 1"),
    ("classic36", {"dark_draw": "yes"}, "dark_draw must be true or false, not 'yes'"),
    ("classic36", {"ace_low_on_bust": None}, "ace_low_on_bust must be true or false, not None"),
    ("classic36", {"bust_fine_percent": True}, WHOLE + "True"),
    ("classic36", {"bust_fine_percent": 1.5}, WHOLE + "1.5"),
    ("classic36", {"bust_fine_percent": "50"}, WHOLE + "'50'"),
    ("classic36", {"bust_fine_percent": None}, WHOLE + "None"),
    ("classic36", {"bust_fine_percent": -1}, "bust_fine_percent must be between 0 and 100"),
    ("classic36", {"bust_fine_percent": 101}, "bust_fine_percent must be between 0 and 100"),
    ("classic36", {"bank_limit": 0}, "bank_limit must be at least 1 (or unset)"),
    ("classic36", {"bank_limit": -5}, "bank_limit must be at least 1 (or unset)"),
    ("classic36", {"bank_limit": "10"}, "bank_limit must be a whole number, not '10'"),
    ("classic36", {"min_seats": 1}, "a game needs at least 2 seats (the banker and one player)"),
    ("classic36", {"min_seats": 9}, "max_seats (8) is below min_seats (9)"),
    ("classic36", {"max_seats": 1}, "max_seats (1) is below min_seats (2)"),
    ("classic36", {"max_seats": 11}, "at most 10 seats are supported, not 11"),
    ("twodecks104", {"max_seats": 12}, "at most 10 seats are supported, not 12"),
    (
        "classic36",
        {"turn_order": "sideways"},
        "turn_order must be one of clockwise, counterclockwise, not 'sideways'",
    ),
    ("twodecks104", {"dark_draw": True}, "dark draw is not played when the banker plays first"),
    (
        "twodecks104",
        {"ace_low_on_bust": False},
        "with western values an ace always counts 1 or 11",
    ),
]


@pytest.mark.parametrize(("base", "overrides", "message"), REFUSED)
def test_override_refused(base: str, overrides: dict[str, Any], message: str) -> None:
    with pytest.raises(InvalidVariant) as info:
        with_overrides(PRESETS[base], overrides)
    assert str(info.value) == message
    assert info.value.code == "invalid_variant"


# Combinations a chat cannot reach through overrides, but a stored variant could hold.
INVALID_COMBINATIONS: list[tuple[str, dict[str, Any], str]] = [
    ("classic36", {"naturals": True}, "naturals need a two-card first deal"),
    ("classic36", {"first_deal": 3}, "the first deal gives 1 or 2 cards"),
    ("classic36", {"first_deal": 0}, "the first deal gives 1 or 2 cards"),
    ("classic36", {"max_cards": 1}, "max_cards must exceed the first deal and be at most 10"),
    ("classic36", {"max_cards": 11}, "max_cards must exceed the first deal and be at most 10"),
    ("twodecks104", {"max_cards": 2}, "max_cards must exceed the first deal and be at most 10"),
    ("classic36", {"values": "western"}, "with western values an ace always counts 1 or 11"),
    (
        "twodecks104",
        {"golden_point": True},
        "the golden point needs russian values (two aces are 22)",
    ),
    ("classic36", {"jokers_wild": True}, "wild jokers go with the 54-card deck, and only with it"),
    ("big54", {"jokers_wild": False}, "wild jokers go with the 54-card deck, and only with it"),
    ("classic36", {"deck": "54"}, "wild jokers go with the 54-card deck, and only with it"),
    ("classic36", {"both_bust_quits": True}, "the both-bust rule needs the banker to play first"),
    ("classic36", {"banker_first": True}, "a banker who plays first cannot pay 21 at once"),
    (
        "twodecks104",
        {"dark_draw": True},
        "dark draw is not played when the banker plays first",
    ),
    (
        "home36",
        {"stake_timing": "per_turn"},
        "shared stake caps need everyone to stake before drawing",
    ),
    (
        "twodecks104",
        {"bank_passing": "when_broken"},
        "ending when all have dealt needs the bank to pass every round",
    ),
    (
        "classic36",
        {"voluntary_pass_after": 0},
        "voluntary_pass_after must be at least 1 (or unset)",
    ),
    ("classic36", {"deck": "52"}, "deck must be one of 36, 54, 104, not '52'"),
    ("classic36", {"bank_mode": "half"}, "bank_mode must be one of named, all_in, not 'half'"),
    ("classic36", {"show_bottom": "no"}, "show_bottom must be true or false, not 'no'"),
]


@pytest.mark.parametrize(("base", "changes", "message"), INVALID_COMBINATIONS)
def test_invalid_combination_refused(base: str, changes: dict[str, Any], message: str) -> None:
    data = {**PRESETS[base].to_dict(), **changes}
    with pytest.raises(InvalidVariant) as info:
        Variant.from_dict(data)
    assert str(info.value) == message


def test_largest_table_fits_every_deck() -> None:
    # The seat limit (10) and a first deal of at most 2 cards keep every deal within 36 cards,
    # so validate()'s "deck is too small" refusal cannot trigger; a 40-seat table is refused first.
    validate(replace(CLASSIC36, max_seats=10, first_deal=2, banker_card_up=False))
    with pytest.raises(InvalidVariant, match="at most 10 seats"):
        validate(replace(CLASSIC36, max_seats=40))


def test_missing_key_refused() -> None:
    data = CLASSIC36.to_dict()
    del data["dark_draw"]
    with pytest.raises(InvalidVariant, match=re.escape("variant is missing 'dark_draw'")):
        Variant.from_dict(data)


def test_overrides_can_chain() -> None:
    first = with_overrides(HOME36, {"bust_fine_percent": 50})
    second = with_overrides(first, {"dark_draw": False})
    assert (second.bust_fine_percent, second.dark_draw, second.name) == (50, False, "home36")
