"""Cold start: the bot process (``python -m bot``) launched on a database with ``--games`` active
games (3-player classic36, mid-round, each with a turn deadline), against the local Bot API
server over HTTP. Reports the time from launch to the bot's first getUpdates at the server, the
timers re-armed (parsed from the bot's "N timers re-armed" log line; every game must have one)
and the bot's RSS then. Run: .venv/bin/python benchmarks/bench_coldstart.py [--games 10000]
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._common import (
    TIMERS_RE,
    TOKEN,
    build_world,
    first_poll,
    launch_bot,
    machine,
    memory_kb,
    stop_bot,
    watch_polls,
)
from localbotapi import BotApiServer

TARGET_SECONDS = 3.0


async def run(games: int, directory: Path, verbose: bool = False) -> str:
    server = BotApiServer(flood_limits=False)
    await server.start()
    bot = server.add_bot(TOKEN, username="ochko_bench_bot")
    polls = watch_polls(server)
    with tempfile.TemporaryDirectory(dir=directory) as folder:
        database = Path(folder) / "bench.sqlite3"
        made = time.monotonic()
        await build_world(server, bot, database, games)
        setup = time.monotonic() - made
        log_path = Path(folder) / "bot.log"
        process, launched = launch_bot(server.base_url, database, log_path)
        try:
            polled = await first_poll(polls, launched, process)
            memory = memory_kb(process.pid)
            await asyncio.sleep(0.5)
        finally:
            await stop_bot(process)
            await server.stop()
        log = log_path.read_text(errors="replace")
        if verbose:
            print(log)
        size = database.stat().st_size
    found = TIMERS_RE.search(log)
    timers = int(found.group(1)) if found else -1
    startup = polled - launched
    ok = startup <= TARGET_SECONDS and timers == games
    return (
        f"coldstart games={games} launch→first getUpdates={startup:.2f} s "
        f"timers re-armed={timers}/{games} rss={memory.get('VmRSS', 0) / 1024:.0f} MB "
        f"db={size / 2**20:.1f} MB (setup {setup:.0f} s) "
        f"[target ≤{TARGET_SECONDS:.0f} s, all timers: {'meets' if ok else 'below'}] "
        f"({machine()})"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10_000, help="active games in the database")
    parser.add_argument("--dir", type=Path, default=Path.cwd(), help="where the database goes")
    parser.add_argument("--verbose", action="store_true", help="print the bot's log")
    args = parser.parse_args()
    print(asyncio.run(run(args.games, args.dir, args.verbose)))


if __name__ == "__main__":
    main()
