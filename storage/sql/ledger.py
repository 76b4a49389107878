"""Players' balances, the ledger every chip movement is written to, and the daily refills.

Balances are read, checked in memory and written back as absolute values. On PostgreSQL (READ
COMMITTED, several processes) that is safe only because the rows are locked first:
apply_transfers locks the players it touches (by user id), then the games (by game id), with
SELECT … FOR NO KEY UPDATE, and refill locks its player. A concurrent writer of the same rows
waits for the lock, and the balance PostgreSQL returns once it has it is the committed one; the
fixed order keeps two transfers between the same accounts from deadlocking each other. On
SQLite the lock clauses are empty: BEGIN IMMEDIATE holds the only write lock. Every check
happens before the first write, so a refused call (InsufficientFunds, UnknownAccount,
GameNotFound) writes nothing and raises no database error: the enclosing transaction stays
usable. ensure_player creates with INSERT … ON CONFLICT DO NOTHING, which waits for a
concurrent creator of the same player and then yields to it (one grant, not two).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import Final

from storage.errors import ConcurrencyConflict, GameNotFound, InsufficientFunds, UnknownAccount
from storage.models import Account, LedgerCheck, Player, Refill, Transfer
from storage.sql.base import TableReads, TableWrites
from storage.sql.dialect import placeholders

_FIND_PLAYER: Final = "SELECT name, balance FROM players WHERE chat_id = $1 AND user_id = $2"
_LOCK_PLAYER: Final = _FIND_PLAYER + "{lock}"
_UPDATE_BALANCE: Final = "UPDATE players SET balance = $1 WHERE chat_id = $2 AND user_id = $3"
_LAST_REFILL: Final = (
    "SELECT max(created_at) FROM ledger WHERE chat_id = $1 AND source_kind = 'issue' "
    "AND target_id = $2"
)


@cache
def _lock_players(count: int) -> str:
    """The balances of chat $1's players $2, $3, …, locked in user id order."""
    return (
        "SELECT user_id, balance FROM players WHERE chat_id = $1 "
        f"AND user_id IN ({placeholders(2, count)}) ORDER BY user_id{{lock}}"
    )


@cache
def _lock_games(count: int) -> str:
    """Games $1, $2, … (their chat and bank), locked in game id order after the players."""
    return (
        "SELECT game_id, chat_id, bank FROM games "
        f"WHERE game_id IN ({placeholders(1, count)}) ORDER BY game_id{{lock}}"
    )


@cache
def _insert_ledger(count: int) -> str:
    """count ledger rows in one INSERT, twelve parameters each."""
    values = ", ".join(f"({placeholders(1 + 12 * n, 12)})" for n in range(count))
    return (
        "INSERT INTO ledger (chat_id, game_id, round_no, source_kind, source_id, target_kind, "
        f"target_id, amount, reason, source_after, target_after, created_at) VALUES {values}"
    )


@cache
def _set_amounts(table: str, column: str, key: str, count: int) -> str:
    """Set ``column`` of rows by ``key``: (key, amount) pairs from $2 on, of chat $1's rows
    (players), or from $1 on (games)."""
    first = 2 if table == "players" else 1
    pairs = [(f"${first + 2 * n}", f"${first + 1 + 2 * n}") for n in range(count)]
    cases = " ".join(f"WHEN {k} THEN CAST({v} AS BIGINT)" for k, v in pairs)
    keys = ", ".join(k for k, _ in pairs)
    chat = "chat_id = $1 AND " if table == "players" else ""
    return f"UPDATE {table} SET {column} = CASE {key} {cases} END WHERE {chat}{key} IN ({keys})"


class LedgerReads(TableReads):
    async def get_player(self, chat_id: int, user_id: int) -> Player | None:
        row = await self._row(_FIND_PLAYER, chat_id, user_id)
        return None if row is None else Player(chat_id, user_id, row[0], row[1])

    async def player_chats(self, user_id: int) -> list[Player]:
        rows = await self._rows(
            "SELECT chat_id, name, balance FROM players WHERE user_id = $1 "
            "ORDER BY balance DESC, chat_id",
            user_id,
        )
        return [Player(row[0], user_id, row[1], row[2]) for row in rows]

    async def last_refill(self, chat_id: int, user_id: int) -> float | None:
        row = await self._row(_LAST_REFILL, chat_id, user_id)
        return None if row is None or row[0] is None else float(row[0])


class LedgerQueries(TableReads):
    async def check_ledger(self, chat_id: int) -> LedgerCheck:
        """Proof of conservation: balances + open banks == everything granted or issued."""
        # One statement, hence one snapshot: the four sums cannot straddle a commit. (Sums of
        # BIGINT are NUMERIC in PostgreSQL: cast back, so that they come out as ints.)
        row = await self._row(
            "SELECT "
            " CAST((SELECT coalesce(sum(CASE WHEN source_kind = 'grant' THEN amount ELSE 0 END), 0)"
            "       - coalesce(sum(CASE WHEN target_kind = 'grant' THEN amount ELSE 0 END), 0)"
            "  FROM ledger WHERE chat_id = $1) AS BIGINT),"
            " CAST((SELECT coalesce(sum(balance), 0) FROM players WHERE chat_id = $1) AS BIGINT),"
            " CAST((SELECT coalesce(sum(bank), 0) FROM games"
            "  WHERE chat_id = $1 AND status <> 'finished') AS BIGINT),"
            " CAST((SELECT coalesce(sum(CASE WHEN source_kind = 'issue' THEN amount ELSE 0 END), 0)"
            "       - coalesce(sum(CASE WHEN target_kind = 'issue' THEN amount ELSE 0 END), 0)"
            "  FROM ledger WHERE chat_id = $1) AS BIGINT)",
            chat_id,
        )
        assert row is not None
        granted, balances, banks, issued = (int(row[n]) for n in range(4))
        return LedgerCheck(
            chat_id, granted, balances, banks, granted + issued == balances + banks, issued
        )

    async def balance_history(self, chat_id: int, user_id: int) -> list[tuple[float, int]]:
        return await self._tuples(
            "SELECT created_at, CASE WHEN target_kind = 'player' AND target_id = $2 "
            "THEN target_after ELSE source_after END FROM ledger "
            "WHERE chat_id = $1 AND ((source_kind = 'player' AND source_id = $2) "
            "OR (target_kind = 'player' AND target_id = $2)) ORDER BY entry_id",
            chat_id,
            user_id,
        )


class LedgerWrites(LedgerReads, TableWrites):
    async def ensure_player(
        self, chat_id: int, user_id: int, name: str, starting_balance: int
    ) -> Player:
        # Twice at most (PostgreSQL): a player created by another transaction in between is
        # renamed on the second pass, one migrated away in between is created anew.
        for _ in range(2):
            row = await self._row(_FIND_PLAYER, chat_id, user_id)
            if row is not None:
                if row[0] == name:
                    return Player(chat_id, user_id, name, row[1])
                renamed = await self._row(
                    "UPDATE players SET name = $3 WHERE chat_id = $1 AND user_id = $2 "
                    "RETURNING balance",
                    chat_id,
                    user_id,
                    name,
                )
                if renamed is not None:
                    return Player(chat_id, user_id, name, renamed[0])
                continue
            if starting_balance < 0:
                raise ValueError(f"a starting balance cannot be negative, got {starting_balance}")
            now = self._clock()
            created = await self._row(
                "INSERT INTO players (chat_id, user_id, name, balance, created_at) "
                "VALUES ($1, $2, $3, $4, $5) ON CONFLICT (chat_id, user_id) DO NOTHING "
                "RETURNING balance",
                chat_id,
                user_id,
                name,
                starting_balance,
                now,
            )
            if created is None:
                continue
            if starting_balance > 0:
                # Every chip in a balance comes from a ledger row: this is what check_ledger
                # sums.
                await self._execute(
                    _insert_ledger(1),
                    *(chat_id, None, None, "grant", 0, "player", user_id, starting_balance),
                    *("starting balance", None, starting_balance, now),
                )
            return Player(chat_id, user_id, name, starting_balance)
        raise ConcurrencyConflict(
            f"player {user_id} of chat {chat_id} kept changing while it was created; run again"
        )

    async def refill(self, chat_id: int, user_id: int, up_to: int, *, period: float) -> Refill:
        """Issue chips to bring the balance up to `up_to`, unless the last refill in this chat
        is less than `period` seconds old. Idempotent by construction: the last refill is read
        from the ledger in the transaction that writes the next one, so a repeated or
        concurrent call within the period issues nothing, and a crash leaves both the ledger
        row and the balance or neither. A balance already at `up_to` does not use up the
        period."""
        if up_to < 0 or not period > 0:
            raise ValueError(f"a refill needs up_to >= 0 and period > 0, got {up_to}, {period}")
        # The player's row is locked before the last refill is read: a concurrent refill of
        # the same player has committed by then, and the read below (a statement of its own,
        # hence a fresh snapshot) sees its ledger row.
        row = await self._row(_LOCK_PLAYER, chat_id, user_id)
        if row is None:
            raise UnknownAccount(chat_id, Account.player(user_id))
        balance = int(row[1])
        last = await self.last_refill(chat_id, user_id)
        now = self._clock()
        next_at = None if last is None else last + period
        if balance >= up_to or (next_at is not None and now < next_at):
            return Refill(0, balance, next_at)
        amount = up_to - balance
        await self._execute(
            _insert_ledger(1),
            *(chat_id, None, None, "issue", 0, "player", user_id, amount, "daily refill"),
            *(None, up_to, now),
        )
        await self._execute(_UPDATE_BALANCE, up_to, chat_id, user_id)
        return Refill(amount, up_to, now + period)

    async def apply_transfers(
        self, chat_id: int, game_id: int | None, round_no: int | None, transfers: Sequence[Transfer]
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
        balances, game_found = await self._lock_accounts(chat_id, game_id, users, banks)
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
            # Assigned only once both sides are known good: a refused transfer changes nothing.
            if source_after is not None:
                balances[source] = source_after
            if target_after is not None:
                balances[target] = target_after
            ledger_rows.append(
                (
                    *(chat_id, game_id, round_no, source.kind, source.id, target.kind),
                    *(target.id, amount, transfer.reason, source_after, target_after, now),
                )
            )
        if game_id is not None and not game_found:
            raise GameNotFound(game_id)
        players = [(a.id, b) for a, b in balances.items() if a.kind == "player"]
        banks_after = [(a.id, b) for a, b in balances.items() if a.kind == "bank"]
        # The ledger rows in one INSERT, in order (the entry ids follow the transfers), and the
        # new balances in one UPDATE per table.
        writes: list[tuple[str, Sequence[object]]] = [
            (_insert_ledger(len(ledger_rows)), [v for row in ledger_rows for v in row])
        ]
        for table, column, key, rows, first in (
            ("players", "balance", "user_id", players, [chat_id]),
            ("games", "bank", "game_id", banks_after, []),
        ):
            if rows:
                values = [*first, *(v for row in rows for v in row)]
                writes.append((_set_amounts(table, column, key, len(rows)), values))
        await self._execute_all(writes)

    async def _lock_accounts(
        self, chat_id: int, game_id: int | None, users: set[int], banks: set[int]
    ) -> tuple[dict[Account, int], bool]:
        """The balances of the players and banks a batch touches, their rows locked players
        first, then games, each in id order (on PostgreSQL); and whether the game the ledger
        rows name (their one foreign key), if any, exists."""
        balances: dict[Account, int] = {}
        if users:
            ordered = sorted(users)
            rows = await self._rows(_lock_players(len(ordered)), chat_id, *ordered)
            for row in rows:
                balances[Account.player(row[0])] = row[1]
        games = sorted(banks if game_id is None else banks | {game_id})
        found: set[int] = set()
        if games:
            rows = await self._rows(_lock_games(len(games)), *games)
            for row in rows:
                found.add(row[0])
                if row[0] in banks and row[1] == chat_id:  # another chat's bank is not ours
                    balances[Account.bank(row[0])] = row[2]
        return balances, game_id is None or game_id in found
