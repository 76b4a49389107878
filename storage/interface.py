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
    Lease,
    LedgerCheck,
    Player,
    PlayerStats,
    Refill,
    Screen,
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
    async def load_game(
        self, game_id: int, *, known: tuple[int, dict[str, Any]] | None = None
    ) -> StoredGame | None:
        """The game. ``known``: a (version, state) the caller holds already; when the stored
        version is that one, the state is that same dict, not decoded again (so the caller
        must treat it as read-only, as every holder of a stored state does)."""

    @abstractmethod
    async def load_active_game(self, chat_id: int, thread_id: int) -> StoredGame | None:
        """The chat thread's game in the lobby or in play, if any."""

    @abstractmethod
    async def is_processed(self, update_id: int) -> bool: ...

    @abstractmethod
    async def player_chats(self, user_id: int) -> list[Player]:
        """The user's seat in every chat he ever played in, the biggest balance first."""

    @abstractmethod
    async def seated_games(self, user_id: int) -> list[int]:
        """The unfinished games the user sits in, oldest first."""

    @abstractmethod
    async def archived_log(self, game_id: int) -> list[dict[str, Any]]:
        """The entries `Transaction.archive_log` stored for the game, in order (may be empty)."""

    @abstractmethod
    async def load_screen(self, game_id: int) -> Screen:
        """What delivery recorded it showed of the game (the defaults when nothing)."""

    @abstractmethod
    async def shown_digest(self, chat_id: int, message_id: int) -> str | None:
        """The digest `Transaction.record_shown` last stored for the message, or None.

        It outlives the process, so that after a restart an edit that would show exactly what
        the message already shows can be skipped: Telegram refuses it ("message is not
        modified"), which costs a request and, under flood limits, a slot.
        """

    @abstractmethod
    async def lease(self, name: str) -> Lease | None:
        """The named lease as its last holder left it (live, given up or run out), or None
        if nobody ever held it."""

    @abstractmethod
    async def live_leases(self, prefix: str) -> list[Lease]:
        """The leases whose name starts with ``prefix`` and that have not run out (by the
        storage's clock), by name: e.g. the processes alive, each holding its own."""

    @abstractmethod
    async def deadlines(self, kind: str) -> list[tuple[str, float]]:
        """(key, due) of every kept deadline of ``kind`` (`Transaction.save_deadline`),
        claimed or not, the earliest first."""

    @abstractmethod
    async def last_refill(self, chat_id: int, user_id: int) -> float | None:
        """When the player was last refilled in this chat (unix time), or None."""


class Transaction(Reads):
    """One atomic unit of work; valid only inside `async with storage.transaction()`."""

    @abstractmethod
    async def claim_update(self, update_id: int) -> bool:
        """Record the update id; False when it was already processed (abandon the action)."""

    @abstractmethod
    async def prune_processed(self, before: float) -> int:
        """Forget update ids processed before this unix time; returns how many.

        A pruned id can be claimed again: prune only ids older than Telegram could redeliver.
        """

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
    async def set_screen(
        self,
        game_id: int,
        *,
        table_since: int | Unset = UNSET,
        table_message_id: int | Unset | None = UNSET,
        hand_messages: Mapping[int, int] | Unset = UNSET,
        shown_version: int | Unset = UNSET,
        posted_seq: int | Unset = UNSET,
        mentioned_since: int | Unset = UNSET,
    ) -> None:
        """Delivery's record of what it showed of the game (`Screen`), written by delivery
        alone and apart from the game: the game's row and version are untouched.

        Arguments left UNSET are unchanged. A table message is recorded with the `table_since`
        it was posted for, and is kept only if that is not older than the recorded one (a
        late write of an older round's table does not replace a newer one; `shown_version`
        given with it follows the same rule). `hand_messages` replaces the whole mapping.
        `posted_seq` only ever grows: a value below the stored one is ignored, so that a late
        writer of an older progress cannot make results be posted twice; `mentioned_since`
        only grows too. `GameNotFound` if the game does not exist.
        """

    @abstractmethod
    async def start_clock(self, game_id: int, version: int, deadline: float) -> bool:
        """Start the turn timer once the prompt has been delivered: keep the game's deadline
        (the scheduler's table, kind 'turn') only if the game is still at `version`, not
        finished and has no deadline yet. The game's own row is not written.

        The player's time should run from when they can see the prompt, not from when the
        move was saved; the checks make it a no-op when anything happened since (a newer
        version, a timer already running, a finished game). Returns whether it set the
        deadline; False too for a game that does not exist. Does not bump the version nor
        touch updated_at (delivering is not activity).
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
    async def refill(self, chat_id: int, user_id: int, up_to: int, *, period: float) -> Refill:
        """Issue chips from `Account.ISSUE` to bring the player's balance up to `up_to`, unless
        the player's last refill in this chat is less than `period` seconds old.

        Idempotent by construction: the last refill is read from the ledger inside the same
        transaction that writes the next one, so a repeated or concurrent call within the
        period issues nothing (transactions are serialised), and a crash leaves either both
        the ledger row and the balance or neither. A balance already at `up_to` or above is
        left as it is and does not use up the period. `UnknownAccount` if the player does not
        exist; ValueError for a negative `up_to` or a `period` that is not positive.
        """

    @abstractmethod
    async def hold_lease(self, name: str, owner: str, ttl: float, note: str = "") -> bool:
        """Hold the named lease for ``owner`` until clock() + ttl, with ``note``: taken when
        free or run out, renewed when it is already ``owner``'s. False while another owner's
        lease is live (then nothing changes).

        What only one process at a time may do (deliver a chat's messages under the chat's
        one flood budget; run a periodic job) is done by the lease's holder. The note is the
        holder's to fill (what the next holder needs to go on from) and survives the lease.
        """

    @abstractmethod
    async def drop_lease(self, name: str, owner: str, note: str = "") -> None:
        """Give the lease up if ``owner`` holds it, leaving ``note``, so that another process
        may take it at once."""

    @abstractmethod
    async def save_deadline(self, kind: str, key: str, due: float) -> None:
        """Keep a deadline that outlives the process (the scheduler's, `bot.scheduler`), under
        (kind, key): a new one, or a new time for the key's, whose claim is then cleared."""

    @abstractmethod
    async def drop_deadline(self, kind: str, key: str, due: float | None = None) -> bool:
        """Forget the deadline (only if it is still at ``due``, when given: one kept again
        meanwhile stays); whether there was one to forget."""

    @abstractmethod
    async def upsert_user(
        self,
        user_id: int,
        name: str,
        *,
        language: str | Unset | None = UNSET,
        private_opened: bool | Unset = UNSET,
        client_language: str | Unset | None = UNSET,
    ) -> User: ...

    @abstractmethod
    async def lock_chat(self, chat_id: int) -> None:
        """Lock the chat's settings row until the transaction ends, before reading settings
        that it then saves: a concurrent change of the chat's settings in another process
        (PostgreSQL) waits, and then reads what this one saved. Nothing on SQLite, whose
        transactions run one at a time."""

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

    @abstractmethod
    async def migrate_chat(self, old_chat_id: int, new_chat_id: int) -> list[int]:
        """Move everything of a chat to its new id; the ids of the unfinished games moved.

        A Telegram group upgraded to a supergroup gets a new chat id, and the old one receives
        nothing more: without this the chat would lose its balances, statistics, settings and
        running games. Moved: the settings, the players with their balances, the ledger,
        statistics and stat events, every game (any status; game ids, thread ids, messages and
        seats kept) and the shown-message digests.

        The new id may already have rows, written by updates that arrived there before the
        migration was handled. They are merged without losing a chip: a player in both chats
        gets the sum of both balances (both grants stay in the ledger, so the new chat's ledger
        check holds, and the ledger's balance-after values of that player are rewritten to
        the combined balance, so that the balance history ends at the balance), statistics
        are added (biggest_win: the maximum), the name is the new chat's. Settings: the chats
        table has no timestamp, but any settings row of the new id was necessarily saved
        after the upgrade, so the new chat's row, if there is one, wins whole; otherwise the
        old chat's settings are moved. A digest of the same message id in both keeps the new
        chat's (that is the message the new id names).

        `GameExists` if a thread has an unfinished game under both ids (two open games in one
        thread cannot be merged); nothing of this call is written then: settle one of them and
        call again. Idempotent: once the old id is empty, a call returns [] and changes nothing
        (a later call moves whatever was written under the old id meanwhile). Both ids'
        cached settings are invalidated. ValueError if the two ids are equal.
        """

    @abstractmethod
    async def record_shown(self, chat_id: int, message_id: int, digest: str) -> None:
        """Remember what the message shows now (replacing what it showed), stamped now.

        Record it once Telegram has accepted the send or edit, not before: were it recorded
        first, a crash before the edit would make the edit look needless forever. See
        `Reads.shown_digest`.
        """

    @abstractmethod
    async def forget_shown(self, chat_id: int, message_ids: Collection[int]) -> None:
        """Forget the digests of these messages (deleted, or replaced by new messages), so
        that the table does not grow with every round."""

    @abstractmethod
    async def prune_shown(self, before: float) -> int:
        """Forget digests recorded before this unix time; returns how many.

        Messages that old are not edited any more; were one edited anyway, the cost of a
        forgotten digest is one edit that Telegram may answer with "message is not modified".
        """


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
    async def games_awaiting_clock(self) -> list[int]:
        """Active games whose turn timer is not running (no deadline kept), by game id.

        A crash between saving a move and delivering its prompt leaves the clock unstarted
        (`Transaction.start_clock` starts it on delivery): at start-up their prompt is
        delivered again. Games in a phase with no timer have no deadline either and are listed
        too: the caller decides from the state whether a prompt is due.
        """

    @abstractmethod
    async def claim_due(
        self, now: float, owner: str, hold: float, limit: int = 50
    ) -> list[tuple[int, float]]:
        """Claim the unfinished games whose turn deadline has passed (deadline <= now) and that
        no live claim holds (``owner``'s own included: a fire that failed is tried again once
        its claim runs out, not at every poll); each is held for ``owner`` until now + hold.

        Several bot processes may share the database: whichever is alive fires a due
        deadline, and a claim keeps the others from firing it at the same moment (firing
        twice would be harmless, the second is refused as stale, but costs a transaction).
        A process that dies with a claim leaves it to run out. ``save_game`` and
        ``start_clock`` clear a game's claim. Returns (game id, deadline), the earliest
        deadline first, at most ``limit``; concurrent callers get disjoint sets. One
        transaction of its own.
        """

    @abstractmethod
    async def claim_deadlines(
        self, kind: str, now: float, owner: str, hold: float, limit: int = 50
    ) -> list[tuple[str, float]]:
        """Claim the kept deadlines of ``kind`` that are due (due <= now) and that no live claim
        of another owner holds, each for ``owner`` until now + hold: with replicas, whichever
        process is alive runs a due deadline, and only the one that claimed it. A process that
        dies with a claim leaves it to run out; ``owner``'s own claims are claimed again (it
        keeps track of what it is running itself). Returns (key, due), the earliest first, at
        most ``limit``; concurrent callers get disjoint sets. One transaction of its own.
        """

    async def acquire_lease(self, name: str, owner: str, ttl: float, note: str = "") -> bool:
        """`Transaction.hold_lease` in a transaction of its own."""
        async with self.transaction() as tx:
            return await tx.hold_lease(name, owner, ttl, note)

    async def release_lease(self, name: str, owner: str, note: str = "") -> None:
        """`Transaction.drop_lease` in a transaction of its own."""
        async with self.transaction() as tx:
            await tx.drop_lease(name, owner, note)

    @abstractmethod
    async def games_updated_since(self, since: float) -> list[tuple[int, int, int]]:
        """(game id, chat id, version) of every game saved at or after ``since`` (unix time, by
        the writers' clocks), finished ones included, by game id.

        The process that delivers a chat learns this way of the versions other processes
        committed there (see `acquire_lease`).
        """

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
        """By balance (a banker's with the bank he holds); with `since`, by the net result won
        since that unix time."""

    @abstractmethod
    async def held_bank(self, chat_id: int, user_id: int) -> int:
        """The chips in the banks of the chat's unfinished games that ``user_id`` is banking."""

    @abstractmethod
    async def player_stats(self, chat_id: int, user_id: int) -> PlayerStats | None: ...

    @abstractmethod
    async def check_ledger(self, chat_id: int) -> LedgerCheck:
        """Proof of conservation: balances + open banks == everything ever granted or issued."""

    @abstractmethod
    async def balance_history(self, chat_id: int, user_id: int) -> list[tuple[float, int]]:
        """(unix time, balance after) for every ledger movement of the player, oldest first."""
