"""Shared pieces of the bot benchmarks: settings, a read-only view of the games, the players'
policy (who presses what), database population (SQLite or PostgreSQL), percentiles, process
memory and CPU, and the bot as one process or several webhook replicas.

Not a benchmark itself; the bench_*.py scripts import it.
"""

from __future__ import annotations

import json
import os
import re
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import aiosqlite

from bot.callbacks import Act, parse_game
from bot.service import Actor, Command, GameService, Request
from rules.game import Game
from rules.table import Phase
from storage import Storage, open_storage
from storage.postgres.driver import Pool, create_pool

ROOT = Path(__file__).resolve().parents[1]
TOKEN = "123456:BENCHTOKEN_abcdefghijklmnopqrstuv"
PLAYERS = 3
PRESET = "classic36"
HIT_BELOW = 17  # a player draws below this total, then stands


def percentile(values: Sequence[float], q: float) -> float:
    """The q-quantile (0..1) of ``values`` by nearest rank; 0.0 for no values."""
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def machine() -> str:
    model = "?"
    with open("/proc/cpuinfo") as cpuinfo:
        for line in cpuinfo:
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    return f"{os.cpu_count()} CPU ({model}), Python {sys.version.split()[0]}"


# ------------------------------------------------------------------ memory of a process


def memory_kb(pid: int) -> dict[str, int]:
    """VmRSS and VmHWM (peak RSS) of a process, in KiB, from /proc/<pid>/status."""
    found: dict[str, int] = {}
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            key, _, value = line.partition(":")
            if key in ("VmRSS", "VmHWM"):
                found[key] = int(value.split()[0])
    return found


def _stat(pid: int) -> list[str]:
    """/proc/<pid>/stat's fields after the command name: [0] state, [1] ppid, [11] utime,
    [12] stime, [13] cutime, [14] cstime (clock ticks)."""
    with open(f"/proc/{pid}/stat") as stat:
        return stat.read().rsplit(")", 1)[1].split()


def cpu_seconds(pid: int | None = None) -> float:
    """CPU time (user + system) a process has used so far, this one by default."""
    if pid is None:
        usage = os.times()
        return usage.user + usage.system
    fields = _stat(pid)
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def wakeups(pid: int) -> int:
    """How many times the threads of a process have gone to sleep and been woken so far (their
    voluntary context switches, /proc/<pid>/task/*/status): one for each wait on a socket, a
    queue, a lock or the disk that had to sleep. Threads that already ended are not counted."""
    total = 0
    for task in os.scandir(f"/proc/{pid}/task"):
        try:
            with open(f"{task.path}/status") as status:
                for line in status:
                    if line.startswith("voluntary_ctxt_switches:"):
                        total += int(line.split()[1])
                        break
        except OSError:
            continue  # the thread ended since the listing
    return total


def machine_cpu_seconds() -> float:
    """CPU time every process of the machine has used so far, over all cores (/proc/stat's
    first line but idle and iowait): with the benchmark's own processes taken off, what other
    work took while it ran."""
    with open("/proc/stat") as stat:
        ticks = [int(t) for t in stat.readline().split()[1:9]]
    return (sum(ticks) - ticks[3] - ticks[4]) / os.sysconf("SC_CLK_TCK")


def server_cpu_seconds(postmaster: int, apart: set[int]) -> tuple[float, float]:
    """CPU time of a local PostgreSQL server so far: the postmaster, its live children (the
    backends, the WAL writer, the checkpointer…) and the children that exited (the
    postmaster's cutime and cstime); then, apart, that of the children in ``apart``."""
    fields = _stat(postmaster)
    ticks, ticks_apart = sum(int(fields[k]) for k in (11, 12, 13, 14)), 0
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            child = _stat(int(entry.name))
        except OSError:
            continue  # gone since the listing
        if int(child[1]) == postmaster:
            used = int(child[11]) + int(child[12])
            if int(entry.name) in apart:
                ticks_apart += used
            else:
                ticks += used
    tick = os.sysconf("SC_CLK_TCK")
    return ticks / tick, ticks_apart / tick


# ------------------------------------------------------------------ the games, read-only


@dataclass(frozen=True, slots=True)
class View:
    """What the players know of a game: its stored version and the engine state."""

    game_id: int
    version: int
    turn_since: int
    status: str
    game: Game


def database_url(database: Path | str) -> str:
    """``database`` as a DATABASE_URL: a Path is an SQLite file, a str is a URL already."""
    return database if isinstance(database, str) else f"sqlite:///{database}"


def is_sqlite(database: Path | str) -> bool:
    return database_url(database).lower().startswith("sqlite:")


# The players' connections to PostgreSQL, named so that their server processes can be told
# from the bot's (their CPU is the players', not the bot's).
READER_NAME = "ochko-bench-players"
# asyncpg runs one statement at a time per connection: a few, for 200 players reading at once.
READER_CONNECTIONS = 4


def reader_dsn(url: str) -> str:
    """The database URL for the players' pool: without the bot's own pool_max, read-only (as
    SQLite's mode=ro), named READER_NAME; asyncpg sends unknown parameters as settings."""
    parts = urlsplit(url)
    query = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if k != "pool_max"]
    query += [("application_name", READER_NAME), ("default_transaction_read_only", "on")]
    return urlunsplit(parts._replace(query=urlencode(query)))


class Reader:
    """A read-only connection of its own (so the players' reads never queue behind the bot's
    writes on the bot's connection); works across processes (SQLite's WAL). On PostgreSQL a
    small pool of its own, with the same two queries."""

    def __init__(self, database: Path | str) -> None:
        self.url = database_url(database)
        self._conn: aiosqlite.Connection | None = None
        self._pool: Pool | None = None

    async def start(self) -> None:
        if is_sqlite(self.url):
            path = self.url.split(":///", 1)[1]
            self._conn = await aiosqlite.connect(f"file:{path}?mode=ro", uri=True)
        else:
            self._pool = await create_pool(
                reader_dsn(self.url), min_size=READER_CONNECTIONS, max_size=READER_CONNECTIONS
            )

    async def stop(self) -> None:
        if self._conn is not None:
            await self._conn.close()
            self._conn = None
        if self._pool is not None:
            await self._pool.close()
            self._pool = None

    async def _row(self, sqlite: str, postgres: str, arg: int) -> Sequence[Any] | None:
        if self._pool is not None:
            rows = await self._pool.fetch(postgres, arg)
            return rows[0] if rows else None
        assert self._conn is not None
        async with self._conn.execute(sqlite, (arg,)) as cursor:
            row = await cursor.fetchone()
        return None if row is None else tuple(row)

    async def server_cpu(self) -> Callable[[], tuple[float, float]] | None:
        """On a PostgreSQL server of this machine: a reading of the server's CPU seconds so far,
        for all but the players' own connections and for those. None on SQLite, or when the
        server's processes are not visible here (another host, a container)."""
        if self._pool is None:
            return None
        rows = await self._pool.fetch(
            "SELECT pid FROM pg_stat_activity WHERE application_name = $1", READER_NAME
        )
        players = {int(row[0]) for row in rows}
        try:
            postmaster = int(_stat(min(players))[1])
            server_cpu_seconds(postmaster, players)
        except (OSError, ValueError):
            return None
        return lambda: server_cpu_seconds(postmaster, players)

    async def game(self, game_id: int) -> View | None:
        row = await self._row(
            "SELECT state, version, status FROM games WHERE game_id = ?",
            "SELECT state, version, status FROM games WHERE game_id = $1",
            game_id,
        )
        if row is None:
            return None
        state = json.loads(row[0])
        return View(
            game_id,
            int(row[1]),
            int(state["meta"].get("turn_since", 0)),
            str(row[2]),
            Game.from_dict(state["engine"]),
        )

    async def active_game(self, chat_id: int) -> int | None:
        query = (
            "SELECT game_id FROM games WHERE chat_id = {} AND status != 'finished' "
            "ORDER BY game_id DESC LIMIT 1"
        )
        row = await self._row(query.format("?"), query.format("$1"), chat_id)
        return None if row is None else int(row[0])


# ------------------------------------------------------------------ the players' policy


@dataclass(frozen=True, slots=True)
class Move:
    user_id: int
    act: Act
    data: str  # the button's callback data


def buttons(keyboards: Iterable[Sequence[tuple[str, str | None]]]) -> list[str]:
    return [data for keyboard in keyboards for _, data in keyboard if data]


def choose(view: View, keyboard: Sequence[tuple[str, str | None]]) -> Move | None:
    """The next press for this game from the buttons of its newest message, or None when the
    keyboard is not (yet) for the current decision or the game waits for nothing we press.

    The actor banks or stakes the smallest amount offered, draws below 17 and stands after; at
    the end of a round the first seated player deals the next one."""
    game = view.game
    offered: dict[Act, list[tuple[int, str]]] = {}
    for _, data in keyboard:
        button = parse_game(data)
        if button is None or button.game_id != view.game_id:
            continue
        if not view.turn_since <= button.version <= view.version:
            return None  # drawn for an earlier decision: the refreshed one is on its way
        offered.setdefault(button.act, []).append((button.amount or 0, data or ""))
    legal = game.legal_actions()
    actor = legal.actor
    wanted: Act | None = None
    if game.phase is Phase.BANK:
        actor = actor if actor is not None else game.banker
        wanted = Act.BANK
    elif game.phase is Phase.STAKE:
        wanted = Act.BET
    elif game.phase in (Phase.DRAW, Phase.BANKER) and actor is not None:
        hit = "hit" in legal.actions and game.hand_value(actor).total < HIT_BELOW
        wanted = Act.HIT if hit else Act.STAND
    elif game.phase is Phase.ROUND_OVER and game.players:
        actor = game.players[0]
        wanted = Act.NEXT
    if wanted is None or actor is None or wanted not in offered:
        return None
    _, data = min(offered[wanted])
    return Move(actor, wanted, data)


def fast_move(game: Game) -> tuple[int, Act, int | None]:
    """Who presses what next: the smallest sensible bank and stake, draw below 17, and the first
    seated player deals the next round."""
    legal = game.legal_actions()
    actor = legal.actor
    if game.phase is Phase.BANK:
        banker = actor if actor is not None else game.banker
        assert banker is not None
        return banker, Act.BANK, min(100, legal.maximum)
    if game.phase is Phase.STAKE and actor is not None:
        return actor, Act.BET, min(10, legal.maximum)
    if game.phase in (Phase.DRAW, Phase.BANKER) and actor is not None:
        hit = "hit" in legal.actions and game.hand_value(actor).total < HIT_BELOW
        return actor, Act.HIT if hit else Act.STAND, None
    if game.phase is Phase.ROUND_OVER and game.players:
        return game.players[0], Act.NEXT, None
    raise AssertionError(f"no move in phase {game.phase}: {legal}")


def command_for(view: View) -> tuple[int, str] | None:
    """The typed command (user id, text) that moves the game on, for games without a table
    message (those created directly in the database)."""
    game = view.game
    legal = game.legal_actions()
    actor = legal.actor
    if game.phase in (Phase.DRAW, Phase.BANKER) and actor is not None:
        hit = "hit" in legal.actions and game.hand_value(actor).total < HIT_BELOW
        return actor, "/hit" if hit else "/stand"
    if game.phase is Phase.STAKE and actor is not None:
        return actor, "/bet 10"
    if game.phase is Phase.BANK:
        banker = actor if actor is not None else game.banker
        return (banker, "/bank 100") if banker is not None else None
    if game.phase is Phase.ROUND_OVER and game.players:
        return game.players[0], "/next"
    return None


# ------------------------------------------------------------------ populating a database


def settings_values(database: Path | str, base_url: str, **overrides: Any) -> dict[str, str]:
    """The bot's environment: token, server, database (an SQLite file or a URL) and anything
    in ``overrides``."""
    values = {
        "BOT_TOKEN": TOKEN,
        "BOT_API_BASE_URL": base_url,
        "DATABASE_URL": database_url(database),
        "LOG_LEVEL": "INFO",
    }
    values.update({k.upper(): str(v) for k, v in overrides.items()})
    return values


async def create_game(
    service: GameService, chat_id: int, users: Sequence[tuple[int, str]], *, finish: bool
) -> int:
    """A classic36 game of ``users`` through the service (the bot's own write path): lobby,
    joins, start, the bank named, the first stake — so it stands mid-round on a player's draw
    with a turn deadline. ``finish`` ends it at once instead."""
    actors = [Actor(uid, name) for uid, name in users]
    outcome = await service.open_lobby(chat_id, 0, actors[0], PRESET)
    game_id = outcome.stored.game_id
    for actor in actors[1:]:
        await service.act(Request(game_id, actor, Command("join")))
    outcome = await service.act(Request(game_id, actors[0], Command("start")))
    by_id = {a.user_id: a for a in actors}
    for _ in range(2 * len(actors)):
        game = outcome.game
        if finish or game.phase in (Phase.DRAW, Phase.BANKER, Phase.ENDED):
            break
        legal = game.legal_actions()
        mover = legal.actor if legal.actor is not None else game.banker
        assert mover is not None
        if game.phase is Phase.BANK:
            command = Command("bank", min(100, legal.maximum))
        else:
            command = Command("bet", min(10, legal.maximum))
        outcome = await service.act(Request(game_id, by_id[mover], command))
    if finish:
        await service.act(Request(game_id, actors[0], Command("end")))
    # A running bot's delivery would have shown this state: record it, so that start-up does
    # not take these games for views left behind by a crash.
    stored = await service.storage.load_game(game_id)
    assert stored is not None
    async with service.storage.transaction() as tx:
        await tx.set_screen(game_id, shown_version=stored.version)
    return game_id


async def populate(
    storage: Storage,
    groups: Sequence[tuple[int, Sequence[tuple[int, str]]]],
    *,
    finish: bool = False,
    deadline_ahead: float = 3600.0,
) -> list[int]:
    """One game per (chat id, users); the deadlines lie ``deadline_ahead`` seconds in the future
    (so no timer fires during a run). Returns the game ids."""
    service = GameService(
        storage,
        starting_balance=1000,
        turn_timeout=60,
        clock=lambda: time.time() + deadline_ahead,
    )
    # The per-user game limit (where the service has one) is for people, not for set-up.
    service.__dict__["max_games_per_user"] = 1_000_000
    return [await create_game(service, chat_id, users, finish=finish) for chat_id, users in groups]


TIMERS_RE = re.compile(r"(\d+) timers re-armed")


# ------------------------------------------------------------------ the bot as a process


@dataclass
class World:
    """Groups of PLAYERS users on the local server, their games in the database."""

    groups: list[Any]  # localbotapi.Chat
    users: list[list[Any]]  # localbotapi.FakeUser, per group
    games: list[int]


async def build_world(
    server: Any,
    bot: Any,
    database: Path | str,
    count: int,
    *,
    finished: int = 0,
    players: int = PLAYERS,
) -> World:
    """``count`` groups of ``players`` with a game each standing mid-round (created through the
    service, in a fresh database: an SQLite file or an empty PostgreSQL database's URL), every
    player's private chat opened; then ``finished`` more groups whose games are over."""
    groups, users = [], []
    for g in range(count + finished):
        members = [server.create_user(f"P{g}-{k}") for k in range(players)]
        groups.append(server.create_group(f"Table {g}", members=members, admins=members[:1]))
        users.append(members)
        for user in members:
            user.open_private(bot)
    storage = open_storage(database_url(database), synchronous="NORMAL")
    await storage.start()
    try:
        async with storage.transaction() as tx:
            for members in users:
                for user in members:
                    await tx.upsert_user(user.id, user.first_name, private_opened=True)
        pairs = zip(groups, users, strict=True)
        rows = [(g.id, [(u.id, u.first_name) for u in m]) for g, m in pairs]
        games = await populate(storage, rows[:count])
        await populate(storage, rows[count:], finish=True)
    finally:
        await storage.stop()
    return World(groups[:count], users[:count], games)


def launch_bot(
    base_url: str,
    database: Path | str,
    log_path: Path,
    *,
    unpaced: bool = False,
    profile: Path | None = None,
    **settings: Any,
) -> tuple[Any, float]:
    """Start the bot (``python -m bot``, or the runner when unpaced or profiled) as a
    subprocess; returns the process and its monotonic launch time."""
    import subprocess

    env = dict(os.environ)
    env.update(settings_values(database, base_url, **settings))
    env["OCHKO_NO_VENV"] = "1"
    module = ["-m", "bot"]
    if unpaced or profile is not None:
        module = ["-m", "benchmarks._run_bot"]
        module += ["--unpaced"] if unpaced else []
        module += ["--profile", str(profile)] if profile is not None else []
    log = open(log_path, "wb")  # noqa: SIM115 - the child writes to it until it exits
    launched = time.monotonic()
    process = subprocess.Popen(
        [sys.executable, *module], cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT
    )
    return process, launched


def watch_polls(server: Any) -> list[float]:
    """Record the arrival time of every getUpdates at ``server`` (its request log has the time
    a long poll *returned*); returns the list the times go into."""
    arrivals: list[float] = []
    handler = server._methods["getupdates"]

    async def arrived(bot: Any, params: Any) -> Any:
        arrivals.append(time.monotonic())
        return await handler(bot, params)

    server._methods["getupdates"] = arrived
    return arrivals


async def first_poll(
    arrivals: list[float], since: float, process: Any, timeout: float = 60.0
) -> float:
    """The monotonic time the bot's first getUpdates after ``since`` reached the server."""
    import asyncio

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for arrival in arrivals:
            if arrival >= since:
                return arrival
        if process.poll() is not None:
            raise RuntimeError(f"the bot exited with {process.returncode}")
        await asyncio.sleep(0.002)
    raise TimeoutError("the bot never polled")


async def stop_bot(process: Any, stop_signal: int | None = None) -> None:
    """Stops the bot (SIGINT unless ``stop_signal`` says otherwise); killed after 10 s."""
    import asyncio
    import signal

    if process.poll() is None:
        process.send_signal(signal.SIGINT if stop_signal is None else stop_signal)
        for _ in range(200):
            if process.poll() is not None:
                break
            await asyncio.sleep(0.05)
        else:
            process.kill()
    process.wait()


# ------------------------------------------------------------------ PostgreSQL and webhooks


def throwaway_postgres() -> tuple[str, Callable[[], None]]:
    """A new empty database in the tests' throwaway PostgreSQL cluster (started on first use,
    stopped when this process exits): its URL and the call that drops it."""
    # Standard library only, so the benchmarks still stand on their own (see pyproject.toml).
    from localpg.cluster import PostgresCluster

    cluster = PostgresCluster.shared()
    url = cluster.new_database()
    return url, lambda: cluster.drop_database(url)


def free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def listening(port: int) -> bool:
    import asyncio

    try:
        _, writer = await asyncio.open_connection("127.0.0.1", port)
    except OSError:
        return False
    writer.close()
    return True


async def webhook_ready(
    server: Any, bot: Any, ports: Sequence[int], processes: Sequence[Any], timeout: float = 60.0
) -> None:
    """Until every process has registered the webhook at ``server`` (one setWebhook each, so
    that no later one restarts the server's delivery mid-run) and listens on its port."""
    import asyncio

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for process in processes:
            if process.poll() is not None:
                raise RuntimeError(f"a bot process exited with {process.returncode}")
        registered = len(server.calls("setWebhook")) >= len(processes) and bot.webhook
        if registered and all([await listening(port) for port in ports]):
            return
        await asyncio.sleep(0.05)
    raise TimeoutError("the bots never listened for the webhook")
