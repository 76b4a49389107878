"""Where the engine's chance comes from.

Production play uses the operating system's cryptographic generator with an unbiased
Fisher–Yates shuffle; tests inject a seeded generator or a scripted deck (tests/rules/helpers.py).
Every random outcome is written to the game's log, so a replay needs no generator at all.
"""

from __future__ import annotations

import hashlib
import random
import secrets
from collections.abc import Iterable, Sequence
from typing import Protocol

from rules.cards import Card


class RandomSource(Protocol):
    def shuffled(self, cards: Sequence[Card]) -> list[Card]:
        """A new list holding ``cards`` in random order; index 0 is dealt first."""

    def below(self, n: int) -> int:
        """A uniform integer in ``range(n)``."""

    def salt(self) -> str:
        """A fresh 128-bit salt as 32 lowercase hex digits (see :mod:`rules.fairness`)."""


SALT_BITS = 128


def derived_salts(seed: str) -> random.Random:
    """A private stream of salts for a reproducible source: drawing a salt never moves the
    stream the shuffles come from, so seeded games deal the same cards as before."""
    digest = hashlib.sha256(seed.encode()).digest()
    return random.Random(int.from_bytes(digest, "big"))


def fisher_yates(cards: Sequence[Card], generator: random.Random) -> list[Card]:
    """An unbiased Fisher–Yates shuffle of a copy: ``random.Random.shuffle`` is one (it draws
    each index with ``_randbelow``, which rejects and never takes a modulo)."""
    deck = list(cards)
    generator.shuffle(deck)
    return deck


class SystemRandomSource:
    """Cryptographic randomness (``random.SystemRandom``), or any ``random.Random`` for tests."""

    def __init__(self, generator: random.Random | None = None) -> None:
        self._generator = generator if generator is not None else random.SystemRandom()
        self._salts: random.Random | None = None
        if not isinstance(self._generator, random.SystemRandom):
            # A seeded generator: salts derived from its starting state keep games reproducible.
            self._salts = derived_salts(repr(self._generator.getstate()))

    def shuffled(self, cards: Sequence[Card]) -> list[Card]:
        return fisher_yates(cards, self._generator)

    def below(self, n: int) -> int:
        return self._generator.randrange(n)

    def salt(self) -> str:
        if self._salts is None:
            return secrets.token_hex(SALT_BITS // 8)
        return f"{self._salts.getrandbits(SALT_BITS):032x}"


def seeded(seed: int) -> SystemRandomSource:
    """A reproducible source for tests and the simulator."""
    return SystemRandomSource(random.Random(seed))


class RecordedSource:
    """Replays the random outcomes stored in a log, in order. ``salts`` are the logged salts
    of the shuffles (a log written before salts existed replays with empty ones)."""

    def __init__(
        self,
        shuffles: Iterable[Sequence[str]],
        lots: Iterable[int],
        salts: Iterable[str] = (),
    ) -> None:
        self._shuffles = iter(list(shuffles))
        self._lots = iter(list(lots))
        self._salts = iter(list(salts))

    def shuffled(self, cards: Sequence[Card]) -> list[Card]:
        order = [Card.parse(code) for code in next(self._shuffles)]
        if sorted(order) != sorted(cards):
            raise ValueError("recorded shuffle does not match the cards being shuffled")
        return order

    def below(self, n: int) -> int:
        return next(self._lots)

    def salt(self) -> str:
        return next(self._salts, "")
