"""Step 13: the turn deadlines and their claims move from games to the scheduler's table
deadlines (kind 'turn', the game's id as the key): games is written by the service alone."""

from typing import Final

# A game mid-turn keeps its deadline, and a replica's claim on it, across the upgrade. A
# finished game's deadline is not carried over: nothing fires for a finished game.
APPLY: Final = """
INSERT INTO deadlines (kind, key, due, claim_owner, claim_until)
    SELECT 'turn', CAST(game_id AS TEXT), deadline, claim_owner, claim_until FROM games
    WHERE status <> 'finished' AND deadline IS NOT NULL;

DROP INDEX games_open_by_deadline;
ALTER TABLE games DROP COLUMN deadline;
ALTER TABLE games DROP COLUMN claim_owner;
ALTER TABLE games DROP COLUMN claim_until;
"""
