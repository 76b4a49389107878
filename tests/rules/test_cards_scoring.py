"""Cards, decks and hand values of every preset (soft aces, golden point, wild jokers)."""

from __future__ import annotations

import doctest
import importlib
import pkgutil
from collections import Counter

import pytest

import rules
from rules.cards import RANKS_36, RANKS_52, SUITS, Card, DeckKind, build_deck
from rules.scoring import hand_value, is_natural
from rules.variants import BIG54, CLASSIC36, HOME36, PRESETS, TWODECKS104, with_overrides


def cards(*codes: str) -> list[Card]:
    return [Card.parse(code) for code in codes]


def total(variant: object, *codes: str) -> int:
    return hand_value(cards(*codes), variant).total  # type: ignore[arg-type]


# ---------------------------------------------------------------- cards and decks


@pytest.mark.parametrize(
    ("name", "size"), [("classic36", 36), ("home36", 36), ("big54", 54), ("twodecks104", 104)]
)
def test_deck_size_per_preset(name: str, size: int) -> None:
    assert len(build_deck(PRESETS[name].deck)) == size


def test_deck_36_composition() -> None:
    deck = build_deck(DeckKind.SHORT36)
    assert len(set(deck)) == 36
    assert Counter(card.rank for card in deck) == {rank: 4 for rank in RANKS_36}
    assert Counter(card.suit for card in deck) == {suit: 9 for suit in SUITS}
    assert not any(card.rank in ("2", "3", "4", "5") for card in deck)


def test_deck_54_composition() -> None:
    deck = build_deck(DeckKind.FULL54)
    assert len(set(deck)) == 54
    jokers = [card for card in deck if card.is_joker]
    assert [card.code for card in jokers] == ["X1", "X2"]
    plain = [card for card in deck if not card.is_joker]
    assert Counter(card.rank for card in plain) == {rank: 4 for rank in RANKS_52}


def test_deck_104_is_two_full_decks() -> None:
    deck = build_deck(DeckKind.DOUBLE104)
    counts = Counter(deck)
    assert len(counts) == 52
    assert set(counts.values()) == {2}
    assert not any(card.is_joker for card in deck)


def test_canonical_order_and_codes_round_trip() -> None:
    deck = build_deck(DeckKind.SHORT36)
    assert deck[0].code == "6S"
    assert deck[-1].code == "AC"  # the bottom card of an unshuffled deck
    for card in build_deck(DeckKind.FULL54):
        assert Card.parse(card.code) == card
    assert str(Card.parse("10H")) == "10♥"
    assert str(Card.parse("X2")) == "🃏"


@pytest.mark.parametrize("code", ["", "1S", "11H", "AZ", "X3", "XS", "10", "S"])
def test_bad_card_codes_are_refused(code: str) -> None:
    with pytest.raises(ValueError, match="not a card code"):
        Card.parse(code)


# ---------------------------------------------------------------- russian values


@pytest.mark.parametrize(
    ("code", "value"),
    [
        ("6S", 6),
        ("7S", 7),
        ("8S", 8),
        ("9S", 9),
        ("10S", 10),
        ("JS", 2),
        ("QS", 3),
        ("KS", 4),
        ("AS", 11),
    ],
)
@pytest.mark.parametrize("variant", [CLASSIC36, HOME36, BIG54], ids=lambda v: v.name)
def test_russian_single_card_values(variant: object, code: str, value: int) -> None:
    assert total(variant, code) == value


def test_russian_totals() -> None:
    assert total(CLASSIC36, "10S", "AS") == 21
    assert total(CLASSIC36, "KS", "QS", "JS") == 9
    assert total(CLASSIC36, "9S", "8S", "4S") == 21  # 4 is not in the 36 deck, but values hold
    assert total(CLASSIC36, "10S", "9S", "KS") == 23
    assert hand_value(cards("10S", "9S", "KS"), CLASSIC36).bust
    assert hand_value(cards("10S", "AS"), CLASSIC36).twenty_one


def test_russian_ace_stays_eleven_without_the_option() -> None:
    value = hand_value(cards("10S", "KS", "AS"), CLASSIC36)
    assert value.total == 25 and value.bust


def test_ace_low_on_bust_override() -> None:
    low = with_overrides(CLASSIC36, {"ace_low_on_bust": True})
    value = hand_value(cards("10S", "KS", "AS"), low)
    assert (value.total, value.bust) == (15, False)
    assert total(low, "10S", "AS") == 21  # the ace stays 11 when that does not bust
    assert total(low, "AS", "AH", "AD") == 13  # 11 + 1 + 1
    # The golden point is untouched by the option.
    assert hand_value(cards("AS", "AH"), low).golden


# ---------------------------------------------------------------- western values


@pytest.mark.parametrize(("code", "value"), [("JS", 10), ("QS", 10), ("KS", 10), ("2S", 2)])
def test_western_values(code: str, value: int) -> None:
    assert total(TWODECKS104, code) == value


def test_western_soft_aces() -> None:
    assert total(TWODECKS104, "AS", "6H") == 17  # soft 17
    assert total(TWODECKS104, "AS", "6H", "10D") == 17  # the ace drops to 1
    assert total(TWODECKS104, "AS", "AH") == 12  # soft 12, not the golden point
    assert total(TWODECKS104, "AS", "AH", "9D") == 21
    assert total(TWODECKS104, "KS", "QH", "2D") == 22
    assert hand_value(cards("KS", "QH", "2D"), TWODECKS104).bust


# ---------------------------------------------------------------- golden point


@pytest.mark.parametrize("variant", [CLASSIC36, HOME36, BIG54], ids=lambda v: v.name)
def test_golden_point(variant: object) -> None:
    value = hand_value(cards("AS", "AH"), variant)  # type: ignore[arg-type]
    assert value.golden and value.twenty_one and not value.bust
    assert value.rank == 21


def test_golden_point_needs_exactly_two_aces() -> None:
    value = hand_value(cards("AS", "AH", "6D"), CLASSIC36)
    assert not value.golden and value.bust
    assert not hand_value(cards("AS"), CLASSIC36).golden


def test_no_golden_point_in_twodecks104() -> None:
    value = hand_value(cards("AS", "AH"), TWODECKS104)
    assert not value.golden and value.total == 12 and not value.twenty_one


def test_rank_orders_hands() -> None:
    assert hand_value(cards("10S", "9S", "KS"), CLASSIC36).rank == 0  # bust
    assert hand_value(cards("10S", "9S"), CLASSIC36).rank == 19


# ---------------------------------------------------------------- jokers


@pytest.mark.parametrize(
    ("hand", "expected"),
    [
        (("AS", "X1"), 21),
        (("X1", "X2"), 21),
        (("10S", "X1", "X2"), 21),
        (("10S", "9S", "X1", "X2"), 21),  # both jokers count 1
        (("10S", "9S", "KS", "X1"), 24),  # bust even with the joker at 1
        (("X1",), 11),
        (("6S", "X1"), 17),
        (("10S", "X1"), 21),
        (("KS", "QS", "X1"), 18),
        (("AS", "AH", "X1"), 23),  # aces 11 each, no ace-low option
    ],
)
def test_wild_jokers(hand: tuple[str, ...], expected: int) -> None:
    assert total(BIG54, *hand) == expected


def test_two_aces_stay_golden_with_jokers_in_the_deck() -> None:
    assert hand_value(cards("AS", "AH"), BIG54).golden


# ---------------------------------------------------------------- naturals


def test_naturals_only_in_twodecks104() -> None:
    assert is_natural(cards("AS", "KH"), TWODECKS104)
    assert not is_natural(cards("AS", "5H", "5D"), TWODECKS104)  # three cards
    assert not is_natural(cards("AS", "10H"), CLASSIC36)  # no naturals there


# ---------------------------------------------------------------- doctests of rules/


RULES_MODULES = sorted(info.name for info in pkgutil.iter_modules(rules.__path__, prefix="rules."))


@pytest.mark.parametrize("name", RULES_MODULES)
def test_rules_doctests(name: str) -> None:
    module = importlib.import_module(name)
    result = doctest.testmod(module, verbose=False)
    assert result.failed == 0


def test_doctests_exist() -> None:
    finder = doctest.DocTestFinder()
    found = sum(
        len(test.examples)
        for name in RULES_MODULES
        for test in finder.find(importlib.import_module(name))
    )
    assert found >= 5
