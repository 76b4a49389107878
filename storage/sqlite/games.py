"""The games, their archived logs and their seats: the game state with optimistic concurrency,
the ids of the messages that show it, the deadlines the timers re-arm from."""

from __future__ import annotations

import sqlite3
from collections.abc import Collection, Mapping, Sequence
from typing import Any, cast

from storage.errors import GameExists, GameNotFound, StorageError, VersionConflict
from storage.jsontext import dumps, loads
from storage.models import GAME_STATUSES, UNSET, GameStatus, StoredGame, Unset
from storage.sqlite.base import Row, SqliteReads
from storage.sqlite.block import TransactionBlock

_GAME_COLUMNS = (
    "game_id, chat_id, thread_id, status, state, version, bank, deadline, table_message_id, "
    "hand_messages, creator_id, created_at, updated_at, posted_seq"
)


def _game_from_row(row: Row, known: tuple[int, dict[str, Any]] | None = None) -> StoredGame:
    return StoredGame(
        game_id=row[0],
        chat_id=row[1],
        thread_id=row[2],
        status=row[3],
        state=known[1] if known is not None and known[0] == row[5] else loads(row[4]),
        version=row[5],
        bank=row[6],
        deadline=row[7],
        table_message_id=row[8],
        # JSON object keys are strings; user ids are ints everywhere else.
        hand_messages={int(k): int(v) for k, v in loads(row[9]).items()},
        creator_id=row[10],
        created_at=row[11],
        updated_at=row[12],
        posted_seq=row[13],
    )


def _check_status(status: str) -> GameStatus:
    if status not in GAME_STATUSES:
        raise ValueError(f"unknown game status {status!r}")
    return cast(GameStatus, status)


class GameReads(SqliteReads):
    """Reads of games, shared by the storage object and its transactions."""

    async def load_game(
        self, game_id: int, *, known: tuple[int, dict[str, Any]] | None = None
    ) -> StoredGame | None:
        row = await self._row(f"SELECT {_GAME_COLUMNS} FROM games WHERE game_id = ?", (game_id,))
        return None if row is None else _game_from_row(row, known)

    async def load_active_game(self, chat_id: int, thread_id: int) -> StoredGame | None:
        # The condition matches the partial unique index games_open_by_thread exactly.
        row = await self._row(
            f"SELECT {_GAME_COLUMNS} FROM games "
            "WHERE chat_id = ? AND thread_id = ? AND status != 'finished'",
            (chat_id, thread_id),
        )
        return None if row is None else _game_from_row(row)

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
        return [loads(row[0]) for row in rows]


class GameQueries(SqliteReads):
    """Reads of the storage object only: the games to look after at start-up and when idle."""

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

    async def games_updated_since(self, since: float) -> list[tuple[int, int, int]]:
        rows = await self._rows(
            "SELECT game_id, chat_id, version FROM games WHERE updated_at >= ? ORDER BY game_id",
            (since,),
        )
        return [(row[0], row[1], row[2]) for row in rows]

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


class GameWrites(TransactionBlock):
    """Writes of games, their log and their seats, inside a transaction."""

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
            state=loads(text),  # a private copy: the caller may keep mutating its dict
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
                "updated_at = ?, claim_owner = NULL, claim_until = NULL "
                "WHERE game_id = ? AND version = ? RETURNING version",
                (dumps(state), status, deadline, self._clock(), game_id, expected_version),
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
            params.append(dumps({str(k): v for k, v in (hand_messages or {}).items()}))
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
            "UPDATE games SET deadline = ?, claim_owner = NULL, claim_until = NULL "
            "WHERE game_id = ? AND version = ? AND status != 'finished' AND deadline IS NULL",
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
                [(game_id, start + n, dumps(entry)) for n, entry in enumerate(entries)],
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
