"""The house banker: the bot's own banker, optimal against what it can see.

The model (documented in docs/rules.md as well):

* **What the house sees.** Its own cards; every card visible to everyone — face-up cards, hands
  revealed during the round (busts, 21s, naturals), the shown bottom card — and how many cards
  each standing player holds. Nothing else: it never looks at the stock or at hidden cards.
* **The unseen pool** is the full deck less the cards the house sees. The shown bottom card is
  out of the pool: it is dealt only as the very last card of the stock.
* **Players' hands.** Each standing (not yet settled) player's hidden cards are a uniformly random
  draw without replacement from the unseen pool, conditioned on what is public about the hand:
  it did not bust (a bust is revealed at once), it is not 21 or the golden point where the preset
  pays those at once, and a two-card hand is not a natural where the preset pays naturals at once.
  Players are independent of each other and of the house's own future cards. A hand that no
  assignment explains (impossible in a real game) is left out.
* **The house's own future cards** are drawn one by one without replacement from the unseen pool.
  The house may draw while it holds fewer than ``max_cards`` cards and the pool is not empty; a
  bust, 21 (or the golden point) or the last allowed card ends its turn, as in the engine.
* **The payoff** is the exact expected number of chips the house wins at the showdown:
  for each standing player with stake ``s``, ``+s`` if the house's hand ranks higher, ``-s`` if
  lower, ``0`` on a tie; if the house busts it pays ``s`` (``2s`` where both-bust-quits), and a
  busted unsettled player (both-bust-quits) is quits with a busted house and loses otherwise.
  Whether the bank can cover every win (a dry bank) is ignored.
* **twodecks104**, where the banker plays first: the players have not drawn yet; the model takes
  them as standing on their two hidden cards (conditioned on not being naturals, which were paid).

:func:`decide` maximises that expectation exactly over every hit/stand policy of the house
(a recursion over the house's draws, memoised on the multiset of ranks drawn, in exact
fractions); ties stand. tests/rules/test_house.py checks it against a brute-force search of the
same model. :func:`bank_amount` names the largest bank allowed, so that every stake a player can
afford is covered.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cache, lru_cache
from math import comb
from typing import Literal

from rules.cards import JOKER, Card, build_deck
from rules.game import Game
from rules.scoring import FIXED_VALUES, HandValue, hand_value, is_natural
from rules.table import HandStatus, Phase
from rules.variants import Variant

Decision = Literal["hit", "stand"]


@dataclass(frozen=True, slots=True)
class Opponent:
    """A standing player as the house sees him."""

    player: int
    stake: int
    seen: tuple[Card, ...]  # the cards of his hand everyone can see
    hidden: int  # how many of his cards the house cannot see


@dataclass(frozen=True, slots=True)
class View:
    """Everything the model uses: the house's cards, the unseen pool, the standing players."""

    variant: Variant
    own: tuple[Card, ...]
    unseen: tuple[Card, ...]
    opponents: tuple[Opponent, ...]


def view(game: Game, house: int) -> View:
    """What ``house`` (the banker of ``game``) can see now."""
    own = tuple(game.hands[house].cards)
    seen: list[Card] = list(own)
    for player, hand in game.hands.items():
        if player != house:
            seen.extend(card for card in hand.visible_to_others() if card is not None)
    if game.bottom is not None:
        seen.append(game.bottom)
    pool = Counter(build_deck(game.variant.deck))
    pool.subtract(seen)
    unseen = tuple(sorted(pool.elements()))
    opponents = []
    for player in game.order:
        hand = game.hands[player]
        if hand.settled or hand.status is HandStatus.OUT:
            continue
        visible = hand.visible_to_others()
        shown = tuple(card for card in visible if card is not None)
        opponents.append(Opponent(player, hand.stake, shown, len(visible) - len(shown)))
    return View(game.variant, own, unseen, tuple(opponents))


def _payoff(house: HandValue, player: HandValue, variant: Variant) -> int:
    """The house's result per unit staked against one player at the showdown."""
    if player.bust:
        return 0 if variant.both_bust_quits and house.bust else 1
    if house.bust:
        return -2 if variant.both_bust_quits else -1
    if house.rank > player.rank:
        return 1
    return -1 if house.rank < player.rank else 0


def _possible(cards: Sequence[Card], variant: Variant) -> bool:
    """Whether a standing player's hand agrees with what is public about it."""
    value = hand_value(cards, variant)
    return not (
        value.bust or (variant.instant_21 and value.twenty_one) or is_natural(cards, variant)
    )


def _can_draw(cards: Sequence[object], value: HandValue, variant: Variant, left: int) -> bool:
    return not value.bust and not value.twenty_one and len(cards) < variant.max_cards and left > 0


# ---------------------------------------------------------------------- the fast exact search


def _rank_card(rank: str) -> Card:
    return Card(rank, "1" if rank == "X" else "S")


Summary = tuple[int, int, int, int]
"""What a hand's value depends on: the sum of its cards other than aces and jokers, the aces,
the jokers, the number of cards (the golden point and naturals need it)."""


class _Values:
    """Hand values by :data:`Summary`, each computed once by :func:`rules.scoring.hand_value`
    on the first hand met with that summary (every hand with it has the same value, and is as
    possible for a standing player)."""

    def __init__(self, variant: Variant) -> None:
        self.variant = variant
        self._hands: dict[Summary, tuple[HandValue, bool]] = {}
        # What one card of each rank adds to a summary.
        self.steps: dict[str, Summary] = {
            rank: (value, 0, 0, 1) for rank, value in FIXED_VALUES[variant.values].items()
        }
        self.steps |= {"A": (0, 1, 0, 1), JOKER: (0, 0, 1, 1)}

    def summary(self, ranks: Sequence[str]) -> Summary:
        fixed = aces = jokers = 0
        for rank in ranks:
            f, a, j, _ = self.steps[rank]
            fixed, aces, jokers = fixed + f, aces + a, jokers + j
        return fixed, aces, jokers, len(ranks)

    def hand(self, summary: Summary, ranks: Sequence[str]) -> tuple[HandValue, bool]:
        """The value of a hand of ``ranks``, whose summary is ``summary``, and whether a standing
        player may hold it (:func:`_possible`)."""
        known = self._hands.get(summary)
        if known is None:
            cards = [_rank_card(rank) for rank in ranks]
            known = (hand_value(cards, self.variant), _possible(cards, self.variant))
            self._hands[summary] = known
        return known


# One per variant; overridden variants of many chats: keep the memory bounded.
_values_of = lru_cache(maxsize=64)(_Values)


def _add(summary: Summary, step: Summary, times: int = 1) -> Summary:
    return (
        summary[0] + times * step[0],
        summary[1] + times * step[1],
        summary[2] + times * step[2],
        summary[3] + times * step[3],
    )


def _distribution(
    opponent: Opponent, ranks: Sequence[tuple[str, int]], values: _Values
) -> tuple[dict[HandValue, int], int]:
    """The weights of the opponent's possible hand values, and their total: the ways to draw his
    hidden cards from the pool, by summary of the whole hand (rank type by rank type, taking
    0 to ``count`` cards of each, C(count, taken) ways)."""
    seen = [card.rank for card in opponent.seen]
    # summary -> (ways, one hand of ranks with that summary)
    states: dict[Summary, tuple[int, list[str]]] = {values.summary(seen): (1, seen)}
    for rank, count in ranks:
        step = values.steps[rank]
        grown: dict[Summary, tuple[int, list[str]]] = {}
        for summary, (ways, hand) in states.items():
            room = opponent.hidden - (summary[3] - len(seen))
            for taken in range(min(count, room) + 1):
                key = _add(summary, step, taken)
                old = grown.get(key)
                more = ways * comb(count, taken)
                grown[key] = (more + old[0], old[1]) if old else (more, hand + [rank] * taken)
        states = grown
    weights: dict[HandValue, int] = {}
    total = 0
    for summary, (ways, hand) in states.items():
        if summary[3] != len(seen) + opponent.hidden:
            continue
        value, possible = values.hand(summary, hand)
        if not possible:
            continue
        weights[value] = weights.get(value, 0) + ways
        total += ways
    return weights, total


def evaluate(position: View) -> tuple[Fraction, Fraction | None]:
    """The house's exact expected chips if it stands now, and if it draws (then plays on
    optimally); None where it cannot draw.

    The arithmetic is in integers: stand values are scaled by ``D``, the product of the players'
    totals of weights, and a value after ``d`` draws by ``M_d = (n-d)(n-d-1)…`` down to the last
    possible draw (``n`` the unseen cards), so that averaging over the next card is a plain sum.
    The house's draws are memoised on the counts drawn of each rank.
    """
    variant = position.variant
    values = _values_of(variant)
    counts = Counter(card.rank for card in position.unseen)
    ranks = sorted(counts.items())
    size = len(position.unseen)
    distributions = []
    scale = 1  # D
    for opponent in position.opponents:
        weights, total = _distribution(opponent, ranks, values)
        if total:
            distributions.append((opponent.stake, weights, total))
            scale *= total

    @cache
    def stand(value: HandValue) -> int:
        """The expected chips of standing on ``value``, times D."""
        result = 0
        for stake, weights, total in distributions:
            wins = sum(w * _payoff(value, v, variant) for v, w in weights.items())
            result += stake * wins * (scale // total)
        return result

    own = [card.rank for card in position.own]
    depth = max(0, min(variant.max_cards - len(own), size))  # draws the house can still make
    multipliers = [1] * (depth + 2)  # M_d
    for d in range(depth - 1, -1, -1):
        multipliers[d] = multipliers[d + 1] * (size - d)
    steps = [values.steps[rank] for rank, _ in ranks]
    memo: dict[tuple[int, ...], int] = {}

    def hit(drawn: tuple[int, ...], summary: Summary, hand: list[str]) -> int:
        """Draw one card after ``drawn`` (counts by rank) and play on optimally: times D·M_d."""
        result = 0
        for index, (rank, count) in enumerate(ranks):
            remaining = count - drawn[index]
            if remaining > 0:
                child = (*drawn[:index], drawn[index] + 1, *drawn[index + 1 :])
                result += remaining * best(child, _add(summary, steps[index]), hand, rank)
        return result

    def best(drawn: tuple[int, ...], summary: Summary, hand: list[str], rank: str) -> int:
        """The value of the best play after ``drawn``: times D·M_d, d the cards drawn."""
        known = memo.get(drawn)
        if known is not None:
            return known
        cards = [*hand, rank]
        value = values.hand(summary, cards)[0]
        taken = summary[3] - len(own)
        result = stand(value) * multipliers[taken]
        if _can_draw(cards, value, variant, size - taken):
            result = max(result, hit(drawn, summary, cards))
        memo[drawn] = result
        return result

    start = values.summary(own)
    own_value = values.hand(start, own)[0]
    standing = Fraction(stand(own_value), scale)
    if not _can_draw(own, own_value, variant, size):
        return standing, None
    return standing, Fraction(hit((0,) * len(ranks), start, own), scale * multipliers[0])


def decide_view(position: View) -> Decision:
    standing, drawing = evaluate(position)
    return "hit" if drawing is not None and drawing > standing else "stand"


def decide(game: Game, house: int) -> Decision:
    """The house's move on its turn to draw: "hit" or "stand" (ties stand)."""
    if game.phase is not Phase.BANKER or game.turn != house:
        raise ValueError("it is not the house's turn to draw")
    if not game.can_hit(house):
        return "stand"
    return decide_view(view(game, house))


def bank_amount(game: Game, house: int) -> int:
    """The bank the house names: the largest allowed (its balance or the variant's limit)."""
    if game.phase is not Phase.BANK or game.turn != house:
        raise ValueError("it is not the house's turn to name the bank")
    return game.legal_actions().maximum
