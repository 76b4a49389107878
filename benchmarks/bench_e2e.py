"""End to end: the real bot process (``python -m bot``) over HTTP against the local Bot API server
(flood limits off, to measure the bot), ``--groups`` groups playing classic36 at once.

Every game starts mid-round (created through the service in a fresh database), each group asks
for its table with /table, then players press: the actor banks or stakes the smallest amount,
draws below 17 and stands after, the first player deals the next round. Two kinds of players:

- ``--players fast`` (the default): a press waits only for the previous press's answer and
  carries the button of the newest committed state (read from the database, as a keyboard drawn
  for it would carry); nobody waits for the table to be redrawn, which Telegram's flood limits
  (and so the bot's pacing) make slow by design.
- ``--players keyboard``: a press waits for a keyboard drawn for the current decision and
  presses its button (bounded by the pace of table edits: about 25 per second for the bot).

With ``--rate R`` presses are paced open-loop at R per second over all groups (a press takes the
next free slot), with ``--rate 0`` as fast as the bot allows. Latency: from the press reaching
the server (the update queued) to the bot's answerCallbackQuery for it arriving there.

``--unpaced`` runs the same bot's main() without its PacedRateLimiter (benchmarks/_run_bot.py):
the default limiter counts answerCallbackQuery in its 25/s overall budget.

Besides the rate and the answer latency it prints the bot's CPU per answered action and the
lag from a press's answer (the action is committed by then) to the group table first showing
that version or a newer one (read from the version in the table's buttons): table edits follow
each group's flood budget (at once while a group's minute has room, spaced out as it fills), so
at a brisk rate per group this lag is seconds by design.

``--database postgresql`` runs the bot on PostgreSQL: a new database in a throwaway cluster
(localpg/cluster.py: fsync off, in RAM where there is room), or the empty database of
``--database-url``. It also prints the PostgreSQL server's CPU per action (the bot's share of
it: the players' connections are left out) when the server runs on this machine. On
PostgreSQL ``--replicas N`` runs N bot processes in webhook mode behind a round-robin balancer
(localbotapi/balancer.py), the local server posting every update to it; ``--webhook`` does the
same with one process, for a like-for-like comparison. The bot CPU is then the sum over them.
``others=`` is the CPU the rest of the machine used during the run: other work, which a run
on a quiet machine has next to none of. ``bot_wakeups=`` is how often per action the bot's
threads went to sleep and were woken (the event loop waiting for a socket, SQLite's thread for
its queue): a bot under full load hardly sleeps, one at 100 presses/s sleeps around each press,
and each wake-up costs CPU of its own (benchmarks/bench_wakeup.py measures how much here).
Run: .venv/bin/python benchmarks/bench_e2e.py [--groups 200 --rate 100 --seconds 20]
     [--database postgresql [--replicas 2 | --webhook]]
"""

from __future__ import annotations

import argparse
import asyncio
import secrets
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._common import (
    TOKEN,
    Reader,
    build_world,
    choose,
    cpu_seconds,
    fast_move,
    first_poll,
    free_port,
    launch_bot,
    machine,
    machine_cpu_seconds,
    memory_kb,
    percentile,
    stop_bot,
    throwaway_postgres,
    wakeups,
    watch_polls,
    webhook_ready,
)
from bot.callbacks import GameButton, parse_game
from localbotapi import BotApiServer
from localbotapi.balancer import RoundRobin
from localbotapi.models import CallbackQuery
from localbotapi.server import ServerEvent
from rules.table import Phase

TARGET_RATE = 300.0
TARGET_P99_MS = 50.0


class Players:
    def __init__(self, server: BotApiServer, reader: Reader, rate: float, until: float) -> None:
        self.server = server
        self.reader = reader
        self.rate = rate
        self.until = until
        self.next_slot = 0.0
        self.pressed: dict[str, float] = {}
        self.answered: dict[str, float] = {}
        self.changed: dict[int, asyncio.Event] = {}
        self.stalls = 0
        self.refused = 0  # presses answered with an alert (a refusal)
        self.refusals: Counter[str] = Counter()
        # chat -> [(version committed, when its press was answered)] not yet on the table
        self.unshown: dict[int, list[tuple[int, float]]] = {}
        self.table_lags: list[float] = []
        server.add_listener(self.hear)

    def hear(self, event: ServerEvent) -> None:
        if event.kind == "answer" and event.query is not None:
            self.answered.setdefault(event.query.id, time.monotonic())
        elif event.message is not None:
            message = event.message
            flag = self.changed.get(message.chat.id)
            if flag is not None:
                flag.set()
            waiting = self.unshown.get(message.chat.id)
            if waiting and message.from_bot:
                versions = [b.version for _, d in message.flat_buttons if (b := parse_game(d))]
                if versions:
                    shown, now = max(versions), time.monotonic()
                    self.table_lags += [now - at for v, at in waiting if v <= shown]
                    waiting[:] = [(v, at) for v, at in waiting if v > shown]

    def committed(self, chat_id: int, version: int, query: CallbackQuery) -> None:
        """The press was answered without an alert: ``version`` is committed now."""
        answered = self.answered.get(query.id)
        if answered is not None and query.answer is not None and not query.answer.show_alert:
            self.unshown.setdefault(chat_id, []).append((version, answered))

    async def slot(self) -> None:
        """Open-loop pacing: the next free slot of 1/rate seconds (no wait with rate 0)."""
        if self.rate <= 0:
            return
        now = time.monotonic()
        slot = max(self.next_slot, now)
        self.next_slot = slot + 1.0 / self.rate
        if slot > now:
            await asyncio.sleep(slot - now)

    async def wait_change(self, chat_id: int, timeout: float) -> None:
        flag = self.changed.setdefault(chat_id, asyncio.Event())
        try:
            await asyncio.wait_for(flag.wait(), timeout)
        except TimeoutError:
            self.stalls += 1
        flag.clear()

    async def show_table(self, group: Any, user: Any) -> None:
        self.changed.setdefault(group.id, asyncio.Event())
        await user.send(group, "/table")
        while group.last_with_buttons() is None:
            await self.wait_change(group.id, 5.0)

    async def play_fast(self, group: Any, users: list[Any], game_id: int) -> None:
        by_id = {u.id: u for u in users}
        while time.monotonic() < self.until:
            view = await self.reader.game(game_id)
            if view is None or view.status == "finished" or view.game.phase is Phase.ENDED:
                return
            move = fast_move(view.game)
            await self.slot()
            if time.monotonic() >= self.until:
                return
            actor, act, amount = move
            data = GameButton(game_id, view.version, act, amount).encode()
            query = self.press_raw(by_id[actor], group, data)
            self.pressed[query.id] = time.monotonic()
            try:
                await query.wait(timeout=30)
            except TimeoutError:
                self.stalls += 1
            if query.answer is not None and query.answer.show_alert:
                self.refused += 1
                self.refusals[f"{(query.answer.text or '')[:60]} ({data})"] += 1
            self.committed(group.id, view.version + 1, query)

    def press_raw(self, user: Any, group: Any, data: str) -> CallbackQuery:
        """A press on the group's newest bot message carrying ``data``."""
        message = group.last_with_buttons() or group.messages[-1]
        query, _ = self.server.forge_press(message.bot, user, message, data)
        return query

    async def play_keyboard(self, group: Any, users: list[Any], game_id: int) -> None:
        by_id = {u.id: u for u in users}
        while time.monotonic() < self.until:
            view = await self.reader.game(game_id)
            if view is None or view.status == "finished" or view.game.phase is Phase.ENDED:
                return
            message = group.last_with_buttons()
            move = choose(view, message.flat_buttons if message is not None else [])
            if move is None or message is None:
                await self.wait_change(group.id, 1.0)
                continue
            await self.slot()
            if time.monotonic() >= self.until:
                return
            if move.data not in (data for _, data in message.flat_buttons):
                continue  # the keyboard was redrawn while this press waited for its slot
            self.changed[group.id].clear()
            query = await by_id[move.user_id].press(message, data=move.data)
            self.pressed[query.id] = time.monotonic()
            try:
                await query.wait(timeout=30)
            except TimeoutError:
                self.stalls += 1


def webhook(args: argparse.Namespace) -> bool:
    return bool(args.webhook or args.replicas > 1)


async def start_bots(
    args: argparse.Namespace,
    server: BotApiServer,
    bot: Any,
    database: Path | str,
    folder: Path,
    processes: list[Any],
) -> RoundRobin | None:
    """Start the bot: one process polling, or ``--replicas`` in webhook mode behind a balancer
    (returned; the caller stops it). Each process goes into ``processes`` as soon as it runs,
    so that the caller stops it whatever happens here."""
    extra: dict[str, Any] = {"table_edit_gap": args.table_gap}
    if args.synchronous:
        extra["sqlite_synchronous"] = args.synchronous
    if not webhook(args):
        polls = watch_polls(server)
        process, launched = launch_bot(
            server.base_url,
            database,
            folder / "bot.log",
            unpaced=args.unpaced,
            profile=args.profile,
            **extra,
        )
        processes.append(process)
        await first_poll(polls, launched, process)
        return None
    # Even one replica gets the balancer in front, so that one and two differ in nothing else.
    balancer = RoundRobin([free_port() for _ in range(args.replicas)], port=free_port())
    await balancer.start()
    secret = secrets.token_urlsafe(24)  # 32 characters of A-Z a-z 0-9 _ -
    for index, port in enumerate(balancer.backends):
        profile = args.profile
        if profile is not None and args.replicas > 1:
            profile = profile.with_name(f"{profile.stem}.{index}{profile.suffix}")
        process, _ = launch_bot(
            server.base_url,
            database,
            folder / (f"bot{index}.log" if args.replicas > 1 else "bot.log"),
            unpaced=args.unpaced,
            profile=profile,
            webhook_url=f"http://127.0.0.1:{balancer.port}/telegram",
            webhook_secret=secret,
            webhook_listen="127.0.0.1",
            webhook_port=port,
            **extra,
        )
        processes.append(process)
    try:
        await webhook_ready(server, bot, balancer.backends, processes)
    except BaseException:
        await balancer.stop()
        raise
    return balancer


async def run(args: argparse.Namespace) -> str:
    server = BotApiServer(flood_limits=False)
    await server.start()
    bot = server.add_bot(TOKEN, username="ochko_bench_bot")
    drop: Callable[[], None] | None = None
    with tempfile.TemporaryDirectory(dir=args.dir) as folder:
        database: Path | str = Path(folder) / "bench.sqlite3"
        if args.database == "postgresql":
            database = args.database_url
            if database is None:
                database, drop = throwaway_postgres()
        processes: list[Any] = []
        balancer: RoundRobin | None = None
        reader = Reader(database)
        try:
            world = await build_world(server, bot, database, args.groups)
            balancer = await start_bots(args, server, bot, database, Path(folder), processes)
            await reader.start()
            server_cpu = await reader.server_cpu()
            setup = Players(server, reader, 0.0, 0.0)
            await asyncio.gather(
                *(setup.show_table(g, u[0]) for g, u in zip(world.groups, world.users, strict=True))
            )
            calls_before = len(server.requests)
            served_before = Counter(balancer.served) if balancer is not None else Counter()
            cpu_before = [cpu_seconds(p.pid) for p in processes], cpu_seconds()
            wakes_before = [wakeups(p.pid) for p in processes]
            db_before = server_cpu() if server_cpu is not None else (0.0, 0.0)
            machine_before = machine_cpu_seconds()
            started = time.monotonic()
            players = Players(server, reader, args.rate, started + args.seconds)
            players.changed = setup.changed
            play = players.play_fast if args.players == "fast" else players.play_keyboard
            await asyncio.gather(
                *(
                    play(g, u, game)
                    for g, u, game in zip(world.groups, world.users, world.games, strict=True)
                )
            )
            elapsed = time.monotonic() - started
            bot_cpus = [
                cpu_seconds(p.pid) - b for p, b in zip(processes, cpu_before[0], strict=True)
            ]
            harness_cpu = cpu_seconds() - cpu_before[1]
            bot_wakes = sum(
                wakeups(p.pid) - b for p, b in zip(processes, wakes_before, strict=True)
            )
            db_after = server_cpu() if server_cpu is not None else (0.0, 0.0)
            db_cpu = db_after[0] - db_before[0] if server_cpu is not None else None
            # The players' own database connections are the benchmark's, not other work.
            others = machine_cpu_seconds() - machine_before - sum(bot_cpus) - harness_cpu
            others -= db_after[0] - db_before[0] + db_after[1] - db_before[1]
            rss = [memory_kb(p.pid).get("VmRSS", 0) for p in processes]
            calls = Counter(r.method for r in server.requests[calls_before:])
            errors = sum(1 for r in server.requests[calls_before:] if not r.ok)
            served = (
                [balancer.served[port] - served_before[port] for port in balancer.backends]
                if balancer
                else []
            )
        finally:
            await reader.stop()
            await asyncio.gather(*(stop_bot(p) for p in processes))
            if balancer is not None:
                await balancer.stop()
            await server.stop()
            if drop is not None:
                drop()
    cpu = Cpu(bot_cpus, harness_cpu, db_cpu, others, bot_wakes)
    return report(args, players, elapsed, cpu, rss, calls, errors, served)


@dataclass(frozen=True, slots=True)
class Cpu:
    """CPU seconds over the run: each bot process, this process (the server, the balancer and
    the players), the database server's share for the bot (None: not measured), and the rest
    of the machine (other work: a quiet machine has next to none); and how often the bot's
    threads slept and were woken (:func:`benchmarks._common.wakeups`), since on a machine
    that is not busy each wake-up costs CPU of its own (benchmarks/bench_wakeup.py)."""

    bots: list[float]
    harness: float
    db: float | None
    others: float
    bot_wakeups: int


def report(
    args: argparse.Namespace,
    players: Players,
    elapsed: float,
    cpu: Cpu,
    rss: list[int],
    calls: Counter[str],
    errors: int,
    served: list[int],
) -> str:
    latencies = [
        players.answered[q] - t for q, t in players.pressed.items() if q in players.answered
    ]
    answered = len(latencies)
    rate = answered / elapsed
    p50, p99 = percentile(latencies, 0.5) * 1000, percentile(latencies, 0.99) * 1000
    sends = sum(n for m, n in calls.items() if m.startswith(("send", "edit")))
    per_action = ", ".join(
        f"{method}={n / max(answered, 1):.2f}" for method, n in calls.most_common(4)
    )
    bot_cpu, db_cpu = sum(cpu.bots), cpu.db
    cpu_ms = bot_cpu / max(answered, 1) * 1000
    lags = players.table_lags
    lag = (
        f"table lag p50={percentile(lags, 0.5):.1f} s p99={percentile(lags, 0.99):.1f} s "
        f"(n={len(lags)})"
        if lags
        else "table lag n/a"
    )
    # The two aims: the rate with presses as fast as possible, the p99 at 100/s.
    target = f"≥{TARGET_RATE:.0f}/s" if args.rate <= 0 else f"p99 ≤{TARGET_P99_MS:.0f} ms at 100/s"
    ok = rate >= TARGET_RATE if args.rate <= 0 else p99 <= TARGET_P99_MS
    verdict = ("meets" if ok else "below") if args.rate <= 0 or args.rate == 100 else "n/a"
    each = f" ({'+'.join(f'{c / elapsed:.0%}' for c in cpu.bots)})" if len(cpu.bots) > 1 else ""
    db = (
        f"db_server={db_cpu / elapsed:.0%} ({db_cpu / max(answered, 1) * 1000:.2f} ms/action) "
        if db_cpu is not None
        else ""
    )
    return (
        f"e2e players={args.players} bot={'unpaced' if args.unpaced else 'default'} "
        f"db={args.database} replicas={args.replicas} "
        f"transport={'webhook' if webhook(args) else 'polling'} groups={args.groups} "
        f"rate={'max' if args.rate <= 0 else f'{args.rate:.0f}/s'} presses={len(players.pressed)} "
        f"answered={answered} {rate:.0f} actions/s p50={p50:.1f} ms p99={p99:.1f} ms "
        f"max={max(latencies, default=0) * 1000:.0f} ms sends+edits={sends} "
        f"({sends / max(answered, 1):.2f}/action) "
        f"api_calls={sum(calls.values()) / max(answered, 1):.2f}/action ({per_action}) "
        f"errors={errors} refused={players.refused} "
        f"stalls={players.stalls} "
        f"{''.join(f'[refused: {t!r} x{n}] ' for t, n in players.refusals.most_common(2))}"
        f"bot_rss={'+'.join(f'{kb / 1024:.0f}' for kb in rss)} MB "
        f"{'served=' + '/'.join(map(str, served)) + ' ' if served else ''}"
        f"elapsed={elapsed:.1f}s "
        f"cpu: bot={bot_cpu / elapsed:.0%}{each} ({cpu_ms:.2f} ms/action) "
        f"bot_wakeups={cpu.bot_wakeups / max(answered, 1):.1f}/action {db}"
        f"server+players={cpu.harness / elapsed:.0%} others={cpu.others / elapsed:.0%} {lag} "
        f"[target {target}: {verdict}] ({machine()})"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--groups", type=int, default=200, help="groups playing at once")
    parser.add_argument("--rate", type=float, default=100.0, help="presses/s overall, 0 = max")
    parser.add_argument("--seconds", type=float, default=20.0, help="measured duration")
    parser.add_argument("--unpaced", action="store_true", help="the bot without its limiter")
    parser.add_argument("--table-gap", type=float, default=0.0, help="TABLE_EDIT_GAP")
    parser.add_argument("--synchronous", choices=("FULL", "NORMAL"), help="SQLITE_SYNCHRONOUS")
    parser.add_argument("--dir", type=Path, default=Path.cwd(), help="where the database goes")
    parser.add_argument(
        "--players", choices=("fast", "keyboard"), default="fast", help="see the module docs"
    )
    parser.add_argument("--profile", type=Path, help="write the bot's cProfile stats here")
    parser.add_argument(
        "--database",
        choices=("sqlite", "postgresql"),
        help="the bot's backend (default sqlite; postgresql with --database-url)",
    )
    parser.add_argument(
        "--database-url", help="an empty PostgreSQL database to use instead of a throwaway one"
    )
    parser.add_argument(
        "--replicas", type=int, default=1, help="bot processes (≥ 2: PostgreSQL, webhook)"
    )
    parser.add_argument(
        "--webhook", action="store_true", help="webhook mode behind the balancer even for one"
    )
    args = parser.parse_args()
    if args.database is None:
        args.database = "postgresql" if args.database_url else "sqlite"
    if args.database_url and args.database != "postgresql":
        parser.error("--database-url is a PostgreSQL database: not with --database sqlite")
    if args.database_url and not args.database_url.lower().startswith(
        ("postgres://", "postgresql://")
    ):
        parser.error("--database-url takes a postgresql:// URL")
    if args.replicas < 1:
        parser.error("--replicas must be at least 1")
    if args.replicas > 1 and args.database != "postgresql":
        parser.error("--replicas ≥ 2 needs --database postgresql: an SQLite file has one process")
    print(asyncio.run(run(args)))


if __name__ == "__main__":
    main()
