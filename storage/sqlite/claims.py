"""What lets several processes share one database: due turn deadlines claimed by one process
at a time, and named leases (a chat's delivery, a periodic job) with an owner and an expiry."""

from __future__ import annotations

from collections.abc import Callable

from storage.models import Lease
from storage.sqlite.base import SqliteReads
from storage.sqlite.block import TransactionBlock


class LeaseReads(SqliteReads):
    _clock: Callable[[], float]

    async def lease(self, name: str) -> Lease | None:
        row = await self._row(
            "SELECT owner, expires_at, renewed_at, note FROM leases WHERE name = ?", (name,)
        )
        return None if row is None else Lease(name, row[0], row[1], row[2], row[3])

    async def live_leases(self, prefix: str) -> list[Lease]:
        # substr rather than LIKE: a prefix may hold LIKE's wildcards.
        rows = await self._rows(
            "SELECT name, owner, expires_at, renewed_at, note FROM leases "
            "WHERE substr(name, 1, ?) = ? AND expires_at >= ? ORDER BY name",
            (len(prefix), prefix, self._clock()),
        )
        return [Lease(row[0], row[1], row[2], row[3], row[4]) for row in rows]


class ClaimWrites(TransactionBlock):
    """Claims and leases; SQLite has a single writer, so each is simply one statement."""

    async def claim_due_games(
        self, now: float, owner: str, hold: float, limit: int
    ) -> list[tuple[int, float]]:
        rows = await self._rows(
            "UPDATE games SET claim_owner = ?, claim_until = ? WHERE game_id IN ("
            " SELECT game_id FROM games WHERE status != 'finished' AND deadline IS NOT NULL"
            " AND deadline <= ? AND (claim_until IS NULL OR claim_until < ?)"
            " ORDER BY deadline LIMIT ?) RETURNING game_id, deadline",
            (owner, now + hold, now, now, limit),
        )
        # RETURNING comes in no particular order.
        return sorted(((row[0], row[1]) for row in rows), key=lambda claim: (claim[1], claim[0]))

    async def hold_lease(self, name: str, owner: str, ttl: float, note: str = "") -> bool:
        now = self._clock()
        rows = await self._rows(
            "INSERT INTO leases (name, owner, expires_at, renewed_at, note) "
            "VALUES (?, ?, ?, ?, ?) ON CONFLICT (name) DO UPDATE SET owner = excluded.owner, "
            "expires_at = excluded.expires_at, renewed_at = excluded.renewed_at, "
            "note = excluded.note "
            "WHERE leases.owner = excluded.owner OR leases.expires_at < ? RETURNING owner",
            (name, owner, now + ttl, now, note, now),
        )
        return bool(rows)

    async def drop_lease(self, name: str, owner: str, note: str = "") -> None:
        # The row stays, run out, with the holder's last note.
        await self._execute(
            "UPDATE leases SET expires_at = ?, note = ? WHERE name = ? AND owner = ?",
            (self._clock() - 1, note, name, owner),
        )
