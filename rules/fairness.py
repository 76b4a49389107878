"""The provably fair deck (docs/fairness.md, with an offline snippet): each shuffle is committed
to before its first card and revealed after the showdown. The engine keeps the round's shuffles
in ``Game.shuffles`` and reveals a settled round's in ``RoundSettled.shuffles``."""

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
    """Whether the cards ``dealt`` from a shuffle are its first ones, in order."""
    return len(dealt) <= len(order) and list(order[: len(dealt)]) == list(dealt)


def verify_shuffle(shuffle: RevealedShuffle) -> bool:
    """The commitment matches the revealed salt and order, and the dealt cards followed it."""
    return verify_commitment(shuffle.commitment, shuffle.order, shuffle.salt) and verify_deal(
        shuffle.order, shuffle.dealt
    )
