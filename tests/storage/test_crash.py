"""SIGKILL a writer at random moments; every action must be wholly there or wholly absent.

On both backends: on SQLite the writer owns the file, on PostgreSQL the server outlives the
killed client and must roll back whatever it left open.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from storage import open_storage
from tests.storage.crash_worker import CHATS, USERS, chat_of, transfers_of
from tests.storage.raw import Rows, fetch, fetch_all, is_sqlite

WORKER = Path(__file__).with_name("crash_worker.py")
# A PostgreSQL worker takes longer to start (asyncpg, a connection, the schema check): fewer
# kills keep its run within a budget, and still interrupt hundreds of actions.
KILLS = {"sqlite": 200, "postgresql": 60}
# How long a worker runs after "ready", at most (s). A PostgreSQL worker's first action also
# prepares each of its statements (a round trip each), and eight concurrent writers first open
# their pool's connections (some 30 ms): longer windows let them commit several actions a kill.
WINDOW = {"sqlite": 0.03, "postgresql": 0.05}
CONCURRENT_WINDOW = {"sqlite": 0.03, "postgresql": 0.1}


def backend_of(database_url: str) -> str:
    return "sqlite" if is_sqlite(database_url) else "postgresql"


async def prepare(database_url: str) -> None:
    storage = open_storage(database_url)
    await storage.start()
    async with storage.transaction() as tx:
        for chat in CHATS:
            for user in USERS:
                await tx.ensure_player(chat, user, f"user{user}", 1000)
            await tx.create_game(chat, 0, 1, {"last": None}, status="active")
    await storage.stop()


def settle(database_url: str) -> None:
    """Waits until the server is done with the killed client: until then it may still be
    rolling back, or committing a COMMIT that reached it just before the kill."""
    deadline = time.monotonic() + 30
    while fetch(
        database_url,
        "SELECT count(*) FROM pg_stat_activity "
        "WHERE datname = current_database() AND pid <> pg_backend_pid()",
    ) != [(0,)]:
        assert time.monotonic() < deadline, "the killed client's session never ended"
        time.sleep(0.005)


def replay(ledger: Rows, chat: int, user: int) -> int:
    """The player's balance as the ledger tells it: what came in minus what went out."""
    total = 0
    for row_chat, source_kind, source_id, target_kind, target_id, amount in ledger:
        if row_chat != chat:
            continue
        if (target_kind, target_id) == ("player", user):
            total += amount
        elif (source_kind, source_id) == ("player", user):
            total -= amount
    return total


async def verify(database_url: str, *, in_order: bool = True) -> tuple[int, int]:
    """Checks the database after a kill; returns (next update id, committed actions).

    ``in_order``: the actions committed in the order of their update ids, so a game's state is
    that of its chat's highest id; otherwise that of one of the chat's committed actions.
    """
    if is_sqlite(database_url):
        assert fetch(database_url, "PRAGMA integrity_check") == [("ok",)]
    else:
        settle(database_url)
    processed_rows, reasons, game_rows, round_rows, ledger, players, due_rows = fetch_all(
        database_url,
        "SELECT update_id FROM processed_updates",
        "SELECT reason FROM ledger WHERE reason LIKE 'a%'",
        "SELECT chat_id, version, state FROM games",
        "SELECT chat_id, sum(rounds) FROM stats GROUP BY chat_id",
        "SELECT chat_id, source_kind, source_id, target_kind, target_id, amount FROM ledger",
        "SELECT chat_id, user_id, balance FROM players",
        # The turn's deadline, kept in the scheduler's table by the same save as the state.
        "SELECT g.chat_id, d.due FROM games AS g LEFT JOIN deadlines AS d "
        "ON d.kind = 'turn' AND d.key = CAST(g.game_id AS TEXT)",
    )
    processed = {n for (n,) in processed_rows}
    rows = Counter(int(reason[1:]) for (reason,) in reasons)
    games = {
        chat: (version, (json.loads(state) if isinstance(state, str | bytes) else state)["last"])
        for chat, version, state in game_rows
    }
    rounds: dict[int, int] = dict(round_rows)
    # Each balance must equal its ledger replay, not just the chat total.
    for chat, user, balance in players:
        assert replay(ledger, chat, user) == balance, (chat, user)

    # Through the storage layer too: it must open, and the conservation proof must hold.
    storage = open_storage(database_url)
    await storage.start()
    try:
        for chat in CHATS:
            check = await storage.check_ledger(chat)
            assert check.ok, check
    finally:
        await storage.stop()

    assert set(rows) == processed, "ledger rows without their update id or the reverse"
    for n, count in rows.items():
        assert count == transfers_of(n), f"action {n} is half there: {count} ledger rows"
    for chat in CHATS:
        mine = sorted(n for n in processed if chat_of(n) == chat)
        version, last = games[chat]
        assert version == 1 + len(mine)
        if in_order or not mine:
            assert last == (mine[-1] if mine else None)
        else:
            assert last in mine, (chat, last)
        assert rounds.get(chat, 0) == len(mine)
        assert dict(due_rows)[chat] == (None if last is None else float(last)), chat
    return max(processed, default=0) + 1, len(processed)


@pytest.mark.slow
@pytest.mark.timeout(180)
def test_sigkill_never_leaves_half_an_action(database_url: str) -> None:
    # Synchronous on purpose: the parent only spawns, sleeps and kills; checks get their own loop.
    kills = KILLS[backend_of(database_url)]
    window = WINDOW[backend_of(database_url)]
    asyncio.run(prepare(database_url))
    rng = random.Random(20240611)
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    next_id, committed = 1, 0
    started = time.monotonic()
    for kill in range(kills):
        worker = subprocess.Popen(
            [sys.executable, str(WORKER), database_url, str(kill), str(next_id)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
        )
        if kill % 8 == 0:
            # Now and then, strike during start-up (checks, PRAGMAs, migrations).
            time.sleep(rng.uniform(0.0, 0.15))
        else:
            assert worker.stdout is not None
            ready = worker.stdout.readline()
            assert ready == b"ready\n", worker.stderr.read() if worker.stderr else ready
            time.sleep(rng.uniform(0.0, window))
        worker.send_signal(signal.SIGKILL)
        _, stderr = worker.communicate()
        assert worker.returncode == -signal.SIGKILL, stderr.decode()
        next_id, committed = asyncio.run(verify(database_url))
    elapsed = time.monotonic() - started
    # Enough work must have been interrupted for the test to mean something.
    assert committed >= kills, committed
    print(f"{kills} kills, {committed} committed actions, {elapsed:.1f} s")


@pytest.mark.slow
@pytest.mark.timeout(180)
def test_sigkill_with_group_commits_loses_no_acknowledged_action(database_url: str) -> None:
    # Concurrent writers in one process (on SQLite they share COMMITs; a kill may land in the
    # middle of a batch; on PostgreSQL they race on the pool and retry). Every action
    # acknowledged (its block returned) must be there, and none half there.
    kills = KILLS[backend_of(database_url)] // 2
    window = CONCURRENT_WINDOW[backend_of(database_url)]
    asyncio.run(prepare(database_url))
    rng = random.Random(20250101)
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    next_id, committed, acknowledged = 1, 0, 0
    for kill in range(kills):
        worker = subprocess.Popen(
            [sys.executable, str(WORKER), database_url, str(kill), str(next_id), "8"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
        )
        assert worker.stdout is not None
        ready = worker.stdout.readline()
        assert ready == b"ready\n", worker.stderr.read() if worker.stderr else ready
        time.sleep(rng.uniform(0.0, window))
        worker.send_signal(signal.SIGKILL)
        stdout, stderr = worker.communicate()
        assert worker.returncode == -signal.SIGKILL, stderr.decode()
        acks = {int(line.split()[1]) for line in stdout.decode().splitlines()}
        # On PostgreSQL, concurrent actions commit in no particular order.
        next_id, total = asyncio.run(verify(database_url, in_order=is_sqlite(database_url)))
        processed = {n for (n,) in fetch(database_url, "SELECT update_id FROM processed_updates")}
        assert acks <= processed, f"acknowledged but lost: {sorted(acks - processed)}"
        committed, acknowledged = total, acknowledged + len(acks)
    assert committed >= kills and acknowledged > 0, (committed, acknowledged)
    print(f"{kills} kills, {committed} committed actions, {acknowledged} acknowledged")
