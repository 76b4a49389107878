"""End-to-end fixtures: the local Bot API server, the REAL bot as a subprocess, and automatic
players that read the game from the bot's database (read-only) and act through the server as
people would — by pressing buttons or typing commands.

    async def test_something(e2e: E2E) -> None:
        group, users = e2e.group_with_players("Table", 3)      # users open the private chat
        await e2e.start_bot()
        table = Table(e2e, group, users, preset="classic36")
        await table.open_and_start()
        log = await table.play_round()

Flood limits are ON (Telegram's numbers): the bot must live within them.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from bot import render
from bot.callbacks import Act, GameButton, parse_game
from localbotapi.methods_messages import QUERY_TOO_OLD
from localbotapi.models import CallbackAnswer, Chat, FakeBot, FakeUser, Message, RequestRecord
from localbotapi.server import BotApiServer
from rules.cards import Card
from rules.game import Game
from rules.table import HandStatus, Phase

ROOT = Path(__file__).absolute().parents[2]  # not resolve(): keep a symlinked tree
TOKEN = "123456:E2E_token-abcdefghijklmnopqrst"  # "123456:" + 30 characters
assert len(TOKEN) == len("123456:") + 30
BOT_USERNAME = "ochko_e2e_bot"
STARTING_BALANCE = 1000
TURN_TIMEOUT = 120  # nobody is timed out unless a test wants it
START_TIMEOUT = 30.0
STOP_TIMEOUT = 5.0
# A reaction may wait for a paced group slot: the bot sends at most 18 messages+edits to a group
# in any rolling minute, so a busy group's next edit can be most of a minute away.
ACTION_TIMEOUT = 70.0
# Everything bot.settings.Settings reads: the parent's environment must not leak into the bot.
SETTINGS_VARIABLES = frozenset(
    {
        "BOT_TOKEN",
        "BOT_API_BASE_URL",
        "DATABASE_URL",
        "SQLITE_SYNCHRONOUS",
        "TURN_TIMEOUT",
        "LOBBY_TIMEOUT",
        "STARTING_BALANCE",
        "MAX_GAMES_PER_USER",
        "LOG_LEVEL",
        "DEFAULT_LANGUAGE",
        "TABLE_EDIT_GAP",
        "WEBHOOK_URL",
        "WEBHOOK_SECRET",
        "WEBHOOK_LISTEN",
        "WEBHOOK_PORT",
        "WEBAPP_URL",
        "WEBAPP_SHORT_NAME",
        "WEBAPP_LISTEN",
        "WEBAPP_PORT",
        "WEBAPP_AUTH_MAX_AGE",
        "WEBAPP_TELEGRAM_JS",
    }
)
NATO = ("Alfa", "Bravo", "Charlie", "Delta", "Echo", "Foxtrot")
ROUND_OVER = (Phase.ROUND_OVER, Phase.ENDED)
IN_ROUND = (Phase.BANK, Phase.STAKE, Phase.DRAW, Phase.BANKER)
TEXT_METHODS = ("sendmessage", "editmessagetext")


def card_symbol(code: str) -> str:
    """What a person sees for a card code: ``10H`` → ``10♥``, jokers → ``★``."""
    return render.card(Card.parse(code))


# ------------------------------------------------------------------------------ the process


class BotProcess:
    """`python -m bot` against the local server; output goes to `log_path`."""

    def __init__(
        self, env: dict[str, str], log_path: Path, cwd: Path, prefix: tuple[str, ...] = ()
    ) -> None:
        self.env = env
        self.log_path = log_path
        self.cwd = cwd
        self.prefix = prefix  # a command the bot runs under (e.g. a read-only mount namespace)
        self.proc: subprocess.Popen[bytes] | None = None

    def spawn(self) -> subprocess.Popen[bytes]:
        with self.log_path.open("ab") as out:
            self.proc = subprocess.Popen(
                [*self.prefix, sys.executable, "-m", "bot"],
                env=self.env,
                cwd=self.cwd,
                stdout=out,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
            )
        return self.proc

    @property
    def running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def log(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    async def wait_exit(self, timeout: float) -> int | None:
        """The exit code, or None if still running after `timeout` seconds."""
        assert self.proc is not None
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            code = self.proc.poll()
            if code is not None:
                return code
            await asyncio.sleep(0.05)
        return self.proc.poll()

    async def terminate(self, timeout: float = STOP_TIMEOUT) -> tuple[int | None, float]:
        """SIGTERM; (exit code or None if it had to be killed, seconds it took)."""
        assert self.proc is not None
        started = time.monotonic()
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        code = await self.wait_exit(timeout)
        took = time.monotonic() - started
        if code is None:
            self.proc.kill()
            self.proc.wait(5)
        return code, took

    def kill(self) -> None:
        """SIGKILL: a crash, no shutdown code runs."""
        assert self.proc is not None
        self.proc.kill()
        self.proc.wait(5)


# ------------------------------------------------------------------------------ the database


@dataclass
class GameRow:
    game_id: int
    chat_id: int
    version: int
    status: str
    state: dict[str, Any]
    bank: int
    table_message_id: int | None
    hand_messages: dict[int, int]

    @property
    def engine(self) -> dict[str, Any]:
        engine: dict[str, Any] = self.state["engine"]
        return engine

    @property
    def meta(self) -> dict[str, Any]:
        meta: dict[str, Any] = self.state["meta"]
        return meta

    @property
    def game(self) -> Game:
        return Game.from_dict(self.engine)

    @property
    def phase(self) -> Phase:
        return Phase(self.engine["phase"])

    @property
    def turn(self) -> int | None:
        turn: int | None = self.engine["turn"]
        return turn

    @property
    def round_no(self) -> int:
        return int(self.engine["round_no"])


class Database:
    """Read-only looks into the bot's SQLite file (WAL: readers never block the bot)."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def query(self, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        if not self.path.exists():
            return []
        conn = sqlite3.connect(f"file:{self.path}?mode=ro", uri=True, timeout=5)
        try:
            return conn.execute(sql, params).fetchall()
        finally:
            conn.close()

    def game(self, chat_id: int) -> GameRow | None:
        """The chat's newest game."""
        rows = self.query(
            "SELECT games.game_id, chat_id, version, status, state, bank, table_message_id, "
            "coalesce(hand_messages, '{}') FROM games "
            "LEFT JOIN screens ON screens.game_id = games.game_id "
            "WHERE chat_id = ? ORDER BY games.game_id DESC LIMIT 1",
            (chat_id,),
        )
        if not rows:
            return None
        gid, chat, version, status, state, bank, table_id, hands = rows[0]
        return GameRow(
            gid,
            chat,
            version,
            status,
            json.loads(state),
            bank,
            table_id,
            {int(k): v for k, v in json.loads(hands).items()},
        )

    def version(self, chat_id: int) -> tuple[int, int] | None:
        """(game id, version) of the chat's newest game: a cheap poll (no JSON in Python)."""
        rows = self.query(
            "SELECT game_id, version FROM games WHERE chat_id = ? ORDER BY game_id DESC LIMIT 1",
            (chat_id,),
        )
        return (int(rows[0][0]), int(rows[0][1])) if rows else None

    def publishing(self, chat_id: int) -> tuple[int, int, int | None, str] | None:
        """(game id, results not yet posted, table message id, status) of the chat's newest
        game."""
        rows = self.query(
            "SELECT games.game_id, (SELECT count(*) FROM json_each(state, '$.meta.outbox') "
            "WHERE json_extract(value, '$.seq') > coalesce(screens.posted_seq, 0)), "
            "table_message_id, status FROM games "
            "LEFT JOIN screens ON screens.game_id = games.game_id "
            "WHERE chat_id = ? ORDER BY games.game_id DESC LIMIT 1",
            (chat_id,),
        )
        return (int(rows[0][0]), int(rows[0][1]), rows[0][2], str(rows[0][3])) if rows else None

    def balances(self, chat_id: int) -> dict[int, int]:
        rows = self.query("SELECT user_id, balance FROM players WHERE chat_id = ?", (chat_id,))
        return {int(u): int(b) for u, b in rows}

    def open_banks(self, chat_id: int) -> int:
        rows = self.query(
            "SELECT coalesce(sum(bank), 0) FROM games WHERE chat_id = ? AND status != 'finished'",
            (chat_id,),
        )
        return int(rows[0][0])

    def ledger_check(self, chat_id: int) -> tuple[int, int, int, int]:
        """(chips granted, chips issued by daily refills, sum of balances, open banks) — the
        first two add up to the other two."""
        granted, issued = (
            self.query(
                f"SELECT coalesce(sum(CASE WHEN source_kind = '{kind}' THEN amount ELSE 0 END), 0)"
                f" - coalesce(sum(CASE WHEN target_kind = '{kind}' THEN amount ELSE 0 END), 0) "
                "FROM ledger WHERE chat_id = ?",
                (chat_id,),
            )[0][0]
            for kind in ("grant", "issue")
        )
        return (
            int(granted),
            int(issued),
            sum(self.balances(chat_id).values()),
            self.open_banks(chat_id),
        )

    def ledger_balances(self, chat_id: int) -> dict[int, int]:
        """Each player's balance as the ledger's movements add up."""
        totals: dict[int, int] = {}
        for source_kind, source, target_kind, target, amount in self.query(
            "SELECT source_kind, source_id, target_kind, target_id, amount FROM ledger "
            "WHERE chat_id = ?",
            (chat_id,),
        ):
            if source_kind == "player":
                totals[source] = totals.get(source, 0) - amount
            if target_kind == "player":
                totals[target] = totals.get(target, 0) + amount
        return totals

    def user_private_opened(self, user_id: int) -> bool:
        rows = self.query("SELECT private_opened FROM users WHERE user_id = ?", (user_id,))
        return bool(rows and rows[0][0])


# ------------------------------------------------------------------------------ the world


class E2E:
    """One test's world: the server, the bot account, the bot process(es), helpers."""

    def __init__(self, server: BotApiServer, tmp_path: Path) -> None:
        self.server = server
        self.tmp_path = tmp_path
        self.bot: FakeBot = server.add_bot(TOKEN, username=BOT_USERNAME)
        self.db_path = tmp_path / "e2e.sqlite3"
        self.db = Database(self.db_path)
        self.log_path = tmp_path / "bot.log"
        self.processes: list[BotProcess] = []
        # When a bot process was spawned or killed (monotonic): a press one answered before
        # may come again after it (`assert_within_limits`).
        self.started: list[float] = []
        self._group_no = 0

    # ------------------------------------------------------------------ people and chats

    def group_with_players(
        self, title: str, count: int, *, names: tuple[str, ...] = NATO
    ) -> tuple[Chat, list[FakeUser]]:
        """A supergroup with `count` fresh users (the first is its admin)."""
        self._group_no += 1
        users = [
            self.server.create_user(
                f"{names[i]} {self._group_no}", username=f"u{self._group_no}_{i}"
            )
            for i in range(count)
        ]
        group = self.server.create_group(title, members=users, admins=users[:1])
        return group, users

    async def open_private(self, users: list[FakeUser]) -> None:
        """Each user sends "/start" privately (the bot must be running to see it)."""
        for user in users:
            await user.send_private(self.bot, "/start")
        for user in users:
            await self.wait_until(
                lambda u=user: self.db.user_private_opened(u.id),
                f"{user.first_name}'s private chat to be recorded as opened",
            )

    # ------------------------------------------------------------------ the bot process

    def bot_env(self, **overrides: str | None) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if k.upper() not in SETTINGS_VARIABLES}
        env.update(
            OCHKO_NO_VENV="1",
            PYTHONPATH=str(ROOT),
            PYTHONUNBUFFERED="1",
            BOT_TOKEN=TOKEN,
            BOT_API_BASE_URL=self.server.base_url,
            DATABASE_URL=f"sqlite:///{self.db_path}",
            TURN_TIMEOUT=str(TURN_TIMEOUT),
            STARTING_BALANCE=str(STARTING_BALANCE),
            LOG_LEVEL="INFO",
        )
        for key, value in overrides.items():
            if value is None:
                env.pop(key, None)
            else:
                env[key] = value
        return env

    def spawn(self, *, prefix: tuple[str, ...] = (), **overrides: str | None) -> BotProcess:
        """Start `python -m bot` (under `prefix`) without waiting for anything."""
        process = BotProcess(self.bot_env(**overrides), self.log_path, self.tmp_path, prefix)
        self.started.append(time.monotonic())
        process.spawn()
        self.processes.append(process)
        return process

    async def start_bot(
        self, *, prefix: tuple[str, ...] = (), **overrides: str | None
    ) -> BotProcess:
        """Start the bot and wait until it long-polls the server."""
        generation = self.bot.poll_generation
        process = self.spawn(prefix=prefix, **overrides)
        deadline = time.monotonic() + START_TIMEOUT
        while self.bot.poll_generation == generation:
            if not process.running:
                pytest.fail(f"the bot exited at start-up:\n{process.log()[-3000:]}")
            if time.monotonic() > deadline:
                pytest.fail(f"the bot did not poll within {START_TIMEOUT}s:\n{process.log()}")
            await asyncio.sleep(0.05)
        return process

    async def stop_all(self) -> None:
        """SIGTERM every running bot; each must exit cleanly within STOP_TIMEOUT."""
        problems = []
        for process in self.processes:
            if not process.running:
                continue
            code, _took = await process.terminate()
            if code is None:
                problems.append(f"the bot did not stop within {STOP_TIMEOUT}s of SIGTERM")
            elif code != 0:
                problems.append(f"the bot exited with {code} after SIGTERM")
        log = self.log()
        if TOKEN in log or TOKEN.split(":", 1)[1] in log:
            problems.append("the bot token appears in the bot's log output")
        if problems:
            pytest.fail("; ".join(problems) + f"\n--- bot log (tail) ---\n{log[-3000:]}")

    def log(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    # ------------------------------------------------------------------ waiting and checks

    async def wait_until(
        self, predicate: Callable[[], Any], what: str, timeout: float = ACTION_TIMEOUT
    ) -> Any:
        """Poll `predicate` (which may read the database) until it returns something truthy."""
        deadline = time.monotonic() + timeout
        while True:
            value = predicate()
            if value:
                return value
            if time.monotonic() > deadline:
                raise AssertionError(
                    f"timed out after {timeout}s waiting for {what}\n"
                    f"--- bot log (tail) ---\n{self.log()[-2500:]}"
                )
            await asyncio.sleep(0.05)

    def assert_within_limits(self) -> None:
        """Zero 429s, zero parse errors, nothing sent inside a retry_after window, no request
        refused — but one: a press that a killed process answered before its batch was
        confirmed comes again to the next process (or another replica), and answering it again
        is refused as Telegram refuses it."""
        flood = self.server.flood
        refused = [r for r in self.server.requests if r.status == 429]
        assert flood.too_many_requests == 0, (refused, self._history(refused))
        assert flood.inside_retry_after == 0
        assert self.server.parse_errors == []
        unexpected = [
            r
            for r in self.server.errors
            if r.method.lower() not in ("getupdates",)
            and "message is not modified" not in (r.description or "")
            and not self._answered_before_a_restart(r)
            and not self._answered_before_a_redelivery(r)
        ]
        assert unexpected == [], (unexpected, self._history(unexpected))

    def _history(self, refused: list[RequestRecord]) -> list[str]:
        """For a failure's message: every request about the same press or chat as a refused
        one, with its time, and the times processes started or were killed."""
        keys = {(r.params.get("callback_query_id"), r.chat_id) for r in refused}
        queries = {query for query, _ in keys if query}
        chats = {chat for _, chat in keys if chat is not None}
        lines = [f"starts/kills at {[round(t, 2) for t in self.started]}"]
        lines += [
            f"{a.time:.2f} webhook POST of update {a.update.get('update_id')} failed: {a.error}"
            for a in self.bot.webhook_attempts
            if a.error is not None
        ][-20:]
        for r in self.server.requests:
            if r.params.get("callback_query_id") in queries or r.chat_id in chats:
                lines.append(f"{r.time:.2f} {r.method} {r.status} {r.params}")
        return lines[-40:]

    def _answered_before_a_restart(self, refused: RequestRecord) -> bool:
        again = QUERY_TOO_OLD in (refused.description or "")
        if refused.method != "answerCallbackQuery" or not again:
            return False
        query = refused.params.get("callback_query_id")
        return any(
            r.method == "answerCallbackQuery"
            and r.ok
            and r.params.get("callback_query_id") == query
            and r.time < start <= refused.time
            for r in self.server.requests
            for start in self.started
        )

    def _answered_before_a_redelivery(self, refused: RequestRecord) -> bool:
        """A press answered, whose update the webhook then posted again after a failed POST
        (a timeout, a 5xx): Telegram does the same, the first POST may have been handled, and
        the second answer is refused as Telegram refuses it."""
        if refused.method != "answerCallbackQuery" or QUERY_TOO_OLD not in (
            refused.description or ""
        ):
            return False
        query = refused.params.get("callback_query_id")
        posts = [
            a
            for a in self.bot.webhook_attempts
            if a.update.get("callback_query", {}).get("id") == query and a.time < refused.time
        ]
        answered = any(
            r.method == "answerCallbackQuery"
            and r.ok
            and r.params.get("callback_query_id") == query
            for r in self.server.requests
        )
        return answered and len(posts) > 1 and posts[0].error is not None

    def unrecorded_edits_repeated(self) -> list[RequestRecord]:
        """Edits refused as "not modified" that are not a restart repeating an edit the killed
        process made but never recorded: Telegram applied it, the process died before noting
        what the message shows, and the next process could only ask again."""
        return [
            r
            for r in self.server.errors
            if "not modified" in (r.description or "") and not self._landed_before_a_restart(r)
        ]

    def _landed_before_a_restart(self, refused: RequestRecord) -> bool:
        message = (refused.chat_id, refused.params.get("message_id"))
        writes = [
            r
            for r in self.server.requests
            if r.ok
            and r.time < refused.time
            and r.method in ("sendMessage", "editMessageText", "editMessageReplyMarkup")
            and (r.chat_id, r.params.get("message_id") or _sent_id(r)) == message
        ]
        if not writes:
            return False
        last = writes[-1].time
        return any(
            last < start < last + CRASH_WINDOW and start <= refused.time for start in self.started
        )

    def assert_chips_conserved(self, chat_id: int, players: int) -> None:
        balances = self.db.balances(chat_id)
        banks = self.db.open_banks(chat_id)
        # Chips issued to broke players by the daily refill come in beside the starting grants.
        granted, issued, total, open_banks = self.db.ledger_check(chat_id)
        assert granted == players * STARTING_BALANCE, granted
        assert sum(balances.values()) + banks == granted + issued, (balances, banks, issued)
        assert granted + issued == total + open_banks
        assert self.db.ledger_balances(chat_id) == balances

    def group_text_requests(self, chat_id: int) -> list[RequestRecord]:
        return [
            r
            for r in self.server.requests
            if r.ok and r.chat_id == chat_id and r.method.lower() in TEXT_METHODS
        ]


@pytest.fixture
async def e2e(tmp_path: Path) -> AsyncIterator[E2E]:
    async with BotApiServer() as server:
        world = E2E(server, tmp_path)
        try:
            yield world
        finally:
            await world.stop_all()


# ------------------------------------------------------------------------------ players


def game_buttons(message: Message) -> list[GameButton]:
    buttons = []
    for _text, data in message.flat_buttons:
        parsed = parse_game(data)
        if parsed is not None:
            buttons.append(parsed)
    return buttons


@dataclass
class RoundLog:
    """What happened in one round, as the tests check it."""

    round_no: int
    started: float  # monotonic time the action that opened the round was pushed
    settled_at: float  # monotonic time the action that settled it was pushed
    final: GameRow  # the state right after the round settled (everything revealed)
    table_message_id: int | None = None
    result: Message | None = None
    actions: int = 0
    requests: int = 0  # requests the bot made to this table's chats during the round
    group_writes: int = 0  # group sends + edits during the round
    secrecy_checked: int = 0  # group texts checked for hidden cards
    hidden_cards: int = 0


@dataclass
class Table:
    """One group's game, played by automatic players.

    `by_buttons` players press buttons (in their private chat's turn message when they have
    one, else in the group; found by callback data), the others type commands. Decisions come
    from the engine state in the database.
    """

    e2e: E2E
    group: Chat
    users: list[FakeUser]
    preset: str | None = None
    by_buttons: set[int] = field(default_factory=set)
    rounds: list[RoundLog] = field(default_factory=list)
    versions: list[int] = field(default_factory=list)
    dark_used: bool = False
    pace: float = 0.0  # seconds a player thinks before each action (0: as fast as possible)
    # A press the bot does not answer within answer_timeout is pressed again, up to `presses`
    # times in all (a process that dies may take a received press with it, as people see it).
    presses: int = 1
    answer_timeout: float = ACTION_TIMEOUT
    unanswered: int = 0

    def __post_init__(self) -> None:
        if not self.by_buttons:
            # Alternate: the first player presses buttons, the second types, …
            self.by_buttons = {u.id for i, u in enumerate(self.users) if i % 2 == 0}
        self._by_id = {u.id: u for u in self.users}
        self._round_started = time.monotonic()
        self._pressed: dict[int, tuple[int, Act]] = {}  # user -> (version, act) last pressed

    # ------------------------------------------------------------------ state

    def row(self) -> GameRow:
        row = self.e2e.db.game(self.group.id)
        assert row is not None, "no game in the database"
        if self.versions and row.game_id == self._game_id:
            assert row.version >= self.versions[-1], "the game's version went backwards"
        self._game_id = row.game_id
        self.versions.append(row.version)
        return row

    _game_id: int = 0

    @property
    def game_id(self) -> int:
        return self._game_id

    def user(self, user_id: int) -> FakeUser:
        return self._by_id[user_id]

    # ------------------------------------------------------------------ acting

    async def command(self, user: FakeUser, text: str, *, expect_change: bool = True) -> GameRow:
        """Type a command in the group; wait until the game's version moves."""
        before = self.row()
        last = self.group.last_message
        await user.send(self.group, text)
        if not expect_change:
            return before
        return await self._wait_version(before, f"{text!r} by {user.first_name}", after=last)

    async def press(
        self,
        user: FakeUser,
        act: Act,
        amount: int | None = None,
        *,
        choose: Callable[[list[GameButton]], GameButton] | None = None,
    ) -> tuple[GameRow, CallbackAnswer]:
        """Press the current button for `act` where the player sees it: the newest turn message
        in their private chat when they have one, else the group's table (waiting until it
        shows the button)."""
        before = self.row()
        since = int(before.meta["turn_since"])
        last = self._pressed.get(user.id)
        chats = [self.group]
        if self.e2e.db.user_private_opened(user.id):
            chats.insert(0, user.private_chat(self.e2e.bot))

        def fresh(b: GameButton) -> bool:
            # A keyboard already pressed for this act is spent (a repeat changes nothing).
            return last is None or last[1] is not b.act or b.version > last[0]

        def find() -> tuple[Message, GameButton] | None:
            for chat in chats:
                for message in reversed(chat.messages):
                    if not message.from_bot:
                        continue
                    candidates = [
                        b
                        for b in game_buttons(message)
                        if b.game_id == before.game_id
                        and b.act is act
                        and since <= b.version
                        and fresh(b)
                        and (amount is None or b.amount == amount)
                    ]
                    if candidates:
                        pick = choose(candidates) if choose else candidates[0]
                        return message, pick
            return None

        message, button = await self.e2e.server.wait_for(
            find, ACTION_TIMEOUT, description=f"a current {act.value!r} button in the group"
        )
        self._pressed[user.id] = (button.version, button.act)
        for attempt in range(self.presses):
            again = find() if attempt else None
            if again is not None:
                # A person taps what the screen shows now: the keyboard may have been drawn
                # again meanwhile (a replica taking the chat over, the turn clock starting).
                message, button = again
                self._pressed[user.id] = (button.version, button.act)
            if button.encode() in (data for _, data in message.flat_buttons):
                query = await user.press(message, data=button.encode())
            else:  # the tap raced the redraw: the client sends what it showed
                query, _ = self.e2e.server.forge_press(self.e2e.bot, user, message, button.encode())
            final = attempt == self.presses - 1
            try:
                answer = await query.wait(ACTION_TIMEOUT if final else self.answer_timeout)
                break
            except TimeoutError:
                if final:
                    raise
                # Nothing happened: a person taps again (the bot's answer means "applied").
                self.unanswered += 1
        assert not answer.show_alert, f"{user.first_name} pressed {button}: {answer.text}"
        after = await self._wait_version(before, f"{button} by {user.first_name}")
        return after, answer

    async def _wait_version(
        self, before: GameRow, what: str, *, after: Message | None = None
    ) -> GameRow:
        after_id = after.message_id if after is not None else 0

        def moved() -> bool:
            now = self.e2e.db.version(self.group.id)
            return now is not None and (now[0] != before.game_id or now[1] > before.version)

        try:
            await self.e2e.wait_until(moved, f"{what} to change the game")
        except AssertionError as error:
            recent = [m.content for m in self.group.messages if m.message_id > after_id][-3:]
            raise AssertionError(
                f"{self.group.title}: {error}\nlast group messages: {recent}"
            ) from None
        return self.row()

    async def act(self, user: FakeUser, act: Act, amount: int | None = None) -> GameRow:
        """Do `act` as `user`, by button or by command depending on the player."""
        if self.pace:
            await asyncio.sleep(self.pace)
        if user.id in self.by_buttons:
            choose = None
            if amount is not None and act in (Act.BANK, Act.BET):
                # The quick amounts on the keyboard: take a small one (the second smallest).
                def choose(cands: list[GameButton]) -> GameButton:
                    ranked = sorted(cands, key=lambda b: b.amount or 0)
                    return ranked[min(1, len(ranked) - 1)]

                row, _ = await self.press(user, act, None, choose=choose)
                return row
            row, _ = await self.press(user, act, amount, choose=choose)
            return row
        text = {
            Act.JOIN: "/join",
            Act.START: "/deal",
            Act.BANK: f"/bank {amount}",
            Act.BET: f"/bet {amount}",
            Act.HIT: "/hit",
            Act.STAND: "/stand",
            Act.DARK: "/dark",
            Act.PASS: "/pass",
            Act.NEXT: "/next",
            Act.LEAVE: "/leave",
        }[act]
        return await self.command(user, text)

    # ------------------------------------------------------------------ the session

    async def open_and_start(self) -> GameRow:
        """The first user opens a lobby, the others join, the first deals."""
        creator = self.users[0]
        text = f"/newgame {self.preset}" if self.preset else "/newgame"
        await creator.send(self.group, text)
        await self.e2e.wait_until(lambda: self.e2e.db.game(self.group.id), "the lobby")
        for user in self.users[1:]:
            if user.id in self.by_buttons:
                _, answer = await self.press(user, Act.JOIN)
                assert answer.url is None or "start=g" in answer.url
            else:
                await self.command(user, "/join")
        seated = self.row().game.players
        assert seated == [u.id for u in self.users], seated
        self._round_started = time.monotonic()
        return await self.act(creator, Act.START)

    def decide(self, row: GameRow) -> tuple[FakeUser, Act, int | None]:
        """Whose turn it is and what they do."""
        game = row.game
        legal = game.legal_actions()
        assert legal.actor is not None, legal
        user = self.user(legal.actor)
        if legal.phase is Phase.BANK:
            return user, Act.BANK, max(1, legal.maximum // 4)
        if legal.phase is Phase.STAKE:
            return user, Act.BET, max(legal.minimum, min(legal.maximum, legal.maximum // 10))
        value = game.hand_value(legal.actor)
        if (
            "dark" in legal.actions
            and not self.dark_used
            and user.id not in self.by_buttons
            and 12 <= value.total <= 16
        ):
            self.dark_used = True
            return user, Act.DARK, None
        if "hit" in legal.actions and value.total < 17:
            return user, Act.HIT, None
        return user, Act.STAND, None

    async def play_round(self, *, check: bool = True) -> RoundLog:
        """Play until the round is settled; then wait for its result and (with `check`) verify
        the result, the balances, the private hands and the group's secrecy."""
        started = self._round_started
        row = self.row()
        actions = 0
        settled_at = time.monotonic()
        while row.phase in IN_ROUND:
            user, act, amount = self.decide(row)
            settled_at = time.monotonic()
            row = await self.act(user, act, amount)
            actions += 1
            assert actions < 60, "the round does not end"
        assert row.phase in ROUND_OVER, row.phase
        log = RoundLog(row.round_no, started, settled_at, row, actions=actions)
        await self.wait_result(log)
        chats = {self.group.id, *(u.id for u in self.users)}
        log.requests = len(
            [r for r in self.e2e.server.requests if r.time >= started and r.chat_id in chats]
        )
        log.group_writes = len(
            [r for r in self.e2e.group_text_requests(self.group.id) if r.time >= started]
        ) + len(
            [
                r
                for r in self.e2e.server.calls("editMessageReplyMarkup")
                if r.chat_id == self.group.id and r.time >= started
            ]
        )
        self.rounds.append(log)
        if check:
            await self.check_round(log)
        return log

    async def wait_result(self, log: RoundLog) -> None:
        """Wait until the result (and the table) of the settled round are in the group."""
        max_id_before = max(
            (
                int(r.result["message_id"])
                for r in self.e2e.group_text_requests(self.group.id)
                if r.method.lower() == "sendmessage" and r.time < log.settled_at
            ),
            default=0,
        )

        def posted() -> GameRow | None:
            now = self.e2e.db.publishing(self.group.id)
            if now is None or now[0] != log.final.game_id or now[1]:
                return None
            if now[2] is None and now[3] != "finished":
                return None
            return self.row()

        row = await self.e2e.wait_until(
            posted, f"the result of round {log.round_no} in {self.group.title!r}"
        )
        log.table_message_id = row.table_message_id
        candidates = [
            m
            for m in self.group.messages
            if m.from_bot and m.message_id > max_id_before and m.message_id != row.table_message_id
        ]
        assert candidates, f"no result message for round {log.round_no}"
        log.result = candidates[0]

    async def check_round(self, log: RoundLog) -> None:
        await self.check_private_hands(log)
        self.check_result_balances(log)
        self.check_group_secrecy(log)
        self.e2e.assert_chips_conserved(self.group.id, len(self.users))

    async def check_private_hands(self, log: RoundLog) -> None:
        """Every player (with the private chat open) got their cards privately."""
        game = log.final.game
        for player, hand in game.hands.items():
            if not hand.cards or not self.e2e.db.user_private_opened(player):
                continue
            symbols = [card_symbol(c.code) for c in hand.cards]
            chat = self.user(player).private_chat(self.e2e.bot)

            def shown(chat: Chat = chat, symbols: list[str] = symbols) -> bool:
                return any(
                    all(s in text for s in symbols)
                    for m in chat.messages
                    if m.from_bot
                    for text in m.texts
                )

            await self.e2e.wait_until(
                shown, f"{self.user(player).first_name}'s cards {symbols} in the private chat"
            )

    def check_result_balances(self, log: RoundLog) -> None:
        """The result message's balances are the database's (the banker's, before a returned
        bank went back to them)."""
        assert log.result is not None
        game = log.final.game
        balances = self.e2e.db.balances(self.group.id)
        lines = log.result.content.splitlines()
        shown: dict[int, int] = {}
        for user in self.users:
            if not game.is_seated(user.id):
                continue
            mine = [line for line in lines if user.first_name in line]
            assert mine, f"{user.first_name} is missing from the result:\n{log.result.content}"
            # Amounts are written per locale: «1 050» (a no-break space groups thousands).
            line = mine[-1].replace(user.first_name, "").replace("\u00a0", "")
            numbers = re.findall(r"\d+", line)
            assert numbers, mine[-1]
            shown[user.id] = int(numbers[-1])
        round_banker = next(p for p in game.hands if p not in game.order)
        settled_bank = len(self.users) * STARTING_BALANCE - sum(shown.values())
        for player, amount in shown.items():
            expected = balances[player]
            if player == round_banker:
                expected -= settled_bank - log.final.bank
            assert amount == expected, (
                f"round {log.round_no}: the result shows {amount} for "
                f"{self.user(player).first_name}, the database {balances[player]}\n"
                f"{log.result.content}"
            )

    def check_group_secrecy(self, log: RoundLog) -> None:
        """No card that was hidden until the showdown appears in any group text the bot sent
        for this round before the settling action was made."""
        game = log.final.game
        public: set[str] = set()
        secret: dict[str, int] = {}
        for player, hand in game.hands.items():
            revealed_early = player != self._round_banker(game) and hand.status in (
                HandStatus.BUST,
                HandStatus.WON,
            )
            for card, up in zip(hand.cards, hand.face_up, strict=True):
                symbol = card_symbol(card.code)
                if up or revealed_early:
                    public.add(symbol)
                else:
                    secret[symbol] = player
        bottom = log.final.engine.get("bottom")
        if bottom:
            public.add(card_symbol(bottom))
        # Both jokers are drawn as ★: whose is whose cannot be told from the texts.
        hidden = {s: p for s, p in secret.items() if s not in public and s != render.JOKER}
        log.hidden_cards = len(hidden)
        first_id = log.table_message_id or 0
        for record in self.e2e.group_text_requests(self.group.id):
            if record.time >= log.settled_at or record.time < log.started:
                continue
            message_id = int(
                record.params.get("message_id") or record.result.get("message_id") or 0
            )
            if message_id < first_id:
                continue
            text = record.result.get("text", "")
            log.secrecy_checked += 1
            leaked = [s for s in hidden if s in text]
            assert not leaked, (
                f"round {log.round_no}: hidden card(s) {leaked} of "
                f"{[self.user(hidden[s]).first_name for s in leaked]} in the group before the "
                f"showdown:\n{text}"
            )

    @staticmethod
    def _round_banker(game: Game) -> int | None:
        for player in game.hands:
            if player not in game.order:
                return player
        return game.banker

    async def next_round(self, user: FakeUser | None = None) -> GameRow:
        user = user or self.users[0]
        self._round_started = time.monotonic()
        return await self.act(user, Act.NEXT)

    async def play_session(self, rounds: int) -> list[RoundLog]:
        """Play up to `rounds` rounds (fewer if the session ends by itself)."""
        await self.open_and_start()
        logs: list[RoundLog] = []
        for index in range(rounds):
            logs.append(await self.play_round())
            row = self.row()
            if row.phase is Phase.ENDED or index == rounds - 1:
                break
            await self.next_round(self.users[index % len(self.users)])
        return logs


CRASH_WINDOW = 0.5
"""Seconds between Telegram applying a write and the kill within which the dead process may
not have noted it: the test kills right after an action, so longer means a restart re-sent
what it knew was shown."""


def _sent_id(record: RequestRecord) -> object:
    """The id of the message a successful send made."""
    return record.result.get("message_id") if isinstance(record.result, dict) else None


async def stop_checked(process: BotProcess) -> tuple[int | None, float]:
    """SIGTERM and report; used by tests that look at the exit itself."""
    with contextlib.suppress(ProcessLookupError):
        return await process.terminate()
    return process.proc.poll() if process.proc else None, 0.0
