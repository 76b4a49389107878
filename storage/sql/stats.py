"""Statistics: per-player totals, the events leaderboards over a period are summed from, and
the leaderboard itself (ranked with the banks the players hold).

Concurrency (PostgreSQL): add_stats adds relatively (INSERT … ON CONFLICT DO UPDATE SET x = x +
…), so two concurrent additions to one player both count; PostgreSQL orders them on the row.
"""

from __future__ import annotations

import math
from typing import Final

from storage.models import LeaderboardRow, PlayerStats, StatsDelta
from storage.sql.base import TableReads, TableWrites

# The banks of chat $1's unfinished games by their banker (read from the engine's state). Sums
# of BIGINT are NUMERIC in PostgreSQL: cast back, so that they come out as ints.
_HELD_BANKS: Final = (
    "SELECT {banker} AS user_id, CAST(sum(bank) AS BIGINT) AS bank FROM games "
    "WHERE chat_id = $1 AND status <> 'finished' AND bank > 0 GROUP BY 1"
)
# How statistics are merged into a row: every field added, biggest_win the maximum.
MERGE_STATS: Final = (
    "rounds = stats.rounds + EXCLUDED.rounds, wins = stats.wins + EXCLUDED.wins, "
    "losses = stats.losses + EXCLUDED.losses, pushes = stats.pushes + EXCLUDED.pushes, "
    "twentyones = stats.twentyones + EXCLUDED.twentyones, "
    "golden_points = stats.golden_points + EXCLUDED.golden_points, "
    "busts = stats.busts + EXCLUDED.busts, net = stats.net + EXCLUDED.net, "
    "biggest_win = {greatest}(stats.biggest_win, EXCLUDED.biggest_win)"
)
_UPSERT_STATS: Final = (
    "INSERT INTO stats (chat_id, user_id, rounds, wins, losses, pushes, twentyones, "
    "golden_points, busts, net, biggest_win) "
    "VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) "
    "ON CONFLICT (chat_id, user_id) DO UPDATE SET " + MERGE_STATS
)

_INSERT_STAT_EVENT: Final = (
    "INSERT INTO stat_events (chat_id, user_id, created_at, rounds, wins, net) "
    "VALUES ($1, $2, $3, $4, $5, $6)"
)


class StatsQueries(TableReads):
    async def leaderboard(
        self,
        chat_id: int,
        *,
        since: float | None = None,
        until: float = math.inf,
        limit: int = 10,
    ) -> list[LeaderboardRow]:
        """By chips; or with ``since`` by the net won from then until ``until`` (a season)."""
        if since is None:
            # A banker's chips are his balance and the bank he holds: ranked by both.
            rows = await self._rows(
                "SELECT p.user_id, p.name, p.balance + coalesce(h.bank, 0) AS chips, "
                "coalesce(s.net, 0), coalesce(s.rounds, 0), coalesce(s.wins, 0), "
                "coalesce(h.bank, 0) "
                "FROM players AS p LEFT JOIN stats AS s USING (chat_id, user_id) "
                f"LEFT JOIN ({_HELD_BANKS}) AS h ON h.user_id = p.user_id "
                "WHERE p.chat_id = $1 ORDER BY chips DESC, p.user_id LIMIT $2",
                chat_id,
                limit,
            )
        else:
            rows = await self._rows(
                "SELECT p.user_id, p.name, p.balance, e.net, e.rounds, e.wins "
                "FROM (SELECT user_id, CAST(sum(net) AS BIGINT) AS net, "
                "      CAST(sum(rounds) AS BIGINT) AS rounds, "
                "      CAST(sum(wins) AS BIGINT) AS wins FROM stat_events "
                "      WHERE chat_id = $1 AND created_at >= $2 AND created_at < $3 "
                "      GROUP BY user_id) AS e "
                "JOIN players AS p ON p.chat_id = $1 AND p.user_id = e.user_id "
                "ORDER BY e.net DESC, p.balance DESC, p.user_id LIMIT $4",
                chat_id,
                since,
                until,
                limit,
            )
        return [LeaderboardRow(*row) for row in rows]

    async def held_bank(self, chat_id: int, user_id: int) -> int:
        row = await self._row(
            f"SELECT CAST(coalesce(sum(bank), 0) AS BIGINT) FROM ({_HELD_BANKS}) "
            "AS h WHERE user_id = $2",
            chat_id,
            user_id,
        )
        return int(row[0]) if row is not None else 0

    async def player_stats(self, chat_id: int, user_id: int) -> PlayerStats | None:
        row = await self._row(
            "SELECT p.name, coalesce(s.rounds, 0), coalesce(s.wins, 0), coalesce(s.losses, 0), "
            "coalesce(s.pushes, 0), coalesce(s.twentyones, 0), coalesce(s.golden_points, 0), "
            "coalesce(s.busts, 0), coalesce(s.biggest_win, 0), coalesce(s.net, 0) "
            "FROM players AS p LEFT JOIN stats AS s USING (chat_id, user_id) "
            "WHERE p.chat_id = $1 AND p.user_id = $2",
            chat_id,
            user_id,
        )
        return None if row is None else PlayerStats(chat_id, user_id, *row)


class StatsWrites(TableWrites):
    async def add_stats(self, chat_id: int, user_id: int, delta: StatsDelta) -> None:
        # Both rows have the same foreign key to the player: they stand or fall together.
        await self._execute_all(
            [
                (_UPSERT_STATS, (chat_id, user_id, *delta.counts())),
                (
                    _INSERT_STAT_EVENT,
                    (chat_id, user_id, self._clock(), delta.rounds, delta.wins, delta.net),
                ),
            ]
        )
