"""The process itself: start-up errors, SIGTERM, SIGKILL and a restart on the same database."""

from __future__ import annotations

import asyncio
import itertools
import time
from typing import Any

import pytest

from bot.app import POLL_INTERVAL
from bot.callbacks import Act
from localbotapi.models import RequestRecord
from rules.table import Phase
from tests.e2e.conftest import E2E, IN_ROUND, TOKEN, BotProcess, Table, game_buttons


async def _failed_start(e2e: E2E, name: str, **overrides: str | None) -> tuple[int, str]:
    process = BotProcess(e2e.bot_env(**overrides), e2e.tmp_path / f"{name}.log", e2e.tmp_path)
    process.spawn()
    code = await process.wait_exit(20)
    if code is None:
        process.kill()
        pytest.fail(f"{name}: the bot kept running:\n{process.log()}")
    return code, process.log()


async def test_startup_errors_are_one_clear_line(e2e: E2E) -> None:
    bad_token = "not-a-token-SECRETVALUE_abcdefghij"
    cases = {
        "missing_token": ({"BOT_TOKEN": None}, "BOT_TOKEN"),
        "malformed_token": ({"BOT_TOKEN": bad_token}, "BOT_TOKEN"),
        "unknown_scheme": ({"DATABASE_URL": "mysql://db.example/ochko"}, "mysql"),
    }
    for name, (overrides, mention) in cases.items():
        code, log = await _failed_start(e2e, name, **overrides)
        lines = [line for line in log.splitlines() if line.strip()]
        assert code != 0, (name, log)
        assert len(lines) == 1, f"{name}: expected one line, got:\n{log}"
        assert mention in lines[0], (name, lines[0])
        assert "Traceback" not in log
        assert TOKEN not in log and TOKEN.split(":", 1)[1] not in log, name
        assert "SECRETVALUE" not in log, name
    # Nothing reached the server: no request was made with any token.
    assert e2e.server.requests == []


async def test_sigterm_stops_cleanly_within_seconds(e2e: E2E) -> None:
    group, users = e2e.group_with_players("SIGTERM", 2)
    process = await e2e.start_bot()
    await e2e.open_private(users)
    await users[0].send(group, "/newgame")
    await e2e.wait_until(lambda: e2e.db.game(group.id), "the lobby")
    await group.wait_for(lambda m: bool(m.inline_keyboard), timeout=10)
    code, took = await process.terminate(timeout=5.0)
    assert code == 0, process.log()[-2000:]
    assert took < 5.0
    assert "stopped cleanly" in process.log()
    assert TOKEN not in process.log()
    e2e.assert_within_limits()


async def test_sigterm_shows_the_pending_table_before_exiting(e2e: E2E) -> None:
    """A table edit waiting for its gap when SIGTERM comes is sent before the bot exits (its
    HTTP client is still open in post_stop), and the exit is clean."""
    group, users = e2e.group_with_players("SIGTERM table", 3)
    process = await e2e.start_bot(TABLE_EDIT_GAP="60")
    await e2e.open_private(users)
    table = Table(e2e, group, users, preset="classic36")
    row = await table.open_and_start()

    def shown_version() -> int:
        message = group.message(row.table_message_id or 0)
        return max((b.version for b in game_buttons(message)), default=0) if message else 0

    # Act until the table is behind the game: its next edit waits for the 60 s gap.
    for _ in range(6):
        row = await table.act(*table.decide(row))
        if row.phase in IN_ROUND and shown_version() < row.version:
            break
    assert row.phase in IN_ROUND and shown_version() < row.version, "no table edit was waiting"
    before = group.message(row.table_message_id or 0).content  # type: ignore[union-attr]
    code, took = await process.terminate(timeout=8.0)
    assert code == 0, process.log()[-2000:]
    assert took < 8.0
    after = group.message(row.table_message_id or 0)
    assert after is not None and after.content != before, "the pending table edit was dropped"
    assert shown_version() == row.version
    assert "stopped cleanly" in process.log()
    e2e.assert_within_limits()


@pytest.mark.slow
async def test_sigkill_mid_round_and_restart(e2e: E2E) -> None:
    group, users = e2e.group_with_players("SIGKILL", 3)
    process = await e2e.start_bot()
    await e2e.open_private(users)
    table = Table(e2e, group, users, preset="classic36")
    row = await table.open_and_start()
    # Play until someone draws, then crash while their /hit is in flight.
    while row.phase is not Phase.DRAW:
        assert row.phase in IN_ROUND
        row = await table.act(*table.decide(row))
    drawer = table.user(row.turn or 0)
    cards_before = len(row.game.hands[drawer.id].cards)
    await drawer.send(group, "/hit")
    await asyncio.sleep(0.05)
    process.kill()
    await e2e.start_bot()
    await asyncio.sleep(1.0)  # the redelivered update (if unconfirmed) is handled by now
    after = table.row()
    if after.version == row.version:
        # The press was lost with the process: the player presses again.
        after = await table.act(drawer, Act.HIT)
    assert len(after.game.hands[drawer.id].cards) == cards_before + 1, "the /hit was applied twice"
    assert after.version == row.version + 1
    # The round continues and finishes; nothing was lost.
    log = await table.play_round(check=False)
    await table.check_private_hands(log)
    table.check_result_balances(log)
    e2e.assert_chips_conserved(group.id, len(users))

    # Crash again right after the settling action of the next round: the result waits in the
    # stored outbox and must be posted after the restart without anyone acting.
    row = await table.next_round(users[1])
    while row.phase in IN_ROUND:
        row = await table.act(*table.decide(row))
    e2e.processes[-1].kill()  # sometimes before the result went out
    pending = e2e.db.publishing(group.id)
    assert pending is not None
    unposted = pending[1]  # results committed but not yet posted when the process died
    results_before = len(group.bot_messages)
    await e2e.start_bot()
    await e2e.wait_until(
        lambda: not (e2e.db.publishing(group.id) or (0, 1))[1],
        f"the {unposted} pending result(s) to be posted after the restart",
    )
    if unposted:
        assert len(group.bot_messages) > results_before
    e2e.assert_chips_conserved(group.id, len(users))
    versions = table.versions
    assert versions == sorted(versions)
    e2e.assert_within_limits()
    # What each message showed was recorded: no restart asked for an edit that changes nothing,
    # but for an edit Telegram applied in the moment before the kill, before it could be noted.
    assert e2e.unrecorded_edits_repeated() == []


def _watch_polls(e2e: E2E) -> list[float]:
    """When each getUpdates reached the server (its record has the time a long poll returned)."""
    arrivals: list[float] = []
    handler = e2e.server._methods["getupdates"]

    async def arrived(bot: Any, params: Any) -> Any:
        arrivals.append(time.monotonic())
        return await handler(bot, params)

    e2e.server._methods["getupdates"] = arrived
    return arrivals


async def test_a_busy_bot_takes_a_burst_in_a_few_polls(e2e: E2E) -> None:
    """While a batch is still being handled, the next getUpdates waits POLL_INTERVAL after it:
    twenty messages sent 5 ms apart while a press waits for its answer reach the bot in a few
    requests, where asking again at once would take one each."""
    group, users = e2e.group_with_players("Polls", 2)
    await e2e.start_bot()
    await users[0].send(group, "привет")
    answer = e2e.server._methods["answercallbackquery"]

    async def held(bot: Any, params: Any) -> Any:
        await asyncio.sleep(2.0)  # the press stays in hand meanwhile
        return await answer(bot, params)

    e2e.server._methods["answercallbackquery"] = held
    query, _ = e2e.server.forge_press(e2e.bot, users[1], group.messages[-1], "nothing")

    def polls() -> list[RequestRecord]:
        return [r for r in e2e.server.requests if r.method == "getUpdates" and r.ok and r.result]

    await e2e.wait_until(
        lambda: any(
            u.get("callback_query", {}).get("id") == query.id for r in polls() for u in r.result
        ),
        "the press to be fetched",
    )
    started = time.monotonic()
    for n in range(20):
        await users[n % 2].send(group, f"привет {n}")
        await asyncio.sleep(0.005)

    def burst() -> list[RequestRecord]:
        return [r for r in polls() if r.time > started]

    await e2e.wait_until(lambda: sum(len(r.result) for r in burst()) == 20, "the twenty messages")
    assert query.answer is None, "the press was answered before the burst was fetched"
    answered = [r for r in e2e.server.requests if r.method == "getUpdates" and r.time > started]
    # After a batch the next request comes POLL_INTERVAL later at the earliest.
    gaps = [b.time - a.time for a, b in itertools.pairwise(answered) if a.result]
    assert gaps and min(gaps) >= POLL_INTERVAL * 0.9, gaps
    assert len(answered) < 20, [len(r.result) for r in answered]


async def test_an_idle_bot_polls_again_at_once(e2e: E2E) -> None:
    """Once a batch is handled the bot asks for the next at once: a press to an idle bot finds
    its long poll waiting, instead of coming up to POLL_INTERVAL later."""
    group, users = e2e.group_with_players("Idle", 1)
    await e2e.start_bot()
    arrivals = _watch_polls(e2e)
    started = time.monotonic()
    for n in range(10):
        await users[0].send(group, f"привет {n}")
        await asyncio.sleep(0.1)
    await e2e.wait_until(
        lambda: (
            sum(
                len(r.result)
                for r in e2e.server.requests
                if r.method == "getUpdates" and r.ok and r.time > started
            )
            == 10
        ),
        "the ten messages",
    )
    batches = [
        r.time
        for r in e2e.server.requests
        if r.method == "getUpdates" and r.ok and r.result and r.time > started
    ]
    # From a batch's return to the next request: the handling of one message, which is far
    # below POLL_INTERVAL at least once in ten even on a busy machine.
    gaps = [min((a for a in arrivals if a > t), default=float("inf")) - t for t in batches]
    assert min(gaps) < POLL_INTERVAL * 0.9, gaps
