"""Step 1: base schema: chats, users, players, games, ledger, processed updates."""

from typing import Final

from storage.migrations.typed import named, typed

APPLY: Final = typed(
    """
CREATE TABLE chats (
    chat_id       {bigint} PRIMARY KEY,
    language      TEXT    NOT NULL,
    preset        TEXT    NOT NULL,
    overrides     TEXT    NOT NULL DEFAULT '{{}}',
    turn_timeout  INTEGER,
    house_banker  {bool} NOT NULL DEFAULT {false}
);

CREATE TABLE users (
    user_id         {bigint} PRIMARY KEY,
    name            TEXT    NOT NULL,
    language        TEXT,
    private_opened  {bool} NOT NULL DEFAULT {false}
);

CREATE TABLE players (
    chat_id     {bigint} NOT NULL,
    user_id     {bigint} NOT NULL,
    name        TEXT    NOT NULL,
    balance     {bigint} NOT NULL CHECK (balance >= 0),
    created_at  {real}    NOT NULL,
    PRIMARY KEY (chat_id, user_id)
){without_rowid};

CREATE TABLE games (
    game_id           {identity},
    chat_id           {bigint} NOT NULL,
    thread_id         {bigint} NOT NULL DEFAULT 0,
    status            TEXT    NOT NULL CHECK (status IN ('lobby', 'active', 'finished')),
    state             TEXT    NOT NULL,
    version           {bigint} NOT NULL,
    bank              {bigint} NOT NULL DEFAULT 0 CHECK (bank >= 0),
    deadline          {real},
    table_message_id  {bigint},
    hand_messages     TEXT    NOT NULL DEFAULT '{{}}',
    creator_id        {bigint} NOT NULL,
    created_at        {real}    NOT NULL,
    updated_at        {real}    NOT NULL
);

-- At most one unfinished game per chat thread. Being partial, it also keeps the finished games
-- (kept for statistics) out of the hot path: loading a thread's game reads only this index.
CREATE UNIQUE INDEX games_open_by_thread ON games (chat_id, thread_id)
    WHERE status != 'finished';

CREATE INDEX games_open_by_deadline ON games (deadline)
    WHERE status != 'finished' AND deadline IS NOT NULL;

CREATE INDEX games_open_by_update ON games (updated_at) WHERE status != 'finished';

CREATE TABLE ledger (
    entry_id      {identity},
    chat_id       {bigint} NOT NULL,
    game_id       {bigint} REFERENCES games (game_id),
    round_no      INTEGER,
    source_kind   TEXT    NOT NULL {source_check}CHECK (source_kind IN ('player', 'bank', 'grant')),
    source_id     {bigint} NOT NULL,
    target_kind   TEXT    NOT NULL {target_check}CHECK (target_kind IN ('player', 'bank', 'grant')),
    target_id     {bigint} NOT NULL,
    amount        {bigint} NOT NULL CHECK (amount > 0),
    reason        TEXT    NOT NULL,
    -- Balances right after the movement (NULL for the grant side): a chart needs no replay.
    source_after  {bigint},
    target_after  {bigint},
    created_at    {real}    NOT NULL
);

CREATE INDEX ledger_by_chat ON ledger (chat_id);

CREATE TABLE processed_updates (
    update_id     {bigint} PRIMARY KEY,
    processed_at  {real}    NOT NULL
);
""",
    # Named on PostgreSQL, so that step 7 can widen them in place.
    source_check=named("ledger_source_kind"),
    target_check=named("ledger_target_kind"),
)
