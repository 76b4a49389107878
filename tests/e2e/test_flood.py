"""Issue 6's goal, end to end with the server's flood limits on: a 4-player classic36 round,
everyone acting as fast as the bot answers, costs at most 12 group sends+edits from the deal to
the result, and rounds can follow each other without a single 429."""

from __future__ import annotations

import pytest

from tests.e2e.conftest import E2E, Table

GROUP_WRITES_PER_ROUND = 12
ROUNDS = 12  # about 35 group writes: well past the 20-per-minute window, so pacing must hold


@pytest.mark.slow
async def test_back_to_back_rounds_stay_within_flood_limits(e2e: E2E) -> None:
    group, users = e2e.group_with_players("Flood", 4)
    table = Table(e2e, group, users, preset="classic36")
    await e2e.start_bot()
    await e2e.open_private(users)
    logs = await table.play_session(rounds=ROUNDS)
    assert len(logs) == ROUNDS, "the session ended early"
    writes = [log.group_writes for log in logs]
    print(f"group sends+edits per round: {writes}; actions: {[log.actions for log in logs]}")
    assert all(count <= GROUP_WRITES_PER_ROUND for count in writes), writes
    assert sum(writes) > 20, "too few writes to cross the per-minute window"
    e2e.assert_within_limits()
    e2e.assert_chips_conserved(group.id, len(users))
