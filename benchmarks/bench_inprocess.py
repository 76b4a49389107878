"""Bot speed in process: game actions per second through Application.process_update, with the
real handlers, service, delivery and SQLite storage, and no HTTP (every Bot API call goes
in-process to the local Bot API server's dispatcher, as in tests/bot).

``--groups`` groups of 3 play classic36 rounds at once. Two kinds of players:

- ``--players fast`` (the default): each player presses as soon as the bot has answered the
  previous press, with a button for the newest committed state (as a keyboard drawn for it would
  carry); nobody waits for the table to be redrawn. The bot runs as deployed: its own rate
  limiter (``--unpaced`` turns it off), the configured coalescing window and ``synchronous``.
- ``--players settle``: each press waits until delivery has redrawn the table, and uses the
  table's own buttons (the slow, every-edit path; use it with ``--table-gap 0``).

Latency is from the start of process_update to its return (the answerCallbackQuery is sent
inside it); throughput counts delivery's work too (everything is drained before the clock
stops). Run: .venv/bin/python benchmarks/bench_inprocess.py [--groups 20 --rounds 10]

``--metrics on`` counts the metrics as METRICS_ENABLED does (`bot.metrics`; each update is
counted as the update processor counts it, which process_update alone skips); ``--metrics
both`` plays the same games without and then with them, and prints the CPU per action of each.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import itertools
import pstats
import socket
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from telegram import Update
from telegram.ext import Application

from benchmarks._common import (
    PLAYERS,
    PRESET,
    TOKEN,
    Move,
    Reader,
    choose,
    fast_move,
    machine,
    percentile,
)
from bot import metrics
from bot.app import build_application, post_init, post_shutdown
from bot.callbacks import Act, GameButton
from bot.handlers.common import Runtime
from bot.settings import Settings
from localbotapi import BotApiServer, Chat, FakeBot, FakeUser
from localbotapi.models import Message
from localbotapi.offline import OfflineRequest
from rules.table import Phase

# Fast players finish rounds far faster than Telegram lets a group see them (18 messages a
# minute), so a paced bot ends a run with results still waiting their turn: wait this long.
DRAIN_SECONDS = 30.0
TARGET_RATE = 2000.0
TARGET_P99_MS = 5.0


class Bench:
    def __init__(
        self,
        server: BotApiServer,
        bot: FakeBot,
        app: Application[Any, Any, Any, Any, Any, Any],
        reader: Reader,
    ) -> None:
        self.server = server
        self.bot = bot
        self.app = app
        self.reader = reader
        self.latencies: list[float] = []
        self.actions = 0
        self.refused = 0  # presses answered with an alert (a refusal): the players' mistakes
        self._update_ids = itertools.count(10**9)

    @property
    def rt(self) -> Runtime:
        rt: Runtime = self.app.bot_data["runtime"]
        return rt

    def take(self, key: str, value: Any) -> dict[str, Any]:
        """Remove the update just queued (its ``key`` object has this id) from the bot's queue."""
        pending = self.bot.pending
        for index in range(len(pending) - 1, -1, -1):
            body = pending[index].get(key)
            if body is not None and (body.get("id") == value or body.get("message_id") == value):
                return pending.pop(index)
        raise AssertionError(f"update {key}={value} not queued")

    async def deliver(self, data: dict[str, Any], *, timed: bool = True) -> None:
        update = Update.de_json(data, self.app.bot)
        started = time.perf_counter()
        metrics.update_received(update)  # (as CountedUpdates does; nothing while off)
        await self.app.process_update(update)
        if timed:
            self.latencies.append(time.perf_counter() - started)
            self.actions += 1

    async def settle(self, game_id: int | None) -> None:
        """Wait until delivery has shown everything of this game (what players see)."""
        if game_id is None:
            return
        view = self.rt.delivery.views().get(game_id)
        chat = view.stored.chat_id if view is not None else None
        # The lanes have no event to wait on: poll them, as a player looks at the chat.
        while chat is not None and chat in self.rt.delivery.lanes.waiting():  # noqa: ASYNC110
            await asyncio.sleep(0.01)

    async def say(self, user: FakeUser, chat: Chat | FakeBot, text: str, timed: bool) -> None:
        message = await user.send(chat, text)
        await self.deliver(self.take("message", message.message_id), timed=timed)

    async def press(self, user: FakeUser, chat: Chat, move: Move) -> None:
        message = chat.last_with_buttons()
        assert message is not None
        query = await user.press(message, data=move.data)
        await self.deliver(self.take("callback_query", query.id))
        if query.answer is None:
            raise AssertionError(f"press {move} not answered")

    async def open_game(self, users: list[FakeUser], group: Chat) -> int:
        """/newgame, two joins and the start (by buttons); returns the game id."""
        await self.say(users[0], group, f"/newgame {PRESET}", timed=True)
        game_id = await self.reader.active_game(group.id)
        assert game_id is not None
        await self.settle(game_id)
        for user in users[1:]:
            await self.press_act(user, group, game_id, "join")
        await self.press_act(users[0], group, game_id, "start")
        return game_id

    async def press_act(self, user: FakeUser, group: Chat, game_id: int, act: str) -> None:
        await self.settle(game_id)  # the lobby's buttons must be on the table
        message = group.last_with_buttons()
        assert message is not None
        data = next(d for _, d in message.flat_buttons if d and d.endswith(f":{act}"))
        query = await user.press(message, data=data)
        await self.deliver(self.take("callback_query", query.id))
        await self.settle(game_id)

    async def play_fast(self, users: list[FakeUser], group: Chat, rounds: int) -> int:
        """Play ``rounds`` rounds pressing for the newest committed state at once (new games
        when one ends); returns the rounds played."""
        by_id = {u.id: u for u in users}
        game_id = await self.open_fast(users, group)
        played = 0
        while True:
            committed = self.rt.service.committed(game_id)
            assert committed is not None, "the bot keeps the game it just committed"
            version, game = committed
            if game.phase is Phase.ENDED:
                game_id = await self.open_fast(users, group)
                continue
            if game.phase is Phase.ROUND_OVER:
                played += 1
                if played >= rounds:
                    return played
            actor, act, amount = fast_move(game)
            data = GameButton(game_id, version, act, amount).encode()
            await self.press_raw(by_id[actor], group, data)

    async def open_fast(self, users: list[FakeUser], group: Chat) -> int:
        """/newgame, two joins and the start, each pressed at once; returns the game id."""
        await self.say(users[0], group, f"/newgame {PRESET}", timed=True)
        stored = await self.rt.service.active_game(group.id, 0)
        assert stored is not None
        for user, act in [(u, Act.JOIN) for u in users[1:]] + [(users[0], Act.START)]:
            committed = self.rt.service.committed(stored.game_id)
            assert committed is not None
            await self.press_raw(
                user, group, GameButton(stored.game_id, committed[0], act).encode()
            )
        return stored.game_id

    async def press_raw(self, user: FakeUser, group: Chat, data: str) -> None:
        """A press on the group's newest bot message carrying ``data``, straight to the bot."""
        message = last_bot_message(group)
        query, update = self.server.forge_press(self.bot, user, message, data, queue=False)
        update["update_id"] = next(self._update_ids)
        await self.deliver(update)
        if query.answer is None:
            raise AssertionError(f"press {data} not answered")
        if query.answer.show_alert:
            self.refused += 1

    async def play(self, users: list[FakeUser], group: Chat, rounds: int) -> int:
        """Play ``rounds`` rounds (new games when one ends); returns the rounds played."""
        by_id = {u.id: u for u in users}
        game_id = await self.open_game(users, group)
        played = 0
        stuck = 0
        while played < rounds:
            view = await self.reader.game(game_id)
            assert view is not None
            if view.status == "finished" or view.game.phase is Phase.ENDED:
                game_id = await self.open_game(users, group)
                continue
            message = group.last_with_buttons()
            move = choose(view, message.flat_buttons if message is not None else [])
            if move is None:
                stuck += 1
                if stuck > 100:
                    raise AssertionError(f"no move in game {game_id}: {view.game.legal_actions()}")
                await asyncio.sleep(0.001)
                continue
            stuck = 0
            if view.game.phase is Phase.ROUND_OVER:
                played += 1
                if played >= rounds:
                    break
            await self.press(by_id[move.user_id], group, move)
            await self.settle(game_id)
        return played


def last_bot_message(chat: Chat) -> Message:
    """The message a press comes from: the group's newest bot message (before the first table
    is drawn, the player's /newgame stands in for it: the bot reads only the chat)."""
    for message in reversed(chat._messages):
        if message.bot is not None and not message.deleted:
            return message
    return chat._messages[-1]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def run(
    groups: int,
    rounds: int,
    coalesce: float | None,
    directory: Path,
    profile: bool,
    players: str,
    paced: bool,
    synchronous: str,
    metered: bool = False,
) -> str:
    server = BotApiServer(flood_limits=False)
    bot = server.add_bot(TOKEN, username="ochko_bench_bot")
    with tempfile.TemporaryDirectory(dir=directory) as folder:
        database = Path(folder) / "bench.sqlite3"
        values: dict[str, Any] = {
            "bot_token": TOKEN,
            "database_url": f"sqlite:///{database}",
            "bot_api_base_url": "http://127.0.0.1:9/bot",
            "sqlite_synchronous": synchronous,
        }
        if coalesce is not None:
            values["table_edit_gap"] = coalesce
        if metered:
            values.update(metrics_enabled=True, metrics_port=free_port())
        settings = Settings(_env_file=None, **values)  # type: ignore[call-arg]
        app = build_application(settings, request=OfflineRequest(server), rate_limiter=paced)
        await app.initialize()
        await post_init(app)
        reader = Reader(database)
        await reader.start()
        bench = Bench(server, bot, app, reader)
        tables: list[tuple[list[FakeUser], Chat]] = []
        for g in range(groups):
            users = [server.create_user(f"P{g}-{k}") for k in range(PLAYERS)]
            group = server.create_group(f"Table {g}", members=users, admins=users[:1])
            for user in users:  # hands go to the private chats, as for real players
                await bench.say(user, bot, "/start", timed=False)
            tables.append((users, group))
        calls_before = len(server.requests)
        profiler = cProfile.Profile() if profile else None
        if profiler is not None:
            profiler.enable()
        started, cpu_started = time.perf_counter(), time.process_time()
        play = bench.play_fast if players == "fast" else bench.play
        played = await asyncio.gather(*(play(u, g, rounds) for u, g in tables))
        elapsed = time.perf_counter() - started
        # What is still to be shown waits for Telegram's pace when the limiter is on, so it is
        # timed apart: the rate is presses answered per second of play, delivery's work
        # during play included.
        await bench.rt.delivery.drain(timeout=DRAIN_SECONDS)
        drained = time.perf_counter() - started - elapsed
        cpu = time.process_time() - cpu_started
        behind = bench.rt.delivery.lanes.pending()  # chats whose views wait for Telegram's pace
        if profiler is not None:
            profiler.disable()
        calls = Counter(r.method for r in server.requests[calls_before:])
        errors = sum(1 for r in server.requests[calls_before:] if not r.ok)
        await reader.stop()
        await post_shutdown(app)
        await app.shutdown()
    if profiler is not None:
        pstats.Stats(profiler).sort_stats("tottime").print_stats(25)
        pstats.Stats(profiler).sort_stats("cumulative").print_stats(40)
    lat = bench.latencies
    total_calls = sum(calls.values())
    rate = bench.actions / elapsed
    p50, p99 = percentile(lat, 0.5) * 1000, percentile(lat, 0.99) * 1000
    verdict = "meets" if rate >= TARGET_RATE and p99 <= TARGET_P99_MS else "below"
    top = ", ".join(f"{m}={n}" for m, n in calls.most_common(4))
    return (
        f"in-process players={players} groups={groups} rounds={sum(played)} "
        f"actions={bench.actions} {rate:.0f} actions/s p50={p50:.2f} ms p99={p99:.2f} ms "
        f"max={max(lat) * 1000:.1f} ms api_calls={total_calls} "
        f"({total_calls / bench.actions:.2f}/action: {top}) errors={errors} "
        f"refused={bench.refused} bot={'paced' if paced else 'unpaced'} "
        f"cpu={cpu / bench.actions * 1e6:.0f} µs/action metrics={'on' if metered else 'off'} "
        f"table_gap={settings.table_edit_gap}s synchronous={synchronous} "
        f"elapsed={elapsed:.1f}s drain={drained:.1f}s (views still behind: {behind} games) "
        f"[target ≥{TARGET_RATE:.0f}/s, p99 ≤{TARGET_P99_MS:.0f} ms: {verdict}] ({machine()})"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--groups", type=int, default=20, help="groups playing at once")
    parser.add_argument("--rounds", type=int, default=10, help="rounds per group")
    parser.add_argument(
        "--table-gap", type=float, default=None, help="TABLE_EDIT_GAP (default: the bot's)"
    )
    parser.add_argument("--dir", type=Path, default=Path.cwd(), help="where the database goes")
    parser.add_argument("--profile", action="store_true", help="print cProfile hotspots")
    parser.add_argument(
        "--players", choices=("fast", "settle"), default="fast", help="see the module docs"
    )
    parser.add_argument("--unpaced", action="store_true", help="without the bot's rate limiter")
    parser.add_argument(
        "--synchronous",
        choices=("FULL", "NORMAL"),
        default="FULL",
        help="SQLITE_SYNCHRONOUS (default: the bot's FULL)",
    )
    parser.add_argument(
        "--metrics",
        choices=("off", "on", "both"),
        default="off",
        help="METRICS_ENABLED off, on, or one run of each (see the module docs)",
    )
    args = parser.parse_args()
    for metered in {"off": [False], "on": [True], "both": [False, True]}[args.metrics]:
        figures = run(
            args.groups,
            args.rounds,
            args.table_gap,
            args.dir,
            args.profile,
            args.players,
            not args.unpaced,
            args.synchronous,
            metered,
        )
        print(asyncio.run(figures))


if __name__ == "__main__":
    main()
