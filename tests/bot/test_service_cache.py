"""The service keeps each game's engine decoded by state version: readers share it, actions work
on a copy of it, and an older state read late never replaces a newer one."""

from __future__ import annotations

from typing import Any

import pytest

from bot.game_state import Meta, game_of
from bot.service import Actor, Command, Refused, Request
from storage import jsontext
from storage.sql import games as sqlite_games
from tests.bot.conftest import Harness
from tests.bot.test_refusals import classic_at_stake


async def test_committed_games_are_shared_by_version_and_acted_on_as_copies(
    harness: Harness,
) -> None:
    service = harness.rt.service
    before = await classic_at_stake(harness)
    a, b = harness.users[:2]
    cached = service.committed(before.game_id)
    assert cached is not None and cached[0] == before.version
    # Readers of that version get the very engine the service keeps: no decode.
    assert service.game(before) is cached[1]
    assert cached[1].to_dict() == game_of(before).to_dict()

    # A refused action leaves the kept engine as it was (the action worked on a copy).
    state = cached[1].to_dict()
    with pytest.raises(Refused):
        await service.act(Request(before.game_id, Actor(a.id, "Аня"), Command("hit")))
    assert service.committed(before.game_id) == cached and cached[1].to_dict() == state

    outcome = await service.act(Request(before.game_id, Actor(b.id, "Борис"), Command("bet", 5)))
    after = service.committed(before.game_id)
    assert after is not None and after[0] == outcome.stored.version == before.version + 1
    assert after[1] is outcome.game and after[1] is not cached[1]
    assert cached[1].to_dict() == state  # the older engine was not touched either

    # The publisher may read an older state late: it gets that state, the newer one stays.
    old = service.game(before)
    assert old.to_dict() == state
    assert service.committed(before.game_id) == after


async def test_an_action_on_the_kept_version_does_not_decode_its_state_again(
    harness: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    service = harness.rt.service
    before = await classic_at_stake(harness)
    b = harness.users[1]
    decoded: list[str] = []

    def loads(text: str) -> Any:
        decoded.append(text)
        return jsontext.loads(text)

    monkeypatch.setattr(sqlite_games, "loads", loads)
    outcome = await service.act(Request(before.game_id, Actor(b.id, "Борис"), Command("bet", 5)))
    assert not [text for text in decoded if '"engine"' in text]
    # What the action read was the stored state all the same.
    assert outcome.stored.state == (await harness.stored()).state
    assert [text for text in decoded if '"engine"' in text]  # an ordinary read decodes


def test_results_stored_before_they_were_numbered_are_still_posted() -> None:
    """An outbox written by an older version has no numbers: each gets one, after the stored
    counter, so delivery (which recorded nothing for them) posts them all."""
    old = {
        "creator_id": 1,
        "names": {},
        "turn_since": 3,
        "decision": [1, "round_over", None],
        "outbox": [{"kind": "result", "event": {}}, {"kind": "ended", "event": {}}],
        "news": [],
    }
    meta = Meta.from_dict(old)
    assert [item["seq"] for item in meta.outbox] == [1, 2]
    assert meta.outbox_seq == 2
    assert Meta.from_dict(meta.to_dict()).outbox == meta.outbox
