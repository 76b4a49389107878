"""Step 9: games.claim_owner/claim_until (turn deadlines claimed by a replica), leases, an index
of games by update time."""

from typing import Final

from storage.migrations.typed import typed

APPLY: Final = typed(
    """
-- Several bot processes may share a database: a due turn deadline is claimed by one of them
-- for a few seconds before it fires, so that the others leave it alone; should that process
-- die, the claim runs out and another one fires it. Saving the game clears the claim.
ALTER TABLE games ADD COLUMN claim_owner TEXT;
ALTER TABLE games ADD COLUMN claim_until {real};

-- Named leases with an owner and an expiry: one process at a time delivers a chat's messages
-- (its flood budget is one), one runs each periodic job. A lease given up or run out keeps its
-- row: its note (what the holder sent lately) is what the next holder goes on from.
CREATE TABLE leases (
    name        TEXT PRIMARY KEY,
    owner       TEXT NOT NULL,
    expires_at  {real} NOT NULL,
    renewed_at  {real} NOT NULL,
    note        TEXT NOT NULL DEFAULT ''
){without_rowid};

-- The process delivering a chat polls for the games other processes saved lately: finished
-- games too (a round's result), which the partial games_open_by_update leaves out.
CREATE INDEX games_by_update_time ON games (updated_at);
"""
)
