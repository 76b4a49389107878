"""Hand values: soft aces, wild jokers, the golden point."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rules.cards import JOKER, RANKS_52, Card
from rules.variants import Values, Variant

RUSSIAN_VALUES = {"J": 2, "Q": 3, "K": 4, "A": 11}
WESTERN_VALUES = {"J": 10, "Q": 10, "K": 10, "A": 11}
TARGET = 21


@dataclass(frozen=True, slots=True)
class HandValue:
    total: int
    golden: bool  # two aces and nothing else, where the preset plays the golden point

    @property
    def bust(self) -> bool:
        return self.total > TARGET and not self.golden

    @property
    def twenty_one(self) -> bool:
        return self.total == TARGET or self.golden

    @property
    def rank(self) -> int:
        """Comparable strength: a bust is 0, the golden point counts as 21."""
        if self.golden:
            return TARGET
        return 0 if self.bust else self.total


# The value of every rank but the ace (and the joker), per value system, looked up once: the hot
# path of the engine counts hands after every card.
FIXED_VALUES: dict[Values, dict[str, int]] = {
    values: {rank: table.get(rank) or int(rank) for rank in RANKS_52 if rank != "A"}
    for values, table in ((Values.RUSSIAN, RUSSIAN_VALUES), (Values.WESTERN, WESTERN_VALUES))
}
_HAND_VALUES: dict[tuple[int, bool], HandValue] = {}  # frozen values, shared


def hand_value(cards: Sequence[Card], variant: Variant) -> HandValue:
    """The best total of a hand under the variant's rules.

    Aces count 11, or 1 where the variant allows it and 11 would bust; each wild joker counts
    whatever from 1 to 11 gives the best total not over 21.

    >>> from rules.variants import CLASSIC36
    >>> hand_value([Card("10", "S"), Card("A", "H")], CLASSIC36).total
    21
    >>> hand_value([Card("A", "S"), Card("A", "H")], CLASSIC36).golden
    True
    """
    table = FIXED_VALUES[variant.values]
    aces = jokers = fixed = 0
    for card in cards:
        rank = card.rank
        if rank == "A":
            aces += 1
        elif rank == JOKER:
            jokers += 1
        else:
            fixed += table[rank]
    if not variant.jokers_wild:
        jokers = 0
    golden = variant.golden_point and aces == 2 and len(cards) == 2
    if jokers == 0 and (aces == 0 or not variant.ace_low_on_bust):
        total = fixed + 11 * aces  # what the general search below finds in this case
    else:
        # The lowest total with ``low`` aces counted 1 and every joker 1; the jokers may add up
        # to 10 each on top. The best of these not over 21, else the least bust.
        lows = range(aces + 1) if variant.ace_low_on_bust else range(1)
        lowest = [fixed + (aces - low) * 11 + low + jokers for low in lows]
        under = [min(base + 10 * jokers, TARGET) for base in lowest if base <= TARGET]
        total = max(under) if under else min(lowest)
    key = (total, golden)
    value = _HAND_VALUES.get(key)
    if value is None:
        value = _HAND_VALUES[key] = HandValue(total=total, golden=golden)
    return value


def is_natural(cards: Sequence[Card], variant: Variant) -> bool:
    """21 with the first two cards, where the variant plays naturals."""
    return variant.naturals and len(cards) == 2 and hand_value(cards, variant).total == TARGET
