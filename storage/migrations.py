"""Schema migrations: an ordered list of steps, recorded in `PRAGMA user_version`.

Step n (1-based) moves a database from version n-1 to n. Steps are only ever appended: a released
step is never edited, because databases in the field have already run it.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass

import aiosqlite

from storage.errors import DatabaseTooNew

StepFunction = Callable[[aiosqlite.Connection], Awaitable[None]]


@dataclass(frozen=True, slots=True)
class Migration:
    description: str
    # Either an SQL script or a coroutine function for steps that must compute something.
    apply: str | StepFunction


_BASE_SCHEMA = """
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

_STATS = """
CREATE TABLE stats (
    chat_id        INTEGER NOT NULL,
    user_id        INTEGER NOT NULL,
    rounds         INTEGER NOT NULL DEFAULT 0,
    wins           INTEGER NOT NULL DEFAULT 0,
    losses         INTEGER NOT NULL DEFAULT 0,
    pushes         INTEGER NOT NULL DEFAULT 0,
    twentyones     INTEGER NOT NULL DEFAULT 0,
    golden_points  INTEGER NOT NULL DEFAULT 0,
    busts          INTEGER NOT NULL DEFAULT 0,
    net            INTEGER NOT NULL DEFAULT 0,
    biggest_win    INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (chat_id, user_id),
    FOREIGN KEY (chat_id, user_id) REFERENCES players (chat_id, user_id)
) WITHOUT ROWID;

-- One row per add_stats call, so that leaderboards over a period need no snapshots.
CREATE TABLE stat_events (
    event_id       INTEGER PRIMARY KEY,
    chat_id        INTEGER NOT NULL,
    user_id        INTEGER NOT NULL,
    created_at     REAL    NOT NULL,
    rounds         INTEGER NOT NULL,
    wins           INTEGER NOT NULL,
    net            INTEGER NOT NULL,
    FOREIGN KEY (chat_id, user_id) REFERENCES players (chat_id, user_id)
);

CREATE INDEX stat_events_by_chat_time ON stat_events (chat_id, created_at);

-- A player's balance history and period results read only that player's ledger rows.
CREATE INDEX ledger_by_source_player ON ledger (chat_id, source_id) WHERE source_kind = 'player';
CREATE INDEX ledger_by_target_player ON ledger (chat_id, target_id) WHERE target_kind = 'player';

-- Players created before statistics existed start from zero.
INSERT INTO stats (chat_id, user_id) SELECT chat_id, user_id FROM players;
"""

_SEATS = """
-- Who sits in which game, so that the bot can find a person's games (the per-person cap,
-- commands typed in the private chat) without reading every game's state.
CREATE TABLE seats (
    game_id  INTEGER NOT NULL REFERENCES games (game_id),
    user_id  INTEGER NOT NULL,
    PRIMARY KEY (user_id, game_id)
);
CREATE INDEX seats_by_game ON seats (game_id);
"""

_SHOWN_VERSION = """
-- The state version the group's table message last showed: after a crash, only games whose
-- table is behind their state need their views refreshed at start-up.
ALTER TABLE games ADD COLUMN shown_version INTEGER NOT NULL DEFAULT 0;
"""

_GAME_LOG = """
-- The log of a game's earlier rounds, entry by entry (seq counts from 0 over the session): the
-- game's state keeps only the round being played, so saving a move does not rewrite the whole
-- evening's log.
CREATE TABLE game_log (
    game_id  INTEGER NOT NULL REFERENCES games (game_id),
    seq      INTEGER NOT NULL CHECK (seq >= 0),
    entry    TEXT    NOT NULL,
    PRIMARY KEY (game_id, seq)
) WITHOUT ROWID;
"""

_DELIVERY = """
-- What each bot message shows now, as a digest of its text and buttons: an edit that would show
-- the same again is skipped, even after a restart (Telegram refuses it: "message is not
-- modified"). Pruned by age, hence the index on shown_at.
CREATE TABLE shown_messages (
    chat_id     INTEGER NOT NULL,
    message_id  INTEGER NOT NULL,
    digest      TEXT    NOT NULL,
    shown_at    REAL    NOT NULL,
    PRIMARY KEY (chat_id, message_id)
) WITHOUT ROWID;
CREATE INDEX shown_messages_by_time ON shown_messages (shown_at);

-- How far the delivery of a game's results got (a sequence number the bot defines): recorded
-- apart from the state, so that it never bumps the game's version.
ALTER TABLE games ADD COLUMN posted_seq INTEGER NOT NULL DEFAULT 0;

-- A group upgraded to a supergroup moves every game to the new chat id, finished ones included:
-- without this index that is a scan of every game ever played, under the write lock.
CREATE INDEX games_by_chat ON games (chat_id);

-- prune_processed deletes by age: without this index each prune scans every update id kept.
CREATE INDEX processed_updates_by_time ON processed_updates (processed_at);
"""

_REFILLS = """
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

# The language Telegram reports for a person (its language_code, when the bot speaks it): what
# they read when they never chose one with /lang, also in messages sent without an update.
_CLIENT_LANGUAGE = """
ALTER TABLE users ADD COLUMN client_language TEXT;
"""

MIGRATIONS: Sequence[Migration] = (
    Migration("base schema: chats, users, players, games, ledger, processed updates", _BASE_SCHEMA),
    Migration("statistics, stat events and per-player ledger indexes", _STATS),
    Migration("seats: who sits in which game", _SEATS),
    Migration("games.shown_version: the version the table message shows", _SHOWN_VERSION),
    Migration("game_log: the log of a game's earlier rounds", _GAME_LOG),
    Migration(
        "shown_messages, games.posted_seq, indexes for chat migration and pruning", _DELIVERY
    ),
    Migration("daily refills: the ledger's 'issue' account, chats.daily_refill", _REFILLS),
    Migration("users.client_language: the language Telegram reports", _CLIENT_LANGUAGE),
)


def split_script(script: str) -> list[str]:
    """Split an SQL script into statements, respecting strings and trigger bodies."""
    statements: list[str] = []
    pending = ""
    for line in script.splitlines(keepends=True):
        pending += line
        if sqlite3.complete_statement(pending):
            statement = pending.strip()
            if statement.strip(";\n "):
                statements.append(statement)
            pending = ""
    if pending.strip():
        statements.append(pending.strip())
    return statements


async def schema_version(conn: aiosqlite.Connection) -> int:
    rows = list(await conn.execute_fetchall("PRAGMA user_version"))
    return int(rows[0][0])


async def migrate(conn: aiosqlite.Connection, steps: Sequence[Migration] = MIGRATIONS) -> int:
    """Bring the database up to `len(steps)`; returns the number of steps applied.

    Each step runs in the transaction that records its version, so a crash leaves the database at
    the previous or the next version, never in between. Python's executescript() would commit the
    open transaction first, hence statements are executed one by one.
    """
    supported = len(steps)
    applied = 0
    while True:
        current = await schema_version(conn)
        if current > supported:
            raise DatabaseTooNew(current, supported)
        if current == supported:
            return applied
        await conn.execute("BEGIN IMMEDIATE")
        try:
            # Another process may have migrated while we waited for the write lock.
            if await schema_version(conn) != current:
                await conn.execute("ROLLBACK")
                continue
            step = steps[current]
            if isinstance(step.apply, str):
                for statement in split_script(step.apply):
                    await conn.execute(statement)
            else:
                await step.apply(conn)
            # PRAGMA takes no parameters; the value is our own integer.
            await conn.execute(f"PRAGMA user_version = {current + 1:d}")
            await conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                await conn.execute("ROLLBACK")
            raise
        applied += 1
