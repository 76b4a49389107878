"""The house banker: its exact search agrees with a slow brute-force reference on many small
positions of every preset; in the engine it banks every round, chips are conserved, and a game
with a house round-trips through JSON and replays exactly."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from fractions import Fraction
from itertools import combinations, product

import pytest

from rules.cards import Card, build_deck
from rules.errors import IllegalAction
from rules.events import BankBroken, BankerChosen, BankPassed
from rules.game import Game
from rules.house import (
    Decision,
    Opponent,
    View,
    _can_draw,
    _payoff,
    _possible,
    bank_amount,
    decide,
    decide_view,
    evaluate,
    view,
)
from rules.randomness import seeded
from rules.scoring import HandValue, hand_value
from rules.table import Phase
from rules.variants import PRESETS, Variant, with_overrides
from tests.rules.helpers import ScriptedSource, of

HOUSE = 0


def reference_evaluate(position: View) -> tuple[Fraction, Fraction | None]:
    """:func:`rules.house.evaluate` by brute force: every joint assignment of physical cards to
    the players' hidden cards, every ordered sequence of the house's draws (small pools only)."""
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


def _random_view(variant: Variant, rng: random.Random) -> View:
    """A late position: few unseen cards, so the brute force stays fast."""
    while True:
        deck = build_deck(variant.deck)
        rng.shuffle(deck)
        own = tuple(deck[: rng.randint(variant.first_deal, 3)])
        value = hand_value(own, variant)
        if value.bust or value.twenty_one or len(own) >= variant.max_cards:
            continue
        rest = deck[len(own) :]
        opponents = []
        for player in range(1, rng.randint(1, 2) + 1):
            hidden = 2 if variant.banker_first else rng.randint(1, 2)
            opponents.append(Opponent(player, rng.randint(1, 10), (), hidden))
        if rng.random() < 0.3 and not variant.banker_first:
            # a player with a card everyone sees (as a face-up card would be)
            opponents.append(Opponent(9, rng.randint(1, 10), (rest.pop(),), 1))
        pool = tuple(sorted(rest[: rng.randint(4, 6)]))
        return View(variant, own, pool, tuple(opponents))


@pytest.mark.parametrize("name", list(PRESETS))
def test_exact_search_equals_brute_force(name: str) -> None:
    rng = random.Random(f"house-{name}")
    variant = PRESETS[name]
    decisions = Counter()
    for _ in range(25):
        position = _random_view(variant, rng)
        assert evaluate(position) == reference_evaluate(position), position
        decision = decide_view(position)
        assert decision == reference_decide(position)
        decisions[decision] += 1
    assert decisions["hit"] and decisions["stand"]  # both answers are exercised


def _house_game(name: str, seed: int, *, players: int = 3, house_chips: int = 5_000) -> Game:
    variant = PRESETS[name]
    game = Game(variant, seeded(seed))
    game.join(HOUSE, house_chips, house=True)
    for player in range(1, players + 1):
        game.join(player, 300)
    return game


def _play(game: Game, rounds: int, on_decision: object = None) -> list[object]:
    """Play ``rounds`` rounds: the house by rules.house, players to 16; every event kept."""
    events: list[object] = list(game.start())
    total = game.total_chips()
    played = 0
    while not game.is_over and played < rounds:
        phase, turn = game.phase, game.turn
        if phase is Phase.BANK:
            assert turn == HOUSE
            events += game.set_bank(HOUSE, bank_amount(game, HOUSE))
        elif phase is Phase.BANKER:
            assert turn == HOUSE
            if callable(on_decision):
                on_decision(game)
            move = decide(game, HOUSE)
            events += game.hit(HOUSE) if move == "hit" else game.stand(HOUSE)
        elif phase is Phase.STAKE:
            assert turn is not None
            events += game.stake(turn, min(game.stake_range(turn)[1], 25))
        elif phase is Phase.DRAW:
            assert turn is not None
            hits = game.can_hit(turn) and game.hand_value(turn).total < 16
            events += game.hit(turn) if hits else game.stand(turn)
        else:
            assert phase is Phase.ROUND_OVER
            assert game.banker == HOUSE
            played += 1
            events += game.next_round()
        assert game.total_chips() == total
    return events


@pytest.mark.parametrize("name", list(PRESETS))
def test_house_banks_every_round_and_replays(name: str) -> None:
    game = _house_game(name, seed=11)
    checked = Counter()

    def compare_late(game: Game) -> None:
        # The real position, with the unseen pool cut down so the brute force stays fast.
        position = view(game, HOUSE)
        assert position.own == tuple(game.hands[HOUSE].cards)
        seen = Counter(position.own)
        for player, hand in game.hands.items():
            if player != HOUSE:
                seen.update(card for card in hand.visible_to_others() if card is not None)
        if game.bottom is not None:
            seen[game.bottom] += 1
        assert Counter(position.unseen) + seen == Counter(build_deck(game.variant.deck))
        assert decide(game, HOUSE) == decide_view(position)
        checked["positions"] += 1
        if checked["positions"] > 6:
            return
        step = len(position.unseen) // 6 + 1
        small = View(
            position.variant,
            position.own,
            position.unseen[::step],
            tuple(
                Opponent(o.player, o.stake, o.seen, min(o.hidden, 2))
                for o in position.opponents[:2]
            ),
        )
        assert evaluate(small) == reference_evaluate(small)

    events = _play(game, 25, compare_late)
    assert checked["positions"] >= 5
    assert game.banker == HOUSE
    chosen = of(events, BankerChosen)
    assert [(e.player, e.by_lot) for e in chosen] == [(HOUSE, False)]
    assert not [e for e in of(events, BankPassed) if e.old_banker == HOUSE]
    assert not any(entry["a"] == "lot" for entry in game.log)
    if not game.is_over:  # a session with a house never ends because everyone has dealt
        assert game.round_no >= 25
    restored = Game.from_json(game.to_json())
    assert restored.to_dict() == game.to_dict() and restored.house == HOUSE
    assert Game.replay(game.variant, game.log).to_json() == game.to_json()


def test_broken_house_bank_is_funded_again() -> None:
    variant = with_overrides(PRESETS["classic36"], {"bank_limit": 10})
    game = Game(variant, ScriptedSource(decks=[["10S", "6H", "AS"]]))
    game.join(HOUSE, 30, house=True)
    game.join(1, 100)
    game.start()
    assert (game.phase, game.turn, game.legal_actions().maximum) == (Phase.BANK, HOUSE, 10)
    game.set_bank(HOUSE, bank_amount(game, HOUSE))
    game.stake(1, 10)
    events = game.hit(1)  # 10 + A: 21, paid at once; the bank is broken
    assert of(events, BankBroken)
    assert not of(events, BankPassed)
    assert (game.phase, game.banker, game.balance(HOUSE), game.bank) == (
        Phase.ROUND_OVER,
        HOUSE,
        20,
        0,
    )
    game.next_round()
    assert (game.phase, game.turn) == (Phase.BANK, HOUSE)
    assert game.total_chips() == 130


def test_house_out_of_chips_ends_the_session() -> None:
    game = Game(PRESETS["classic36"], ScriptedSource(decks=[["10S", "6H", "AS"]]))
    game.join(HOUSE, 10, house=True)
    game.join(1, 100)
    game.start()
    game.set_bank(HOUSE, bank_amount(game, HOUSE))
    game.stake(1, 10)
    game.hit(1)
    assert game.is_over and game.balance(1) == 110 and game.balance(HOUSE) == 0


def test_twodecks_house_keeps_the_bank_every_round() -> None:
    game = _house_game("twodecks104", seed=5, players=2)
    _play(game, 12)
    assert game.round_no >= 12 and game.banker == HOUSE and not game.is_over


def test_house_is_seated_once_in_the_lobby() -> None:
    game = _house_game("classic36", seed=1)
    with pytest.raises(IllegalAction):
        game.join(7, 100, house=True)
    game.start()
    fresh = Game(PRESETS["classic36"])
    fresh.join(1, 100)
    fresh.join(2, 100)
    assert fresh.house is None
    data = game.to_dict()
    del data["house"]  # a game stored before the house banker
    assert Game.from_dict(data).house is None


def test_decisions_are_sensible() -> None:
    """Classic36, one player standing on two hidden cards: the house draws to a 6 and stands on
    a 10 + ace (21 is automatic) or on 20."""
    variant = PRESETS["classic36"]
    deck = build_deck(variant.deck)
    by_code = {card.code: card for card in deck}
    player = Opponent(1, 10, (), 2)

    def position(*codes: str) -> View:
        own = tuple(by_code[c] for c in codes)
        unseen = tuple(sorted(c for c in deck if c not in own))
        return View(variant, own, unseen, (player,))

    assert decide_view(position("6S")) == "hit"
    assert decide_view(position("10S", "QS", "JS", "6H")) == "stand"  # 10 + 3 + 2 + 6 = 21
    assert decide_view(position("10S", "KS", "6H")) == "stand"  # 20
    assert decide_view(position("10S", "JS")) == "hit"  # 12


def test_house_that_leaves_the_lobby_is_no_longer_the_house() -> None:
    # Before, game.house kept naming the departed house: can_start() said yes and start() then
    # failed on a player who was not seated.
    game = Game(PRESETS["home36"], source=seeded(7))
    game.join(HOUSE, 5000, house=True)
    game.join(1, 100)
    game.join(2, 100)
    game.leave(HOUSE)
    assert game.house is None
    assert game.can_start()
    game.start()
    assert game.banker in (1, 2)
    assert Game.from_dict(game.to_dict()).to_dict() == game.to_dict()
