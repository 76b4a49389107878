"""The scheduler's deadlines that outlive the process (bot/scheduler.py: an unanswered «end the
game?»), by kind and key, and their claims: with replicas, one process at a time runs a due
deadline. Claiming is one statement, safe under concurrency as the turns' claims are
(storage/sql/claims.py says how); save_deadline is one upsert, drop_deadline one DELETE.
"""

from __future__ import annotations

from typing import Final

from storage.sql.base import TableReads, TableWrites

# The kind of the games' turn deadlines, keyed by the game's id (storage/sql/games.py, claimed by
# storage/sql/claims.py); the scheduler's other kinds are the bot's (bot/scheduler.py).
TURN: Final = "turn"
# Kept (again): whoever claimed the old time lets it go.
SAVE_DEADLINE: Final = (
    "INSERT INTO deadlines (kind, key, due) VALUES ($1, $2, $3) "
    "ON CONFLICT (kind, key) DO UPDATE SET due = EXCLUDED.due, "
    "claim_owner = NULL, claim_until = NULL"
)
DROP_DEADLINE: Final = "DELETE FROM deadlines WHERE kind = $1 AND key = $2"
# The end of a claim, after `WITH due AS (…)` picks the rows: kind $1, now $2, owner $3, until
# $4, limit $5.
CLAIM_DUE: Final = (
    "UPDATE deadlines SET claim_owner = $3, claim_until = $4 FROM due "
    "WHERE deadlines.kind = due.kind AND deadlines.key = due.key "
    "RETURNING deadlines.key, deadlines.due"
)
_CLAIM: Final = (
    "WITH due AS (SELECT kind, key FROM deadlines WHERE kind = $1 AND due <= $2 "
    " AND (claim_until IS NULL OR claim_until < $2 OR claim_owner = $3) "
    " ORDER BY due, key LIMIT $5{lock_skip}) " + CLAIM_DUE
)


class DeadlineReads(TableReads):
    async def deadlines(self, kind: str) -> list[tuple[str, float]]:
        return await self._tuples(
            "SELECT key, due FROM deadlines WHERE kind = $1 ORDER BY due, key{by_code_point}", kind
        )

    async def _claim_deadlines(
        self, kind: str, now: float, owner: str, hold: float, limit: int
    ) -> list[tuple[str, float]]:
        """Like claims' _claim_due, but ``owner``'s own claims are claimed again: it keeps
        track of what it is running itself."""
        rows = await self._rows(_CLAIM, kind, now, owner, now + hold, limit)
        # RETURNING comes in no particular order.
        return sorted(((row[0], row[1]) for row in rows), key=lambda claim: (claim[1], claim[0]))


class DeadlineWrites(TableWrites):
    async def save_deadline(self, kind: str, key: str, due: float) -> None:
        await self._execute(SAVE_DEADLINE, kind, key, due)

    async def drop_deadline(self, kind: str, key: str, due: float | None = None) -> bool:
        """With ``due``, only if it is still at that time: one kept again meanwhile stays."""
        if due is None:
            changed = await self._execute(DROP_DEADLINE, kind, key)
        else:
            changed = await self._execute(
                "DELETE FROM deadlines WHERE kind = $1 AND key = $2 AND due = $3", kind, key, due
            )
        return changed > 0
