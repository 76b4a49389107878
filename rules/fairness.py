"""The provably fair deck: a commitment to every shuffle before its first card, revealed after
the showdown.

Each shuffle of a round (the fresh deck, and any reshuffle of the discards) gets a secret
128-bit salt; before any of its cards is seen the table shows the SHA-256 of :func:`canonical`,
and after the showdown the salt and the order (index 0 dealt first) are revealed, so that anyone
can recompute the hash and check that the cards dealt were its first ones, in order.
docs/fairness.md says it for players, with an offline snippet. The engine keeps the round's
shuffles in ``Game.shuffles`` and reveals a settled round's in ``RoundSettled.shuffles``.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Sequence

from rules.events import RevealedShuffle

SCHEME = "ochko-v1"


def canonical(order: Sequence[str], salt: str) -> str:
    """The exact string that is hashed: ``ochko-v1|<salt>|<codes separated by one space>``."""
    return f"{SCHEME}|{salt}|{' '.join(order)}"


def commitment(order: Sequence[str], salt: str) -> str:
    return hashlib.sha256(canonical(order, salt).encode("utf-8")).hexdigest()


def verify_commitment(committed: str, order: Sequence[str], salt: str) -> bool:
    return hmac.compare_digest(committed.strip().lower(), commitment(order, salt))


def verify_deal(order: Sequence[str], dealt: Sequence[str]) -> bool:
    """Whether the cards ``dealt`` from a shuffle, in dealing order, are exactly the first
    ``len(dealt)`` cards of the committed ``order`` (index 0 is dealt first)."""
    return len(dealt) <= len(order) and list(order[: len(dealt)]) == list(dealt)


def verify_shuffle(shuffle: RevealedShuffle) -> bool:
    """The commitment matches the revealed salt and order, and the dealt cards followed it."""
    return verify_commitment(shuffle.commitment, shuffle.order, shuffle.salt) and verify_deal(
        shuffle.order, shuffle.dealt
    )
