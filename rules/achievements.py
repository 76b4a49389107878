"""The achievements a settled round earns: pure, from the round's result (:class:`RoundSettled`
and its :class:`PlayerResult` lines), the variant and what the owner's records say of each
person (:class:`History`: the rounds won in a row, a refill).

A round earns an achievement each time its feat happens; the owner records each once per person
and chat (the first round that earned it) and announces it then.

>>> from rules.variants import CLASSIC36
>>> from rules.events import PlayerResult, RoundSettled
>>> line = PlayerResult(2, "win", 50, 50, 22, ("AS", "AH"), False, False, True, False, False)
>>> settled = RoundSettled(1, 1, ("7H", "10D"), 17, False, (line,), 50, ((1, 950), (2, 1050)))
>>> earned(settled, CLASSIC36, starting=1000)
[(2, 'golden')]
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from rules.cards import Card
from rules.events import RoundSettled
from rules.scoring import TARGET, hand_value
from rules.variants import Variant

# Every achievement, in the order it is told (the round's hands, its stakes, the bank, the
# chips, then what takes more than one round).
CODES = (
    "golden",  # золотое очко: two aces
    "natural",  # 21 with the first two cards
    "long_21",  # 21 from three cards or more
    "dark_21",  # a card taken dark brought the hand to 21
    "five_cards",  # five cards without a bust (every preset allows five)
    "va_bank",  # a stake of the whole bank, won
    "all_chips",  # a stake of all the chips one could put at risk, won
    "bank_broken",  # the win that emptied the bank: сорвал банк
    "swept",  # the banker won every stake of a round that two or more players staked in
    "big_win",  # a round's gain at least the starting chips
    "streak",  # five rounds won in a row in the chat
    "comeback",  # given chips back by the refill, then twice the starting chips
)
STREAK = 5
FIVE_CARDS = 5
SWEPT_PLAYERS = 2


@dataclass(frozen=True, slots=True)
class History:
    """What the owner's records say of a person once the round is counted."""

    streak: int = 0  # rounds won in a row in the chat, this one included
    refilled: bool = False  # was ever given chips back by the refill in the chat


def chips_after(event: RoundSettled) -> dict[int, int]:
    """Each seated person's chips after the round: the banker's bank is his too."""
    return {p: amount + (event.bank if p == event.banker else 0) for p, amount in event.balances}


def banker_net(event: RoundSettled) -> int:
    return -sum(r.net for r in event.results if r.outcome != "out")


def candidates(event: RoundSettled, starting: int) -> tuple[list[int], list[int]]:
    """Whose :class:`History` may matter: those who won the round (a streak), and those who
    played it and have twice the starting chips (a comeback). The rest need none."""
    won = [r.player for r in event.results if r.outcome != "out" and r.net > 0]
    if banker_net(event) > 0:
        won.append(event.banker)
    played = {event.banker, *(r.player for r in event.results if r.outcome != "out")}
    rich = [
        p for p, chips in chips_after(event).items() if p in played and chips >= 2 * starting > 0
    ]
    return won, rich


def _hand(cards: tuple[str, ...], variant: Variant, *, dark: bool = False) -> list[str]:
    """What a hand itself earned."""
    value = hand_value([Card.parse(code) for code in cards], variant)
    found = []
    if value.golden:
        found.append("golden")
    elif value.total == TARGET:
        found.append("natural" if len(cards) == 2 else "long_21")
        if dark:
            found.append("dark_21")  # a dark card ends the drawing: it was the last one
    if len(cards) >= FIVE_CARDS and not value.bust:
        found.append("five_cards")
    return found


def earned(
    event: RoundSettled,
    variant: Variant,
    *,
    starting: int,
    history: Mapping[int, History] | None = None,
) -> list[tuple[int, str]]:
    """What the round earned, (person, code): the players in turn order, then the banker, each
    person's codes in the order of :data:`CODES`. ``starting``: the chips a newcomer is given
    (the measure of a big win and of a comeback); ``history``: as :func:`candidates` asks."""
    history = history or {}
    found: dict[int, list[str]] = {}
    staked = [r for r in event.results if r.outcome != "out"]
    for r in staked:
        codes = found[r.player] = _hand(r.cards, variant, dark=r.dark)
        paid = r.outcome == "win" and r.net > 0
        for code, feat in (
            ("va_bank", paid and r.whole_bank),
            ("all_chips", paid and r.all_in),
            ("bank_broken", r.broke_bank),
            ("big_win", starting > 0 and r.net >= starting),
        ):
            if feat:
                codes.append(code)
    banker = found.setdefault(event.banker, [])
    banker += _hand(event.banker_cards, variant)
    if len(staked) >= SWEPT_PLAYERS and all(r.outcome == "lose" for r in staked):
        banker.append("swept")
    if starting > 0 and banker_net(event) >= starting:
        banker.append("big_win")
    winners, rich = candidates(event, starting)
    for person in winners:
        if history.get(person, History()).streak >= STREAK:
            found.setdefault(person, []).append("streak")
    for person in rich:
        if history.get(person, History()).refilled:
            found.setdefault(person, []).append("comeback")
    order = {code: n for n, code in enumerate(CODES)}
    return [
        (person, code)
        for person, codes in found.items()
        for code in sorted(set(codes), key=order.__getitem__)
    ]
