"""Game.archive_log(): an owner may keep a long session's log elsewhere, round by round, and the
game plays on exactly as if it had kept everything — the same events, odds, shuffles revealed for
every round, and the same game again when the whole log is replayed."""

from __future__ import annotations

import random
from typing import Any

import pytest

from rules.game import Game
from rules.odds import odds_for
from rules.randomness import seeded
from rules.table import Phase
from rules.variants import PRESETS
from tests.rules.test_copy import act, legal_moves, session

PRESET_NAMES = list(PRESETS)


def _without_log(state: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in state.items() if k not in ("log", "log_base")}


@pytest.mark.parametrize("name", PRESET_NAMES)
def test_an_archived_session_plays_as_a_whole_one(name: str) -> None:
    variant = PRESETS[name]
    for seed in range(3):
        whole = session(variant, variant.max_seats, seed, house=seed == 2)
        kept = session(variant, variant.max_seats, seed, house=seed == 2)
        archived: list[dict[str, Any]] = []
        rng = random.Random(seed)
        rounds = 0
        for _ in range(400):
            moves = [m for m in legal_moves(whole) if m[0] not in ("end", "join", "leave")]
            if not moves:
                break
            move = rng.choice(moves)
            before = len(kept.log)
            was_over = kept.phase is Phase.ROUND_OVER
            assert act(whole, move) == act(kept, move), move
            if was_over and kept.phase not in (Phase.ROUND_OVER, Phase.ENDED):
                # A new round began with this move: what came before it goes to the archive.
                rounds += 1
                archived += kept.archive_log(len(kept.log) - before)
            assert _without_log(kept.to_dict()) == _without_log(whole.to_dict())
            assert kept.full_log(archived) == whole.log
            assert kept.log_base == len(archived)
            drawing = kept.legal_actions().actor
            if kept.phase is Phase.DRAW and drawing is not None:
                assert odds_for(kept, drawing) == odds_for(whole, drawing)
        assert rounds >= 3, "the sessions must get past a few rounds"
        for round_no in range(1, whole.round_no + 1):
            assert kept.revealed_round(round_no, archived) == whole.revealed_round(round_no)
        replayed = Game.replay(variant, kept.full_log(archived))
        assert replayed.to_json() == whole.to_json()
        # The stored form carries only the round being played, and says how much is elsewhere.
        state = kept.to_dict()
        assert state["log_base"] == len(archived) and len(state["log"]) < len(whole.log)
        again = Game.from_dict(state)
        assert again.to_dict() == state and again.copy().to_dict() == state


def test_a_game_that_never_archived_stores_as_before() -> None:
    game = session(PRESETS["classic36"], 3, 1)
    game.start()
    assert "log_base" not in game.to_dict()
    assert game.full_log(()) == game.log
    assert Game.from_dict(game.to_dict()).log_base == 0


def test_archive_and_full_log_refuse_wrong_counts() -> None:
    game = session(PRESETS["classic36"], 3, 2)
    game.start()
    with pytest.raises(ValueError, match="keep"):
        game.archive_log(len(game.log) + 1)
    with pytest.raises(ValueError, match="keep"):
        game.archive_log(-1)
    archived = game.archive_log(1)
    assert archived and len(game.log) == 1 and game.log_base == len(archived)
    with pytest.raises(ValueError, match="archived log"):
        game.full_log(archived[1:])
    with pytest.raises(ValueError, match="archived log"):
        game.revealed_round(1)  # the archived entries are needed back
    nothing = game.archive_log(len(game.log))
    assert nothing == [] and game.log_base == len(archived)


def test_a_seeded_game_archives_deterministically() -> None:
    one = Game(PRESETS["classic36"], seeded(5))
    two = Game(PRESETS["classic36"], seeded(5))
    for game in (one, two):
        for player in (1, 2, 3):
            game.join(player, 100)
        game.start()
    assert one.archive_log(0) == two.archive_log(0)
    assert one.to_dict() == two.to_dict()
