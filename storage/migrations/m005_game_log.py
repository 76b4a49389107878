"""Step 5: game_log: the log of a game's earlier rounds."""

from typing import Final

from storage.migrations.typed import typed

APPLY: Final = typed(
    """
-- The log of a game's earlier rounds, entry by entry (seq counts from 0 over the session): the
-- game's state keeps only the round being played, so saving a move does not rewrite the whole
-- evening's log.
CREATE TABLE game_log (
    game_id  {bigint} NOT NULL REFERENCES games (game_id),
    seq      INTEGER NOT NULL CHECK (seq >= 0),
    entry    TEXT    NOT NULL,
    PRIMARY KEY (game_id, seq)
){without_rowid};
"""
)
