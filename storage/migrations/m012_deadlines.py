"""Step 12: deadlines, the scheduler's own table: deadlines that outlive the process (an
unanswered «end the game?»), by kind and key, each claimed by one replica when it is due."""

from typing import Final

from storage.migrations.typed import typed

APPLY: Final = typed(
    """
-- A deadline the bot must still see after a restart, or in another replica (bot/scheduler.py):
-- one row per (kind, key), deleted once it has run or was cancelled. With replicas, a due
-- deadline is claimed by one process for a few seconds before it runs (claim_owner,
-- claim_until), so that the others leave it alone; should that process die, the claim runs
-- out and another one runs it. Saving the deadline again clears the claim.
CREATE TABLE deadlines (
    kind         TEXT NOT NULL,
    key          TEXT NOT NULL,
    due          {real} NOT NULL,
    claim_owner  TEXT,
    claim_until  {real},
    PRIMARY KEY (kind, key)
){without_rowid};

CREATE INDEX deadlines_by_due ON deadlines (kind, due);
"""
)
