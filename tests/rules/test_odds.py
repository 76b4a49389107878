"""rules.odds: scripted positions with the figures worked out by hand, and a brute force.

Values (russian presets): 6–10 face, J 2, Q 3, K 4, A 11; twodecks104: faces 10, A 1 or 11.
The brute force enumerates every arrangement of the cards a player has not seen over the places
he cannot see (the hidden cards of other hands, his own dark ones, the stock but a shown bottom),
lets the engine deal the next card in each such world, and counts busts and 21s.
"""

from __future__ import annotations

import itertools
import random
from collections import Counter
from collections.abc import Iterator
from fractions import Fraction
from typing import Any

import pytest

import rules.flow
import rules.game
from rules.cards import Card, DeckKind, build_deck
from rules.events import CardDealt, DeckShuffled, Event
from rules.game import Game
from rules.odds import Odds, next_card_odds, odds_for, unseen_pool
from rules.randomness import SystemRandomSource
from rules.scoring import hand_value
from rules.table import Phase
from rules.variants import PRESETS, with_overrides
from tests.rules.helpers import ScriptedSource, table

F = Fraction


def small_decks(monkeypatch: pytest.MonkeyPatch, deck: list[str]) -> None:
    """Every preset deals ``deck`` (in the given order, when scripted) instead of its own."""
    cards = tuple(Card.parse(code) for code in deck)
    monkeypatch.setattr(rules.flow, "_DECKS", {kind: cards for kind in DeckKind})


# ---------------------------------------------------------------------- classic36 (bottom shown)


def classic(decks: list[list[str]], players: int = 2) -> Game:
    """Player 1 banks 50 (lot 0); players 2.. stake in turn (per turn) and draw."""
    game = table("classic36", [(p, 100) for p in range(1, players + 1)], decks=decks)
    game.start()
    game.set_bank(1, 50)
    return game


def test_classic36_first_card_and_after_a_hit() -> None:
    # The deck: 10♠ to player 2, 9♥ to the banker face up, then K♠; the bottom is A♣.
    game = classic([["10S", "9H", "KS"]])
    assert game.bottom == Card("A", "C")
    game.stake(2, 10)
    # Seen: 10♠, 9♥, A♣ (bottom) → 33 candidates. 10 busts on nothing over 11 (A makes 21);
    # 21 with the 3 aces left.
    assert odds_for(game, 2) == Odds(F(0), F(3, 33), 33)
    game.hit(2)  # K♠: 14
    # Seen: 10♠ K♠ 9♥ A♣ → 32. Bust on 8+: 8 ×4, 9 ×3, 10 ×3, A ×3 = 13; 21 on the four 7s.
    assert odds_for(game, 2) == Odds(F(13, 32), F(4, 32), 32)
    assert odds_for(game, 1) is None  # the banker is not drawing now


def test_classic36_golden_point_counts_as_21() -> None:
    # A♠ to player 2: the second ace is the golden point (22 that wins), not a bust.
    game = classic([["AS", "9H"]])
    game.stake(2, 10)
    # 33 candidates; 21 with a 10 (4) or an ace (A♠ held, A♣ the bottom: 2 left) = 6; no bust.
    assert next_card_odds(game, 2) == Odds(F(0), F(6, 33), 33)


def test_bottom_card_is_next_only_when_alone_in_stock(monkeypatch: pytest.MonkeyPatch) -> None:
    # A six-card deck: 6♠ to player 2, 9♥ to the banker, then J♠ Q♠ 8♠, and A♣ at the bottom.
    small_decks(monkeypatch, ["6S", "9H", "JS", "QS", "8S", "AC"])
    game = classic([])
    game.stake(2, 10)
    # Seen 6♠ 9♥ A♣: the candidates are J♠ Q♠ 8♠. 6+2, 6+3, 6+8: no bust, no 21.
    assert next_card_odds(game, 2) == Odds(F(0), F(0), 3)
    game.hit(2)  # J♠: 8
    game.hit(2)  # Q♠: 11; the stock is 8♠ A♣, and A♣ is seen: 8♠ is next for sure
    assert next_card_odds(game, 2) == Odds(F(0), F(0), 1)
    game.hit(2)  # 8♠: 19; the stock is A♣ alone: the shown bottom card is next
    assert unseen_pool(game, 2) == Counter([Card("A", "C")])
    assert next_card_odds(game, 2) == Odds(F(1), F(0), 1)  # 19 + 11 = 30


def test_empty_stock_deals_the_discards_then_recycled_stock(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Players 2, 3, 4 get 10♠, 6♠, 7♦; the banker 9♥ face up; then 9♠ J♥ J♠, bottom A♣.
    small_decks(monkeypatch, ["10S", "6S", "7D", "9H", "9S", "JH", "JS", "AC"])
    game = classic([[], ["9S", "JH", "10S"]], players=4)
    game.stake(2, 10)
    game.hit(2)  # 9♠: 19
    game.hit(2)  # J♥: 21 at once, shown and discarded: 10♠ 9♠ J♥
    assert game.discards == [Card("10", "S"), Card("9", "S"), Card("J", "H")]
    game.stake(3, 10)
    # Player 3 sees 6♠, 9♥, the paid hand 10♠ 9♠ J♥ and A♣: the stock J♠ A♣ leaves J♠ and
    # player 4's hidden 7♦ as candidates. 6+2 = 8, 6+7 = 13.
    assert next_card_odds(game, 3) == Odds(F(0), F(0), 2)
    game.hit(3)  # J♠: 8; the stock is the bottom card alone
    assert next_card_odds(game, 3) == Odds(F(0), F(0), 1)  # 8 + 11 = 19
    game.hit(3)  # A♣: 19; the stock is empty: the discards 10♠ 9♠ J♥ are shuffled and dealt
    # 19 + 10 and 19 + 9 bust, 19 + 2 = 21.
    assert odds_for(game, 3) == Odds(F(2, 3), F(1, 3), 3)
    game.hit(3)  # the rebuilt stock is 9♠ J♥ 10♠: 9♠ busts him, shown
    game.stake(4, 10)
    game.stand(4)
    assert game.phase is Phase.BANKER
    # The banker (9♥) sees the rebuilt stock came from 10♠ 9♠ J♥ and 9♠ has been dealt: J♥ or
    # 10♠ is next. Player 4's hidden 7♦ was dealt before the rebuild: it cannot come.
    assert odds_for(game, 1) == Odds(F(0), F(0), 2)  # 9+2 = 11, 9+10 = 19


# ---------------------------------------------------------------------- other presets


def test_twodecks104_soft_and_hard_aces() -> None:
    # Stakes first, then two cards each: A♠ 5♥ to player 2, 10♦ 7♣ to the banker (hidden); the
    # banker plays first.
    game = table("twodecks104", [(1, 100), (2, 100)], decks=[["AS", "10D", "5H", "7C", "9D"]])
    game.start()
    game.set_bank(1, 50)
    game.stake(2, 10)
    assert game.phase is Phase.BANKER
    # The banker sees his 10♦ 7♣ only: 102 candidates. 17 busts on 5–9 (8 each, 7♣ held: 39) and
    # tens (10s: 7, J Q K: 24) = 70; an ace counts 1 (18). 21 on the eight 4s.
    assert odds_for(game, 1) == Odds(F(70, 102), F(8, 102), 102)
    game.stand(1)
    # Player 2: soft 16 (A♠ 5♥) cannot bust; 21 with a 5 (7 left). 102 candidates.
    assert odds_for(game, 2) == Odds(F(0), F(7, 102), 102)
    game.hit(2)  # 9♦: A 5 9 = 15, the ace now low
    # 101 candidates. Bust on 7+: 7 ×8, 8 ×8, 9 ×7, tens 32 = 55; 21 on the eight 6s.
    assert odds_for(game, 2) == Odds(F(55, 101), F(8, 101), 101)


def test_big54_jokers_are_wild() -> None:
    # 10♠ to player 2, 6♦ to the banker face up, then 5♥ and a joker.
    game = table("big54", [(1, 100), (2, 100)], decks=[["10S", "6D", "5H", "X1", "X2"]])
    game.start()  # the banker puts up everything: no bank to name
    game.stake(2, 10)
    game.hit(2)  # 5♥: 15
    # Seen 10♠ 5♥ 6♦: 51 candidates. Bust on 7 ×4, 8 ×4, 9 ×4, 10 ×3, A ×4 = 19; a joker counts
    # 1–6 as needed, so never busts, and makes 21 (as 6), like the three sixes left: 5.
    assert odds_for(game, 2) == Odds(F(19, 51), F(5, 51), 51)


def test_big54_joker_in_hand() -> None:
    game = table("big54", [(1, 100), (2, 100)], decks=[["X1", "6D", "9H"]])
    game.start()
    game.stake(2, 10)
    # A joker alone (1–11) never busts; 21 with a ten (4), an ace (4) or the other joker: 9 of 52.
    assert odds_for(game, 2) == Odds(F(0), F(9, 52), 52)
    game.hit(2)  # 9♥: joker + 9 = 20; with any further card the joker can make exactly 21
    assert odds_for(game, 2) == Odds(F(0), F(1), 51)


def test_home36_dark_cards_are_unknown() -> None:
    # Player 2: 10♠, player 3: 9♣, the banker 6♦ face up; player 2 takes 8♥ dark; player 3 K♣.
    game = table("home36", [(1, 100), (2, 100), (3, 100)], decks=[["10S", "9C", "6D", "8H", "KC"]])
    game.start()
    game.stake(2, 10)
    game.stake(3, 10)
    game.dark(2)
    game.hit(3)  # K♣: 13
    # Player 3 sees 9♣ K♣ 6♦ (not player 2's cards, nor the dark 8♥): 33 candidates.
    # Bust on 9+: 9 ×3, 10 ×4, A ×4 = 11; 21 on the four 8s (8♥ among them).
    assert odds_for(game, 3) == Odds(F(11, 33), F(4, 33), 33)
    # Player 2 does not know his dark card: it and the next card are two of the 34 cards he has
    # not seen (all but 10♠ and 6♦), every ordered pair alike.
    pool = unseen_pool(game, 2)
    assert sum(pool.values()) == 34 and pool[Card("8", "H")] == 1
    cards = list(pool.elements())
    busts = twenty_ones = pairs = 0
    for i, j in itertools.permutations(range(len(cards)), 2):
        value = hand_value([Card("10", "S"), cards[i], cards[j]], game.variant)
        pairs += 1
        busts += value.bust
        twenty_ones += value.twenty_one
    assert next_card_odds(game, 2) == Odds(F(busts, pairs), F(twenty_ones, pairs), 34)
    assert odds_for(game, 2) is None  # a dark card ends the drawing


# ---------------------------------------------------------------------- the brute force


def _unknown_slots(game: Game, player: int, since: dict[int, int] | None) -> list[Any]:
    """The places ``player`` cannot see that may hold the next card: ("hand", p, i) and
    ("stock", i). After a rebuild of the stock only cards dealt from it count (``since``)."""
    slots: list[Any] = []
    for p, hand in game.hands.items():
        view = hand.visible_to_owner() if p == player else hand.visible_to_others()
        first = 0 if since is None else len(hand.cards) - since.get(p, 0)
        slots += [("hand", p, i) for i in range(first, len(view)) if view[i] is None]
    shown = 1 if game.bottom is not None else 0
    slots += [("stock", i) for i in range(len(game.stock) - shown)]
    return slots


def _get(game: Game, slot: Any) -> Card:
    card: Card = game.hands[slot[1]].cards[slot[2]] if slot[0] == "hand" else game.stock[slot[1]]
    return card


def _put(game: Game, slot: Any, card: Card) -> None:
    if slot[0] == "hand":
        game.hands[slot[1]].cards[slot[2]] = card
    else:
        game.stock[slot[1]] = card


def _worlds(game: Game, player: int, since: dict[int, int] | None) -> Iterator[Game]:
    """Every world consistent with what ``player`` saw, as a copy of the game."""
    data = game.to_dict()
    if not game.stock:  # the next card comes from the discards, shuffled in any order
        for order in itertools.permutations(game.discards):
            world = Game.from_dict(data, ScriptedSource(decks=[[c.code for c in order]]))
            yield world
        return
    slots = _unknown_slots(game, player, since)
    cards = [_get(game, slot) for slot in slots]
    for order in itertools.permutations(cards):
        world = Game.from_dict(data, ScriptedSource())
        for slot, card in zip(slots, order, strict=True):
            _put(world, slot, card)
        yield world


def brute_force(game: Game, player: int, since: dict[int, int] | None) -> Odds:
    busts = twenty_ones = worlds = 0
    for world in _worlds(game, player, since):
        world.hit(player)
        value = world.hand_value(player)
        worlds += 1
        busts += value.bust
        twenty_ones += value.twenty_one
    pool = unseen_pool(game, player)
    return Odds(F(busts, worlds), F(twenty_ones, worlds), sum(pool.values()))


RANKS_SMALL = {
    "classic36": ["6", "7", "8", "9", "10", "J", "Q", "K", "A"],
    "home36": ["6", "7", "8", "9", "10", "J", "Q", "K", "A"],
    "big54": ["2", "5", "8", "10", "J", "K", "A", "X"],
    "twodecks104": ["2", "5", "8", "9", "10", "K", "A"],
}


def _small_deck(name: str, rng: random.Random, size: int) -> list[str]:
    """``size`` cards of the preset's deck; twodecks104 repeats cards (two decks)."""
    kind = PRESETS[name].deck
    deck = [c.code for c in build_deck(kind) if c.rank in RANKS_SMALL[name]]
    if kind is DeckKind.DOUBLE104:
        single = sorted(set(deck))
        chosen = rng.sample(single, size // 2)
        return chosen + chosen[: size - size // 2]
    return rng.sample(deck, size)


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_odds_equal_brute_force_on_small_decks(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    checked = recycled_checks = 0
    for seed in range(25):
        rng = random.Random(f"{name}-{seed}")
        players = rng.randint(2, 4)
        size = rng.randint(7, 9) if players < 4 else rng.randint(8, 9)
        small_decks(monkeypatch, _small_deck(name, rng, size))
        variant = PRESETS[name]
        if variant.max_seats < players:
            variant = with_overrides(variant, {"max_seats": players})
        game = rules.game.new_game(
            variant,
            [(p, 100) for p in range(1, players + 1)],
            source=SystemRandomSource(random.Random(seed)),
        )
        since: dict[int, int] | None = None
        events: list[Event] = game.start()
        for _ in range(80):
            for event in events:
                if isinstance(event, DeckShuffled):
                    since = {} if event.recycled else None
                elif isinstance(event, CardDealt) and since is not None:
                    since[event.player] = since.get(event.player, 0) + 1
            if game.phase is Phase.ENDED or game.round_no > 2:
                break
            legal = game.legal_actions()
            actor = legal.actor
            if game.phase is Phase.BANK:
                assert actor is not None
                events = game.set_bank(actor, rng.randint(1, legal.maximum))
            elif game.phase is Phase.STAKE:
                assert actor is not None
                events = game.stake(actor, rng.randint(legal.minimum, legal.maximum))
            elif game.phase in (Phase.DRAW, Phase.BANKER):
                assert actor is not None
                odds = odds_for(game, actor)
                if "hit" in legal.actions:
                    assert odds is not None
                    if len(_unknown_slots(game, actor, since)) <= 6 and len(game.discards) <= 6:
                        assert odds == brute_force(game, actor, since), (seed, game.to_dict())
                        checked += 1
                        recycled_checks += since is not None or not game.stock
                else:
                    assert odds is None
                choice = rng.random()
                if "dark" in legal.actions and choice < 0.15:
                    events = game.dark(actor)
                elif "hit" in legal.actions and choice < 0.8:
                    events = game.hit(actor)
                else:
                    events = game.stand(actor)
            elif game.phase is Phase.ROUND_OVER:
                events = game.next_round()
            else:
                break
    assert checked >= 40, checked
    if name == "classic36":
        assert recycled_checks >= 1  # the empty stock and the rebuilt stock were reached
