"""The end of a chat's season: a deadline kept in the database (`bot.scheduler.Deadlines`, kind
``season``, keyed by the chat), armed when a game of the chat is seen in a season and when
its admins change the season's settings. When it comes, the season is stored once with its
podium (`GameService.end_season`: of two replicas, one gets it) and the group gets that one
message, at the lowest priority; a season nobody played in posts nothing."""

from __future__ import annotations

import logging
from functools import partial

from bot import render, seasons
from bot.game_state import View
from bot.handlers.common import Runtime, text_sender

log = logging.getLogger(__name__)

KIND = "season"
ARM = "season_arm"  # the scheduler's key ("season_arm", chat): a deadline being saved


class SeasonWatch:
    """Delivery's follower (`bot.game_state.Follower`): a game seen in a chat that plays in
    seasons arms the end of its season, once per season and process."""

    def __init__(self, rt: Runtime) -> None:
        self.rt = rt
        self._armed: dict[int, float] = {}  # chat -> the end of the season armed here

    def seen(self, view: View) -> None:
        chat = view.chat
        season = seasons.current(chat, self.rt.scheduler.clock())
        if season is None or self._armed.get(chat.chat_id) == season[1]:
            return
        self._armed[chat.chat_id] = season[1]
        self.rt.scheduler.at(
            (ARM, chat.chat_id),
            self.rt.scheduler.clock(),
            partial(self.rt.deadlines.arm, KIND, str(chat.chat_id), season[1]),
        )

    def clock_started(self, game_id: int, version: int, deadline: float) -> None:
        """A turn's clock is nothing to the seasons."""


async def settings_changed(rt: Runtime, chat_id: int) -> None:
    """The season's length or time zone changed: its end moves (or is forgotten when off)."""
    season = seasons.current(await rt.service.chat(chat_id), rt.scheduler.clock())
    if season is None:
        await rt.deadlines.cancel(KIND, str(chat_id))
    else:
        await rt.deadlines.arm(KIND, str(chat_id), season[1])


async def season_ended(rt: Runtime, key: str) -> None:
    """The chat's season ended: its podium, once, if anyone played."""
    chat_id = int(key)
    season = await rt.service.end_season(chat_id)
    if season is None:
        return
    chat = await rt.service.chat(chat_id)
    text = render.season_podium(season, chat.utc_offset, chat.language)
    log.info("chat=%s season=%s ended, champion=%s", chat_id, season.number, season.podium[0][0])
    rt.delivery.lanes.post(chat_id, partial(text_sender(rt, text, None), chat_id, None), "podium")
