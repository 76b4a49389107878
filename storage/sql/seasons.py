"""Seasons: the seasons of a chat that ended with anyone playing, each with its podium.

A season is stored once: close_season inserts it under its key (chat, start) or finds it
there, so that of two processes ending the same season (replicas) one posts its podium; on
PostgreSQL the second insert waits for the first to commit and then inserts nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from storage.jsontext import dumps, loads
from storage.models import Season
from storage.sql.base import Row, TableReads, TableWrites

_COLUMNS: Final = "chat_id, number, starts_at, ends_at, podium, champion_until"
# $1 chat, $2 start, $3 end, $4 podium (JSON), $5 champion, $6 until when he wears 🏆; the
# number is one more than the chat's seasons stored so far.
_CLOSE: Final = (
    "INSERT INTO seasons (chat_id, starts_at, ends_at, number, podium, champion_id, "
    "champion_until) SELECT CAST($1 AS BIGINT), CAST($2 AS DOUBLE PRECISION), "
    "CAST($3 AS DOUBLE PRECISION), coalesce(max(number), 0) + 1, CAST($4 AS TEXT), "
    "CAST($5 AS BIGINT), CAST($6 AS DOUBLE PRECISION) FROM seasons WHERE chat_id = $1 "
    "ON CONFLICT (chat_id, starts_at) DO NOTHING RETURNING number"
)


def _season(row: Row) -> Season:
    podium = tuple((int(user), str(name), int(net)) for user, name, net in loads(row[4]))
    return Season(row[0], row[1], row[2], row[3], podium, row[5])


class SeasonReads(TableReads):
    async def last_season(self, chat_id: int) -> Season | None:
        """The chat's season that ended last (of those stored: with anyone playing)."""
        row = await self._row(
            f"SELECT {_COLUMNS} FROM seasons WHERE chat_id = $1 ORDER BY ends_at DESC LIMIT 1",
            chat_id,
        )
        return None if row is None else _season(row)

    async def seasons_before(self, chat_id: int, starts_at: float) -> int:
        """How many of the chat's seasons were stored before the one starting then."""
        row = await self._row(
            "SELECT count(*) FROM seasons WHERE chat_id = $1 AND starts_at < $2",
            chat_id,
            starts_at,
        )
        return int(row[0]) if row is not None else 0


class SeasonWrites(TableWrites):
    async def close_season(
        self,
        chat_id: int,
        starts_at: float,
        ends_at: float,
        podium: Sequence[tuple[int, str, int]],
        champion_until: float,
    ) -> Season | None:
        """Store the season with its podium (the champion first): the season, or None when it
        was stored already (by another process: nothing is written)."""
        if not podium:
            raise ValueError("a season is stored with its podium: someone played")
        row = await self._row(
            _CLOSE,
            chat_id,
            starts_at,
            ends_at,
            dumps([list(place) for place in podium]),
            podium[0][0],
            champion_until,
        )
        if row is None:
            return None
        self._wrote_chat(chat_id)  # the settings read the champion
        return Season(chat_id, int(row[0]), starts_at, ends_at, tuple(podium), champion_until)
