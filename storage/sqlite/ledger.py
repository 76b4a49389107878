"""Players' balances, the ledger every chip movement is written to, and the daily refills."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from storage.errors import InsufficientFunds, UnknownAccount
from storage.models import Account, LedgerCheck, Player, Refill, Transfer
from storage.sqlite.base import SqliteReads
from storage.sqlite.block import TransactionBlock

_INSERT_LEDGER: Final = (
    "INSERT INTO ledger (chat_id, game_id, round_no, source_kind, source_id, "
    "target_kind, target_id, amount, reason, source_after, target_after, created_at) "
    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)
_UPDATE_BALANCE: Final = "UPDATE players SET balance = ? WHERE chat_id = ? AND user_id = ?"
_UPDATE_BANK: Final = "UPDATE games SET bank = ? WHERE game_id = ?"

# Kinds of the rows of the balance query of apply_transfers.
_PLAYER, _BANK = 0, 1


def _balances_sql(players: int, banks: int) -> str:
    """One SELECT for every account a batch touches."""
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
    return " UNION ALL ".join(parts)


class LedgerReads(SqliteReads):
    """Reads of players and the ledger, shared by the storage object and its transactions."""

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

    async def last_refill(self, chat_id: int, user_id: int) -> float | None:
        row = await self._row(
            "SELECT max(created_at) FROM ledger WHERE chat_id = ? AND source_kind = 'issue' "
            "AND target_id = ?",
            (chat_id, user_id),
        )
        return None if row is None or row[0] is None else float(row[0])


class LedgerQueries(SqliteReads):
    """Reads of the storage object only: the books of a chat and a player's balance history."""

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


class LedgerWrites(TransactionBlock):
    """Chips entering a chat (grants, refills) and moving inside it, inside a transaction."""

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
            row_ = (chat_id, None, None, "grant", 0, "player", user_id, starting_balance)
            await self._execute(
                _INSERT_LEDGER, (*row_, "starting balance", None, starting_balance, now)
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
        # One statement reads every balance the batch touches.
        balances: dict[Account, int] = {}
        rows = await self._rows(_balances_sql(len(users), len(banks)), params) if params else []
        for kind, key, amount in rows:
            balances[Account("player" if kind == _PLAYER else "bank", key)] = amount
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
        # A ledger game that does not exist: the insert raises the foreign key's IntegrityError.
        await self._executemany(_INSERT_LEDGER, ledger_rows)
        if player_rows:
            await self._executemany(_UPDATE_BALANCE, player_rows)
        if bank_rows:
            await self._executemany(_UPDATE_BANK, bank_rows)
