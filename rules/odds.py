"""Exact odds of the next card for a player, from what that player can see.

The model: the player knows the deck's composition and sees: his own cards (not his dark ones: a
dark card is unknown to its owner until the showdown), every card shown to the table (the banker's
face-up card, and whole hands once revealed: busts, 21s paid at once, naturals), the bottom card
where the preset shows it, and the size of the stock (the table can count it). Conditioned on those
cards, the shuffle makes every arrangement of the cards he has *not* seen over the places he cannot
see equally likely, so the next card is uniform over the unseen cards that can be next:

* The stock still holds cards and was not recycled this round: every card of the deck minus the
  cards he has seen (the cards hidden in other hands are as likely to be next as the ones still in
  the stock). The shown bottom card is seen, so it is never a candidate, except when it is the
  only card left in the stock: then it is the next card for certain.
* The stock ran out earlier this round and was rebuilt from the discards: the new stock is a
  shuffle of cards everyone saw (the revealed hands); the candidates are those cards minus the
  ones dealt from the new stock that he has seen since (the engine's log says which deals came
  after the rebuild).
* The stock is empty: the next card comes from the shuffled discards, which are all seen, so the
  candidates are exactly the discards.

Own unknown (dark) cards are dealt from the same candidates as the next card, jointly (exact while
the stock was not rebuilt; a drawing hand never holds one, since a dark card ends the drawing).

The model uses the cards seen and nothing else: it does not infer anything from how other players
behaved (for instance that a hidden hand which drew and did not bust holds a low total). A "21"
outcome includes the golden point (two aces) where the preset plays it. All figures are exact
fractions.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from rules.cards import Card
from rules.game import Game
from rules.scoring import hand_value
from rules.table import Hand, Phase
from rules.variants import Variant


@dataclass(frozen=True, slots=True)
class Odds:
    """The chance that the next card busts the player, and that it gives him exactly 21 (or the
    golden point), over ``candidates`` equally likely cards."""

    bust: Fraction
    twenty_one: Fraction
    candidates: int

    @property
    def bust_cards(self) -> Fraction:
        """How many of the candidates bust him (whole unless he holds unknown cards)."""
        return self.bust * self.candidates

    @property
    def twenty_one_cards(self) -> Fraction:
        return self.twenty_one * self.candidates


def _visible(hand: Hand, viewer: int) -> list[Card | None]:
    return hand.visible_to_owner() if hand.player == viewer else hand.visible_to_others()


def _recycled_deals(game: Game) -> tuple[Counter[Card], dict[int, int]] | None:
    """When the stock was rebuilt from the discards this round: the rebuilt stock's cards and how
    many cards each player has been dealt from it (his last ones); None when it was not."""
    shuffle = next((e for e in reversed(game.log) if e.get("a") == "shuffle"), None)
    if shuffle is None:
        return None
    order = [Card.parse(code) for code in shuffle["order"]]
    in_play = sum(len(hand.cards) for hand in game.hands.values()) + len(game.stock)
    if in_play == len(order):
        return None  # every card of the round's deck is in a hand or the stock: no rebuild
    since = len(order) - len(game.stock)
    counts: dict[int, int] = {}
    for entry in reversed(game.log):
        if since <= 0:
            break
        if entry.get("a") in ("hit", "dark") and isinstance(entry.get("p"), int):
            counts[entry["p"]] = counts.get(entry["p"], 0) + 1
            since -= 1
    return Counter(order), counts


def unseen_pool(game: Game, player: int) -> Counter[Card]:
    """The cards that can be the next one dealt, as ``player`` sees the table (see the module
    docstring); each is equally likely, counted with its multiplicity."""
    if not game.stock:
        return Counter(game.discards)
    if game.bottom is not None and len(game.stock) == 1:
        return Counter([game.bottom])
    recycled = _recycled_deals(game)
    if recycled is not None:
        pool, counts = recycled
        for p, dealt in counts.items():
            hand = game.hands.get(p)
            if hand is None or dealt <= 0:
                continue
            pool -= Counter(c for c in _visible(hand, player)[-dealt:] if c is not None)
        return pool
    pool = Counter(game.stock)
    for hand in game.hands.values():
        pool.update(hand.cards)
        pool -= Counter(c for c in _visible(hand, player) if c is not None)
    if game.bottom is not None:
        pool -= Counter([game.bottom])
    return pool


def next_card_odds(game: Game, player: int) -> Odds:
    """The exact odds that the next card dealt to ``player`` busts him or gives him 21."""
    pool = unseen_pool(game, player)
    hand = game.hands.get(player)
    view = _visible(hand, player) if hand is not None else []
    known = [card for card in view if card is not None]
    unknown = len(view) - len(known)
    size = sum(pool.values())
    if size <= unknown:
        return Odds(Fraction(0), Fraction(0), 0)
    bust, twenty_one, total = _count(known, unknown, pool, game.variant)
    return Odds(Fraction(bust, total), Fraction(twenty_one, total), size)


def _count(
    known: Sequence[Card], unknown: int, pool: Counter[Card], variant: Variant
) -> tuple[int, int, int]:
    """Ordered draws of ``unknown`` own cards and then the next card from ``pool``: how many bust,
    how many make 21, and how many there are. Cards of one rank are grouped (their suits do not
    change a hand's value)."""
    ranks: dict[str, int] = {}
    reps: dict[str, Card] = {}
    for card, count in pool.items():
        if count > 0:
            ranks[card.rank] = ranks.get(card.rank, 0) + count
            reps.setdefault(card.rank, card)

    def walk(hand: list[Card], left: int) -> tuple[int, int, int]:
        busts = twenty_ones = ways = 0
        for rank, count in ranks.items():
            if count == 0:
                continue
            cards = [*hand, reps[rank]]
            if left == 0:
                value = hand_value(cards, variant)
                b, t, w = int(value.bust), int(value.twenty_one), 1
            else:
                ranks[rank] = count - 1
                b, t, w = walk(cards, left - 1)
                ranks[rank] = count
            busts, twenty_ones, ways = busts + count * b, twenty_ones + count * t, ways + count * w
        return busts, twenty_ones, ways

    return walk(list(known), unknown)


def odds_for(game: Game, player: int) -> Odds | None:
    """The player's odds when he is drawing now (on turn, and may take a card); else None."""
    drawing = game.phase in (Phase.DRAW, Phase.BANKER) and game.turn == player
    return next_card_odds(game, player) if drawing and game.can_hit(player) else None
