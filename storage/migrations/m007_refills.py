"""Step 7: daily refills: the ledger's 'issue' account, chats.daily_refill.

The one step whose SQL differs beyond column types: SQLite cannot change a CHECK constraint in
place, PostgreSQL can."""

from typing import Final

from storage.sql.dialect import Dialect

_SQLITE: Final = """
-- The daily refill of broke players issues chips from an account of its own, 'issue', kept
-- apart from the starting grants: the books then show how much a chat was given back. SQLite
-- cannot change a CHECK constraint in place, so the ledger is rebuilt (ids and rows kept).
CREATE TABLE ledger_new (
    entry_id      INTEGER PRIMARY KEY,
    chat_id       INTEGER NOT NULL,
    game_id       INTEGER REFERENCES games (game_id),
    round_no      INTEGER,
    source_kind   TEXT    NOT NULL CHECK (source_kind IN ('player', 'bank', 'grant', 'issue')),
    source_id     INTEGER NOT NULL,
    target_kind   TEXT    NOT NULL CHECK (target_kind IN ('player', 'bank', 'grant', 'issue')),
    target_id     INTEGER NOT NULL,
    amount        INTEGER NOT NULL CHECK (amount > 0),
    reason        TEXT    NOT NULL,
    -- Balances right after the movement (NULL for the grant and issue side).
    source_after  INTEGER,
    target_after  INTEGER,
    created_at    REAL    NOT NULL
);
INSERT INTO ledger_new (entry_id, chat_id, game_id, round_no, source_kind, source_id,
    target_kind, target_id, amount, reason, source_after, target_after, created_at)
SELECT entry_id, chat_id, game_id, round_no, source_kind, source_id, target_kind, target_id,
    amount, reason, source_after, target_after, created_at FROM ledger;
DROP TABLE ledger;
ALTER TABLE ledger_new RENAME TO ledger;
CREATE INDEX ledger_by_chat ON ledger (chat_id);
CREATE INDEX ledger_by_source_player ON ledger (chat_id, source_id) WHERE source_kind = 'player';
CREATE INDEX ledger_by_target_player ON ledger (chat_id, target_id) WHERE target_kind = 'player';
-- The last refill of a player, read by every refill: a refill is due at most once a period.
CREATE INDEX ledger_refills ON ledger (chat_id, target_id, created_at)
    WHERE source_kind = 'issue';

-- On by default: a group should not lose a friend to one bad night.
ALTER TABLE chats ADD COLUMN daily_refill INTEGER NOT NULL DEFAULT 1;
"""

_POSTGRESQL: Final = """
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


def APPLY(dialect: Dialect) -> str:
    return _SQLITE if dialect.name == "sqlite" else _POSTGRESQL
