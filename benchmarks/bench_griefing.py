"""A griefer against the real bot: the bot process (``python -m bot``) over HTTP against the
local Bot API server with Telegram's flood limits ON, ``--groups`` groups playing at a brisk
human pace (one press every ``--pace`` seconds per group, as the newest state allows), while one
member of the first group sends a command a second for ``--seconds`` seconds (/help, /rules,
/balance, /top, /stats) and a member of the second group asks /rules every 3 s.

Prints: the table lag of the griefed group and of the others (from a press's answer, when the
action is committed, to the group's table first showing that version), the press → answer
latency in the other groups, the delay of the second group's answers (to the asker's private
chat), how many replies the spam got in the group, and Telegram's 429s.

Run: .venv/bin/python benchmarks/bench_griefing.py [--groups 10 --seconds 30 --pace 2]
"""

from __future__ import annotations

import argparse
import asyncio
import json
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
    fast_move,
    first_poll,
    launch_bot,
    machine,
    percentile,
    stop_bot,
    watch_polls,
)
from benchmarks.bench_e2e import Players
from bot.callbacks import GameButton
from localbotapi import BotApiServer
from rules.table import Phase

SPAM = ("/help", "/rules", "/balance", "/top", "/stats")


def is_game_message(record: Any) -> bool:
    """A message the game posts (a table with its buttons, a result, a turn mention)."""
    markup = json.dumps(record.params.get("reply_markup") or "")
    return '"g:' in markup or str(record.result.get("text", "")).startswith(("🏁", "👉"))


async def play(
    players: Players,
    reader: Reader,
    group: Any,
    users: list[Any],
    game: int,
    pace: float,
    until: float,
    latencies: list[float],
) -> None:
    by_id = {u.id: u for u in users}
    while time.monotonic() < until:
        started = time.monotonic()
        view = await reader.game(game)
        if view is None or view.status == "finished" or view.game.phase is Phase.ENDED:
            return
        actor, act, amount = fast_move(view.game)
        data = GameButton(game, view.version, act, amount).encode()
        query = players.press_raw(by_id[actor], group, data)
        pressed = time.monotonic()
        players.pressed[query.id] = pressed
        try:
            await query.wait(timeout=30)
        except TimeoutError:
            players.stalls += 1
            continue
        latencies.append(time.monotonic() - pressed)
        players.committed(group.id, view.version + 1, query)
        await asyncio.sleep(max(0.0, pace - (time.monotonic() - started)))


async def run(args: argparse.Namespace) -> str:
    server = BotApiServer()  # Telegram's flood limits on
    await server.start()
    bot = server.add_bot(TOKEN, username="ochko_bench_bot")
    polls = watch_polls(server)
    with tempfile.TemporaryDirectory(dir=args.dir) as folder:
        database = Path(folder) / "bench.sqlite3"
        world = await build_world(server, bot, database, args.groups)
        griefer = server.create_user("Griefer")
        world.groups[0].add_member(griefer)
        process, launched = launch_bot(server.base_url, database, Path(folder) / "bot.log")
        reader = Reader(database)
        try:
            await first_poll(polls, launched, process)
            await reader.start()
            setup = Players(server, reader, 0.0, 0.0)
            await asyncio.gather(
                *(setup.show_table(g, u[0]) for g, u in zip(world.groups, world.users, strict=True))
            )
            started = time.monotonic()
            until = started + args.seconds
            griefed = Players(server, reader, 0.0, until)
            others = Players(server, reader, 0.0, until)
            latencies: list[float] = []
            asked: list[float] = []

            async def spam() -> None:
                for i in range(int(args.seconds)):
                    await griefer.send(world.groups[0], SPAM[i % len(SPAM)])
                    await asyncio.sleep(1.0)

            async def ask() -> None:
                user = world.users[1][0]
                private = user.private_chat(bot)
                while time.monotonic() < until:
                    last = private.last_message
                    sent = time.monotonic()
                    await user.send(world.groups[1], "/rules")
                    await private.wait_for(lambda m: True, timeout=30, after=last)
                    asked.append(time.monotonic() - sent)
                    await asyncio.sleep(3.0)

            tasks = [
                play(
                    griefed if i == 0 else others,
                    reader,
                    g,
                    u,
                    game,
                    args.pace,
                    until,
                    [] if i == 0 else latencies,
                )
                for i, (g, u, game) in enumerate(
                    zip(world.groups, world.users, world.games, strict=True)
                )
            ]
            await asyncio.gather(spam(), ask(), *tasks)
            await asyncio.sleep(args.pace * 3)  # the last table edits of the run
            replies = [
                r
                for r in server.requests
                if r.ok
                and r.method == "sendMessage"
                and r.chat_id == world.groups[0].id
                and not is_game_message(r)
            ]
            too_many = server.flood.too_many_requests
        finally:
            await reader.stop()
            await stop_bot(process)
            await server.stop()

    def lag(values: list[float]) -> str:
        if not values:
            return "n/a"
        return f"p50={percentile(values, 0.5):.1f} s p99={percentile(values, 0.99):.1f} s"

    return (
        f"griefing groups={args.groups} seconds={args.seconds:.0f} pace={args.pace:.1f}s: "
        f"griefed table lag {lag(griefed.table_lags)} (n={len(griefed.table_lags)}); "
        f"other tables {lag(others.table_lags)} (n={len(others.table_lags)}); "
        f"other groups' press→answer p99={percentile(latencies, 0.99) * 1000:.0f} ms; "
        f"second group's /rules answered p50={percentile(asked, 0.5):.2f} s "
        f"p99={percentile(asked, 0.99):.2f} s (n={len(asked)}); "
        f"spam replies in the group: {len(replies)} of {int(args.seconds)}; 429s: {too_many} "
        f"({machine()})"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--groups", type=int, default=10, help="groups playing at once")
    parser.add_argument("--seconds", type=float, default=30.0, help="how long the spam lasts")
    parser.add_argument("--pace", type=float, default=2.0, help="seconds between presses")
    parser.add_argument("--dir", type=Path, default=Path.cwd(), help="where the database goes")
    print(asyncio.run(run(parser.parse_args())))


if __name__ == "__main__":
    main()
