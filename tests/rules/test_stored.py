"""Stored games and events, pinned: what the bot has stored must decode and encode to the very
same JSON, byte for byte, whatever is rewritten inside the engine.

``stored_sessions.json`` holds, for each preset, a seeded session as it was written by the code
of its day: the JSON of every event (``to_dict``, in its key order) and of the game at the end
(``to_json``). The same session played today must write the same text, and the stored text must
come back through ``from_dict``/``from_json`` unchanged. A deliberate change of a stored form
(a new field, a new event) regenerates the file: ``python -m tests.rules.test_stored``.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from rules.events import Event
from rules.game import Game
from rules.randomness import seeded
from rules.variants import PRESETS
from tests.rules.test_copy import act, legal_moves

FIXTURE = Path(__file__).with_name("stored_sessions.json")
MOVES = 80


def _text(data: dict[str, Any]) -> str:
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


def written(name: str) -> dict[str, Any]:
    """The session of ``name`` as today's code writes it: every event's JSON, then the game's."""
    variant = PRESETS[name]
    game = Game(variant, seeded(7))
    rng = random.Random(name)
    events = [_text(event.to_dict()) for event in game.join(0, 5_000, house=name == "home36")]
    for player in range(1, variant.max_seats):
        events.extend(_text(event.to_dict()) for event in game.join(player, 100))
    for _ in range(MOVES):
        moves = [m for m in legal_moves(game) if m[0] not in ("end", "join", "leave")]
        # Now and then a player leaves (never the house, player 0 in home36: a house that left
        # the lobby could not start it).
        leaving = [m for m in legal_moves(game) if m[0] == "leave" and m[1] != (0,)]
        if leaving and rng.random() < 0.05:
            moves = leaving
        if not moves:
            break
        events.extend(_text(event.to_dict()) for event in act(game, rng.choice(moves)))
    for event in game.end() if game.can_end() else []:
        events.append(_text(event.to_dict()))
    return {"events": events, "game": game.to_json()}


def _stored() -> dict[str, dict[str, Any]]:
    loaded: dict[str, dict[str, Any]] = json.loads(FIXTURE.read_text(encoding="utf-8"))
    return loaded


@pytest.mark.parametrize("name", list(PRESETS))
def test_todays_code_writes_what_was_stored(name: str) -> None:
    stored = _stored()[name]
    today = written(name)
    assert today["events"] == stored["events"]
    assert today["game"] == stored["game"]


@pytest.mark.parametrize("name", list(PRESETS))
def test_what_was_stored_comes_back_byte_for_byte(name: str) -> None:
    stored = _stored()[name]
    kinds = set()
    for text in stored["events"]:
        event = Event.from_dict(json.loads(text))
        assert _text(event.to_dict()) == text
        kinds.add(event.kind)
    assert {"round_settled", "chips", "session_ended", "card_dealt", "shuffled"} <= kinds
    game = Game.from_json(stored["game"])
    assert game.to_json() == stored["game"]
    assert Game.replay(game.variant, game.log).to_json() == stored["game"]


if __name__ == "__main__":
    FIXTURE.write_text(
        json.dumps({name: written(name) for name in PRESETS}, indent=1, ensure_ascii=False) + "\n",
        encoding="utf-8",
    )
