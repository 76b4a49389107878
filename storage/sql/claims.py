"""What lets several processes share one database: due turn deadlines (the scheduler's table,
kind 'turn', storage/sql/deadlines.py) claimed by one process at a time, and named leases (a
chat's delivery, a periodic job) with an owner and an expiry.

Concurrency (PostgreSQL): claiming is one statement (on a pooled connection, a transaction of
its own). It locks the deadlines it picks (of unfinished games; the games' rows are read, not
locked) with FOR NO KEY UPDATE SKIP LOCKED in the subquery of one UPDATE … RETURNING: a
deadline another claimer (or a save of its game) holds is skipped, not waited for, and one
whose claim another claimer committed meanwhile fails the re-check PostgreSQL makes of a
locked row against the WHERE clause, so concurrent claimers get disjoint sets. hold_lease is
one INSERT … ON CONFLICT DO UPDATE whose WHERE decides on the lease's committed row: of two
concurrent takers of a free lease, the second waits for the first to commit and then finds it
live. Even when its WHERE refuses, it locks the lease's row until its transaction ends, so a
transaction that holds leases should be short (Storage.acquire_lease is one of its own). On
SQLite, with its single writer, each is simply one statement.
"""

from __future__ import annotations

from typing import Final

from storage.models import Lease
from storage.sql.base import TableReads, TableWrites
from storage.sql.deadlines import CLAIM_DUE, TURN

# Due turn deadlines of unfinished games, no live claim on them (see _claim_due).
_CLAIM_TURNS: Final = (
    "WITH due AS (SELECT kind, key FROM deadlines WHERE kind = $1 AND due <= $2 "
    " AND (claim_until IS NULL OR claim_until < $2) "
    " AND EXISTS (SELECT 1 FROM games WHERE games.game_id = CAST(deadlines.key AS BIGINT)"
    "  AND games.status <> 'finished') "
    " ORDER BY due, CAST(key AS BIGINT) LIMIT $5{lock_skip}) " + CLAIM_DUE
)


class LeaseReads(TableReads):
    async def lease(self, name: str) -> Lease | None:
        row = await self._row(
            "SELECT owner, expires_at, renewed_at, note FROM leases WHERE name = $1", name
        )
        return None if row is None else Lease(name, row[0], row[1], row[2], row[3])

    async def live_leases(self, prefix: str) -> list[Lease]:
        # substr rather than LIKE: a prefix may hold LIKE's wildcards. By name in the order of
        # code points whatever the database's collation.
        rows = await self._rows(
            "SELECT name, owner, expires_at, renewed_at, note FROM leases "
            "WHERE substr(name, 1, $1) = $2 AND expires_at >= $3 "
            "ORDER BY name{by_code_point}",
            len(prefix),
            prefix,
            self._clock(),
        )
        return [Lease(row[0], row[1], row[2], row[3], row[4]) for row in rows]

    async def _claim_due(
        self, now: float, owner: str, hold: float, limit: int
    ) -> list[tuple[int, float]]:
        """Claim the unfinished games whose turn deadline has passed and that no live claim
        holds (``owner``'s own included: a fire that failed is tried again once its claim runs
        out, not at every poll), each for ``owner`` until now + hold. Firing twice would be
        harmless (the second is refused as stale) but costs a transaction; a process that dies
        with a claim leaves it to run out; save_game and start_clock clear a game's claim."""
        rows = await self._rows(_CLAIM_TURNS, TURN, now, owner, now + hold, limit)
        # RETURNING comes in no particular order.
        return sorted(
            ((int(row[0]), row[1]) for row in rows), key=lambda claim: (claim[1], claim[0])
        )


class LeaseWrites(TableWrites):
    async def hold_lease(self, name: str, owner: str, ttl: float, note: str = "") -> bool:
        """Taken when free or run out, renewed when it is ``owner``'s; False while another
        owner's lease is live. What one process at a time may do (deliver a chat under its one
        flood budget, run a periodic job) is done by the holder; the note (what the next
        holder needs to go on from) survives the lease."""
        now = self._clock()
        rows = await self._rows(
            "INSERT INTO leases (name, owner, expires_at, renewed_at, note) "
            "VALUES ($1, $2, $3, $4, $5) ON CONFLICT (name) DO UPDATE SET "
            "owner = EXCLUDED.owner, expires_at = EXCLUDED.expires_at, "
            "renewed_at = EXCLUDED.renewed_at, note = EXCLUDED.note "
            "WHERE leases.owner = EXCLUDED.owner OR leases.expires_at < $4 RETURNING owner",
            name,
            owner,
            now + ttl,
            now,
            note,
        )
        return bool(rows)

    async def drop_lease(self, name: str, owner: str, note: str = "") -> None:
        # The row stays, run out, with the holder's last note.
        await self._execute(
            "UPDATE leases SET expires_at = $1, note = $2 WHERE name = $3 AND owner = $4",
            self._clock() - 1,
            note,
            name,
            owner,
        )
