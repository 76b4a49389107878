"""The games, their archived logs and their seats: the game state with optimistic concurrency,
written by the service alone (what delivery showed of a game is delivery's own table,
storage/sql/screens.py); and the turn deadlines the timers re-arm from, kept in the scheduler's
table (storage/sql/deadlines.py, kind 'turn', keyed by the game's id).

Concurrency (PostgreSQL, READ COMMITTED, several processes): save_game is one conditional
UPDATE (`version = expected`): a concurrent save of the same game holds the row until it
commits, then PostgreSQL re-checks the condition on the new row, which no longer matches, and
the caller gets VersionConflict. What reads before it writes (start_clock, archive_log,
set_seats) first locks the game's row, each saying why; on SQLite the lock clause is empty
(BEGIN IMMEDIATE holds the only write lock) and the same statement checks that the game exists.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Any, Final

from storage.errors import GameExists, GameNotFound, StorageError, VersionConflict
from storage.jsontext import dumps, loads
from storage.models import GAME_STATUSES, GameStatus, StoredGame
from storage.sql.base import Row, TableReads, TableWrites
from storage.sql.deadlines import DROP_DEADLINE, SAVE_DEADLINE, TURN

_GAME_COLUMNS: Final = (
    "g.game_id, g.chat_id, g.thread_id, g.status, g.state, g.version, g.bank, d.due, "
    "g.creator_id, g.created_at, g.updated_at"
)
# A game with its turn deadline, kept in the scheduler's table (storage/sql/deadlines.py).
_GAMES: Final = (
    f"games AS g LEFT JOIN deadlines AS d ON d.kind = '{TURN}' AND d.key = CAST(g.game_id AS TEXT)"
)
# The dialect's lock (FOR NO KEY UPDATE: the lock an UPDATE of the row takes, so it orders
# these writers after a concurrent save_game and each other, but not inserts that merely refer
# to the game: ledger rows, seats, log entries take a KEY SHARE lock for their foreign key).
_LOCK_GAME: Final = "SELECT 1 FROM games WHERE game_id = $1{lock}"


def _game_from_row(row: Row, known: tuple[int, dict[str, Any]] | None = None) -> StoredGame:
    """The row of _GAME_COLUMNS, which are in StoredGame's order."""
    state = known[1] if known is not None and known[0] == row[5] else loads(row[4])
    return StoredGame(
        row[0], row[1], row[2], row[3], state, row[5], row[6], row[7], row[8], row[9], row[10]
    )


def _check_status(status: str) -> None:
    if status not in GAME_STATUSES:
        raise ValueError(f"unknown game status {status!r}")


class GameReads(TableReads):
    async def load_game(
        self, game_id: int, *, known: tuple[int, dict[str, Any]] | None = None
    ) -> StoredGame | None:
        """``known``: a (version, state) the caller holds already; when the stored version is
        that one, the state is that same dict, not decoded again (so the caller must treat it
        as read-only, as every holder of a stored state does)."""
        row = await self._row(f"SELECT {_GAME_COLUMNS} FROM {_GAMES} WHERE g.game_id = $1", game_id)
        return None if row is None else _game_from_row(row, known)

    async def load_active_game(self, chat_id: int, thread_id: int) -> StoredGame | None:
        # The condition matches the partial unique index games_open_by_thread exactly.
        row = await self._row(
            f"SELECT {_GAME_COLUMNS} FROM {_GAMES} "
            "WHERE g.chat_id = $1 AND g.thread_id = $2 AND g.status <> 'finished'",
            chat_id,
            thread_id,
        )
        return None if row is None else _game_from_row(row)

    async def seated_games(self, user_id: int) -> list[int]:
        return await self._column(
            "SELECT seats.game_id FROM seats JOIN games ON games.game_id = seats.game_id "
            "WHERE seats.user_id = $1 AND games.status <> 'finished' ORDER BY seats.game_id",
            user_id,
        )

    async def archived_log(self, game_id: int) -> list[dict[str, Any]]:
        rows = await self._rows(
            "SELECT entry FROM game_log WHERE game_id = $1 ORDER BY seq", game_id
        )
        return [loads(row[0]) for row in rows]


class GameQueries(TableReads):
    async def games_with_deadlines(self) -> list[tuple[int, float]]:
        return await self._tuples(
            "SELECT g.game_id, d.due FROM deadlines AS d "
            "JOIN games AS g ON g.game_id = CAST(d.key AS BIGINT) "
            "WHERE d.kind = $1 AND g.status <> 'finished' ORDER BY d.due, g.game_id",
            TURN,
        )

    async def games_awaiting_clock(self) -> list[int]:
        """Active games whose turn timer is not running. A crash between saving a move and
        delivering its prompt leaves the clock unstarted (`start_clock` starts it on
        delivery): at start-up their prompt is delivered again. Games in a phase with no timer
        are listed too: the caller decides from the state whether a prompt is due."""
        return await self._column(
            "SELECT g.game_id FROM games AS g WHERE g.status = 'active' AND NOT EXISTS "
            "(SELECT 1 FROM deadlines AS d WHERE d.kind = $1 "
            " AND d.key = CAST(g.game_id AS TEXT)) ORDER BY g.game_id",
            TURN,
        )

    async def games_updated_since(self, since: float) -> list[tuple[int, int, int]]:
        """(game id, chat id, version) of every game saved at or after ``since`` (by the
        writers' clocks): how the process that delivers a chat learns of the versions other
        processes committed there."""
        # Open and finished games apart, each through its partial index (step 18); sorted
        # here, since an ORDER BY makes SQLite scan the table in game_id order instead.
        found = await self._tuples(
            "SELECT game_id, chat_id, version FROM games "
            "WHERE status <> 'finished' AND updated_at >= $1 "
            "UNION ALL SELECT game_id, chat_id, version FROM games "
            "WHERE status = 'finished' AND updated_at >= $1",
            since,
        )
        return sorted(found)

    async def open_game_chats(self) -> list[int]:
        """The chat of every game not finished (a lobby or a game in progress), one per game:
        the bot's readiness check (the database answers) and its count of active tables."""
        return await self._column("SELECT chat_id FROM games WHERE status <> 'finished'")

    async def stale_games(self, idle_before: float) -> list[int]:
        return await self._column(
            "SELECT game_id FROM games WHERE status <> 'finished' AND updated_at < $1 "
            "ORDER BY updated_at",
            idle_before,
        )


class GameWrites(TableWrites):
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
        text = dumps(state)
        # ON CONFLICT on the partial index rather than an error: the thread's open game (on
        # PostgreSQL also one being created concurrently, once it commits) is reported without
        # aborting the transaction, which goes on.
        row = await self._row(
            "INSERT INTO games (chat_id, thread_id, status, state, version, creator_id, "
            "created_at, updated_at) VALUES ($1, $2, $3, $4, 1, $5, $6, $6) "
            "ON CONFLICT (chat_id, thread_id) WHERE status <> 'finished' DO NOTHING "
            "RETURNING game_id",
            chat_id,
            thread_id,
            status,
            text,
            creator_id,
            now,
        )
        if row is None:
            raise GameExists(chat_id, thread_id)
        state_copy = loads(text)  # a private copy: the caller may keep mutating its dict
        return StoredGame(
            row[0], chat_id, thread_id, status, state_copy, 1, 0, None, creator_id, now, now
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
        # Reopening a finished game is refused by the condition when its thread has another
        # open game, so that the transaction stays usable; on PostgreSQL only a game opened
        # concurrently reaches the unique index (a ConcurrencyConflict: run again, it is then
        # refused here).
        rows = await self._rows(
            "UPDATE games AS g SET state = $1, status = $2, "
            "version = g.version + 1, updated_at = $3 "
            "WHERE g.game_id = $4 AND g.version = $5 AND ($2 = 'finished' "
            " OR g.status <> 'finished' OR NOT EXISTS (SELECT 1 FROM games AS other"
            "  WHERE other.chat_id = g.chat_id AND other.thread_id = g.thread_id"
            "  AND other.status <> 'finished')) "
            "RETURNING version",
            dumps(state),
            status,
            self._clock(),
            game_id,
            expected_version,
        )
        if rows:
            # The turn's deadline, in the scheduler's table: written after the game's row, whose
            # lock the UPDATE holds (start_clock takes it first too). A new deadline clears the
            # claim on the old one: the deadline it was taken for is gone.
            if deadline is None or status == "finished":
                await self._execute(DROP_DEADLINE, TURN, str(game_id))
            else:
                await self._execute(SAVE_DEADLINE, TURN, str(game_id), deadline)
            return int(rows[0][0])
        current = await self._row(
            "SELECT version, chat_id, thread_id FROM games WHERE game_id = $1", game_id
        )
        if current is None:
            raise GameNotFound(game_id)
        if current[0] != expected_version:
            raise VersionConflict(game_id, expected_version, current[0])
        raise GameExists(current[1], current[2])

    async def start_clock(self, game_id: int, version: int, deadline: float) -> bool:
        """Start the turn timer once the prompt has been delivered: the player's time should
        run from when they can see the prompt, not from when the move was saved. A no-op
        (False) when anything happened since: a newer version, a timer already running, a
        finished or missing game."""
        # Nothing of the game is written (no version bump, no updated_at): delivering a prompt
        # changes nothing of it. Its row is locked first, as save_game's UPDATE locks it, so a
        # save of a newer version either comes before (the version no longer matches) or
        # waits and then replaces this deadline.
        found = await self._row(
            "SELECT 1 FROM games WHERE game_id = $1 AND version = $2 AND status <> 'finished'"
            "{lock}",
            game_id,
            version,
        )
        if found is None:
            return False
        changed = await self._execute(
            "INSERT INTO deadlines (kind, key, due) VALUES ($1, $2, $3) "
            "ON CONFLICT (kind, key) DO NOTHING",
            TURN,
            str(game_id),
            deadline,
        )
        return changed == 1

    async def _lock_game(self, game_id: int) -> bool:
        """Lock the game's row (PostgreSQL); whether the game exists."""
        return await self._row(_LOCK_GAME, game_id) is not None

    async def archive_log(
        self, game_id: int, start: int, entries: Sequence[Mapping[str, Any]]
    ) -> None:
        if not entries:
            return
        # Locked first, so that the length read below is the length once every other
        # archiver of the game has committed: each statement after it sees their writes.
        if not await self._lock_game(game_id):
            if start != 0:
                raise StorageError(f"game {game_id}: the log archive holds 0 entries, not {start}")
            raise GameNotFound(game_id)
        row = await self._row(
            "SELECT count(*), coalesce(max(seq) + 1, 0) FROM game_log WHERE game_id = $1", game_id
        )
        assert row is not None
        if not row[0] == row[1] == start:
            raise StorageError(
                f"game {game_id}: the log archive holds {row[0]} entries, not {start}"
            )
        await self._executemany(
            "INSERT INTO game_log (game_id, seq, entry) VALUES ($1, $2, $3)",
            [(game_id, start + n, dumps(entry)) for n, entry in enumerate(entries)],
        )

    async def set_seats(self, game_id: int, user_ids: Collection[int]) -> None:
        # Locked first: two concurrent calls would each delete only the seats they saw, and
        # both lists would end up mixed. After the lock, the seats read are the committed ones.
        if not await self._lock_game(game_id):
            if user_ids:
                raise GameNotFound(game_id)
            return
        await self._execute("DELETE FROM seats WHERE game_id = $1", game_id)
        if user_ids:
            await self._executemany(
                "INSERT INTO seats (game_id, user_id) VALUES ($1, $2)",
                [(game_id, user_id) for user_id in sorted(set(user_ids))],
            )
