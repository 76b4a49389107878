"""Cards and decks of every preset.

A card is written as a short code: rank then suit, ``"10H"``, ``"QS"``, ``"AD"``; jokers are
``"X1"`` and ``"X2"``. Codes are what the JSON state and the action log store.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

SUITS = ("S", "H", "D", "C")
SUIT_SYMBOLS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
RANKS_36 = ("6", "7", "8", "9", "10", "J", "Q", "K", "A")
RANKS_52 = ("2", "3", "4", "5", *RANKS_36)
JOKER = "X"


class DeckKind(StrEnum):
    """Which physical deck a preset uses."""

    SHORT36 = "36"
    FULL54 = "54"
    DOUBLE104 = "104"


@dataclass(frozen=True, slots=True, order=True)
class Card:
    rank: str
    suit: str

    @property
    def is_joker(self) -> bool:
        return self.rank == JOKER

    @property
    def code(self) -> str:
        return f"{self.rank}{self.suit}"

    @classmethod
    def parse(cls, code: str) -> Card:
        """Read a card code.

        >>> Card.parse("10H")
        Card(rank='10', suit='H')
        >>> Card.parse("X1").is_joker
        True
        """
        if len(code) >= 2 and code[0] == JOKER and code[1:] in ("1", "2"):
            return cls(JOKER, code[1:])
        rank, suit = code[:-1], code[-1:]
        if rank not in RANKS_52 or suit not in SUITS:
            raise ValueError(f"not a card code: {code!r}")
        return cls(rank, suit)

    def __str__(self) -> str:
        if self.is_joker:
            return "🃏"
        return f"{self.rank}{SUIT_SYMBOLS[self.suit]}"


def build_deck(kind: DeckKind) -> list[Card]:
    """The deck in a fixed canonical order (suit by suit, ranks ascending)."""
    if kind is DeckKind.SHORT36:
        return [Card(rank, suit) for suit in SUITS for rank in RANKS_36]
    single = [Card(rank, suit) for suit in SUITS for rank in RANKS_52]
    if kind is DeckKind.FULL54:
        return [*single, Card(JOKER, "1"), Card(JOKER, "2")]
    return single + single
