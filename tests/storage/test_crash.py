"""SIGKILL a writer at random moments; every action must be wholly there or wholly absent."""

from __future__ import annotations

import asyncio
import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from storage import SqliteStorage
from tests.storage.crash_worker import CHATS, USERS, chat_of, transfers_of

WORKER = Path(__file__).with_name("crash_worker.py")
KILLS = 200


async def prepare(path: Path) -> None:
    storage = SqliteStorage(path)
    await storage.start()
    async with storage.transaction() as tx:
        for chat in CHATS:
            for user in USERS:
                await tx.ensure_player(chat, user, f"user{user}", 1000)
            await tx.create_game(chat, 0, 1, {"last": None}, status="active")
    await storage.stop()


async def verify(path: Path) -> tuple[int, int]:
    """Checks the database after a kill; returns (next update id, committed actions)."""
    conn = sqlite3.connect(path)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        processed = {n for (n,) in conn.execute("SELECT update_id FROM processed_updates")}
        rows = Counter(
            int(reason[1:])
            for (reason,) in conn.execute("SELECT reason FROM ledger WHERE reason LIKE 'a%'")
        )
        games = {
            chat: (version, json.loads(state)["last"])
            for chat, version, state in conn.execute("SELECT chat_id, version, state FROM games")
        }
        rounds = dict(conn.execute("SELECT chat_id, sum(rounds) FROM stats GROUP BY chat_id"))
        # Each balance must equal its ledger replay, not just the chat total.
        for chat, user, balance in conn.execute("SELECT chat_id, user_id, balance FROM players"):
            (replayed,) = conn.execute(
                "SELECT coalesce(sum(CASE WHEN target_kind = 'player' AND target_id = ?2 "
                "THEN amount ELSE -amount END), 0) FROM ledger WHERE chat_id = ?1 AND "
                "((target_kind = 'player' AND target_id = ?2) OR "
                "(source_kind = 'player' AND source_id = ?2))",
                (chat, user),
            ).fetchone()
            assert replayed == balance, (chat, user)
    finally:
        conn.close()

    # Through the storage layer too: it must open, and the conservation proof must hold.
    storage = SqliteStorage(path)
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
        assert last == (mine[-1] if mine else None)
        assert rounds.get(chat, 0) == len(mine)
    return max(processed, default=0) + 1, len(processed)


@pytest.mark.slow
@pytest.mark.timeout(180)
def test_sigkill_never_leaves_half_an_action(tmp_path: Path) -> None:
    # Synchronous on purpose: the parent only spawns, sleeps and kills; checks get their own loop.
    path = tmp_path / "crash.sqlite3"
    asyncio.run(prepare(path))
    rng = random.Random(20240611)
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    next_id, committed = 1, 0
    started = time.monotonic()
    for kill in range(KILLS):
        worker = subprocess.Popen(
            [sys.executable, str(WORKER), str(path), str(kill), str(next_id)],
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
            time.sleep(rng.uniform(0.0, 0.03))
        worker.send_signal(signal.SIGKILL)
        _, stderr = worker.communicate()
        assert worker.returncode == -signal.SIGKILL, stderr.decode()
        next_id, committed = asyncio.run(verify(path))
    elapsed = time.monotonic() - started
    # Enough work must have been interrupted for the test to mean something.
    assert committed >= KILLS, committed
    print(f"{KILLS} kills, {committed} committed actions, {elapsed:.1f} s")


@pytest.mark.slow
@pytest.mark.timeout(180)
def test_sigkill_with_group_commits_loses_no_acknowledged_action(tmp_path: Path) -> None:
    # Concurrent writers in one process share COMMITs; a kill may land in the middle of a batch.
    # Every action acknowledged (its block returned) must be there, and none half there.
    path = tmp_path / "crash.sqlite3"
    asyncio.run(prepare(path))
    rng = random.Random(20250101)
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    next_id, committed, acknowledged = 1, 0, 0
    for kill in range(KILLS // 2):
        worker = subprocess.Popen(
            [sys.executable, str(WORKER), str(path), str(kill), str(next_id), "8"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
        )
        assert worker.stdout is not None
        ready = worker.stdout.readline()
        assert ready == b"ready\n", worker.stderr.read() if worker.stderr else ready
        time.sleep(rng.uniform(0.0, 0.03))
        worker.send_signal(signal.SIGKILL)
        stdout, stderr = worker.communicate()
        assert worker.returncode == -signal.SIGKILL, stderr.decode()
        acks = {int(line.split()[1]) for line in stdout.decode().splitlines()}
        next_id, total = asyncio.run(verify(path))
        conn = sqlite3.connect(path)
        try:
            processed = {n for (n,) in conn.execute("SELECT update_id FROM processed_updates")}
        finally:
            conn.close()
        assert acks <= processed, f"acknowledged but lost: {sorted(acks - processed)}"
        committed, acknowledged = total, acknowledged + len(acks)
    assert committed >= KILLS // 2 and acknowledged > 0, (committed, acknowledged)
    print(f"{KILLS // 2} kills, {committed} committed actions, {acknowledged} acknowledged")
