"""The SQLite backend: one aiosqlite connection per process, transactions serialized by a lock."""

from __future__ import annotations

import asyncio
import enum
import json
import os
import sqlite3
import time
from abc import abstractmethod
from collections import OrderedDict
from collections.abc import (
    AsyncIterator,
    Awaitable,
    Callable,
    Collection,
    Iterable,
    Mapping,
    Sequence,
)
from contextlib import AbstractAsyncContextManager, asynccontextmanager, suppress
from typing import Any, Final, Generic, Literal, TypeVar, cast

import aiosqlite

from storage.errors import (
    CorruptDatabase,
    DatabaseTooNew,
    GameExists,
    GameNotFound,
    InsufficientFunds,
    StorageError,
    TransactionClosed,
    UnknownAccount,
    VersionConflict,
)
from storage.interface import Reads, Storage, Transaction
from storage.migrations import MIGRATIONS, Migration, migrate, schema_version
from storage.models import (
    GAME_STATUSES,
    UNSET,
    Account,
    ChatSettings,
    GameStatus,
    LeaderboardRow,
    LedgerCheck,
    Player,
    PlayerStats,
    Refill,
    StatsDelta,
    StoredGame,
    Transfer,
    Unset,
    User,
)

SYNCHRONOUS_MODES: Final = frozenset({"FULL", "NORMAL", "EXTRA"})
BUSY_TIMEOUT_MS: Final = 5000
# Entries of each read cache (chat settings, users): a few MB at most.
CACHE_SIZE: Final = 50_000
# Group commit: a batch of transaction blocks is committed once no other transaction waits for
# the connection, or at the latest when it holds this many blocks or is this old (seconds).
BATCH_MAX_BLOCKS: Final = 64
BATCH_MAX_AGE: Final = 0.020
# The name of every block's savepoint (savepoints nest; each block opens and ends its own).
_SAVEPOINT: Final = "block"

Row = Sequence[Any]
Params = Sequence[Any] | Mapping[str, Any]

_GAME_COLUMNS = (
    "game_id, chat_id, thread_id, status, state, version, bank, deadline, table_message_id, "
    "hand_messages, creator_id, created_at, updated_at, posted_seq"
)


# One encoder for every write: json.dumps() with arguments builds a new JSONEncoder per call.
_ENCODER: Final = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))
_dumps: Final = _ENCODER.encode

_INSERT_LEDGER: Final = (
    "INSERT INTO ledger (chat_id, game_id, round_no, source_kind, source_id, "
    "target_kind, target_id, amount, reason, source_after, target_after, created_at) "
    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)
_UPDATE_BALANCE: Final = "UPDATE players SET balance = ? WHERE chat_id = ? AND user_id = ?"
_UPDATE_BANK: Final = "UPDATE games SET bank = ? WHERE game_id = ?"
# The banks of chat ?1's unfinished games by their banker (read from the engine's state).
_HELD_BANKS: Final = (
    "SELECT json_extract(state, '$.engine.banker') AS user_id, sum(bank) AS bank FROM games "
    "WHERE chat_id = ?1 AND status != 'finished' AND bank > 0 GROUP BY 1"
)
# How statistics are merged into a row: every field added, biggest_win the maximum.
_MERGE_STATS: Final = (
    "rounds = rounds + excluded.rounds, wins = wins + excluded.wins, "
    "losses = losses + excluded.losses, pushes = pushes + excluded.pushes, "
    "twentyones = twentyones + excluded.twentyones, "
    "golden_points = golden_points + excluded.golden_points, "
    "busts = busts + excluded.busts, net = net + excluded.net, "
    "biggest_win = max(biggest_win, excluded.biggest_win)"
)
_UPSERT_STATS: Final = (
    "INSERT INTO stats (chat_id, user_id, rounds, wins, losses, pushes, twentyones, "
    "golden_points, busts, net, biggest_win) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
    "ON CONFLICT (chat_id, user_id) DO UPDATE SET " + _MERGE_STATS
)
_INSERT_STAT_EVENT: Final = (
    "INSERT INTO stat_events (chat_id, user_id, created_at, rounds, wins, net) "
    "VALUES (?, ?, ?, ?, ?, ?)"
)

# Kinds of the rows of the balance query of apply_transfers.
_PLAYER, _BANK, _LEDGER_GAME = 0, 1, 2


def _balances_sql(players: int, banks: int, ledger_game: bool) -> str:
    """One SELECT for every account a batch touches (and the ledger rows' game, if any)."""
    parts = []
    if players:
        parts.append(
            f"SELECT {_PLAYER}, user_id, balance FROM players "
            f"WHERE chat_id = ? AND user_id IN ({', '.join('?' * players)})"
        )
    if banks:
        parts.append(
            f"SELECT {_BANK}, game_id, bank FROM games "
            f"WHERE chat_id = ? AND game_id IN ({', '.join('?' * banks)})"
        )
    if ledger_game:
        parts.append(f"SELECT {_LEDGER_GAME}, game_id, 0 FROM games WHERE game_id = ?")
    return " UNION ALL ".join(parts)


def _game_from_row(row: Row) -> StoredGame:
    return StoredGame(
        game_id=row[0],
        chat_id=row[1],
        thread_id=row[2],
        status=row[3],
        state=json.loads(row[4]),
        version=row[5],
        bank=row[6],
        deadline=row[7],
        table_message_id=row[8],
        # JSON object keys are strings; user ids are ints everywhere else.
        hand_messages={int(k): int(v) for k, v in json.loads(row[9]).items()},
        creator_id=row[10],
        created_at=row[11],
        updated_at=row[12],
        posted_seq=row[13],
    )


def _check_status(status: str) -> GameStatus:
    if status not in GAME_STATUSES:
        raise ValueError(f"unknown game status {status!r}")
    return cast(GameStatus, status)


K = TypeVar("K")
V = TypeVar("V")
T = TypeVar("T")


class _Miss(enum.Enum):
    """What a cache lookup returns for a key it does not hold (None is a cacheable value)."""

    MISS = enum.auto()


MISS: Final = _Miss.MISS


class _Lru(Generic[K, V]):
    """A bounded mapping that forgets the least recently used entry first."""

    def __init__(self, size: int) -> None:
        self._size = size
        self._data: OrderedDict[K, V] = OrderedDict()

    def __len__(self) -> int:
        return len(self._data)

    def get(self, key: K) -> V | Literal[_Miss.MISS]:
        value = self._data.get(key, MISS)
        if value is not MISS:
            self._data.move_to_end(key)
        return value

    def put(self, key: K, value: V) -> None:
        if self._size <= 0:
            return
        self._data[key] = value
        self._data.move_to_end(key)
        if len(self._data) > self._size:
            self._data.popitem(last=False)

    def pop(self, key: K) -> None:
        self._data.pop(key, None)

    def clear(self) -> None:
        self._data.clear()


class _Writes:
    """The chats and users a transaction wrote: not to be read from, nor put into, the caches
    until it is over, and to be forgotten by them again then."""

    __slots__ = ("chats", "users")

    def __init__(self) -> None:
        self.chats: set[int] = set()
        self.users: set[int] = set()


class _Caches:
    """In-memory copies of committed chat settings and users, owned by one SqliteStorage.

    Valid only because every change of these rows goes through that storage object (one bot
    process owns a database): a transaction that writes a row evicts it at the write and once
    more when it is over, and a value read inside a transaction is cached only if that
    transaction has not written the row, so a value nobody committed is never cached.
    """

    def __init__(self, size: int) -> None:
        self.chats: _Lru[int, ChatSettings] = _Lru(size)
        self.users: _Lru[int, User | None] = _Lru(size)

    def clear(self) -> None:
        self.chats.clear()
        self.users.clear()

    def forget(self, writes: _Writes) -> None:
        for chat_id in writes.chats:
            self.chats.pop(chat_id)
        for user_id in writes.users:
            self.users.pop(user_id)


class _Batch:
    """Transaction blocks run one after another in one SQLite transaction, committed together.

    The first block runs directly in the BEGIN IMMEDIATE transaction (alone in it, it is undone
    by ROLLBACK); every later one in a savepoint of its own, undone by ROLLBACK TO.
    """

    __slots__ = ("blocks", "done", "savepoint", "started", "writes")

    def __init__(self, done: asyncio.Future[None]) -> None:
        self.done = done  # its result once COMMITted; the error if the batch failed
        self.started = time.monotonic()
        self.blocks = 0
        # The last block's savepoint is still open: its RELEASE is deferred to the next
        # block's first statement, or left to COMMIT.
        self.savepoint = False
        self.writes = _Writes()  # chats and users written by any block: not cacheable yet

    def fail(self, error: BaseException) -> None:
        if not self.done.done():
            self.done.set_exception(error)
            self.done.exception()  # retrieved: blocks that are waiting raise it, or nobody does

    def succeed(self) -> None:
        if not self.done.done():
            self.done.set_result(None)


async def _pipeline(*statements: Awaitable[object]) -> list[object]:
    """Run statements back to back on the connection's thread, then await them all.

    aiosqlite executes its queue in order, so the statements run in the order given, as if
    awaited one by one, but the thread goes from one to the next without waiting for the
    event loop. The first error is raised once all of them are done.
    """
    results = await asyncio.gather(*statements, return_exceptions=True)
    for result in results:
        if isinstance(result, BaseException):
            raise result
    return results


async def _uninterrupted(awaitable: Awaitable[T]) -> T:
    """Await to the end even if this task is cancelled meanwhile; then raise the cancellation.

    aiosqlite runs a statement on its thread whether or not anybody still awaits it, so the
    bookkeeping of a batch (is a savepoint open, did the COMMIT happen) runs in the awaited
    coroutine, which must not be cut short.
    """
    future = asyncio.ensure_future(awaitable)
    cancelled = False
    while not future.done():
        try:
            await asyncio.wait((future,))
        except asyncio.CancelledError:
            cancelled = True
    if cancelled:
        if not future.cancelled():
            future.exception()  # the outcome is in the bookkeeping; the caller is cancelled
        raise asyncio.CancelledError
    return future.result()


def _private(settings: ChatSettings) -> ChatSettings:
    """The cached settings with a dict of overrides of its own, which the caller may change."""
    if not settings.overrides:
        return settings
    return ChatSettings(
        settings.chat_id,
        settings.language,
        settings.preset,
        dict(settings.overrides),
        settings.turn_timeout,
        settings.house_banker,
        settings.daily_refill,
    )


class _SqliteReads(Reads):
    """Single-statement reads, shared by the storage object and its transactions.

    Each read is one statement, so it sees one consistent snapshot even without a transaction.
    """

    # The language of a chat that never saved its settings (the bot's DEFAULT_LANGUAGE).
    _default_language: str = "ru"

    @abstractmethod
    async def _rows(self, sql: str, params: Params = ()) -> list[Row]:
        """All rows of one statement (the storage object takes its lock, a transaction not)."""

    async def _row(self, sql: str, params: Params = ()) -> Row | None:
        rows = await self._rows(sql, params)
        return rows[0] if rows else None

    async def _fetch_chat(self, chat_id: int) -> ChatSettings:
        """The chat's settings from the database (get_chat adds the cache)."""
        row = await self._row(
            "SELECT language, preset, overrides, turn_timeout, house_banker, daily_refill "
            "FROM chats WHERE chat_id = ?",
            (chat_id,),
        )
        if row is None:
            return ChatSettings(chat_id, language=self._default_language)
        return ChatSettings(
            chat_id=chat_id,
            language=row[0],
            preset=row[1],
            overrides=json.loads(row[2]),
            turn_timeout=row[3],
            house_banker=bool(row[4]),
            daily_refill=bool(row[5]),
        )

    async def _fetch_user(self, user_id: int) -> User | None:
        """The user from the database (get_user adds the cache)."""
        row = await self._row(
            "SELECT name, language, private_opened, client_language FROM users WHERE user_id = ?",
            (user_id,),
        )
        if row is None:
            return None
        return User(user_id, row[0], row[1], bool(row[2]), row[3])

    async def get_player(self, chat_id: int, user_id: int) -> Player | None:
        row = await self._row(
            "SELECT name, balance FROM players WHERE chat_id = ? AND user_id = ?",
            (chat_id, user_id),
        )
        if row is None:
            return None
        return Player(chat_id, user_id, row[0], row[1])

    async def player_chats(self, user_id: int) -> list[Player]:
        rows = await self._rows(
            "SELECT chat_id, name, balance FROM players WHERE user_id = ? "
            "ORDER BY balance DESC, chat_id",
            (user_id,),
        )
        return [Player(row[0], user_id, row[1], row[2]) for row in rows]

    async def seated_games(self, user_id: int) -> list[int]:
        rows = await self._rows(
            "SELECT seats.game_id FROM seats JOIN games ON games.game_id = seats.game_id "
            "WHERE seats.user_id = ? AND games.status != 'finished' ORDER BY seats.game_id",
            (user_id,),
        )
        return [row[0] for row in rows]

    async def archived_log(self, game_id: int) -> list[dict[str, Any]]:
        rows = await self._rows(
            "SELECT entry FROM game_log WHERE game_id = ? ORDER BY seq", (game_id,)
        )
        return [json.loads(row[0]) for row in rows]

    async def shown_digest(self, chat_id: int, message_id: int) -> str | None:
        row = await self._row(
            "SELECT digest FROM shown_messages WHERE chat_id = ? AND message_id = ?",
            (chat_id, message_id),
        )
        return None if row is None else str(row[0])

    async def last_refill(self, chat_id: int, user_id: int) -> float | None:
        row = await self._row(
            "SELECT max(created_at) FROM ledger WHERE chat_id = ? AND source_kind = 'issue' "
            "AND target_id = ?",
            (chat_id, user_id),
        )
        return None if row is None or row[0] is None else float(row[0])

    async def load_game(self, game_id: int) -> StoredGame | None:
        row = await self._row(f"SELECT {_GAME_COLUMNS} FROM games WHERE game_id = ?", (game_id,))
        return None if row is None else _game_from_row(row)

    async def load_active_game(self, chat_id: int, thread_id: int) -> StoredGame | None:
        # The condition matches the partial unique index games_open_by_thread exactly.
        row = await self._row(
            f"SELECT {_GAME_COLUMNS} FROM games "
            "WHERE chat_id = ? AND thread_id = ? AND status != 'finished'",
            (chat_id, thread_id),
        )
        return None if row is None else _game_from_row(row)

    async def is_processed(self, update_id: int) -> bool:
        row = await self._row("SELECT 1 FROM processed_updates WHERE update_id = ?", (update_id,))
        return row is not None


class SqliteTransaction(_SqliteReads, Transaction):
    def __init__(
        self,
        conn: aiosqlite.Connection,
        clock: Callable[[], float],
        caches: _Caches,
        batch: _Batch,
        default_language: str = "ru",
    ) -> None:
        self._conn: aiosqlite.Connection | None = conn
        self._default_language = default_language
        self._clock = clock
        self._caches = caches
        # Rows written by this block or an earlier one of its batch: read from the database,
        # never cached, until the batch is over.
        self._writes = batch.writes
        self._batch = batch
        self._first = batch.blocks == 1  # alone in the SQLite transaction: no savepoint
        # A later block opens its savepoint with its first statement, in the same round trip.
        self._savepoint_pending = not self._first
        self._savepoint = False  # this block's savepoint is open
        # A savepoint statement failed: this block's writes cannot be undone apart from the
        # batch's, which can then only be rolled back whole.
        self._broken: BaseException | None = None

    def _close(self) -> None:
        self._conn = None

    def _live(self) -> aiosqlite.Connection:
        if self._conn is None:
            raise TransactionClosed("the transaction is over; open a new one")
        return self._conn

    async def _with_savepoint(self, statements: Sequence[Awaitable[object]]) -> list[object]:
        """The statements, preceded by the block's SAVEPOINT (and the RELEASE of the previous
        block's) in one pipeline; the results of the statements, or the first error."""
        conn = self._live()
        self._savepoint_pending = False
        prologue = [conn.execute(f"SAVEPOINT {_SAVEPOINT}")]
        if self._batch.savepoint:
            prologue.insert(0, conn.execute(f"RELEASE {_SAVEPOINT}"))
        results = await asyncio.gather(*prologue, *statements, return_exceptions=True)
        for result in results[: len(prologue)]:
            if isinstance(result, BaseException):
                self._broken = result
                raise result
        self._batch.savepoint = False
        self._savepoint = True
        for result in results[len(prologue) :]:
            if isinstance(result, BaseException):
                raise result
        return results[len(prologue) :]

    async def _run(self, statement: Awaitable[T]) -> T:
        """One statement of the block (the first one opens the block's savepoint)."""
        if not self._savepoint_pending:
            return await statement
        results = await _uninterrupted(self._with_savepoint([statement]))
        return cast(T, results[0])

    async def _pipeline(self, *statements: Awaitable[object]) -> None:
        """Write statements in one pipeline (see the module's _pipeline)."""
        if self._savepoint_pending:
            await _uninterrupted(self._with_savepoint(statements))
        else:
            await _pipeline(*statements)

    async def _rows(self, sql: str, params: Params = ()) -> list[Row]:
        return list(await self._run(self._live().execute_fetchall(sql, params)))

    async def get_chat(self, chat_id: int) -> ChatSettings:
        if chat_id in self._writes.chats:
            return await self._fetch_chat(chat_id)
        cached = self._caches.chats.get(chat_id)
        if cached is not MISS:
            self._live()
            return _private(cached)
        settings = await self._fetch_chat(chat_id)
        self._caches.chats.put(chat_id, settings)
        return _private(settings)

    async def get_user(self, user_id: int) -> User | None:
        if user_id in self._writes.users:
            return await self._fetch_user(user_id)
        cached = self._caches.users.get(user_id)
        if cached is not MISS:
            self._live()
            return cached
        user = await self._fetch_user(user_id)
        self._caches.users.put(user_id, user)
        return user

    async def _execute(self, sql: str, params: Params = ()) -> int:
        cursor = await self._run(self._live().execute(sql, params))
        return cursor.rowcount

    async def _executemany(self, sql: str, params: Iterable[Params]) -> None:
        await self._run(self._live().executemany(sql, params))

    async def claim_update(self, update_id: int) -> bool:
        inserted = await self._execute(
            "INSERT INTO processed_updates (update_id, processed_at) VALUES (?, ?) "
            "ON CONFLICT (update_id) DO NOTHING",
            (update_id, self._clock()),
        )
        return inserted == 1

    async def prune_processed(self, before: float) -> int:
        return await self._execute(
            "DELETE FROM processed_updates WHERE processed_at < ?", (before,)
        )

    async def create_game(
        self,
        chat_id: int,
        thread_id: int,
        creator_id: int,
        state: dict[str, Any],
        status: GameStatus = "lobby",
    ) -> StoredGame:
        _check_status(status)
        now = self._clock()
        text = _dumps(state)
        try:
            rows = await self._rows(
                "INSERT INTO games (chat_id, thread_id, status, state, version, creator_id, "
                "created_at, updated_at) VALUES (?, ?, ?, ?, 1, ?, ?, ?) RETURNING game_id",
                (chat_id, thread_id, status, text, creator_id, now, now),
            )
        except sqlite3.IntegrityError as error:
            raise GameExists(chat_id, thread_id) from error
        return StoredGame(
            game_id=rows[0][0],
            chat_id=chat_id,
            thread_id=thread_id,
            status=status,
            state=json.loads(text),  # a private copy: the caller may keep mutating its dict
            version=1,
            bank=0,
            deadline=None,
            table_message_id=None,
            hand_messages={},
            creator_id=creator_id,
            created_at=now,
            updated_at=now,
            posted_seq=0,
        )

    async def save_game(
        self,
        game_id: int,
        *,
        expected_version: int,
        state: dict[str, Any],
        status: GameStatus,
        deadline: float | None,
    ) -> int:
        _check_status(status)
        try:
            rows = await self._rows(
                "UPDATE games SET state = ?, status = ?, deadline = ?, version = version + 1, "
                "updated_at = ? WHERE game_id = ? AND version = ? RETURNING version",
                (_dumps(state), status, deadline, self._clock(), game_id, expected_version),
            )
        except sqlite3.IntegrityError as error:
            # Only reopening a finished game can hit the one-open-game-per-thread index.
            place = await self._row(
                "SELECT chat_id, thread_id FROM games WHERE game_id = ?", (game_id,)
            )
            assert place is not None
            raise GameExists(place[0], place[1]) from error
        if rows:
            return int(rows[0][0])
        current = await self._row("SELECT version FROM games WHERE game_id = ?", (game_id,))
        if current is None:
            raise GameNotFound(game_id)
        raise VersionConflict(game_id, expected_version, current[0])

    async def set_messages(
        self,
        game_id: int,
        *,
        table_message_id: int | Unset | None = UNSET,
        hand_messages: Mapping[int, int] | Unset | None = UNSET,
        shown_version: int | Unset = UNSET,
        posted_seq: int | Unset = UNSET,
    ) -> None:
        assignments: list[str] = []
        params: list[object] = []
        if not isinstance(table_message_id, Unset):
            assignments.append("table_message_id = ?")
            params.append(table_message_id)
        if not isinstance(hand_messages, Unset):
            assignments.append("hand_messages = ?")
            params.append(_dumps({str(k): v for k, v in (hand_messages or {}).items()}))
        if not isinstance(shown_version, Unset):
            assignments.append("shown_version = ?")
            params.append(shown_version)
        if not isinstance(posted_seq, Unset):
            # Only ever grows: a late write of an older progress must not re-post results.
            assignments.append("posted_seq = max(posted_seq, ?)")
            params.append(posted_seq)
        if not assignments:
            return
        changed = await self._execute(
            f"UPDATE games SET {', '.join(assignments)} WHERE game_id = ?", (*params, game_id)
        )
        if changed == 0:
            raise GameNotFound(game_id)

    async def start_clock(self, game_id: int, version: int, deadline: float) -> bool:
        # No version bump and no updated_at: delivering a prompt changes nothing of the game.
        changed = await self._execute(
            "UPDATE games SET deadline = ? WHERE game_id = ? AND version = ? "
            "AND status != 'finished' AND deadline IS NULL",
            (deadline, game_id, version),
        )
        return changed == 1

    async def archive_log(
        self, game_id: int, start: int, entries: Sequence[Mapping[str, Any]]
    ) -> None:
        if not entries:
            return
        row = await self._row(
            "SELECT count(*), coalesce(max(seq) + 1, 0) FROM game_log WHERE game_id = ?",
            (game_id,),
        )
        assert row is not None
        if not row[0] == row[1] == start:
            raise StorageError(
                f"game {game_id}: the log archive holds {row[0]} entries, not {start}"
            )
        try:
            await self._executemany(
                "INSERT INTO game_log (game_id, seq, entry) VALUES (?, ?, ?)",
                [(game_id, start + n, _dumps(entry)) for n, entry in enumerate(entries)],
            )
        except sqlite3.IntegrityError as error:
            raise GameNotFound(game_id) from error

    async def set_seats(self, game_id: int, user_ids: Collection[int]) -> None:
        await self._execute("DELETE FROM seats WHERE game_id = ?", (game_id,))
        if user_ids:
            await self._executemany(
                "INSERT INTO seats (game_id, user_id) VALUES (?, ?)",
                [(game_id, user_id) for user_id in sorted(set(user_ids))],
            )

    async def ensure_player(
        self, chat_id: int, user_id: int, name: str, starting_balance: int
    ) -> Player:
        row = await self._row(
            "SELECT name, balance FROM players WHERE chat_id = ? AND user_id = ?",
            (chat_id, user_id),
        )
        if row is not None:
            if row[0] != name:
                await self._execute(
                    "UPDATE players SET name = ? WHERE chat_id = ? AND user_id = ?",
                    (name, chat_id, user_id),
                )
            return Player(chat_id, user_id, name, row[1])
        if starting_balance < 0:
            raise ValueError(f"a starting balance cannot be negative, got {starting_balance}")
        now = self._clock()
        await self._execute(
            "INSERT INTO players (chat_id, user_id, name, balance, created_at) "
            "VALUES (?, ?, ?, ?, ?)",
            (chat_id, user_id, name, starting_balance, now),
        )
        if starting_balance > 0:
            # Every chip in a balance comes from a ledger row: this is what check_ledger sums.
            await self._execute(
                "INSERT INTO ledger (chat_id, game_id, round_no, source_kind, source_id, "
                "target_kind, target_id, amount, reason, source_after, target_after, created_at) "
                "VALUES (?, NULL, NULL, 'grant', 0, 'player', ?, ?, 'starting balance', "
                "NULL, ?, ?)",
                (chat_id, user_id, starting_balance, starting_balance, now),
            )
        return Player(chat_id, user_id, name, starting_balance)

    async def refill(self, chat_id: int, user_id: int, up_to: int, *, period: float) -> Refill:
        if up_to < 0 or not period > 0:
            raise ValueError(f"a refill needs up_to >= 0 and period > 0, got {up_to}, {period}")
        row = await self._row(
            "SELECT balance, (SELECT max(created_at) FROM ledger WHERE chat_id = ?1 "
            "AND source_kind = 'issue' AND target_id = ?2) "
            "FROM players WHERE chat_id = ?1 AND user_id = ?2",
            (chat_id, user_id),
        )
        if row is None:
            raise UnknownAccount(chat_id, Account.player(user_id))
        balance, last = int(row[0]), row[1]
        now = self._clock()
        next_at = None if last is None else last + period
        if balance >= up_to or (next_at is not None and now < next_at):
            return Refill(0, balance, next_at)
        amount = up_to - balance
        row_ = (chat_id, None, None, "issue", 0, "player", user_id, amount, "daily refill")
        await self._execute(_INSERT_LEDGER, (*row_, None, up_to, now))
        await self._execute(_UPDATE_BALANCE, (up_to, chat_id, user_id))
        return Refill(amount, up_to, now + period)

    async def upsert_user(
        self,
        user_id: int,
        name: str,
        *,
        language: str | Unset | None = UNSET,
        private_opened: bool | Unset = UNSET,
        client_language: str | Unset | None = UNSET,
    ) -> User:
        old = await self.get_user(user_id)
        user = User(
            user_id=user_id,
            name=name,
            language=(
                language
                if not isinstance(language, Unset)
                else (old.language if old is not None else None)
            ),
            private_opened=(
                private_opened
                if not isinstance(private_opened, Unset)
                else (old.private_opened if old is not None else False)
            ),
            client_language=(
                client_language
                if not isinstance(client_language, Unset)
                else (old.client_language if old is not None else None)
            ),
        )
        self._writes.users.add(user_id)
        self._caches.users.pop(user_id)
        await self._execute(
            "INSERT INTO users (user_id, name, language, private_opened, client_language) "
            "VALUES (?, ?, ?, ?, ?) ON CONFLICT (user_id) DO UPDATE SET name = excluded.name, "
            "language = excluded.language, private_opened = excluded.private_opened, "
            "client_language = excluded.client_language",
            (
                user.user_id,
                user.name,
                user.language,
                int(user.private_opened),
                user.client_language,
            ),
        )
        return user

    async def save_chat_settings(self, settings: ChatSettings) -> None:
        self._writes.chats.add(settings.chat_id)
        self._caches.chats.pop(settings.chat_id)
        await self._execute(
            "INSERT INTO chats (chat_id, language, preset, overrides, turn_timeout, house_banker, "
            "daily_refill) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (chat_id) DO UPDATE SET "
            "language = excluded.language, preset = excluded.preset, "
            "overrides = excluded.overrides, turn_timeout = excluded.turn_timeout, "
            "house_banker = excluded.house_banker, daily_refill = excluded.daily_refill",
            (
                settings.chat_id,
                settings.language,
                settings.preset,
                json.dumps(dict(settings.overrides), ensure_ascii=False, sort_keys=True),
                settings.turn_timeout,
                int(settings.house_banker),
                int(settings.daily_refill),
            ),
        )

    async def apply_transfers(
        self,
        chat_id: int,
        game_id: int | None,
        round_no: int | None,
        transfers: Sequence[Transfer],
    ) -> None:
        if not transfers:
            return
        users: set[int] = set()
        banks: set[int] = set()
        for transfer in transfers:
            if Account.ISSUE in (transfer.source, transfer.target):
                # Only refill() issues chips: it alone enforces the once-a-period rule.
                raise ValueError("chips are issued by refill(), not by apply_transfers()")
            for account in (transfer.source, transfer.target):
                if account.kind == "player":
                    users.add(account.id)
                elif account.kind == "bank":
                    banks.add(account.id)
        params: list[object] = []
        if users:
            params += (chat_id, *users)
        if banks:
            params += (chat_id, *banks)
        if game_id is not None:
            params.append(game_id)
        # One statement reads every balance the batch touches, and whether the ledger rows' game
        # exists (the one foreign key the writes below could violate).
        balances: dict[Account, int] = {}
        ledger_game_found = game_id is None
        for kind, key, amount in await self._rows(
            _balances_sql(len(users), len(banks), game_id is not None), params
        ):
            if kind == _PLAYER:
                balances[Account("player", key)] = amount
            elif kind == _BANK:
                balances[Account("bank", key)] = amount
            else:
                ledger_game_found = True
        now = self._clock()
        ledger_rows: list[tuple[object, ...]] = []
        # The whole batch is checked in memory before anything is written, so a refused batch
        # leaves no partial rows even if the caller catches the error and goes on.
        for transfer in transfers:
            source, target, amount = transfer.source, transfer.target, transfer.amount
            source_after: int | None = None
            target_after: int | None = None
            if source.kind != "grant":
                if source not in balances:
                    raise UnknownAccount(chat_id, source)
                source_after = balances[source] - amount
                if source_after < 0:
                    raise InsufficientFunds(source, amount, balances[source])
            if target.kind != "grant":
                if target not in balances:
                    raise UnknownAccount(chat_id, target)
                target_after = balances[target] + amount
            # Assigned only once both sides are known good, as before: a refused transfer
            # changes nothing.
            if source_after is not None:
                balances[source] = source_after
            if target_after is not None:
                balances[target] = target_after
            ledger_rows.append(
                (
                    chat_id,
                    game_id,
                    round_no,
                    source.kind,
                    source.id,
                    target.kind,
                    target.id,
                    amount,
                    transfer.reason,
                    source_after,
                    target_after,
                    now,
                )
            )
        player_rows = [(b, chat_id, a.id) for a, b in balances.items() if a.kind == "player"]
        bank_rows = [(b, a.id) for a, b in balances.items() if a.kind == "bank"]
        conn = self._live()
        if ledger_game_found:
            # Every constraint these writes check was checked above: run them as one batch.
            writes = [conn.executemany(_INSERT_LEDGER, ledger_rows)]
            if player_rows:
                writes.append(conn.executemany(_UPDATE_BALANCE, player_rows))
            if bank_rows:
                writes.append(conn.executemany(_UPDATE_BANK, bank_rows))
            await self._pipeline(*writes)
            return
        # A ledger game that does not exist: the insert raises the IntegrityError it always did.
        await self._executemany(_INSERT_LEDGER, ledger_rows)
        if player_rows:
            await self._executemany(_UPDATE_BALANCE, player_rows)
        if bank_rows:
            await self._executemany(_UPDATE_BANK, bank_rows)

    async def add_stats(self, chat_id: int, user_id: int, delta: StatsDelta) -> None:
        conn = self._live()
        # Both rows have the same foreign key to the player, so they stand or fall together.
        await self._pipeline(
            conn.execute(
                _UPSERT_STATS,
                (
                    chat_id,
                    user_id,
                    delta.rounds,
                    delta.wins,
                    delta.losses,
                    delta.pushes,
                    delta.twentyones,
                    delta.golden_points,
                    delta.busts,
                    delta.net,
                    delta.biggest_win,
                ),
            ),
            conn.execute(
                _INSERT_STAT_EVENT,
                (chat_id, user_id, self._clock(), delta.rounds, delta.wins, delta.net),
            ),
        )

    async def migrate_chat(self, old_chat_id: int, new_chat_id: int) -> list[int]:
        if old_chat_id == new_chat_id:
            raise ValueError(f"chat {old_chat_id} cannot be migrated to itself")
        # Refused before any write, so that nothing of this call is left to undo.
        clash = await self._row(
            "SELECT old.thread_id FROM games AS old JOIN games AS new "
            "ON new.chat_id = ?2 AND new.thread_id = old.thread_id AND new.status != 'finished' "
            "WHERE old.chat_id = ?1 AND old.status != 'finished' ORDER BY old.thread_id",
            (old_chat_id, new_chat_id),
        )
        if clash is not None:
            raise GameExists(new_chat_id, clash[0])
        for chat_id in (old_chat_id, new_chat_id):
            self._writes.chats.add(chat_id)
            self._caches.chats.pop(chat_id)
        # Players in both chats: their ledger rows' balance-after values become the combined
        # balance, computed while each row still tells which chat it belonged to.
        both = await self._rows(
            "SELECT old.user_id, old.balance, new.balance FROM players AS old "
            "JOIN players AS new ON new.chat_id = ?2 AND new.user_id = old.user_id "
            "WHERE old.chat_id = ?1",
            (old_chat_id, new_chat_id),
        )
        if both:
            ledger = await self._rows(
                "SELECT entry_id, chat_id, source_kind, source_id, target_kind, target_id, "
                "amount, source_after, target_after FROM ledger WHERE chat_id IN (?1, ?2) "
                "AND ((source_kind = 'player' AND source_id IN (SELECT value FROM json_each(?3))) "
                "OR (target_kind = 'player' AND target_id IN (SELECT value FROM json_each(?3)))) "
                "ORDER BY entry_id",
                (old_chat_id, new_chat_id, _dumps([row[0] for row in both])),
            )
            balances = {row[0]: (row[1], row[2]) for row in both}
            changed = _combined_afters(ledger, old_chat_id, balances)
            if changed:
                await self._executemany(
                    "UPDATE ledger SET source_after = ?, target_after = ? WHERE entry_id = ?",
                    changed,
                )
        # Players first (stats and stat events refer to them), the old rows last.
        await self._execute(
            "INSERT INTO players (chat_id, user_id, name, balance, created_at) "
            "SELECT ?2, user_id, name, balance, created_at FROM players WHERE chat_id = ?1 "
            "ON CONFLICT (chat_id, user_id) DO UPDATE SET balance = balance + excluded.balance, "
            "created_at = min(created_at, excluded.created_at)",
            (old_chat_id, new_chat_id),
        )
        await self._execute(
            "INSERT INTO stats (chat_id, user_id, rounds, wins, losses, pushes, twentyones, "
            "golden_points, busts, net, biggest_win) SELECT ?2, user_id, rounds, wins, losses, "
            "pushes, twentyones, golden_points, busts, net, biggest_win FROM stats "
            "WHERE chat_id = ?1 ON CONFLICT (chat_id, user_id) DO UPDATE SET " + _MERGE_STATS,
            (old_chat_id, new_chat_id),
        )
        await self._execute("DELETE FROM stats WHERE chat_id = ?", (old_chat_id,))
        await self._execute(
            "UPDATE stat_events SET chat_id = ? WHERE chat_id = ?", (new_chat_id, old_chat_id)
        )
        await self._execute("DELETE FROM players WHERE chat_id = ?", (old_chat_id,))
        await self._execute(
            "UPDATE ledger SET chat_id = ? WHERE chat_id = ?", (new_chat_id, old_chat_id)
        )
        moved = await self._rows(
            "UPDATE games SET chat_id = ? WHERE chat_id = ? RETURNING game_id, status",
            (new_chat_id, old_chat_id),
        )
        # No timestamp tells when settings were saved, but a row of the new id can only have
        # been saved after the upgrade: it wins whole.
        await self._execute(
            "INSERT INTO chats (chat_id, language, preset, overrides, turn_timeout, house_banker, "
            "daily_refill) SELECT ?2, language, preset, overrides, turn_timeout, house_banker, "
            "daily_refill FROM chats "
            "WHERE chat_id = ?1 ON CONFLICT (chat_id) DO NOTHING",
            (old_chat_id, new_chat_id),
        )
        await self._execute("DELETE FROM chats WHERE chat_id = ?", (old_chat_id,))
        await self._execute(
            "INSERT INTO shown_messages (chat_id, message_id, digest, shown_at) "
            "SELECT ?2, message_id, digest, shown_at FROM shown_messages WHERE chat_id = ?1 "
            "ON CONFLICT (chat_id, message_id) DO NOTHING",
            (old_chat_id, new_chat_id),
        )
        await self._execute("DELETE FROM shown_messages WHERE chat_id = ?", (old_chat_id,))
        return sorted(row[0] for row in moved if row[1] != "finished")

    async def record_shown(self, chat_id: int, message_id: int, digest: str) -> None:
        await self._execute(
            "INSERT INTO shown_messages (chat_id, message_id, digest, shown_at) "
            "VALUES (?, ?, ?, ?) ON CONFLICT (chat_id, message_id) DO UPDATE SET "
            "digest = excluded.digest, shown_at = excluded.shown_at",
            (chat_id, message_id, digest, self._clock()),
        )

    async def forget_shown(self, chat_id: int, message_ids: Collection[int]) -> None:
        if message_ids:
            await self._executemany(
                "DELETE FROM shown_messages WHERE chat_id = ? AND message_id = ?",
                [(chat_id, message_id) for message_id in sorted(set(message_ids))],
            )

    async def prune_shown(self, before: float) -> int:
        return await self._execute("DELETE FROM shown_messages WHERE shown_at < ?", (before,))


def _combined_afters(
    rows: Iterable[Row], old_chat_id: int, balances: Mapping[int, tuple[int, int]]
) -> list[tuple[int | None, int | None, int]]:
    """(source_after, target_after, entry_id) of the ledger rows whose balance-after values
    change when the players of two chats become one: each becomes the player's balance in the
    row's chat (as recorded) plus their balance in the other chat at that moment.

    `rows` (entry_id, chat_id, source_kind, source_id, target_kind, target_id, amount,
    source_after, target_after) are the ledger rows of both chats that involve those players,
    by entry_id; `balances` maps each such user to their (old chat, new chat) balance now. A
    chat's balance before its first row is that row's balance-after undone (0 when the ledger
    is complete), or the balance now if it has no row at all.
    """
    # The player sides of each row: (index of the after value, in the old chat?, user).
    sides: list[tuple[Row, list[tuple[int, bool, int]]]] = []
    running: dict[tuple[int, bool], int] = {}  # (user, in the old chat?) -> balance
    for row in rows:
        in_old = row[1] == old_chat_id
        found: list[tuple[int, bool, int]] = []
        for index, kind, user, sign in ((7, row[2], row[3], -1), (8, row[4], row[5], 1)):
            if kind == "player" and user in balances and row[index] is not None:
                found.append((index, in_old, user))
                running.setdefault((user, in_old), row[index] - sign * row[6])
        sides.append((row, found))
    for user, (old_balance, new_balance) in balances.items():
        running.setdefault((user, True), old_balance)
        running.setdefault((user, False), new_balance)
    changed: list[tuple[int | None, int | None, int]] = []
    for row, found in sides:
        after: list[int | None] = [row[7], row[8]]
        for index, in_old, user in found:
            running[(user, in_old)] = row[index]
            after[index - 7] = row[index] + running[(user, not in_old)]
        if after != [row[7], row[8]]:
            changed.append((after[0], after[1], row[0]))
    return changed


def _owner_only(path: str) -> None:
    """Creates the database file readable by its owner only (0600), or takes group and other
    rights away from an existing one: it holds the live round's deck order and salts. SQLite
    gives its -wal and -shm files the mode of the database file."""
    if path == ":memory:" or path.startswith("file:"):
        return
    try:
        descriptor = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
    except FileExistsError:
        mode = os.stat(path).st_mode & 0o777
        if mode & 0o077:
            os.chmod(path, mode & 0o700)
    except OSError:
        return  # no such directory, no rights: SQLite's own error below says it better
    else:
        os.close(descriptor)


class SqliteStorage(_SqliteReads, Storage):
    """SQLite through one aiosqlite connection.

    Transactions and reads of this object are serialized by an asyncio.Lock: a single connection
    has a single transaction, and a read interleaved with another task's open transaction would
    see that transaction's uncommitted writes. Other processes are kept out by BEGIN IMMEDIATE
    and busy_timeout.

    One bot process owns a database: chat settings and users, read on every action, are cached
    in memory (`cache_size` entries each, least recently used forgotten first) and the cache
    learns of changes only through this object's transactions. A change of the chats or users
    tables made by anyone else (another process, another SqliteStorage on the same file, a
    hand-run sqlite3) is not seen by get_chat/get_user until the next start().

    Group commit: the blocks of concurrent `transaction()`s run one at a time, as before, but
    in one SQLite transaction, each in a savepoint of its own, and COMMIT once for the batch,
    so that under synchronous=FULL they share one fsync. A batch commits when a block ends and
    no other transaction waits for the lock (so a lone action commits at once, as before), or
    when it holds BATCH_MAX_BLOCKS blocks or is BATCH_MAX_AGE old. A block that fails is rolled
    back alone (ROLLBACK TO its savepoint); a block that ends returns only once its batch has
    committed, and if the COMMIT fails every block of the batch raises its error. Reads of this
    object (outside transactions) commit an open batch before they read, so they never see
    uncommitted data; so do stop(). A block cancelled while it waits for its batch's COMMIT
    stays in the batch: as with a COMMIT interrupted before group commit, the canceller does
    not learn whether it was committed.
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        synchronous: str = "FULL",
        clock: Callable[[], float] = time.time,
        migrations: Sequence[Migration] = MIGRATIONS,
        cache_size: int = CACHE_SIZE,
        default_language: str = "ru",
    ) -> None:
        mode = synchronous.upper()
        if mode not in SYNCHRONOUS_MODES:
            raise ValueError(
                f"synchronous must be one of {sorted(SYNCHRONOUS_MODES)}, got {synchronous!r}"
            )
        self.path = os.fspath(path)
        self.synchronous = mode
        self._clock = clock
        self._migrations = tuple(migrations)
        self._conn: aiosqlite.Connection | None = None
        self._lock = asyncio.Lock()
        self._owner: asyncio.Task[Any] | None = None
        self._caches = _Caches(cache_size)
        self._default_language = default_language
        self._batch: _Batch | None = None  # the open group commit, if any
        self._writers = 0  # transactions waiting for the lock
        self._flushes: set[asyncio.Task[None]] = set()

    async def start(self) -> None:
        if self._conn is not None:
            raise StorageError("storage is already started")
        self._caches.clear()  # whatever happened to the file meanwhile, read it anew
        try:
            _owner_only(self.path)
            conn = await aiosqlite.connect(self.path, isolation_level=None)
        except sqlite3.Error as error:
            raise CorruptDatabase(self.path, str(error)) from error
        try:
            await self._open(conn)
        except BaseException:
            await conn.close()
            raise
        self._conn = conn

    async def _open(self, conn: aiosqlite.Connection) -> None:
        supported = len(self._migrations)
        # Checks come before any PRAGMA that writes (journal_mode rewrites the header), so a
        # foreign, damaged or too-new file is refused without a single byte changed.
        try:
            found = await schema_version(conn)
            if found > supported:
                raise DatabaseTooNew(found, supported)
            problems = [row[0] for row in await conn.execute_fetchall("PRAGMA quick_check")]
        except sqlite3.DatabaseError as error:
            raise CorruptDatabase(self.path, str(error)) from error
        if problems != ["ok"]:
            raise CorruptDatabase(self.path, "; ".join(str(p) for p in problems[:3]))
        try:
            await conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS:d}")
            await conn.execute("PRAGMA journal_mode = WAL")
            await conn.execute(f"PRAGMA synchronous = {self.synchronous}")
            await conn.execute("PRAGMA foreign_keys = ON")
            await migrate(conn, self._migrations)
        except sqlite3.DatabaseError as error:
            raise CorruptDatabase(self.path, str(error)) from error

    async def stop(self) -> None:
        if self._conn is None:
            return
        async with self._lock:  # let a running transaction finish first
            if self._conn is None:  # another stop() came first
                return
            if self._batch is not None:
                with suppress(Exception):  # its blocks get the error
                    await _uninterrupted(self._commit(self._conn, self._batch))
            conn, self._conn = self._conn, None
            self._caches.clear()
            await conn.close()
        for task in list(self._flushes):  # they find nothing left to do
            await task

    def _check_not_owner(self) -> asyncio.Task[Any] | None:
        """The current task; StorageError if it is inside its own transaction."""
        task = asyncio.current_task()
        if task is not None and self._owner is task:
            raise StorageError(
                "storage used directly inside its own open transaction (this would deadlock); "
                "use the Transaction object's methods"
            )
        return task

    @asynccontextmanager
    async def _locked(self, *, writer: bool = False) -> AsyncIterator[aiosqlite.Connection]:
        task = self._check_not_owner()
        if writer:
            # Counted while waiting: a block that ends leaves its batch open for them.
            self._writers += 1
            try:
                await self._lock.acquire()
            except BaseException:
                self._writers -= 1
                self._flush_soon()  # the batch may have been left open for this one
                raise
            self._writers -= 1
        else:
            await self._lock.acquire()
        try:
            if self._conn is None:
                raise TransactionClosed("storage is not started")
            self._owner = task
            try:
                yield self._conn
            finally:
                self._owner = None
        finally:
            self._lock.release()

    async def _rows(self, sql: str, params: Params = ()) -> list[Row]:
        async with self._locked() as conn:
            if self._batch is not None:
                # Reads outside transactions see committed data only.
                with suppress(Exception):  # the batch's blocks get the error
                    await _uninterrupted(self._commit(conn, self._batch))
            return list(await conn.execute_fetchall(sql, params))

    # The cached reads. A miss reads under the lock, after an open batch is committed: the value
    # is committed, and no await comes between the read and the put that a write could slip into.

    async def get_chat(self, chat_id: int) -> ChatSettings:
        self._check_not_owner()  # fail fast whether or not the value is cached
        cached = self._caches.chats.get(chat_id)
        if cached is MISS:
            cached = await self._fetch_chat(chat_id)
            self._caches.chats.put(chat_id, cached)
        return _private(cached)

    async def get_user(self, user_id: int) -> User | None:
        self._check_not_owner()
        cached = self._caches.users.get(user_id)
        if cached is MISS:
            cached = await self._fetch_user(user_id)
            self._caches.users.put(user_id, cached)
        return cached

    def transaction(self) -> AbstractAsyncContextManager[Transaction]:
        return self._transaction()

    @asynccontextmanager
    async def _transaction(self) -> AsyncIterator[Transaction]:
        async with self._locked(writer=True) as conn:
            batch = self._batch
            if batch is None:
                batch = _Batch(asyncio.get_running_loop().create_future())
            batch.blocks += 1
            tx = SqliteTransaction(conn, self._clock, self._caches, batch, self._default_language)
            try:
                if tx._first:
                    self._batch = batch  # a failed BEGIN is undone like a failed block
                    await conn.execute("BEGIN IMMEDIATE")
                yield tx
            except BaseException as error:
                tx._close()
                await self._settle(tx, self._undo_block(conn, tx, error))
                raise
            tx._close()
            wait = await self._settle(tx, self._end_block(conn, tx))
        if wait:
            # Not holding the lock: the next blocks run meanwhile, and one of them (or a read,
            # or stop()) commits. shield: a cancelled waiter must not cancel the batch's future.
            await asyncio.shield(batch.done)

    @staticmethod
    async def _settle(tx: SqliteTransaction, step: Awaitable[T]) -> T:
        """The end of a block. Once other blocks share the batch, they wait for the outcome, so
        the step runs to its end even if this task is cancelled. A block alone in its batch
        (every action when there is no concurrency) skips the cost of a task: if it is
        cancelled in its COMMIT, the outcome is as unknown to its caller as it always was."""
        if tx._first:
            return await step
        return await _uninterrupted(step)

    def _commit_now(self, batch: _Batch) -> bool:
        return (
            self._writers == 0
            or batch.blocks >= BATCH_MAX_BLOCKS
            or time.monotonic() - batch.started >= BATCH_MAX_AGE
        )

    async def _end_block(self, conn: aiosqlite.Connection, tx: SqliteTransaction) -> bool:
        """After a block that ended normally: commit its batch now (True: wait for it)."""
        batch = tx._batch
        if tx._broken is not None:
            # It caught the error of its own savepoint and went on: undo the whole batch.
            await self._abort(conn, batch, tx._broken)
            raise tx._broken
        if tx._savepoint:
            batch.savepoint = True  # released by the next block or by COMMIT
        if not self._commit_now(batch):
            return True
        await self._commit(conn, batch)  # its error is this block's too
        return False

    async def _undo_block(
        self, conn: aiosqlite.Connection, tx: SqliteTransaction, error: BaseException
    ) -> None:
        """After a block that raised: undo its writes, and only its (the error propagates)."""
        batch = tx._batch
        self._caches.forget(batch.writes)
        if tx._first:
            # Alone in the SQLite transaction (or its BEGIN failed): ROLLBACK, the batch is over.
            if self._batch is batch:
                self._batch = None
            batch.succeed()  # nobody waits for it
            await self._rollback(conn)
            return
        if tx._savepoint and tx._broken is None:
            try:
                await _pipeline(
                    conn.execute(f"ROLLBACK TO {_SAVEPOINT}"), conn.execute(f"RELEASE {_SAVEPOINT}")
                )
            except BaseException as failure:
                tx._broken = failure
            else:
                tx._savepoint = False
        if tx._broken is not None or not conn.in_transaction:
            # A savepoint failed, or SQLite rolled the whole transaction back by itself (e.g.
            # after SQLITE_FULL): the batch's earlier blocks cannot be kept.
            await self._abort(conn, batch, tx._broken or error)
            return
        if self._commit_now(batch):
            with suppress(Exception):  # for the batch's other blocks; this one raises its own
                await self._commit(conn, batch)

    async def _commit(self, conn: aiosqlite.Connection, batch: _Batch) -> None:
        """COMMIT the open batch: its blocks learn the outcome from batch.done."""
        assert self._batch is batch
        self._batch = None
        try:
            await conn.execute("COMMIT")
        except BaseException as error:
            self._caches.forget(batch.writes)
            batch.fail(error)
            await self._rollback(conn)
            raise
        self._caches.forget(batch.writes)
        batch.succeed()

    async def _abort(self, conn: aiosqlite.Connection, batch: _Batch, cause: BaseException) -> None:
        """Roll the whole batch back: every block of it raises."""
        if self._batch is batch:
            self._batch = None
        self._caches.forget(batch.writes)
        if isinstance(cause, sqlite3.Error):
            batch.fail(cause)
        else:
            error = StorageError(f"the batch of transactions was rolled back: {cause!r}")
            error.__cause__ = cause
            batch.fail(error)
        await self._rollback(conn)

    def _flush_soon(self) -> None:
        """A transaction gave up waiting for the lock: if the batch was left open for it and
        no other transaction will come, commit it from a task of its own."""
        batch = self._batch
        if batch is None or self._writers > 0:
            return
        task = asyncio.get_running_loop().create_task(self._flush(batch))
        self._flushes.add(task)
        task.add_done_callback(self._flushes.discard)

    async def _flush(self, batch: _Batch) -> None:
        async with self._lock:
            if self._batch is batch and self._conn is not None:
                with suppress(Exception):  # its blocks get the error
                    await _uninterrupted(self._commit(self._conn, batch))

    @staticmethod
    async def _rollback(conn: aiosqlite.Connection) -> None:
        # SQLite may already have rolled back by itself (e.g. after SQLITE_FULL), or a cancelled
        # BEGIN may still be on its way to the connection's thread: ROLLBACK unconditionally (it
        # runs after whatever is queued) and do not report its "no transaction is active" error,
        # nor any other over the original error, the one worth raising.
        with suppress(sqlite3.Error):
            await conn.execute("ROLLBACK")

    async def games_with_deadlines(self) -> list[tuple[int, float]]:
        rows = await self._rows(
            "SELECT game_id, deadline FROM games "
            "WHERE status != 'finished' AND deadline IS NOT NULL ORDER BY deadline"
        )
        return [(row[0], row[1]) for row in rows]

    async def games_awaiting_clock(self) -> list[int]:
        rows = await self._rows(
            "SELECT game_id FROM games WHERE status = 'active' AND deadline IS NULL "
            "ORDER BY game_id"
        )
        return [row[0] for row in rows]

    async def stale_views(self) -> list[int]:
        rows = await self._rows(
            "SELECT game_id FROM games WHERE status != 'finished' AND shown_version < version "
            "ORDER BY game_id"
        )
        return [row[0] for row in rows]

    async def stale_games(self, idle_before: float) -> list[int]:
        rows = await self._rows(
            "SELECT game_id FROM games WHERE status != 'finished' AND updated_at < ? "
            "ORDER BY updated_at",
            (idle_before,),
        )
        return [row[0] for row in rows]

    async def leaderboard(
        self, chat_id: int, *, since: float | None = None, limit: int = 10
    ) -> list[LeaderboardRow]:
        if since is None:
            # A banker's chips are his balance and the bank he holds: ranked by both.
            rows = await self._rows(
                "SELECT p.user_id, p.name, p.balance + coalesce(h.bank, 0) AS chips, "
                "coalesce(s.net, 0), coalesce(s.rounds, 0), coalesce(s.wins, 0), "
                "coalesce(h.bank, 0) "
                "FROM players AS p LEFT JOIN stats AS s USING (chat_id, user_id) "
                f"LEFT JOIN ({_HELD_BANKS}) AS h ON h.user_id = p.user_id "
                "WHERE p.chat_id = ?1 ORDER BY chips DESC, p.user_id LIMIT ?2",
                (chat_id, limit),
            )
        else:
            rows = await self._rows(
                "SELECT p.user_id, p.name, p.balance, e.net, e.rounds, e.wins "
                "FROM (SELECT user_id, sum(net) AS net, sum(rounds) AS rounds, "
                "      sum(wins) AS wins FROM stat_events "
                "      WHERE chat_id = ?1 AND created_at >= ?2 GROUP BY user_id) AS e "
                "JOIN players AS p ON p.chat_id = ?1 AND p.user_id = e.user_id "
                "ORDER BY e.net DESC, p.balance DESC, p.user_id LIMIT ?3",
                (chat_id, since, limit),
            )
        return [LeaderboardRow(*row) for row in rows]

    async def held_bank(self, chat_id: int, user_id: int) -> int:
        row = await self._row(
            f"SELECT coalesce(sum(bank), 0) FROM ({_HELD_BANKS}) WHERE user_id = ?2",
            (chat_id, user_id),
        )
        return int(row[0]) if row is not None else 0

    async def player_stats(self, chat_id: int, user_id: int) -> PlayerStats | None:
        row = await self._row(
            "SELECT p.name, coalesce(s.rounds, 0), coalesce(s.wins, 0), coalesce(s.losses, 0), "
            "coalesce(s.pushes, 0), coalesce(s.twentyones, 0), coalesce(s.golden_points, 0), "
            "coalesce(s.busts, 0), coalesce(s.biggest_win, 0), coalesce(s.net, 0) "
            "FROM players AS p LEFT JOIN stats AS s USING (chat_id, user_id) "
            "WHERE p.chat_id = ? AND p.user_id = ?",
            (chat_id, user_id),
        )
        if row is None:
            return None
        return PlayerStats(chat_id, user_id, *row)

    async def check_ledger(self, chat_id: int) -> LedgerCheck:
        # One statement, hence one snapshot: the three sums cannot straddle a commit.
        row = await self._row(
            "SELECT "
            " (SELECT coalesce(sum(CASE WHEN source_kind = 'grant' THEN amount ELSE 0 END), 0)"
            "       - coalesce(sum(CASE WHEN target_kind = 'grant' THEN amount ELSE 0 END), 0)"
            "  FROM ledger WHERE chat_id = ?1),"
            " (SELECT coalesce(sum(balance), 0) FROM players WHERE chat_id = ?1),"
            " (SELECT coalesce(sum(bank), 0) FROM games"
            "  WHERE chat_id = ?1 AND status != 'finished'),"
            " (SELECT coalesce(sum(CASE WHEN source_kind = 'issue' THEN amount ELSE 0 END), 0)"
            "       - coalesce(sum(CASE WHEN target_kind = 'issue' THEN amount ELSE 0 END), 0)"
            "  FROM ledger WHERE chat_id = ?1)",
            (chat_id,),
        )
        assert row is not None
        granted, balances, banks, issued = (int(v) for v in row)
        return LedgerCheck(
            chat_id, granted, balances, banks, granted + issued == balances + banks, issued
        )

    async def balance_history(self, chat_id: int, user_id: int) -> list[tuple[float, int]]:
        rows = await self._rows(
            "SELECT created_at, CASE WHEN target_kind = 'player' AND target_id = ?2 "
            "THEN target_after ELSE source_after END FROM ledger "
            "WHERE chat_id = ?1 AND ((source_kind = 'player' AND source_id = ?2) "
            "OR (target_kind = 'player' AND target_id = ?2)) ORDER BY entry_id",
            (chat_id, user_id),
        )
        return [(row[0], row[1]) for row in rows]
