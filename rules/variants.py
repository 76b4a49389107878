"""The four presets as data, and per-chat overrides of single parameters.

A variant is a frozen value: the engine reads it and never branches on a preset's name.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from enum import Enum, StrEnum
from functools import lru_cache
from typing import Any, get_type_hints

from rules.cards import DeckKind
from rules.errors import InvalidVariant


class Values(StrEnum):
    RUSSIAN = "russian"  # J2 Q3 K4 A11, others face value
    WESTERN = "western"  # J/Q/K 10, A 1 or 11


class BankMode(StrEnum):
    NAMED = "named"  # the banker names an amount up to his balance
    ALL_IN = "all_in"  # the banker puts up everything he has


class StakeTiming(StrEnum):
    PER_TURN = "per_turn"  # each player in turn stakes, then draws at once
    BEFORE_DRAW = "before_draw"  # everyone stakes after the first deal, then everyone draws
    BEFORE_DEAL = "before_deal"  # everyone stakes before any card is dealt


class StakeCap(StrEnum):
    BANK = "bank"  # each stake up to the bank as it stands
    SHARED = "shared"  # stakes share the bank, keeping at least 1 for each player still to stake


class BankPassing(StrEnum):
    WHEN_BROKEN = "when_broken"
    EVERY_ROUND = "every_round"


class TurnOrder(StrEnum):
    CLOCKWISE = "clockwise"  # from the banker's left, in seating order
    COUNTERCLOCKWISE = "counterclockwise"


@dataclass(frozen=True, slots=True)
class Variant:
    name: str
    deck: DeckKind
    min_seats: int
    max_seats: int
    values: Values
    ace_low_on_bust: bool
    jokers_wild: bool
    bank_mode: BankMode
    bank_limit: int | None
    first_deal: int
    banker_card_up: bool
    show_bottom: bool
    stake_timing: StakeTiming
    stake_cap: StakeCap
    max_cards: int
    instant_21: bool
    golden_point: bool
    naturals: bool
    bust_fine_percent: int
    dark_draw: bool
    banker_first: bool
    both_bust_quits: bool
    bank_passing: BankPassing
    voluntary_pass_after: int | None
    end_when_all_dealt: bool
    turn_order: TurnOrder

    def to_dict(self) -> dict[str, Any]:
        # Every saved game serializes its variant, and a game keeps one variant: its JSON form
        # is worked out once (a copy of it is a tenth of the work).
        return dict(_json_form(self))

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Variant:
        for name in _FIELD_NAMES:
            if name not in data:
                raise InvalidVariant(f"variant is missing {name!r}")
        return _coerce({name: data[name] for name in _FIELD_NAMES})


_FIELD_NAMES = tuple(field.name for field in fields(Variant))
_ENUMS: dict[str, type[Enum]] = {
    name: hint
    for name, hint in get_type_hints(Variant).items()
    if isinstance(hint, type) and issubclass(hint, Enum)
}


@lru_cache(maxsize=256)
def _json_form(variant: Variant) -> dict[str, Any]:
    """Never handed out (callers get copies): every field is a plain value or an enum."""
    data = {name: getattr(variant, name) for name in _FIELD_NAMES}
    for key, value in data.items():
        if isinstance(value, Enum):
            data[key] = value.value
    return data


CLASSIC36 = Variant(
    name="classic36",
    deck=DeckKind.SHORT36,
    min_seats=2,
    max_seats=8,
    values=Values.RUSSIAN,
    ace_low_on_bust=False,
    jokers_wild=False,
    bank_mode=BankMode.NAMED,
    bank_limit=None,
    first_deal=1,
    banker_card_up=True,
    show_bottom=True,
    stake_timing=StakeTiming.PER_TURN,
    stake_cap=StakeCap.BANK,
    max_cards=5,
    instant_21=True,
    golden_point=True,
    naturals=False,
    bust_fine_percent=0,
    dark_draw=True,
    banker_first=False,
    both_bust_quits=False,
    bank_passing=BankPassing.WHEN_BROKEN,
    voluntary_pass_after=3,
    end_when_all_dealt=False,
    turn_order=TurnOrder.CLOCKWISE,
)

HOME36 = replace(
    CLASSIC36,
    name="home36",
    max_seats=4,
    bank_mode=BankMode.ALL_IN,
    show_bottom=False,
    stake_timing=StakeTiming.BEFORE_DRAW,
    stake_cap=StakeCap.SHARED,
    bust_fine_percent=100,
    voluntary_pass_after=None,
)

BIG54 = replace(HOME36, name="big54", deck=DeckKind.FULL54, max_seats=6, jokers_wild=True)

# The western game, told by what differs from classic36.
TWODECKS104 = replace(
    CLASSIC36,
    name="twodecks104",
    deck=DeckKind.DOUBLE104,
    max_seats=10,
    # J/Q/K 10 and a soft ace: two aces are a soft 12, and nothing is paid before the showdown
    values=Values.WESTERN,
    ace_low_on_bust=True,
    golden_point=False,
    instant_21=False,
    # two hidden cards each, staked before the deal; a natural 21 is settled at once
    first_deal=2,
    stake_timing=StakeTiming.BEFORE_DEAL,
    banker_card_up=False,
    show_bottom=False,
    naturals=True,
    # the banker buys first; his bust pays double, a busted player is quits with him
    banker_first=True,
    both_bust_quits=True,
    dark_draw=False,
    # the bank passes after every round until everyone has dealt
    end_when_all_dealt=True,
    bank_passing=BankPassing.EVERY_ROUND,
    voluntary_pass_after=None,
)

PRESETS: dict[str, Variant] = {v.name: v for v in (CLASSIC36, HOME36, BIG54, TWODECKS104)}
DEFAULT_PRESET = CLASSIC36.name

# Parameters a chat may change on top of its preset (the /settings menu offers these).
OVERRIDABLE = (
    "bust_fine_percent",
    "dark_draw",
    "ace_low_on_bust",
    "bank_limit",
    "min_seats",
    "max_seats",
    "turn_order",
)
SEAT_LIMIT = 10


def preset(name: str) -> Variant:
    try:
        return PRESETS[name]
    except KeyError:
        known = ", ".join(PRESETS)
        raise InvalidVariant(f"unknown preset {name!r}; known presets: {known}") from None


def with_overrides(base: Variant, overrides: Mapping[str, Any]) -> Variant:
    """Apply a chat's overrides to a preset, refusing unknown keys and invalid combinations.

    >>> with_overrides(CLASSIC36, {"dark_draw": False}).dark_draw
    False
    """
    unknown = sorted(set(overrides) - set(OVERRIDABLE))
    if unknown:
        raise InvalidVariant(
            f"cannot override {', '.join(unknown)}; allowed: {', '.join(OVERRIDABLE)}"
        )
    return _coerce(base.to_dict() | dict(overrides))


def _coerce(data: dict[str, Any]) -> Variant:
    kwargs = dict(data)
    for name, enum in _ENUMS.items():
        try:
            kwargs[name] = enum(kwargs[name])
        except ValueError:
            allowed = ", ".join(str(member.value) for member in enum)
            raise InvalidVariant(f"{name} must be one of {allowed}, not {data[name]!r}") from None
    for field in fields(Variant):
        value = kwargs[field.name]
        if field.type == "bool" and not isinstance(value, bool):
            raise InvalidVariant(f"{field.name} must be true or false, not {value!r}")
        optional = field.type == "int | None" and value is None
        if field.type in ("int", "int | None") and not optional and not is_whole(value):
            raise InvalidVariant(f"{field.name} must be a whole number, not {value!r}")
    variant = Variant(**kwargs)
    validate(variant)
    return variant


def is_whole(value: object) -> bool:
    """Chips and a variant's numbers are whole: floats and booleans are refused, never rounded."""
    return isinstance(value, int) and not isinstance(value, bool)


def validate(v: Variant) -> None:
    """Refuse combinations the engine cannot play, each with the precise reason."""
    if v.min_seats < 2:
        raise InvalidVariant("a game needs at least 2 seats (the banker and one player)")
    if v.max_seats < v.min_seats:
        raise InvalidVariant(f"max_seats ({v.max_seats}) is below min_seats ({v.min_seats})")
    if v.max_seats > SEAT_LIMIT:
        raise InvalidVariant(f"at most {SEAT_LIMIT} seats are supported, not {v.max_seats}")
    if not 0 <= v.bust_fine_percent <= 100:
        raise InvalidVariant("bust_fine_percent must be between 0 and 100")
    if v.bank_limit is not None and v.bank_limit < 1:
        raise InvalidVariant("bank_limit must be at least 1 (or unset)")
    if v.first_deal not in (1, 2):
        raise InvalidVariant("the first deal gives 1 or 2 cards")
    if not v.first_deal < v.max_cards <= 10:
        raise InvalidVariant("max_cards must exceed the first deal and be at most 10")
    if v.naturals and v.first_deal != 2:
        raise InvalidVariant("naturals need a two-card first deal")
    if v.values is Values.WESTERN and not v.ace_low_on_bust:
        raise InvalidVariant("with western values an ace always counts 1 or 11")
    if v.values is Values.WESTERN and v.golden_point:
        raise InvalidVariant("the golden point needs russian values (two aces are 22)")
    if v.jokers_wild != (v.deck is DeckKind.FULL54):
        raise InvalidVariant("wild jokers go with the 54-card deck, and only with it")
    if v.both_bust_quits and not v.banker_first:
        raise InvalidVariant("the both-bust rule needs the banker to play first")
    if v.banker_first and v.instant_21:
        raise InvalidVariant("a banker who plays first cannot pay 21 at once")
    if v.dark_draw and v.banker_first:
        raise InvalidVariant("dark draw is not played when the banker plays first")
    if v.stake_cap is StakeCap.SHARED and v.stake_timing is StakeTiming.PER_TURN:
        raise InvalidVariant("shared stake caps need everyone to stake before drawing")
    if v.end_when_all_dealt and v.bank_passing is not BankPassing.EVERY_ROUND:
        raise InvalidVariant("ending when all have dealt needs the bank to pass every round")
    if v.voluntary_pass_after is not None and v.voluntary_pass_after < 1:
        raise InvalidVariant("voluntary_pass_after must be at least 1 (or unset)")
    deck_size = {DeckKind.SHORT36: 36, DeckKind.FULL54: 54, DeckKind.DOUBLE104: 104}[v.deck]
    if v.max_seats * v.first_deal + (1 if v.show_bottom else 0) > deck_size:
        raise InvalidVariant("the deck is too small for the first deal at a full table")
