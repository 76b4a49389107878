"""Does the group's table keep pace with its players? The real bot (``python -m bot``) over HTTP
against the local Bot API server with Telegram's flood limits ON (20 writes a minute in a group,
30 a second for the bot), ``--groups`` groups of 4 playing classic36 as people do: a player
acts on what the group's table shows — when the table shows the newest move, the next player
thinks ``--think`` seconds and presses the button on the table (bank or stake the smallest
sensible amount, draw below 17, the first player deals the next round).

Prints, per think time: the move → table latency (from the press reaching the server to the
group's table, or the result, first showing that move: the version in its buttons) p50/p99/max,
the most writes into one group in any rolling 60 s (the server's own count of sends and edits it
allowed), the 429s, the moves played and the waits for a table that never came (``stalls``).

Run: .venv/bin/python benchmarks/bench_pace.py [--think 4 2 --groups 8 --seconds 180]
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from collections import deque
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
from bot.callbacks import GameButton, parse_game
from localbotapi import BotApiServer
from localbotapi.server import ServerEvent
from rules.table import Phase

PLAYERS = 4
TABLE_TIMEOUT = 70.0  # a table edit may wait most of a minute when a group's budget is spent


class Tables:
    """What each group's table shows (the newest version in a bot message's game buttons), and
    the moves waiting to be shown there."""

    def __init__(self, server: BotApiServer) -> None:
        self.shown: dict[int, int] = {}
        self.changed: dict[int, asyncio.Event] = {}
        self.unshown: dict[int, list[tuple[int, float]]] = {}  # chat -> [(version, pressed)]
        self.lags: list[float] = []
        server.add_listener(self.hear)

    def hear(self, event: ServerEvent) -> None:
        message = event.message
        if message is None or not message.from_bot or event.kind == "delete":
            return
        versions = [b.version for _, d in message.flat_buttons if (b := parse_game(d))]
        if not versions:
            return
        chat, now = message.chat.id, time.monotonic()
        shown = max(versions)
        self.shown[chat] = max(self.shown.get(chat, 0), shown)
        waiting = self.unshown.get(chat)
        if waiting:
            self.lags += [now - at for v, at in waiting if v <= shown]
            waiting[:] = [(v, at) for v, at in waiting if v > shown]
        self.changed.setdefault(chat, asyncio.Event()).set()

    async def showing(self, chat: int, version: int, timeout: float) -> bool:
        """Wait until the chat's table shows ``version`` or a newer one."""
        flag = self.changed.setdefault(chat, asyncio.Event())
        deadline = time.monotonic() + timeout
        while self.shown.get(chat, 0) < version:
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            flag.clear()
            try:
                await asyncio.wait_for(flag.wait(), left)
            except TimeoutError:
                return False
        return True


def counting_writes(server: BotApiServer) -> dict[int, list[float]]:
    """Record when the server allowed each send or edit, per chat (its flood limits' own
    count)."""
    writes: dict[int, list[float]] = {}
    flood = server.flood
    check = flood.check

    def counted(bot_id: int, chat_id: int, is_group: bool) -> int | None:
        refused = check(bot_id, chat_id, is_group)
        if refused is None:
            writes.setdefault(chat_id, []).append(time.monotonic())
        return refused

    flood.check = counted  # type: ignore[method-assign]
    return writes


def most_in_window(stamps: list[float], window: float) -> int:
    recent: deque[float] = deque()
    most = 0
    for at in sorted(stamps):
        recent.append(at)
        while recent[0] <= at - window:
            recent.popleft()
        most = max(most, len(recent))
    return most


async def play(
    server: BotApiServer,
    tables: Tables,
    reader: Reader,
    group: Any,
    users: list[Any],
    game: int,
    think: float,
    until: float,
    counts: dict[str, int],
) -> None:
    by_id = {u.id: u for u in users}
    while time.monotonic() < until:
        view = await reader.game(game)
        if view is None or view.status == "finished" or view.game.phase is Phase.ENDED:
            return
        if not await tables.showing(group.id, view.version, TABLE_TIMEOUT):
            counts["stalls"] += 1  # acted on the state anyway, not to stop the run
        await asyncio.sleep(think)
        if time.monotonic() >= until:
            return
        actor, act, amount = fast_move(view.game)
        data = GameButton(game, view.version, act, amount).encode()
        message = group.last_with_buttons() or group.messages[-1]
        entry = (view.version + 1, time.monotonic())  # the move's version, when pressed
        waiting = tables.unshown.setdefault(group.id, [])
        waiting.append(entry)
        query, _ = server.forge_press(message.bot, by_id[actor], message, data)
        try:
            await query.wait(timeout=30)
        except TimeoutError:
            counts["unanswered"] += 1
        else:
            if query.answer is None or not query.answer.show_alert:
                counts["moves"] += 1
                continue
            counts["refused"] += 1
        if entry in waiting:
            waiting.remove(entry)  # not a move


async def run(args: argparse.Namespace, think: float) -> str:
    server = BotApiServer()  # Telegram's flood limits on
    await server.start()
    bot = server.add_bot(TOKEN, username="ochko_bench_bot")
    polls = watch_polls(server)
    writes = counting_writes(server)
    tables = Tables(server)
    counts = {"moves": 0, "stalls": 0, "unanswered": 0, "refused": 0}
    with tempfile.TemporaryDirectory(dir=args.dir) as folder:
        database = Path(folder) / "bench.sqlite3"
        world = await build_world(server, bot, database, args.groups, players=PLAYERS)
        settings: dict[str, Any] = {}
        if args.table_gap is not None:
            settings["table_edit_gap"] = args.table_gap
        process, launched = launch_bot(
            server.base_url, database, Path(folder) / "bot.log", **settings
        )
        reader = Reader(database)
        try:
            await first_poll(polls, launched, process)
            await reader.start()
            for group, users in zip(world.groups, world.users, strict=True):
                await users[0].send(group, "/table")
            started = time.monotonic()
            until = started + args.seconds
            await asyncio.gather(
                *(
                    play(server, tables, reader, g, u, game, think, until, counts)
                    for g, u, game in zip(world.groups, world.users, world.games, strict=True)
                )
            )
            await asyncio.sleep(5.0)  # the last moves' tables
            too_many = server.flood.too_many_requests
            inside = server.flood.inside_retry_after
        finally:
            await reader.stop()
            await stop_bot(process)
            await server.stop()
    lags = tables.lags
    most = max((most_in_window(writes.get(g.id, []), 60.0) for g in world.groups), default=0)
    unshown = sum(len(v) for v in tables.unshown.values())
    return (
        f"pace think={think:.0f}s groups={args.groups} players={PLAYERS} "
        f"seconds={args.seconds:.0f}: move→table p50={percentile(lags, 0.5):.2f} s "
        f"p90={percentile(lags, 0.9):.2f} s "
        f"p99={percentile(lags, 0.99):.2f} s max={max(lags, default=0.0):.2f} s "
        f"(n={len(lags)}, never shown {unshown}); most group writes in any 60 s: {most}; "
        f"429s: {too_many} (inside a retry_after: {inside}); moves={counts['moves']} "
        f"stalls={counts['stalls']} unanswered={counts['unanswered']} "
        f"refused={counts['refused']} ({machine()})"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--think", type=float, nargs="+", default=[4.0, 2.0])
    parser.add_argument("--groups", type=int, default=8, help="groups playing at once")
    parser.add_argument("--seconds", type=float, default=180.0, help="how long each run plays")
    parser.add_argument(
        "--table-gap", type=float, default=None, help="the bot's TABLE_EDIT_GAP (its default)"
    )
    parser.add_argument("--dir", type=Path, default=Path.cwd(), help="where the database goes")
    args = parser.parse_args()
    for think in args.think:
        print(asyncio.run(run(args, think)), flush=True)


if __name__ == "__main__":
    main()
