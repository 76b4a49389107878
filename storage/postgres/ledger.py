"""Players' balances, the ledger every chip movement is written to, and the daily refills.

Concurrency (READ COMMITTED, several processes): balances are read, checked in memory and
written back as absolute values, which is safe only because the rows are locked first:
apply_transfers locks the players it touches (by user id), then the games (by game id), with
SELECT … FOR NO KEY UPDATE, and refill locks its player. A concurrent writer of the same rows
waits for the lock, and the balance PostgreSQL returns once it has it is the committed one; the
fixed order keeps two transfers between the same accounts from deadlocking each other. Every
check happens before the first write, so a refused call (InsufficientFunds, UnknownAccount)
writes nothing and raises no database error: the enclosing transaction stays usable, as in the
SQLite backend. ensure_player creates with INSERT … ON CONFLICT DO NOTHING, which waits for a
concurrent creator of the same player and then yields to it (one grant, not two).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from storage.errors import ConcurrencyConflict, GameNotFound, InsufficientFunds, UnknownAccount
from storage.models import Account, LedgerCheck, Player, Refill, Transfer
from storage.postgres.base import PostgresReads, dumps
from storage.postgres.block import TransactionBlock

_FIND_PLAYER: Final = "SELECT name, balance FROM players WHERE chat_id = $1 AND user_id = $2"
# The player and the ledger row of its starting grant, in one statement: both or neither.
_CREATE_PLAYER: Final = (
    "WITH created AS (INSERT INTO players (chat_id, user_id, name, balance, created_at) "
    " VALUES ($1, $2, $3, $4, $5) ON CONFLICT (chat_id, user_id) DO NOTHING RETURNING balance), "
    # Every chip in a balance comes from a ledger row: this is what check_ledger sums.
    "granted AS (INSERT INTO ledger (chat_id, source_kind, source_id, target_kind, target_id, "
    " amount, reason, target_after, created_at) "
    " SELECT $1, 'grant', 0, 'player', $2, balance, 'starting balance', balance, $5 "
    " FROM created WHERE balance > 0) "
    "SELECT balance FROM created"
)
_LOCK_PLAYERS: Final = (
    "SELECT user_id, balance FROM players WHERE chat_id = $1 "
    "AND user_id IN (SELECT jsonb_array_elements_text($2::jsonb)::bigint) "
    "ORDER BY user_id FOR NO KEY UPDATE"
)
# The banks, and the game the ledger rows name (the one foreign key of the writes): locked in
# game id order after the players.
_LOCK_GAMES: Final = (
    "SELECT game_id, chat_id, bank FROM games "
    "WHERE game_id IN (SELECT jsonb_array_elements_text($1::jsonb)::bigint) "
    "ORDER BY game_id FOR NO KEY UPDATE"
)
# Every row of a batch of transfers in one statement: the ledger rows (in order, so entry ids
# follow the transfers), the players' and the banks' new balances.
_WRITE_TRANSFERS: Final = (
    "WITH entries AS (INSERT INTO ledger (chat_id, game_id, round_no, source_kind, source_id, "
    " target_kind, target_id, amount, reason, source_after, target_after, created_at) "
    " SELECT $1::bigint, $2::bigint, $3::integer, e.source_kind, e.source_id, e.target_kind, "
    " e.target_id, e.amount, e.reason, e.source_after, e.target_after, $4::double precision "
    " FROM jsonb_to_recordset($5::jsonb) AS e (n integer, source_kind text, source_id bigint, "
    " target_kind text, target_id bigint, amount bigint, reason text, source_after bigint, "
    " target_after bigint) ORDER BY e.n), "
    "balances AS (UPDATE players SET balance = v.balance "
    " FROM jsonb_to_recordset($6::jsonb) AS v (user_id bigint, balance bigint) "
    " WHERE players.chat_id = $1 AND players.user_id = v.user_id), "
    "banks AS (UPDATE games SET bank = v.bank "
    " FROM jsonb_to_recordset($7::jsonb) AS v (game_id bigint, bank bigint) "
    " WHERE games.game_id = v.game_id) "
    "SELECT 1"
)


class LedgerReads(PostgresReads):
    """Reads of players and the ledger, shared by the storage object and its transactions."""

    async def get_player(self, chat_id: int, user_id: int) -> Player | None:
        row = await self._row(_FIND_PLAYER, chat_id, user_id)
        if row is None:
            return None
        return Player(chat_id, user_id, row[0], row[1])

    async def player_chats(self, user_id: int) -> list[Player]:
        rows = await self._rows(
            "SELECT chat_id, name, balance FROM players WHERE user_id = $1 "
            "ORDER BY balance DESC, chat_id",
            user_id,
        )
        return [Player(row[0], user_id, row[1], row[2]) for row in rows]

    async def last_refill(self, chat_id: int, user_id: int) -> float | None:
        row = await self._row(
            "SELECT max(created_at) FROM ledger WHERE chat_id = $1 AND source_kind = 'issue' "
            "AND target_id = $2",
            chat_id,
            user_id,
        )
        return None if row is None or row[0] is None else float(row[0])


class LedgerQueries(PostgresReads):
    """Reads of the storage object only: the books of a chat and a player's balance history."""

    async def check_ledger(self, chat_id: int) -> LedgerCheck:
        # One statement, hence one snapshot: the four sums cannot straddle a commit.
        row = await self._row(
            "SELECT "
            " (SELECT coalesce(sum(CASE WHEN source_kind = 'grant' THEN amount ELSE 0 END), 0)"
            "       - coalesce(sum(CASE WHEN target_kind = 'grant' THEN amount ELSE 0 END), 0)"
            "  FROM ledger WHERE chat_id = $1)::bigint,"
            " (SELECT coalesce(sum(balance), 0) FROM players WHERE chat_id = $1)::bigint,"
            " (SELECT coalesce(sum(bank), 0) FROM games"
            "  WHERE chat_id = $1 AND status <> 'finished')::bigint,"
            " (SELECT coalesce(sum(CASE WHEN source_kind = 'issue' THEN amount ELSE 0 END), 0)"
            "       - coalesce(sum(CASE WHEN target_kind = 'issue' THEN amount ELSE 0 END), 0)"
            "  FROM ledger WHERE chat_id = $1)::bigint",
            chat_id,
        )
        assert row is not None
        granted, balances, banks, issued = (int(row[n]) for n in range(4))
        return LedgerCheck(
            chat_id, granted, balances, banks, granted + issued == balances + banks, issued
        )

    async def balance_history(self, chat_id: int, user_id: int) -> list[tuple[float, int]]:
        rows = await self._rows(
            "SELECT created_at, CASE WHEN target_kind = 'player' AND target_id = $2 "
            "THEN target_after ELSE source_after END FROM ledger "
            "WHERE chat_id = $1 AND ((source_kind = 'player' AND source_id = $2) "
            "OR (target_kind = 'player' AND target_id = $2)) ORDER BY entry_id",
            chat_id,
            user_id,
        )
        return [(row[0], row[1]) for row in rows]


class LedgerWrites(TransactionBlock):
    """Chips entering a chat (grants, refills) and moving inside it, inside a transaction."""

    async def ensure_player(
        self, chat_id: int, user_id: int, name: str, starting_balance: int
    ) -> Player:
        # Twice at most: a player created by another transaction in between is renamed on the
        # second pass, one migrated away in between is created anew.
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
            created = await self._row(
                _CREATE_PLAYER, chat_id, user_id, name, starting_balance, self._clock()
            )
            if created is not None:
                return Player(chat_id, user_id, name, created[0])
        raise ConcurrencyConflict(
            f"player {user_id} of chat {chat_id} kept changing while it was created; run again"
        )

    async def refill(self, chat_id: int, user_id: int, up_to: int, *, period: float) -> Refill:
        if up_to < 0 or not period > 0:
            raise ValueError(f"a refill needs up_to >= 0 and period > 0, got {up_to}, {period}")
        # The player's row is locked before the last refill is read: a concurrent refill of
        # the same player has committed by then, and the read below (a statement of its own,
        # hence a fresh snapshot) sees its ledger row.
        row = await self._row(
            "SELECT balance FROM players WHERE chat_id = $1 AND user_id = $2 FOR NO KEY UPDATE",
            chat_id,
            user_id,
        )
        if row is None:
            raise UnknownAccount(chat_id, Account.player(user_id))
        balance = int(row[0])
        last = await self.last_refill(chat_id, user_id)
        now = self._clock()
        next_at = None if last is None else last + period
        if balance >= up_to or (next_at is not None and now < next_at):
            return Refill(0, balance, next_at)
        amount = up_to - balance
        await self._execute(
            "WITH issued AS (INSERT INTO ledger (chat_id, source_kind, source_id, target_kind, "
            " target_id, amount, reason, target_after, created_at) "
            " VALUES ($1, 'issue', 0, 'player', $2, $3, 'daily refill', $4, $5)) "
            "UPDATE players SET balance = $4 WHERE chat_id = $1 AND user_id = $2",
            chat_id,
            user_id,
            amount,
            up_to,
            now,
        )
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
        balances: dict[Account, int] = {}
        if users:
            for row in await self._rows(_LOCK_PLAYERS, chat_id, dumps(sorted(users))):
                balances[Account.player(row[0])] = row[1]
        games = banks if game_id is None else banks | {game_id}
        found_games: set[int] = set()
        if games:
            for row in await self._rows(_LOCK_GAMES, dumps(sorted(games))):
                found_games.add(row[0])
                if row[0] in banks and row[1] == chat_id:  # another chat's bank is not ours
                    balances[Account.bank(row[0])] = row[2]
        entries: list[dict[str, object]] = []
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
            entries.append(
                {
                    "n": len(entries),
                    "source_kind": source.kind,
                    "source_id": source.id,
                    "target_kind": target.kind,
                    "target_id": target.id,
                    "amount": amount,
                    "reason": transfer.reason,
                    "source_after": source_after,
                    "target_after": target_after,
                }
            )
        if game_id is not None and game_id not in found_games:
            raise GameNotFound(game_id)
        players = [
            {"user_id": a.id, "balance": b} for a, b in balances.items() if a.kind == "player"
        ]
        bank_rows = [{"game_id": a.id, "bank": b} for a, b in balances.items() if a.kind == "bank"]
        await self._execute(
            _WRITE_TRANSFERS,
            chat_id,
            game_id,
            round_no,
            self._clock(),
            dumps(entries),
            dumps(players),
            dumps(bank_rows),
        )
