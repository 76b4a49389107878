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
fractions); ties stand. :func:`reference_decide` is a slow brute-force search of the same model
for the tests: it enumerates every joint assignment of the players' hidden cards, card by card,
and every ordered sequence of the house's draws.

:func:`bank_amount`: the house names the largest bank allowed (its balance, or the variant's
``bank_limit``), so every stake a player can afford is covered.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from fractions import Fraction
from itertools import combinations, product
from math import comb
from typing import Literal

from rules.cards import Card, build_deck
from rules.game import Game
from rules.scoring import HandValue, hand_value, is_natural
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
        opponents.append(
            Opponent(
                player=player,
                stake=hand.stake,
                seen=tuple(card for card in visible if card is not None),
                hidden=sum(1 for card in visible if card is None),
            )
        )
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
    if value.bust:
        return False
    if variant.instant_21 and value.twenty_one:
        return False
    return not is_natural(cards, variant)


def _can_draw(cards: Sequence[Card], value: HandValue, variant: Variant, left: int) -> bool:
    return not value.bust and not value.twenty_one and len(cards) < variant.max_cards and left > 0


# ---------------------------------------------------------------------- the fast exact search


def _rank_card(rank: str) -> Card:
    return Card(rank, "1" if rank == "X" else "S")


def _multisets(
    ranks: Sequence[tuple[str, int]], size: int, start: int = 0
) -> Iterator[tuple[tuple[str, ...], int]]:
    """Every multiset of ``size`` ranks from the pool ``ranks`` (rank, count) with the number of
    ways to draw it: the product of C(count, taken)."""
    if size == 0:
        yield (), 1
        return
    for index in range(start, len(ranks)):
        rank, count = ranks[index]
        for taken in range(1, min(count, size) + 1):
            ways = comb(count, taken)
            for rest, rest_ways in _multisets(ranks, size - taken, index + 1):
                yield (rank,) * taken + rest, ways * rest_ways


def _distribution(opponent: Opponent, ranks: Sequence[tuple[str, int]], variant: Variant) -> (
    tuple[dict[HandValue, int], int]
):
    """The weights of the opponent's possible hand values, and their total."""
    weights: dict[HandValue, int] = {}
    total = 0
    for drawn, ways in _multisets(ranks, opponent.hidden):
        cards = list(opponent.seen) + [_rank_card(rank) for rank in drawn]
        if not _possible(cards, variant):
            continue
        value = hand_value(cards, variant)
        weights[value] = weights.get(value, 0) + ways
        total += ways
    return weights, total


def evaluate(position: View) -> tuple[Fraction, Fraction | None]:
    """The house's exact expected chips if it stands now, and if it draws (then plays on
    optimally); None where it cannot draw."""
    variant = position.variant
    counts = Counter(card.rank for card in position.unseen)
    ranks = sorted(counts.items())
    distributions = []
    for opponent in position.opponents:
        weights, total = _distribution(opponent, ranks, variant)
        if total:
            distributions.append((opponent.stake, weights, total))
    stand_values: dict[HandValue, Fraction] = {}

    def stand(value: HandValue) -> Fraction:
        known = stand_values.get(value)
        if known is None:
            known = Fraction(0)
            for stake, weights, total in distributions:
                wins = sum(w * _payoff(value, v, variant) for v, w in weights.items())
                known += Fraction(stake * wins, total)
            stand_values[value] = known
        return known

    memo: dict[tuple[str, ...], Fraction] = {}
    size = len(position.unseen)

    def hit(drawn: tuple[str, ...]) -> Fraction:
        """Draw one card after ``drawn`` and play on optimally."""
        left = size - len(drawn)
        taken = Counter(drawn)
        result = Fraction(0)
        for rank, count in ranks:
            remaining = count - taken[rank]
            if remaining > 0:
                result += remaining * best(tuple(sorted((*drawn, rank))))
        return result / left

    def best(drawn: tuple[str, ...]) -> Fraction:
        known = memo.get(drawn)
        if known is not None:
            return known
        cards = list(position.own) + [_rank_card(rank) for rank in drawn]
        value = hand_value(cards, variant)
        result = stand(value)
        if _can_draw(cards, value, variant, size - len(drawn)):
            result = max(result, hit(drawn))
        memo[drawn] = result
        return result

    own_value = hand_value(position.own, variant)
    standing = stand(own_value)
    if not _can_draw(position.own, own_value, variant, size):
        return standing, None
    return standing, hit(())


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


# ---------------------------------------------------------------------- the slow reference


def reference_evaluate(position: View) -> tuple[Fraction, Fraction | None]:
    """:func:`evaluate` by brute force: every joint assignment of physical cards to the players'
    hidden cards, every ordered sequence of the house's draws. For tests on small pools."""
    variant = position.variant
    pool = list(position.unseen)
    indices = range(len(pool))
    players: list[tuple[int, list[HandValue]]] = []
    for opponent in position.opponents:
        hands = []
        for chosen in combinations(indices, opponent.hidden):
            cards = list(opponent.seen) + [pool[i] for i in chosen]
            if _possible(cards, variant):
                hands.append(hand_value(cards, variant))
        if hands:
            players.append((opponent.stake, hands))
    joint = list(product(*(hands for _, hands in players)))
    stakes = [stake for stake, _ in players]

    def stand(cards: Sequence[Card]) -> Fraction:
        house = hand_value(cards, variant)
        total = 0
        for assignment in joint:
            for stake, value in zip(stakes, assignment, strict=True):
                total += stake * _payoff(house, value, variant)
        return Fraction(total, len(joint))

    def best(drawn: tuple[int, ...]) -> Fraction:
        cards = list(position.own) + [pool[i] for i in drawn]
        value = hand_value(cards, variant)
        standing = stand(cards)
        left = [i for i in indices if i not in drawn]
        if not _can_draw(cards, value, variant, len(left)):
            return standing
        drawing = sum((best((*drawn, i)) for i in left), Fraction(0)) / len(left)
        return max(standing, drawing)

    own_value = hand_value(position.own, variant)
    standing = stand(position.own)
    if not _can_draw(position.own, own_value, variant, len(pool)):
        return standing, None
    left = list(indices)
    return standing, sum((best((i,)) for i in left), Fraction(0)) / len(left)


def reference_decide(position: View) -> Decision:
    standing, drawing = reference_evaluate(position)
    return "hit" if drawing is not None and drawing > standing else "stand"
