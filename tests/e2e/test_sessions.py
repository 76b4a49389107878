"""Full sessions of every preset, played through the local Bot API server by the real bot."""

from __future__ import annotations

import asyncio

import pytest

from tests.e2e.conftest import E2E, Table

PRESETS = {"classic36": 4, "home36": 3, "big54": 3, "twodecks104": 3}


@pytest.mark.slow
async def test_full_session_of_every_preset(e2e: E2E) -> None:
    tables = []
    for preset, players in PRESETS.items():
        group, users = e2e.group_with_players(f"Ochko {preset}", players)
        tables.append(Table(e2e, group, users, preset=preset))
    await e2e.start_bot()
    await e2e.open_private([u for t in tables for u in t.users])
    logs = await asyncio.gather(*(t.play_session(rounds=3) for t in tables))
    for table, rounds in zip(tables, logs, strict=True):
        assert len(rounds) >= 2, (table.preset, len(rounds))
        assert sum(log.secrecy_checked for log in rounds) > 0
        for log in rounds:
            print(
                f"{table.preset} round {log.round_no}: actions={log.actions} "
                f"requests={log.requests} group_writes={log.group_writes} "
                f"hidden={log.hidden_cards} texts_checked={log.secrecy_checked}"
            )
    e2e.assert_within_limits()
