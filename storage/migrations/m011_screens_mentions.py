"""Step 11: screens.mentioned_since: the turn delivery last mentioned in the group."""

from typing import Final

from storage.migrations.typed import typed

APPLY: Final = typed(
    """
-- The game's actor_since (the version at which the person on turn got it) that delivery last
-- mentioned in the group, for a player without a private chat: one mention a turn, also
-- across a restart. What a chat was shown is delivery's record, not the game's.
ALTER TABLE screens ADD COLUMN mentioned_since {bigint} NOT NULL DEFAULT 0;
"""
)
