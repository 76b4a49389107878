"""The Mini App under load: the real bot process (``python -m bot``) with its Mini App served on a
free port, against the local Bot API server (flood limits off, the bot paced as deployed), with
``--tables`` groups of 4 players playing classic36 and ``--pages`` open event streams (one per
player; ``--pages`` is spread evenly over the tables).

Set-up goes through the chats as people would: every player opens the private chat (/start), the
first one types ``/newgame classic36`` in the group, the others ``/join``, the first ``/deal``.
From then on everything is played through the Mini App's ``api/act``: the person on turn (read
from the page's state, ``game.turn``, else the first one offered an action) asks for the state
(``api/state``) and presses one of the ``actions`` it offers: the smallest bank or stake, one
hit and then stand, the next round when the round is over. Presses are paced open-loop at
``--rate`` per second over all tables (a press takes the next free slot).

The pages read their streams (``api/events``) with aiohttp. For every ``event: state`` whose
``game.version`` is new for that stream the latency is ``receive time − saved_at`` (the bot's
clock when the version was saved: the same machine's clock).

The drive runs twice for ``--seconds``: with the pages open, then with them closed (after an
unmeasured ``--warmup`` drive, so that both measured runs find the bot warm). The bot's CPU per
pushed state is (CPU with pages − CPU without, scaled to the same number of actions) / states
the pages received. The bot's RSS is read before the pages open and once they are all open and
idle: the difference over the pages is the memory of one open page.

``--profile FILE`` runs the bot under cProfile (benchmarks/_run_bot.py) and writes its statistics
to FILE when the bot stops (cProfile's overhead inflates every CPU figure: compare shares only).
Run: .venv/bin/python benchmarks/bench_miniapp.py [--tables 50 --pages 200 --seconds 20 --rate 50]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import signal
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote

import aiohttp
import orjson

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._common import (
    TOKEN,
    cpu_seconds,
    first_poll,
    free_port,
    launch_bot,
    listening,
    machine,
    machine_cpu_seconds,
    memory_kb,
    percentile,
    stop_bot,
    watch_polls,
)
from localbotapi import BotApiServer
from localbotapi.webapp import init_data

SEATS = 4
PRESET = "classic36"
TARGET_P99_MS = 300.0
SETUP_SECONDS = 120.0  # the whole set-up (private chats, lobbies, joins, deals) must fit in this
REQUEST_TIMEOUT = 30.0


@dataclass
class Table:
    group: Any  # localbotapi.Chat
    users: list[Any]  # localbotapi.FakeUser
    auth: dict[int, str]  # user id -> initData
    game_id: int = 0
    turn: int | None = None  # who the last state said is on turn
    hit: set[tuple[int, int]] = field(default_factory=set)  # (round, player) who drew already


@dataclass
class Drive:
    """One drive phase's counts."""

    actions: int = 0  # presses answered 200
    refused: int = 0  # 409: refused (stale, out of turn…)
    errors: int = 0  # any other answer, or no answer
    stalls: int = 0  # a table where nobody was offered a move we make
    reads: int = 0  # api/state requests


class Pages:
    """The open event streams and what they received."""

    def __init__(self) -> None:
        self.tasks: list[asyncio.Task[None]] = []
        self.opened = 0  # streams that received their first state
        self.errors = 0
        self.recording = False
        self.events = 0  # state events received while recording
        self.latencies: list[float] = []  # seconds, for each version new to its stream


class Bench:
    def __init__(self, args: argparse.Namespace, server: BotApiServer, port: int) -> None:
        self.args = args
        self.server = server
        self.app = f"http://127.0.0.1:{port}/app/"
        self.tables: list[Table] = []
        self.pages = Pages()
        self.next_slot = 0.0
        self.session: aiohttp.ClientSession | None = None

    # ---------------------------------------------------------------- requests

    @property
    def http(self) -> aiohttp.ClientSession:
        assert self.session is not None
        return self.session

    async def state(self, table: Table, user_id: int) -> tuple[int, dict[str, Any] | None]:
        url = f"{self.app}api/state?chat={table.group.id}"
        headers = {"Authorization": f"tma {table.auth[user_id]}"}
        async with self.http.get(url, headers=headers) as response:
            body = await response.read()
            return response.status, orjson.loads(body) if response.status == 200 else None

    async def act(self, table: Table, user_id: int, action: dict[str, Any]) -> tuple[int, Any]:
        body = {
            "game": table.game_id,
            "version": action["version"],
            "act": action["act"],
            "amount": action["amount"],
        }
        headers = {"Authorization": f"tma {table.auth[user_id]}"}
        url = f"{self.app}api/act"
        async with self.http.post(url, data=orjson.dumps(body), headers=headers) as response:
            answer = await response.read()
            return response.status, orjson.loads(answer) if answer else None

    # ---------------------------------------------------------------- set-up through the chats

    async def game_of(
        self, table: Table, user_id: int, until: Callable[[dict[str, Any]], bool]
    ) -> dict[str, Any]:
        """The table's game as ``user_id`` sees it, once there is one and it passes ``until``."""
        deadline = time.monotonic() + SETUP_SECONDS
        while time.monotonic() < deadline:
            _, state = await self.state(table, user_id)
            game = state.get("game") if state is not None else None
            if game is not None and until(game):
                return dict(game)
            await asyncio.sleep(0.1)
        raise TimeoutError(f"table {table.group.title}: never reached the awaited state")

    async def set_up(self, table: Table, bot: Any) -> None:
        creator, *others = table.users
        for user in table.users:
            sent = await user.send_private(bot, "/start")
            await user.private_chat(bot).wait_for(lambda _: True, after=sent, timeout=30)
        await creator.send(table.group, f"/newgame {PRESET}")
        lobby = await self.game_of(table, creator.id, lambda g: g["phase"] == "lobby")
        table.game_id = int(lobby["id"])
        for user in others:
            await user.send(table.group, "/join")
        await self.game_of(table, creator.id, lambda g: len(g["seats"]) == SEATS)
        await creator.send(table.group, "/deal")
        game = await self.game_of(table, creator.id, lambda g: g["phase"] != "lobby")
        table.turn = (game.get("turn") or {}).get("id")

    # ---------------------------------------------------------------- the pages

    async def follow(self, table: Table, user_id: int) -> None:
        pages = self.pages
        auth = quote(table.auth[user_id], safe="")
        url = f"{self.app}api/events?chat={table.group.id}&auth={auth}"
        last = 0
        first = True
        try:
            async with self.http.get(url) as response:
                if response.status != 200:
                    pages.errors += 1
                    return
                event = b""
                async for line in response.content:
                    if line.startswith(b"data: ") and event == b"state":
                        received = time.time()
                        state = orjson.loads(line[6:])
                        game = state.get("game") or {}
                        version = int(game.get("version") or 0)
                        if first:
                            first = False
                            pages.opened += 1
                        elif pages.recording:
                            pages.events += 1
                            if version > last:
                                pages.latencies.append(received - float(state["saved_at"]))
                        last = max(last, version)
                    elif line.startswith(b"event: "):
                        event = line[7:].strip()
                    elif line in (b"\n", b"\r\n"):
                        event = b""
        except (aiohttp.ClientError, TimeoutError, ValueError):
            pages.errors += 1

    async def open_pages(self) -> None:
        count = self.args.pages
        for index in range(count):
            table = self.tables[index % len(self.tables)]
            user = table.users[(index // len(self.tables)) % SEATS]
            self.pages.tasks.append(asyncio.create_task(self.follow(table, user.id)))
        for _ in range(600):  # 30 s at most
            if self.pages.opened + self.pages.errors >= count:
                break
            await asyncio.sleep(0.05)
        if self.pages.opened < count:
            raise RuntimeError(f"only {self.pages.opened} of {count} pages opened")

    async def close_pages(self) -> None:
        for task in self.pages.tasks:
            task.cancel()
        await asyncio.gather(*self.pages.tasks, return_exceptions=True)
        self.pages.tasks.clear()

    # ---------------------------------------------------------------- play

    async def slot(self, rate: float) -> None:
        now = time.monotonic()
        slot = max(self.next_slot, now)
        self.next_slot = slot + 1.0 / rate
        if slot > now:
            await asyncio.sleep(slot - now)

    @staticmethod
    def choose(table: Table, user_id: int, game: dict[str, Any]) -> dict[str, Any] | None:
        """What this person presses of what the page offers: the smallest bank or stake, one
        hit then stand, the next round."""
        offered: dict[str, list[dict[str, Any]]] = {}
        for action in game.get("actions") or ():
            offered.setdefault(action["act"], []).append(action)
        for act in ("bank", "bet"):
            if act in offered:
                return min(offered[act], key=lambda a: a["amount"] or 0)
        drew = (int(game.get("round") or 0), user_id)
        if "hit" in offered and drew not in table.hit:
            table.hit.add(drew)
            return offered["hit"][0]
        if "stand" in offered:
            return offered["stand"][0]
        if "next" in offered:
            return offered["next"][0]
        return None

    async def move(self, table: Table, drive: Drive) -> tuple[int, dict[str, Any]] | None:
        """The next press at this table: the person on turn first, then everyone else."""
        order = [u.id for u in table.users]
        if table.turn in order:
            order.remove(table.turn)
            order.insert(0, table.turn)
        for user_id in order:
            drive.reads += 1
            status, state = await self.state(table, user_id)
            if status != 200 or state is None:
                drive.errors += 1
                continue
            game = state.get("game") or {}
            table.turn = (game.get("turn") or {}).get("id", table.turn)
            action = self.choose(table, user_id, game)
            if action is not None:
                return user_id, action
        return None

    async def play(self, table: Table, drive: Drive, rate: float, until: float) -> None:
        while time.monotonic() < until:
            try:
                found = await self.move(table, drive)
                if found is None:
                    drive.stalls += 1
                    await asyncio.sleep(0.2)
                    continue
                await self.slot(rate)
                if time.monotonic() >= until:
                    return
                user_id, action = found
                status, answer = await self.act(table, user_id, action)
            except (aiohttp.ClientError, TimeoutError, ValueError):
                drive.errors += 1
                continue
            if status == 200:
                drive.actions += 1
            elif status == 409:
                drive.refused += 1
            else:
                drive.errors += 1
            state = answer.get("state") if isinstance(answer, dict) else None
            game = (state or {}).get("game") or {}
            turn = game.get("turn")
            table.turn = turn.get("id") if turn else None

    async def drive(self, seconds: float) -> Drive:
        drive = Drive()
        self.next_slot = 0.0
        until = time.monotonic() + seconds
        await asyncio.gather(*(self.play(t, drive, self.args.rate, until) for t in self.tables))
        return drive


@dataclass(frozen=True, slots=True)
class Measured:
    """One measured drive: its counts, the bot's and this process's CPU seconds, the rest of
    the machine's, and how long it took."""

    drive: Drive
    bot_cpu: float
    harness_cpu: float
    others: float
    elapsed: float


async def measured(bench: Bench, pid: int) -> Measured:
    before = cpu_seconds(pid), cpu_seconds(), machine_cpu_seconds(), time.monotonic()
    drive = await bench.drive(bench.args.seconds)
    bot = cpu_seconds(pid) - before[0]
    harness = cpu_seconds() - before[1]
    others = machine_cpu_seconds() - before[2] - bot - harness
    return Measured(drive, bot, harness, others, time.monotonic() - before[3])


async def run(args: argparse.Namespace) -> str:
    server = BotApiServer(flood_limits=False)
    await server.start()
    bot = server.add_bot(TOKEN, username="ochko_bench_bot")
    port = free_port()
    process: Any = None
    with tempfile.TemporaryDirectory(dir=args.dir) as folder:
        log_path = Path(folder) / "bot.log"
        bench = Bench(args, server, port)
        connector = aiohttp.TCPConnector(limit=0)
        timeout = aiohttp.ClientTimeout(total=None, sock_connect=REQUEST_TIMEOUT)
        bench.session = aiohttp.ClientSession(connector=connector, timeout=timeout)
        try:
            for g in range(args.tables):
                users = [server.create_user(f"P{g}-{k}") for k in range(SEATS)]
                group = server.create_group(f"Table {g}", members=users, admins=users[:1])
                auth = {u.id: init_data(TOKEN, u, start_param=f"c{group.id}") for u in users}
                bench.tables.append(Table(group, users, auth))
            polls = watch_polls(server)
            process, launched = launch_bot(
                server.base_url,
                Path(folder) / "bench.sqlite3",
                log_path,
                profile=args.profile,
                webapp_url=f"http://127.0.0.1:{port}/app/",
                webapp_port=port,
                webapp_short_name="table",
                webapp_telegram_js=server.web_app_js_url,
            )
            await first_poll(polls, launched, process)
            while not await listening(port):
                if process.poll() is not None:
                    raise RuntimeError(f"the bot exited with {process.returncode}")
                await asyncio.sleep(0.05)
            started = time.monotonic()
            await asyncio.gather(*(bench.set_up(t, bot) for t in bench.tables))
            setup = time.monotonic() - started
            await bench.drive(args.warmup)  # not measured: the bot warms up
            await asyncio.sleep(2.0)
            rss_before = memory_kb(process.pid)["VmRSS"]
            if args.pages:
                await bench.open_pages()
            await asyncio.sleep(3.0)  # open and idle
            rss_open = memory_kb(process.pid)["VmRSS"]
            bench.pages.recording = True
            with_pages = await measured(bench, process.pid)
            bench.pages.recording = False
            page_errors = bench.pages.errors
            await bench.close_pages()
            await asyncio.sleep(2.0)
            without = await measured(bench, process.pid)
        except BaseException:
            if log_path.exists():
                sys.stderr.write(log_path.read_text(errors="replace")[-4000:])
            raise
        finally:
            await bench.close_pages()
            await bench.session.close()
            if process is not None:
                await stop_bot(process, signal.SIGTERM)  # as a service manager stops it
            await server.stop()
    return report(args, bench.pages, setup, rss_before, rss_open, with_pages, without, page_errors)


def report(
    args: argparse.Namespace,
    pages: Pages,
    setup: float,
    rss_before: int,
    rss_open: int,
    with_pages: Measured,
    without: Measured,
    page_errors: int,
) -> str:
    ms = [x * 1000 for x in pages.latencies]
    p50, p95, p99 = (percentile(ms, q) for q in (0.5, 0.95, 0.99))
    a, b = with_pages.drive, without.drive
    # The bot's CPU without pages, scaled to the actions done with them.
    baseline = without.bot_cpu * a.actions / max(b.actions, 1)
    per_state = (with_pages.bot_cpu - baseline) / max(pages.events, 1) * 1000
    per_page = (rss_open - rss_before) / max(args.pages, 1)
    verdict = "meets" if p99 <= TARGET_P99_MS else "misses"

    def phase(name: str, m: Measured) -> str:
        d = m.drive
        return (
            f"  {name}: actions={d.actions} ({d.actions / m.elapsed:.1f}/s) refused={d.refused} "
            f"errors={d.errors} stalls={d.stalls} state_reads={d.reads} "
            f"bot_cpu={m.bot_cpu:.2f} s ({m.bot_cpu / m.elapsed:.0%}, "
            f"{m.bot_cpu / max(d.actions, 1) * 1000:.2f} ms/action) "
            f"harness={m.harness_cpu / m.elapsed:.0%} others={m.others / m.elapsed:.0%}"
        )

    return "\n".join(
        [
            f"miniapp tables={args.tables} pages={args.pages} rate={args.rate:.0f}/s "
            f"seconds={args.seconds:.0f} warmup={args.warmup:.0f} preset={PRESET} "
            f"seats={SEATS} (set-up {setup:.1f} s; {machine()})",
            f"commit→page: p50={p50:.1f} ms p95={p95:.1f} ms p99={p99:.1f} ms "
            f"max={max(ms, default=0):.1f} ms samples={len(ms)} "
            f"[target p99 ≤{TARGET_P99_MS:.0f} ms: {verdict}]",
            f"pushed states received={pages.events} "
            f"({pages.events / max(a.actions, 1):.2f}/action, "
            f"{len(ms)} new versions) page_errors={page_errors}",
            f"cpu per pushed state={per_state:.3f} ms "
            f"(bot {with_pages.bot_cpu:.2f} s with pages − {baseline:.2f} s without, "
            f"scaled from {without.bot_cpu:.2f} s for {b.actions} actions)",
            f"memory per open page={per_page:.1f} KiB "
            f"(bot RSS {rss_before / 1024:.1f} MB → {rss_open / 1024:.1f} MB with "
            f"{args.pages} pages open and idle)",
            phase("with pages   ", with_pages),
            phase("without pages", without),
            f"actions={a.actions + b.actions} errors={a.errors + b.errors + page_errors} "
            f"refused={a.refused + b.refused}",
        ]
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=50, help="groups playing, 4 players each")
    parser.add_argument("--pages", type=int, default=200, help="open event streams")
    parser.add_argument("--seconds", type=float, default=20.0, help="each measured drive")
    parser.add_argument("--rate", type=float, default=50.0, help="presses/s over all tables")
    parser.add_argument("--warmup", type=float, default=5.0, help="an unmeasured drive first")
    parser.add_argument("--dir", type=Path, default=Path.cwd(), help="where the database goes")
    parser.add_argument("--profile", type=Path, help="write the bot's cProfile stats here")
    args = parser.parse_args()
    if args.tables < 1 or args.pages < 0 or args.rate <= 0 or args.seconds <= 0:
        parser.error("--tables ≥ 1, --pages ≥ 0, --rate > 0 and --seconds > 0")
    with contextlib.suppress(KeyboardInterrupt):
        print(asyncio.run(run(args)))


if __name__ == "__main__":
    main()
