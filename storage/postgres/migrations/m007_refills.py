"""Step 7: daily refills: the ledger's 'issue' account, chats.daily_refill."""

from typing import Final

DESCRIPTION: Final = "daily refills: the ledger's 'issue' account, chats.daily_refill"

APPLY: Final = """
-- The daily refill of broke players issues chips from an account of its own, 'issue', kept
-- apart from the starting grants: the books then show how much a chat was given back.
-- PostgreSQL changes the named CHECK constraints in place (ids and rows kept).
ALTER TABLE ledger
    DROP CONSTRAINT ledger_source_kind,
    DROP CONSTRAINT ledger_target_kind,
    ADD CONSTRAINT ledger_source_kind
        CHECK (source_kind IN ('player', 'bank', 'grant', 'issue')),
    ADD CONSTRAINT ledger_target_kind
        CHECK (target_kind IN ('player', 'bank', 'grant', 'issue'));
-- The last refill of a player, read by every refill: a refill is due at most once a period.
CREATE INDEX ledger_refills ON ledger (chat_id, target_id, created_at)
    WHERE source_kind = 'issue';

-- On by default: a group should not lose a friend to one bad night.
ALTER TABLE chats ADD COLUMN daily_refill BOOLEAN NOT NULL DEFAULT true;
"""
