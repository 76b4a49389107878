"""What lets several processes share one database: due turn deadlines claimed by one process
at a time, and named leases (a chat's delivery, a periodic job) with an owner and an expiry."""

from __future__ import annotations

from storage.sqlite.block import TransactionBlock


class ClaimWrites(TransactionBlock):
    """The statements behind Storage.claim_due, acquire_lease and release_lease; SQLite has a
    single writer, so each is simply one statement of its own transaction."""

    async def claim_due_games(
        self, now: float, owner: str, hold: float, limit: int
    ) -> list[tuple[int, float]]:
        rows = await self._rows(
            "UPDATE games SET claim_owner = ?, claim_until = ? WHERE game_id IN ("
            " SELECT game_id FROM games WHERE status != 'finished' AND deadline IS NOT NULL"
            " AND deadline <= ? AND (claim_until IS NULL OR claim_until < ? OR claim_owner = ?)"
            " ORDER BY deadline LIMIT ?) RETURNING game_id, deadline",
            (owner, now + hold, now, now, owner, limit),
        )
        # RETURNING comes in no particular order.
        return sorted(((row[0], row[1]) for row in rows), key=lambda claim: (claim[1], claim[0]))

    async def take_lease(self, name: str, owner: str, ttl: float) -> bool:
        now = self._clock()
        rows = await self._rows(
            "INSERT INTO leases (name, owner, expires_at) VALUES (?, ?, ?) "
            "ON CONFLICT (name) DO UPDATE SET owner = excluded.owner, "
            "expires_at = excluded.expires_at "
            "WHERE leases.owner = excluded.owner OR leases.expires_at < ? RETURNING owner",
            (name, owner, now + ttl, now),
        )
        return bool(rows)

    async def give_up_lease(self, name: str, owner: str) -> None:
        await self._execute("DELETE FROM leases WHERE name = ? AND owner = ?", (name, owner))
