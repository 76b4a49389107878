"""Step 4: games.shown_version: the version the table message shows."""

from typing import Final

from storage.migrations.typed import typed

APPLY: Final = typed(
    """
-- The state version the group's table message last showed: after a crash, only games whose
-- table is behind their state need their views refreshed at start-up.
ALTER TABLE games ADD COLUMN shown_version {bigint} NOT NULL DEFAULT 0;
"""
)
