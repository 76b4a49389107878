"""Step 16: seasons: a chat's season length and time zone, and the seasons that ended with a
podium (its champion wears 🏆 through the next season)."""

from typing import Final

from storage.migrations.typed import typed

# chats.season: 'off', 'week' or 'month' (a season is a calendar week or month in the chat's
# time zone, chats.utc_offset hours east of UTC). A season is stored when it ends, and only
# if anyone played in it: its key (chat_id, starts_at) is what makes its podium posted once,
# whichever replica ends it. number counts the chat's stored seasons; podium is a JSON list of
# [user_id, name, net] (first place first); champion_until is the end of the next season.
APPLY: Final = typed(
    """
ALTER TABLE chats ADD COLUMN season TEXT NOT NULL DEFAULT 'month';
ALTER TABLE chats ADD COLUMN utc_offset INTEGER NOT NULL DEFAULT 0;

CREATE TABLE seasons (
    chat_id         {bigint} NOT NULL,
    starts_at       {real} NOT NULL,
    ends_at         {real} NOT NULL,
    number          INTEGER NOT NULL,
    podium          TEXT NOT NULL,
    champion_id     {bigint} NOT NULL,
    champion_until  {real} NOT NULL,
    PRIMARY KEY (chat_id, starts_at)
){without_rowid};

CREATE INDEX seasons_by_end ON seasons (chat_id, ends_at);
"""
)
