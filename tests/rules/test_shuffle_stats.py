"""The shuffle: a permutation, cryptographic by default, uniform (card × position chi-square)."""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence

from rules.cards import Card, DeckKind, build_deck
from rules.randomness import SystemRandomSource, fisher_yates, seeded

DECK = build_deck(DeckKind.SHORT36)
SHUFFLES = 7200  # 200 expected per card × position cell
Z_99 = 2.3263478740408408  # the standard normal's 99th percentile


def chi_square_critical(df: int, z: float = Z_99) -> float:
    """Wilson–Hilferty: chi²(df) at the normal quantile ``z``."""
    c = 2.0 / (9.0 * df)
    return df * (1.0 - c + z * math.sqrt(c)) ** 3


def card_position_chi_square(shuffle: Callable[[Sequence[Card]], list[Card]]) -> float:
    n = len(DECK)
    index = {card: i for i, card in enumerate(DECK)}
    counts = [[0] * n for _ in range(n)]
    for _ in range(SHUFFLES):
        for position, card in enumerate(shuffle(DECK)):
            counts[index[card]][position] += 1
    expected = SHUFFLES / n
    return sum((o - expected) ** 2 / expected for row in counts for o in row)


def test_wilson_hilferty_matches_known_quantiles() -> None:
    assert abs(chi_square_critical(10) - 23.209) < 0.05
    assert abs(chi_square_critical(100) - 135.807) < 0.1
    assert abs(chi_square_critical(1225) - 1342.0) < 3


def test_card_position_uniform_at_99_percent() -> None:
    source = SystemRandomSource(random.Random(20240601))
    df = (len(DECK) - 1) ** 2
    statistic = card_position_chi_square(source.shuffled)
    assert statistic < chi_square_critical(df), statistic


def test_the_test_rejects_a_biased_shuffle() -> None:
    """Power check: Sattolo's algorithm never leaves a card in place; the test must see it."""
    generator = random.Random(7)

    def sattolo(cards: Sequence[Card]) -> list[Card]:
        deck = list(cards)
        for i in range(len(deck) - 1, 0, -1):
            j = generator.randrange(i)
            deck[i], deck[j] = deck[j], deck[i]
        return deck

    df = (len(DECK) - 1) ** 2
    assert card_position_chi_square(sattolo) > chi_square_critical(df)


def test_fisher_yates_is_a_permutation_and_leaves_its_input() -> None:
    generator = random.Random(1)
    for kind in DeckKind:
        deck = build_deck(kind)
        original = list(deck)
        shuffled = fisher_yates(deck, generator)
        assert sorted(shuffled) == sorted(deck)
        assert deck == original
    assert fisher_yates([], generator) == []
    one = [Card("A", "S")]
    assert fisher_yates(one, generator) == one


def test_fisher_yates_deals_what_the_textbook_loop_deals() -> None:
    """Seeded games (the golden sessions, the simulator) deal the decks they always dealt."""
    for kind in DeckKind:
        textbook, generator = random.Random(5), random.Random(5)
        deck = build_deck(kind)
        for i in range(len(deck) - 1, 0, -1):
            j = textbook.randrange(i + 1)
            deck[i], deck[j] = deck[j], deck[i]
        assert fisher_yates(build_deck(kind), generator) == deck
        assert generator.random() == textbook.random()


def test_seeded_sources_repeat_and_default_is_cryptographic() -> None:
    assert seeded(3).shuffled(DECK) == seeded(3).shuffled(DECK)
    assert seeded(3).shuffled(DECK) != seeded(4).shuffled(DECK)
    default = SystemRandomSource()
    assert isinstance(default._generator, random.SystemRandom)
    assert sorted(default.shuffled(DECK)) == sorted(DECK)
    assert all(0 <= default.below(5) < 5 for _ in range(50))
