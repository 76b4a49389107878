"""Step 3: seats: who sits in which game."""

from typing import Final

from storage.migrations.typed import typed

APPLY: Final = typed(
    """
-- Who sits in which game, so that the bot can find a person's games (the per-person cap,
-- commands typed in the private chat) without reading every game's state.
CREATE TABLE seats (
    game_id  {bigint} NOT NULL REFERENCES games (game_id),
    user_id  {bigint} NOT NULL,
    PRIMARY KEY (user_id, game_id)
);
CREATE INDEX seats_by_game ON seats (game_id);
"""
)
