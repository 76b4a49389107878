"""Step 2: statistics, stat events and per-player ledger indexes."""

from typing import Final

from storage.migrations.typed import typed

APPLY: Final = typed(
    """
CREATE TABLE stats (
    chat_id        {bigint} NOT NULL,
    user_id        {bigint} NOT NULL,
    rounds         INTEGER NOT NULL DEFAULT 0,
    wins           INTEGER NOT NULL DEFAULT 0,
    losses         INTEGER NOT NULL DEFAULT 0,
    pushes         INTEGER NOT NULL DEFAULT 0,
    twentyones     INTEGER NOT NULL DEFAULT 0,
    golden_points  INTEGER NOT NULL DEFAULT 0,
    busts          INTEGER NOT NULL DEFAULT 0,
    net            {bigint} NOT NULL DEFAULT 0,
    biggest_win    {bigint} NOT NULL DEFAULT 0,
    PRIMARY KEY (chat_id, user_id),
    FOREIGN KEY (chat_id, user_id) REFERENCES players (chat_id, user_id)
){without_rowid};

-- One row per add_stats call, so that leaderboards over a period need no snapshots.
CREATE TABLE stat_events (
    event_id       {identity},
    chat_id        {bigint} NOT NULL,
    user_id        {bigint} NOT NULL,
    created_at     {real}    NOT NULL,
    rounds         INTEGER NOT NULL,
    wins           INTEGER NOT NULL,
    net            {bigint} NOT NULL,
    FOREIGN KEY (chat_id, user_id) REFERENCES players (chat_id, user_id)
);

CREATE INDEX stat_events_by_chat_time ON stat_events (chat_id, created_at);

-- A player's balance history and period results read only that player's ledger rows.
CREATE INDEX ledger_by_source_player ON ledger (chat_id, source_id) WHERE source_kind = 'player';
CREATE INDEX ledger_by_target_player ON ledger (chat_id, target_id) WHERE target_kind = 'player';

-- Players created before statistics existed start from zero.
INSERT INTO stats (chat_id, user_id) SELECT chat_id, user_id FROM players;
"""
)
