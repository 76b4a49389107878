"""Memory of the bot process: RSS (VmRSS, and the peak VmHWM, from /proc/<pid>/status) with
``--games`` active games in a fresh database (3-player classic36, mid-round, turn deadlines),
after ``--played`` of them were played recently through the local Bot API server (HTTP), and
after ``--batches`` batches of ``--batch`` games were ended through the bot (finished games must
not grow it). Players type commands (/hit, /stand, /bet, /bank, /next; /endgame to finish),
``--concurrency`` groups at a time, each waiting for the bot's reply before its next command.

The bot runs without its PacedRateLimiter by default (benchmarks/_run_bot.py --unpaced), so the
run is not 25 sends/s long; ``--paced`` runs ``python -m bot`` as it is.
Run: .venv/bin/python benchmarks/bench_memory.py [--games 10000 --played 1000]
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._common import (
    TOKEN,
    Reader,
    build_world,
    command_for,
    first_poll,
    launch_bot,
    machine,
    memory_kb,
    stop_bot,
    watch_polls,
)
from localbotapi import BotApiServer
from localbotapi.server import ServerEvent

TARGET_MB = 150.0


class Typist:
    def __init__(self, server: BotApiServer, reader: Reader) -> None:
        self.reader = reader
        self.changed: dict[int, asyncio.Event] = {}
        self.timeouts = 0
        server.add_listener(self.hear)

    def hear(self, event: ServerEvent) -> None:
        if event.message is not None and event.message.from_bot:
            flag = self.changed.get(event.message.chat.id)
            if flag is not None:
                flag.set()

    async def type(self, group: Any, users: list[Any], text: str, user_id: int) -> None:
        flag = self.changed.setdefault(group.id, asyncio.Event())
        flag.clear()
        by_id = {u.id: u for u in users}
        await by_id[user_id].send(group, text)
        try:
            await asyncio.wait_for(flag.wait(), 30)
        except TimeoutError:
            self.timeouts += 1

    async def play(self, group: Any, users: list[Any], game_id: int, moves: int) -> None:
        for _ in range(moves):
            view = await self.reader.game(game_id)
            if view is None or view.status == "finished":
                return
            move = command_for(view)
            if move is None:
                return
            await self.type(group, users, move[1], move[0])

    async def end(self, group: Any, users: list[Any]) -> None:
        await self.type(group, users, "/endgame", users[0].id)
        # /endgame asks first: its asker presses «yes» on the question.
        question = group.last_with_buttons()
        yes = [d for _, d in (question.flat_buttons if question else []) if d and d[-2:] == ":y"]
        if question is None or not yes:
            self.timeouts += 1
            return
        flag = self.changed.setdefault(group.id, asyncio.Event())
        flag.clear()
        await users[0].press(question, data=yes[0])
        try:
            await asyncio.wait_for(flag.wait(), 30)
        except TimeoutError:
            self.timeouts += 1


async def settle(process: Any, seconds: float = 1.5) -> dict[str, int]:
    await asyncio.sleep(seconds)
    return memory_kb(process.pid)


def mb(kb: dict[str, int], key: str = "VmRSS") -> str:
    return f"{kb.get(key, 0) / 1024:.0f}"


async def run(args: argparse.Namespace) -> str:
    server = BotApiServer(flood_limits=False)
    await server.start()
    bot = server.add_bot(TOKEN, username="ochko_bench_bot")
    polls = watch_polls(server)
    finished_total = args.batch * args.batches
    if args.played + finished_total > args.games:
        raise SystemExit("--played + --batch * --batches must not exceed --games")
    with tempfile.TemporaryDirectory(dir=args.dir) as folder:
        database = Path(folder) / "bench.sqlite3"
        world = await build_world(server, bot, database, args.games)
        process, launched = launch_bot(
            server.base_url, database, Path(folder) / "bot.log", unpaced=not args.paced
        )
        reader = Reader(database)
        steps: list[str] = []
        try:
            await first_poll(polls, launched, process)
            await reader.start()
            idle = await settle(process)
            steps.append(f"idle={mb(idle)}")
            typist = Typist(server, reader)
            tables = list(zip(world.groups, world.users, world.games, strict=True))
            started = time.monotonic()
            played = tables[: args.played]
            gate = asyncio.Semaphore(args.concurrency)

            async def play(group: Any, users: list[Any], game_id: int) -> None:
                async with gate:
                    await typist.play(group, users, game_id, args.moves)

            async def end(group: Any, users: list[Any]) -> None:
                async with gate:
                    await typist.end(group, users)

            await asyncio.gather(*(play(g, u, game) for g, u, game in played))
            play_seconds = time.monotonic() - started
            after_play = await settle(process)
            steps.append(f"played {args.played}={mb(after_play)}")
            rest = tables[args.played :]
            for batch in range(args.batches):
                chunk = rest[batch * args.batch : (batch + 1) * args.batch]
                await asyncio.gather(*(end(g, u) for g, u, _ in chunk))
                after = await settle(process)
                steps.append(f"+{(batch + 1) * args.batch} finished={mb(after)}")
            final = memory_kb(process.pid)
        finally:
            await reader.stop()
            await stop_bot(process)
            await server.stop()
    peak = final.get("VmHWM", 0) / 1024
    ok = after_play.get("VmRSS", 0) / 1024 <= TARGET_MB
    return (
        f"memory games={args.games} bot={'default' if args.paced else 'unpaced'} "
        f"RSS MB: {', '.join(steps)}; peak(VmHWM)={peak:.0f} MB "
        f"(played {args.played}×{args.moves} moves in {play_seconds:.1f} s, "
        f"timeouts={typist.timeouts}) "
        f"[target ≤{TARGET_MB:.0f} MB after play: {'meets' if ok else 'below'}] ({machine()})"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10_000, help="active games in the database")
    parser.add_argument("--played", type=int, default=1000, help="games played through the bot")
    parser.add_argument("--moves", type=int, default=2, help="commands per played game")
    parser.add_argument("--batch", type=int, default=500, help="games ended per batch")
    parser.add_argument("--batches", type=int, default=2, help="batches of games ended")
    parser.add_argument("--concurrency", type=int, default=20, help="groups typing at once")
    parser.add_argument("--paced", action="store_true", help="python -m bot with its limiter")
    parser.add_argument("--dir", type=Path, default=Path.cwd(), help="where the database goes")
    print(asyncio.run(run(parser.parse_args())))


if __name__ == "__main__":
    main()
