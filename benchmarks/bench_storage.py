"""Committed game actions per second on the SQLite backend, at synchronous=FULL and NORMAL.

One action = one transaction: claim an update id, save a ~3 KB game state, three ledger rows,
one stats row — what a bot turn writes. ``--writers N`` runs N games' writers at once (their
transactions share COMMITs: group commit). Run: .venv/bin/python benchmarks/bench_storage.py
The database goes in --dir (default: the current directory, i.e. the disk the bot would use;
/tmp may be a RAM disk, where fsync costs nothing).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from storage import Account, SqliteStorage, StatsDelta, StoredGame, Transfer

PLAYERS = 6


def realistic_state(rng: random.Random, turn: int) -> dict[str, object]:
    """About 3 KB of JSON, shaped like an engine state: seats, hands, a deck and a log."""
    return {
        "turn": turn,
        "banker": 1,
        "deck": [rng.randrange(36) for _ in range(36)],
        "seats": [
            {
                "user_id": uid,
                "stake": rng.randrange(1, 100),
                "hand": [rng.randrange(36) for _ in range(3)],
                "status": "playing",
            }
            for uid in range(1, PLAYERS + 1)
        ],
        "log": [{"kind": "draw", "seat": i % PLAYERS, "card": i % 36} for i in range(64)],
    }


async def run(directory: Path, synchronous: str, seconds: float, writers: int) -> str:
    with tempfile.TemporaryDirectory(dir=directory) as folder:
        storage = SqliteStorage(Path(folder) / "bench.sqlite3", synchronous=synchronous)
        await storage.start()
        try:
            async with storage.transaction() as tx:
                for uid in range(1, PLAYERS + 1):
                    await tx.ensure_player(1, uid, f"player{uid}", 1_000_000)
                games = [await tx.create_game(1, n, 1, {}, status="active") for n in range(writers)]
            rng = random.Random(1)
            states = [realistic_state(rng, i) for i in range(50)]
            size = len(json.dumps(states[0]).encode())
            latencies: list[float] = []
            update_ids = iter(range(1, 10**9))
            started = time.perf_counter()

            async def write(game: StoredGame) -> None:
                bank = Account.bank(game.game_id)
                version = game.version
                while time.perf_counter() - started < seconds:
                    update_id = next(update_ids)
                    player = Account.player(rng.randrange(1, PLAYERS + 1))
                    t0 = time.perf_counter()
                    async with storage.transaction() as tx:
                        await tx.claim_update(update_id)
                        version = await tx.save_game(
                            game.game_id,
                            expected_version=version,
                            state=states[update_id % len(states)],
                            status="active",
                            deadline=time.time() + 60,
                        )
                        await tx.apply_transfers(
                            1,
                            game.game_id,
                            update_id,
                            [
                                Transfer(player, bank, 15, "stake"),
                                Transfer(bank, player, 10, "win"),
                                Transfer(player, bank, 5, "fee"),
                            ],
                        )
                        await tx.add_stats(1, player.id, StatsDelta(rounds=1, wins=1, net=5))
                    latencies.append(time.perf_counter() - t0)

            await asyncio.gather(*(write(game) for game in games))
            elapsed = time.perf_counter() - started
            assert (await storage.check_ledger(1)).ok
        finally:
            await storage.stop()
    latencies.sort()
    p50 = statistics.median(latencies) * 1000
    p99 = latencies[int(len(latencies) * 0.99)] * 1000
    return (
        f"synchronous={synchronous:<6} writers={writers} actions={len(latencies):>6}  "
        f"{len(latencies) / elapsed:>7.0f} actions/s  p50={p50:.2f} ms  p99={p99:.2f} ms  "
        f"(state ≈{size / 1024:.1f} KB, 3 ledger rows)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", type=Path, default=Path.cwd(), help="where the database goes")
    parser.add_argument("--seconds", type=float, default=10.0, help="duration of each mode")
    parser.add_argument("--writers", type=int, default=1, help="games written at once")
    args = parser.parse_args()
    print(f"SQLite storage benchmark in {args.dir} (Python {sys.version.split()[0]})")
    for mode in ("FULL", "NORMAL"):
        print(asyncio.run(run(args.dir, mode, args.seconds, args.writers)), flush=True)


if __name__ == "__main__":
    main()
