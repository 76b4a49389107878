"""The provably fair deck: each shuffle's commitment verifies against its revealed salt and order,
and every card dealt followed the committed order — in every preset, with seeded and scripted
chance, through a recycle, a replay and a JSON round-trip; nothing secret leaks before the
showdown."""

from __future__ import annotations

import hashlib
import json
import random
from typing import Any

import pytest

from rules.cards import build_deck
from rules.events import (
    CardDealt,
    DeckShuffled,
    Event,
    RevealedShuffle,
    RoundSettled,
    RoundStarted,
)
from rules.fairness import (
    canonical,
    commitment,
    verify_commitment,
    verify_deal,
    verify_shuffle,
)
from rules.game import Game, new_game
from rules.randomness import RecordedSource, SystemRandomSource, seeded
from rules.table import Phase
from rules.variants import CLASSIC36, PRESETS, with_overrides
from tests.rules.helpers import ScriptedSource, table
from tests.rules.test_session import RECYCLE_DECK


def _step(game: Game, rng: random.Random) -> list[Event]:
    """One legal move of a simple player: bank and stake at random, draw below 17."""
    legal = game.legal_actions()
    turn = legal.actor
    if game.phase is Phase.ROUND_OVER:
        return game.next_round()
    assert turn is not None, legal
    if game.phase is Phase.BANK:
        return game.set_bank(turn, rng.randint(1, legal.maximum))
    if game.phase is Phase.STAKE:
        if legal.maximum < 1:
            return game.timeout()
        return game.stake(turn, rng.randint(1, legal.maximum))
    if "hit" in legal.actions and (game.hand_value(turn).total < 17 or rng.random() < 0.1):
        if "dark" in legal.actions and rng.random() < 0.1:
            return game.dark(turn)
        return game.hit(turn)
    return game.stand(turn)


def _secret_leaks(event: Event, shuffles: list[dict[str, Any]]) -> bool:
    """Whether ``event`` carries a salt or a whole order of the round being played."""
    text = json.dumps(event.to_dict())
    for shuffle in shuffles:
        if shuffle["salt"] and shuffle["salt"] in text:
            return True
        if " ".join(shuffle["order"]) in text or json.dumps(shuffle["order"]) in text:
            return True
    return False


def _check_round_events(events: list[Event], settled: RoundSettled) -> None:
    """The cards dealt after each DeckShuffled, in order, are the head of that shuffle's
    committed order, and the commitment announced is the one revealed."""
    announced = [e.commitment for e in events if isinstance(e, DeckShuffled)]
    assert announced == [s.commitment for s in settled.shuffles]
    per_shuffle: list[list[str]] = []
    for event in events:
        if isinstance(event, DeckShuffled):
            per_shuffle.append([])
        elif isinstance(event, CardDealt):
            per_shuffle[-1].append(event.card)
    assert len(per_shuffle) == len(settled.shuffles)
    for dealt, shuffle in zip(per_shuffle, settled.shuffles, strict=True):
        assert verify_commitment(shuffle.commitment, shuffle.order, shuffle.salt)
        assert verify_deal(shuffle.order, dealt)
        assert list(shuffle.dealt) == dealt
        assert verify_shuffle(shuffle)


def _play(game: Game, rounds: int, seed: int) -> list[RoundSettled]:
    """Play until ``rounds`` rounds are settled (or the session ends), checking every round."""
    rng = random.Random(seed)
    settled: list[RoundSettled] = []
    round_events: list[Event] = []
    steps = 0
    while len(settled) < rounds and not game.is_over:
        steps += 1
        assert steps < 10_000
        events = game.start() if game.phase is Phase.LOBBY else _step(game, rng)
        for event in events:
            if isinstance(event, RoundSettled):
                round_events.append(event)
                _check_round_events(round_events, event)
                settled.append(event)
                round_events = []
                continue
            assert not _secret_leaks(event, game.shuffles), event
            round_events.append(event)
        if game.in_round:
            # The round being played: its salt and order are in the state only, never shown.
            assert game.shuffles
            for shuffle in game.shuffles:
                assert shuffle["commitment"] == commitment(shuffle["order"], shuffle["salt"])
    return settled


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_every_shuffle_is_committed_and_followed_in_every_preset(name: str) -> None:
    variant = PRESETS[name]
    players = [(p, 200) for p in range(1, min(variant.max_seats, 5) + 1)]
    game = new_game(variant, players, source=seeded(1000 + len(name)))
    settled = _play(game, rounds=12, seed=7)
    assert settled, "no round was settled"
    assert all(r.shuffles for r in settled)
    # The log keeps each shuffle's salt and commitment: a replay reproduces them exactly.
    replayed = Game.replay(variant, game.log)
    assert replayed.to_json() == game.to_json()
    for r in settled:
        assert game.revealed_round(r.round_no) == r.shuffles
        assert replayed.revealed_round(r.round_no) == r.shuffles


def test_scripted_recycle_at_a_ten_seat_classic_table_commits_both_shuffles() -> None:
    variant = with_overrides(CLASSIC36, {"max_seats": 10})
    players = [(p, 20) for p in range(1, 10)] + [(10, 100)]
    game = table(variant, players, decks=[RECYCLE_DECK, ["JH"]], lots=[9])
    events: list[Event] = list(game.start())
    events += game.set_bank(10, 100)
    for p in range(1, 10):
        events += game.stake(p, 1)
        while game.whose_turn() == p and game.phase is Phase.DRAW:
            events += game.hit(p)
    settled = [e for e in events if isinstance(e, RoundSettled)]
    assert len(settled) == 1
    shuffles = settled[0].shuffles
    assert [s.recycled for s in shuffles] == [False, True]
    assert shuffles[1].order[0] == "JH" and shuffles[1].dealt[0] == "JH"
    # The first deck was dealt to its last card (the shown bottom card) before the recycle.
    assert shuffles[0].dealt == shuffles[0].order
    start = next(i for i, e in enumerate(events) if isinstance(e, DeckShuffled))
    _check_round_events(events[start:], settled[0])
    assert game.revealed_round(1) == shuffles
    assert Game.replay(variant, game.log).to_json() == game.to_json()


def test_a_tampered_order_salt_or_deal_fails() -> None:
    game = new_game(PRESETS["classic36"], [(1, 100), (2, 100)], source=seeded(3))
    settled = _play(game, rounds=1, seed=1)[0]
    good = settled.shuffles[0]
    assert verify_shuffle(good)
    swapped = (good.order[1], good.order[0], *good.order[2:])
    assert not verify_commitment(good.commitment, swapped, good.salt)
    assert not verify_commitment(good.commitment, good.order, "0" * 32)
    assert not verify_commitment("f" * 64, good.order, good.salt)
    assert not verify_deal(swapped, good.dealt)  # the first two cards were both dealt
    assert not verify_deal(good.order, (*good.dealt[:-1], good.order[len(good.dealt)]))
    assert not verify_deal(good.order[:2], good.order[:3])  # more dealt than committed
    assert not verify_shuffle(RevealedShuffle(good.commitment, good.salt, swapped, good.dealt))
    assert verify_commitment(good.commitment.upper(), good.order, good.salt)


def test_the_canonical_string_and_hash_are_as_documented() -> None:
    order, salt = ["AS", "10H", "6C"], "00112233445566778899aabbccddeeff"
    assert canonical(order, salt) == "ochko-v1|00112233445566778899aabbccddeeff|AS 10H 6C"
    digest = hashlib.sha256(b"ochko-v1|00112233445566778899aabbccddeeff|AS 10H 6C").hexdigest()
    assert commitment(order, salt) == digest


def test_salts_are_128_bit_hex_fresh_and_reproducible_in_tests() -> None:
    production = SystemRandomSource()
    salts = {production.salt() for _ in range(50)}
    assert len(salts) == 50
    assert all(len(s) == 32 and int(s, 16) >= 0 and s == s.lower() for s in salts)
    assert [seeded(5).salt() for _ in range(2)] == [seeded(5).salt()] * 2
    a, b = seeded(5), seeded(5)
    assert [a.salt() for _ in range(3)] == [b.salt() for _ in range(3)]
    assert seeded(5).salt() != seeded(6).salt()
    assert len(ScriptedSource().salt()) == 32
    assert RecordedSource([], [], ["ab" * 16]).salt() == "ab" * 16


def test_salts_do_not_change_the_seeded_deals() -> None:
    """Drawing salts never moves the shuffle stream: seeded games deal as before."""
    plain = random.Random(11)
    source = SystemRandomSource(random.Random(11))
    deck = build_deck(PRESETS["classic36"].deck)
    source.salt()
    expected = list(deck)
    for i in range(len(expected) - 1, 0, -1):
        j = plain.randrange(i + 1)
        expected[i], expected[j] = expected[j], expected[i]
    assert source.shuffled(deck) == expected


def test_json_round_trip_keeps_the_commitments_and_old_states_load() -> None:
    game = new_game(PRESETS["home36"], [(1, 100), (2, 100), (3, 100)], source=seeded(9))
    game.start()
    rng = random.Random(2)
    while not game.in_round or not game.shuffles or not game.hands[game.order[0]].cards:
        _step(game, rng)
    data = json.loads(game.to_json())
    assert data["shuffles"] == game.shuffles
    loaded = Game.from_json(game.to_json())
    assert loaded.shuffles == game.shuffles
    assert loaded.to_json() == game.to_json()
    # A state stored before the fair deck has no "shuffles": it loads with none.
    del data["shuffles"]
    assert Game.from_dict(data).shuffles == []
    # Revealed shuffles survive their JSON form (the bot's outbox).
    settled = _play(new_game(PRESETS["big54"], [(1, 99), (2, 99)], source=seeded(4)), 1, 3)[0]
    raw = json.loads(json.dumps(settled.to_dict()))
    assert settled.shuffles
    assert RoundSettled.from_dict(raw) == settled


def test_an_unsettled_round_is_not_revealed() -> None:
    game = new_game(PRESETS["classic36"], [(1, 100), (2, 100)], source=seeded(8))
    game.start()
    assert game.in_round or game.phase is Phase.BANK
    assert game.revealed_round(game.round_no) is None
    assert game.revealed_round(0) is None
    assert game.revealed_round(5) is None


def test_a_log_from_before_the_fair_deck_replays_without_commitments() -> None:
    game = new_game(PRESETS["classic36"], [(1, 100), (2, 100)], source=seeded(21))
    settled = _play(game, rounds=1, seed=4)[0]
    old_log = [
        {k: v for k, v in entry.items() if k not in ("salt", "commitment")} for entry in game.log
    ]
    old = Game.replay(game.variant, old_log)
    assert old.to_dict()["seats"] == game.to_dict()["seats"]
    legacy = Game(game.variant)
    legacy.log = old_log
    assert legacy.revealed_round(settled.round_no) == ()


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_a_rounds_record_is_every_action_and_event_as_played(name: str) -> None:
    game = new_game(PRESETS[name], [(1, 200), (2, 200), (3, 200)], source=seeded(31))
    rng = random.Random(5)
    played: list[list[Event]] = []  # each action's events, as it was played
    while not game.is_over and sum(isinstance(e, RoundSettled) for ev in played for e in ev) < 4:
        played.append(game.start() if game.phase is Phase.LOBBY else _step(game, rng))
    # Archive all but the round being dealt: the record reads both parts of the log.
    archived = game.archive_log(0)
    for r in [e for ev in played for e in ev if isinstance(e, RoundSettled)]:
        record = game.round_record(r.round_no, archived)
        assert record is not None
        assert record.settled == r and record.round_no == r.round_no
        assert record.shuffles == r.shuffles == game.revealed_round(r.round_no, archived)
        first = next(
            i
            for i, ev in enumerate(played)
            if any(isinstance(e, RoundStarted) and e.round_no == r.round_no for e in ev)
        )
        last = next(i for i, ev in enumerate(played) if r in ev)
        assert [list(step.events) for step in record.steps] == played[first : last + 1]
        dealt = [e.card for step in record.steps for e in step.events if isinstance(e, CardDealt)]
        assert dealt == [card for s in r.shuffles for card in s.dealt]
    assert any(isinstance(e, RoundSettled) for ev in played for e in ev)
    assert game.round_record(game.round_no + 1, archived) is None
