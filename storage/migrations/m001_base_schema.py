"""Step 1: base schema: chats, users, players, games, ledger, processed updates."""

from typing import Final

DESCRIPTION: Final = "base schema: chats, users, players, games, ledger, processed updates"

APPLY: Final = """
CREATE TABLE chats (
    chat_id       INTEGER PRIMARY KEY,
    language      TEXT    NOT NULL,
    preset        TEXT    NOT NULL,
    overrides     TEXT    NOT NULL DEFAULT '{}',
    turn_timeout  INTEGER,
    house_banker  INTEGER NOT NULL DEFAULT 0
);

CREATE TABLE users (
    user_id         INTEGER PRIMARY KEY,
    name            TEXT    NOT NULL,
    language        TEXT,
    private_opened  INTEGER NOT NULL DEFAULT 0
);

CREATE TABLE players (
    chat_id     INTEGER NOT NULL,
    user_id     INTEGER NOT NULL,
    name        TEXT    NOT NULL,
    balance     INTEGER NOT NULL CHECK (balance >= 0),
    created_at  REAL    NOT NULL,
    PRIMARY KEY (chat_id, user_id)
) WITHOUT ROWID;

CREATE TABLE games (
    game_id           INTEGER PRIMARY KEY,
    chat_id           INTEGER NOT NULL,
    thread_id         INTEGER NOT NULL DEFAULT 0,
    status            TEXT    NOT NULL CHECK (status IN ('lobby', 'active', 'finished')),
    state             TEXT    NOT NULL,
    version           INTEGER NOT NULL,
    bank              INTEGER NOT NULL DEFAULT 0 CHECK (bank >= 0),
    deadline          REAL,
    table_message_id  INTEGER,
    hand_messages     TEXT    NOT NULL DEFAULT '{}',
    creator_id        INTEGER NOT NULL,
    created_at        REAL    NOT NULL,
    updated_at        REAL    NOT NULL
);

-- At most one unfinished game per chat thread. Being partial, it also keeps the finished games
-- (kept for statistics) out of the hot path: loading a thread's game reads only this index.
CREATE UNIQUE INDEX games_open_by_thread ON games (chat_id, thread_id)
    WHERE status != 'finished';

CREATE INDEX games_open_by_deadline ON games (deadline)
    WHERE status != 'finished' AND deadline IS NOT NULL;

CREATE INDEX games_open_by_update ON games (updated_at) WHERE status != 'finished';

CREATE TABLE ledger (
    entry_id      INTEGER PRIMARY KEY,
    chat_id       INTEGER NOT NULL,
    game_id       INTEGER REFERENCES games (game_id),
    round_no      INTEGER,
    source_kind   TEXT    NOT NULL CHECK (source_kind IN ('player', 'bank', 'grant')),
    source_id     INTEGER NOT NULL,
    target_kind   TEXT    NOT NULL CHECK (target_kind IN ('player', 'bank', 'grant')),
    target_id     INTEGER NOT NULL,
    amount        INTEGER NOT NULL CHECK (amount > 0),
    reason        TEXT    NOT NULL,
    -- Balances right after the movement (NULL for the grant side): a chart needs no replay.
    source_after  INTEGER,
    target_after  INTEGER,
    created_at    REAL    NOT NULL
);

CREATE INDEX ledger_by_chat ON ledger (chat_id);

CREATE TABLE processed_updates (
    update_id     INTEGER PRIMARY KEY,
    processed_at  REAL    NOT NULL
);
"""
