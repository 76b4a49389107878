"""The backend-neutral storage interface that bot/ codes against.

A backend implements `Storage` (connection owner, reads outside transactions) and `Transaction`
(reads and writes inside one atomic unit). One bot action = one transaction: the game state, its
ledger rows, statistics and the processed update id commit together or not at all.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Collection, Mapping, Sequence
from contextlib import AbstractAsyncContextManager
from typing import Any

from storage.models import (
    UNSET,
    ChatSettings,
    GameStatus,
    LeaderboardRow,
    LedgerCheck,
    Player,
    PlayerStats,
    StatsDelta,
    StoredGame,
    Transfer,
    Unset,
    User,
)


class Reads(ABC):
    """Reads available both on `Storage` and inside a `Transaction`."""

    @abstractmethod
    async def get_chat(self, chat_id: int) -> ChatSettings:
        """The chat's settings, or the defaults when the chat never saved any."""

    @abstractmethod
    async def get_user(self, user_id: int) -> User | None: ...

    @abstractmethod
    async def get_player(self, chat_id: int, user_id: int) -> Player | None: ...

    @abstractmethod
    async def load_game(self, game_id: int) -> StoredGame | None: ...

    @abstractmethod
    async def load_active_game(self, chat_id: int, thread_id: int) -> StoredGame | None:
        """The chat thread's game in the lobby or in play, if any."""

    @abstractmethod
    async def is_processed(self, update_id: int) -> bool: ...

    @abstractmethod
    async def seated_games(self, user_id: int) -> list[int]:
        """The unfinished games the user sits in, oldest first."""

    @abstractmethod
    async def archived_log(self, game_id: int) -> list[dict[str, Any]]:
        """The entries `Transaction.archive_log` stored for the game, in order (may be empty)."""


class Transaction(Reads):
    """One atomic unit of work; valid only inside `async with storage.transaction()`."""

    @abstractmethod
    async def claim_update(self, update_id: int) -> bool:
        """Record the update id; False when it was already processed (abandon the action)."""

    @abstractmethod
    async def prune_processed(self, before: float) -> int:
        """Forget update ids processed before this unix time; returns how many."""

    @abstractmethod
    async def create_game(
        self,
        chat_id: int,
        thread_id: int,
        creator_id: int,
        state: dict[str, Any],
        status: GameStatus = "lobby",
    ) -> StoredGame:
        """A new game at version 1; `GameExists` if the thread already has an unfinished one."""

    @abstractmethod
    async def save_game(
        self,
        game_id: int,
        *,
        expected_version: int,
        state: dict[str, Any],
        status: GameStatus,
        deadline: float | None,
    ) -> int:
        """Store a new state and return the new version (expected_version + 1).

        `VersionConflict` when the stored version is not `expected_version`.
        """

    @abstractmethod
    async def set_messages(
        self,
        game_id: int,
        *,
        table_message_id: int | Unset | None = UNSET,
        hand_messages: Mapping[int, int] | Unset | None = UNSET,
        shown_version: int | Unset = UNSET,
    ) -> None:
        """Record the ids of the live messages; does not bump the version.

        Arguments left UNSET are unchanged; `hand_messages` replaces the whole mapping
        (None clears it).
        """

    @abstractmethod
    async def set_seats(self, game_id: int, user_ids: Collection[int]) -> None:
        """Record who sits in the game now (replacing the previous list)."""

    @abstractmethod
    async def archive_log(
        self, game_id: int, start: int, entries: Sequence[Mapping[str, Any]]
    ) -> None:
        """Append log entries of the game, numbered from `start`, which must be the number of
        entries archived so far (a gap or an overlap is a `StorageError`)."""

    @abstractmethod
    async def ensure_player(
        self, chat_id: int, user_id: int, name: str, starting_balance: int
    ) -> Player:
        """The player, created with a grant of `starting_balance` if new; renamed if changed."""

    @abstractmethod
    async def upsert_user(
        self,
        user_id: int,
        name: str,
        *,
        language: str | Unset | None = UNSET,
        private_opened: bool | Unset = UNSET,
    ) -> User: ...

    @abstractmethod
    async def save_chat_settings(self, settings: ChatSettings) -> None: ...

    @abstractmethod
    async def apply_transfers(
        self,
        chat_id: int,
        game_id: int | None,
        round_no: int | None,
        transfers: Sequence[Transfer],
    ) -> None:
        """Move chips and write one ledger row per transfer, in order.

        `InsufficientFunds` if any balance or bank would go negative at any step; then nothing
        of this call is written (and the enclosing transaction is expected to roll back).
        """

    @abstractmethod
    async def add_stats(self, chat_id: int, user_id: int, delta: StatsDelta) -> None:
        """Add to the player's statistics (biggest_win keeps the maximum)."""


class Storage(Reads):
    """Owns the connection. Writes happen only through `transaction()`."""

    @abstractmethod
    async def start(self) -> None:
        """Open, check and migrate the database."""

    @abstractmethod
    async def stop(self) -> None: ...

    @abstractmethod
    def transaction(self) -> AbstractAsyncContextManager[Transaction]:
        """`async with storage.transaction() as tx:` commits on exit, rolls back on error."""

    @abstractmethod
    async def games_with_deadlines(self) -> list[tuple[int, float]]:
        """(game id, deadline) of every unfinished game with a running turn timer."""

    @abstractmethod
    async def stale_views(self) -> list[int]:
        """Unfinished games whose table message shows an older version than their state."""

    @abstractmethod
    async def stale_games(self, idle_before: float) -> list[int]:
        """Unfinished games not updated since `idle_before` (unix time)."""

    @abstractmethod
    async def leaderboard(
        self, chat_id: int, *, since: float | None = None, limit: int = 10
    ) -> list[LeaderboardRow]:
        """By balance; with `since`, by the net result won since that unix time."""

    @abstractmethod
    async def player_stats(self, chat_id: int, user_id: int) -> PlayerStats | None: ...

    @abstractmethod
    async def check_ledger(self, chat_id: int) -> LedgerCheck:
        """Proof of conservation: balances + open banks == everything ever granted."""

    @abstractmethod
    async def balance_history(self, chat_id: int, user_id: int) -> list[tuple[float, int]]:
        """(unix time, balance after) for every ledger movement of the player, oldest first."""
