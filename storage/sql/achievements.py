"""Achievements: each earned once per person and chat, recorded with the round that earned it
(the rules say what a round earns: rules/achievements.py), and what the records say of a
person for the achievements that take more than one round.

Concurrency: the primary key keeps one row per person, chat and achievement; of two
transactions recording the same one, the second inserts nothing (ON CONFLICT DO NOTHING) and
so does not announce it again.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from storage.models import Achievement
from storage.sql.base import TableReads, TableWrites

_INSERT: Final = (
    "INSERT INTO achievements (chat_id, user_id, code, game_id, round_no, earned_at) "
    "VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (chat_id, user_id, code) DO NOTHING"
)


class AchievementReads(TableReads):
    async def achievements(self, chat_id: int, user_id: int) -> list[Achievement]:
        """A person's achievements in a chat, in the order they were earned."""
        rows = await self._rows(
            "SELECT code, game_id, round_no, earned_at FROM achievements "
            "WHERE chat_id = $1 AND user_id = $2 ORDER BY earned_at, game_id, round_no, code",
            chat_id,
            user_id,
        )
        return [Achievement(str(r[0]), int(r[1]), int(r[2]), float(r[3])) for r in rows]

    async def win_streak(self, chat_id: int, user_id: int, limit: int) -> int:
        """The rounds a person has won in a row in a chat, newest back, counted up to
        ``limit``."""
        rows = await self._rows(
            "SELECT wins FROM stat_events WHERE chat_id = $1 AND user_id = $2 "
            "ORDER BY event_id DESC LIMIT $3",
            chat_id,
            user_id,
            limit,
        )
        streak = 0
        for row in rows:
            if not row[0]:
                break
            streak += 1
        return streak


class AchievementWrites(TableWrites):
    async def record_achievements(
        self, chat_id: int, game_id: int, round_no: int, earned: Sequence[tuple[int, str]]
    ) -> list[tuple[int, str]]:
        """Record what a round earned, (person, code); returns those earned for the first time
        (the others were recorded by an earlier round)."""
        now = self._clock()
        first = []
        for user_id, code in earned:
            if await self._execute(_INSERT, chat_id, user_id, code, game_id, round_no, now):
                first.append((user_id, code))
        return first
