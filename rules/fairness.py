"""The provably fair deck: a commitment to every shuffle before its first card, revealed after
the showdown.

Each shuffle of a round (the fresh deck at the start, and any reshuffle of the discards when the
stock runs out) gets a secret 128-bit salt. Before any card of that shuffle is seen, the table
shows the commitment::

    SHA-256( "ochko-v1|" + salt + "|" + " ".join(order) )   as 64 lowercase hex digits

where ``order`` is the list of card codes of the shuffled deck, index 0 dealt first (codes as in
:mod:`rules.cards`: rank then suit, e.g. ``"10h"``, ``"As"``). After the showdown the salt and
the order are revealed; anyone can recompute the hash, and check that the cards dealt from that
shuffle were exactly its first cards, in order. docs/fairness.md has an offline snippet.

Standard library only; the engine (rules/state.py) keeps the current round's shuffles in its
state (``Game.shuffles``), each shuffle's order, salt and commitment in its log, and reveals a
settled round's shuffles in ``RoundSettled.shuffles``.
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
    """The SHA-256 hex digest of :func:`canonical` (UTF-8)."""
    return hashlib.sha256(canonical(order, salt).encode("utf-8")).hexdigest()


def verify_commitment(committed: str, order: Sequence[str], salt: str) -> bool:
    """Whether ``committed`` is the commitment to ``order`` with ``salt``."""
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
