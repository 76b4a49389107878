"""Step 18: games saved lately found through two partial indexes, one for the games still open
(step 1's) and one for the finished, instead of an index of every game's save time besides: a
save of an open game (every action) then writes one index entry, not two."""

from typing import Final

# The polling of the replicas reads the open and the finished games saved lately apart
# (storage/sql/games.py: games_updated_since), each through its own partial index; the sweep of
# idle games keeps games_open_by_update. One index page less per committed action.
APPLY: Final = """
DROP INDEX games_by_update_time;
CREATE INDEX games_finished_by_update ON games (updated_at) WHERE status = 'finished';
"""
