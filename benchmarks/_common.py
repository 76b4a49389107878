"""Shared pieces of the bot benchmarks: settings, a read-only view of the games, the players'
policy (who presses what), database population, percentiles and process memory.

Not a benchmark itself; the bench_*.py scripts import it.
"""

from __future__ import annotations

import json
import os
import re
import sys
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aiosqlite

from bot.callbacks import Act, parse_game
from bot.service import Actor, Command, GameService
from rules.game import Game
from rules.table import Phase
from storage import Storage

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


def cpu_seconds(pid: int | None = None) -> float:
    """CPU time (user + system) a process has used so far, this one by default."""
    if pid is None:
        usage = os.times()
        return usage.user + usage.system
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


# ------------------------------------------------------------------ the games, read-only


@dataclass(frozen=True, slots=True)
class View:
    """What the players know of a game: its stored version and the engine state."""

    game_id: int
    version: int
    turn_since: int
    status: str
    game: Game


class Reader:
    """A read-only connection of its own (so the players' reads never queue behind the bot's
    writes on the bot's connection); works across processes (WAL)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._conn: aiosqlite.Connection | None = None

    async def start(self) -> None:
        self._conn = await aiosqlite.connect(f"file:{self.path}?mode=ro", uri=True)

    async def stop(self) -> None:
        if self._conn is not None:
            await self._conn.close()
            self._conn = None

    async def game(self, game_id: int) -> View | None:
        assert self._conn is not None
        async with self._conn.execute(
            "SELECT state, version, status FROM games WHERE game_id = ?", (game_id,)
        ) as cursor:
            row = await cursor.fetchone()
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
        assert self._conn is not None
        async with self._conn.execute(
            "SELECT game_id FROM games WHERE chat_id = ? AND status != 'finished' "
            "ORDER BY game_id DESC LIMIT 1",
            (chat_id,),
        ) as cursor:
            row = await cursor.fetchone()
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


def settings_values(database: Path, base_url: str, **overrides: Any) -> dict[str, str]:
    """The bot's environment: token, server, database and anything in ``overrides``."""
    values = {
        "BOT_TOKEN": TOKEN,
        "BOT_API_BASE_URL": base_url,
        "DATABASE_URL": f"sqlite:///{database}",
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
        await service.act(game_id, actor, Command("join"))
    outcome = await service.act(game_id, actors[0], Command("start"))
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
        outcome = await service.act(game_id, by_id[mover], command)
    if finish:
        await service.act(game_id, actors[0], Command("end"))
    # A running bot's delivery would have shown this state: record it, so that start-up does
    # not take these games for views left behind by a crash.
    stored = await service.storage.load_game(game_id)
    assert stored is not None
    async with service.storage.transaction() as tx:
        await tx.set_messages(game_id, shown_version=stored.version)
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
    server: Any, bot: Any, database: Path, count: int, *, finished: int = 0
) -> World:
    """``count`` groups with a game each standing mid-round (created through the service, in a
    fresh database), every player's private chat opened; then ``finished`` more groups whose
    games are over."""
    from storage import SqliteStorage

    groups, users = [], []
    for g in range(count + finished):
        members = [server.create_user(f"P{g}-{k}") for k in range(PLAYERS)]
        groups.append(server.create_group(f"Table {g}", members=members, admins=members[:1]))
        users.append(members)
        for user in members:
            user.open_private(bot)
    storage = SqliteStorage(database, synchronous="NORMAL")
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
    database: Path,
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


async def stop_bot(process: Any) -> None:
    import asyncio
    import signal

    if process.poll() is None:
        process.send_signal(signal.SIGINT)
        for _ in range(200):
            if process.poll() is not None:
                break
            await asyncio.sleep(0.05)
        else:
            process.kill()
    process.wait()
