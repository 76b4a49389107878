"""A chat's seasons through the service: the current season's table for /top, and the end of a
season, stored once with its podium (`storage.sql.seasons`): of two processes ending it, one
gets the season back and posts it.

:class:`ServiceSeasons` is part of `bot.service.GameService`.
"""

from __future__ import annotations

from collections.abc import Callable

from bot import seasons
from bot.house import HOUSE_ID
from bot.seasons import SeasonTop
from storage import Season, Storage

PODIUM = 3


class ServiceSeasons:
    """The seasons of `bot.service.GameService` (which sets these attributes)."""

    storage: Storage
    clock: Callable[[], float]

    async def season_top(self, chat_id: int, *, limit: int = 10) -> SeasonTop | None:
        """The current season's table, or None when the chat plays without seasons."""
        chat = await self.storage.get_chat(chat_id)
        now = self.clock()
        season = seasons.current(chat, now)
        if season is None:
            return None
        start, end = season
        rows = await self.storage.leaderboard(chat_id, since=start, limit=limit)
        number = await self.storage.seasons_before(chat_id, start) + 1
        wearer = seasons.champion(chat, now)
        last = await self.storage.last_season(chat_id) if wearer is not None else None
        champion = None
        if last is not None and last.podium and last.podium[0][0] == wearer:
            champion = (wearer, last.podium[0][1], last.number)
        return SeasonTop(number, start, end, chat.utc_offset, rows, champion)

    async def champion(self, chat_id: int) -> int | None:
        """Who wears the season's 🏆 in the chat now."""
        return seasons.champion(await self.storage.get_chat(chat_id), self.clock())

    async def end_season(self, chat_id: int) -> Season | None:
        """The chat's season that has just ended, stored with its podium (the best nets, the
        house aside): None when nobody played in it, seasons are off, or it was stored
        already (another process ended it: only one posts its podium)."""
        chat = await self.storage.get_chat(chat_id)
        ended = seasons.just_ended(chat, self.clock())
        if ended is None:
            return None
        start, end = ended
        rows = await self.storage.leaderboard(chat_id, since=start, until=end, limit=PODIUM + 1)
        podium = [(row.user_id, row.name, row.net) for row in rows if row.user_id != HOUSE_ID]
        if not podium:
            return None
        champion_until = seasons.bounds(chat.season, chat.utc_offset, end)[1]
        async with self.storage.transaction() as tx:
            return await tx.close_season(chat_id, start, end, podium[:PODIUM], champion_until)
