"""What the group's table shows is recorded (for the start-up refresh after a crash) in one
transaction every few seconds, not with a commit per edit; nothing shown is left unrecorded."""

from __future__ import annotations

import asyncio

import pytest

from bot import publisher as publisher_module
from bot.service import Actor, Command
from tests.bot.conftest import Harness
from tests.bot.test_refusals import classic_at_stake


async def test_shown_versions_are_written_in_batches(
    harness: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(publisher_module, "SHOWN_WRITE_SECONDS", 0.05)
    storage, publisher = harness.rt.storage, harness.rt.publisher
    stored = await classic_at_stake(harness)
    assert await storage.stale_views() == []  # drained: everything shown is recorded
    b = harness.users[1]
    # A change nobody has shown yet: the table is behind its state.
    outcome = await harness.rt.service.act(stored.game_id, Actor(b.id, "Борис"), Command("bet", 5))
    assert await storage.stale_views() == [stored.game_id]
    # Shown now; recorded by the writer a moment later, not at once.
    publisher._mark_shown(stored.game_id, outcome.stored.version)
    assert await storage.stale_views() == [stored.game_id]
    await asyncio.sleep(0.2)
    assert await storage.stale_views() == []

    # A table shown while a write is under way gets a write of its own.
    again = await harness.rt.service.act(stored.game_id, Actor(b.id, "Борис"), Command("hit"))
    original = publisher.write_shown

    async def write_then_show() -> None:
        publisher.write_shown = original  # type: ignore[method-assign]
        await original()
        publisher._mark_shown(stored.game_id, again.stored.version)

    publisher.write_shown = write_then_show  # type: ignore[method-assign]
    publisher._mark_shown(stored.game_id, outcome.stored.version)
    await asyncio.sleep(0.3)
    assert await storage.stale_views() == []
    assert publisher._shown_writer is None and not publisher._shown_versions
