"""Step 10: screens: what delivery showed of each game, moved out of the games' rows."""

from typing import Final

from storage.migrations.typed import typed
from storage.sql.dialect import Dialect


def _table_since(dialect: Dialect) -> str:
    """The round's table the stored message shows: the one the game wants now (what delivery
    took it for before this step, so that an upgrade posts no table again)."""
    if dialect.name == "sqlite":
        return "json_extract(state, '$.meta.table_since')"
    return "(state::jsonb -> 'meta' ->> 'table_since')::bigint"


APPLY: Final = typed(
    """
-- What delivery showed of a game, written by delivery alone (the games are the service's): the
-- table message and the table_since of the game it was posted for (the game moving on to a new
-- table is seen by comparing the two, not by clearing the message id in the game's row), the
-- private hand messages, how many results it posted, the version the table last showed.
CREATE TABLE screens (
    game_id           {bigint} PRIMARY KEY REFERENCES games (game_id),
    table_since       {bigint} NOT NULL DEFAULT 0,
    table_message_id  {bigint},
    hand_messages     TEXT    NOT NULL DEFAULT '{{}}',
    posted_seq        {bigint} NOT NULL DEFAULT 0,
    shown_version     {bigint} NOT NULL DEFAULT 0
){without_rowid};

INSERT INTO screens (game_id, table_since, table_message_id, hand_messages, posted_seq,
    shown_version)
SELECT game_id, coalesce({table_since}, 1), table_message_id, hand_messages, posted_seq,
    shown_version
FROM games
WHERE table_message_id IS NOT NULL OR hand_messages <> '{{}}' OR posted_seq <> 0
    OR shown_version <> 0;

ALTER TABLE games DROP COLUMN table_message_id;
ALTER TABLE games DROP COLUMN hand_messages;
ALTER TABLE games DROP COLUMN posted_seq;
ALTER TABLE games DROP COLUMN shown_version;
""",
    table_since=_table_since,
)
