"""A call to play, the sending side: when a table opens in a group, each person the service
claims a notice for (`bot.service_notices`) gets one private message with the button that
seats him and the one that stops the notices.

A notice goes through the person's own lane at the lowest priority (`Lanes.post`): his private
chat's budget is counted with his hands', and his game's messages go first. A private chat
that refuses it for good (he blocked the bot) takes him off every chat's list; the lane then
does what it does with any lost private chat.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from telegram import Bot
from telegram.error import TelegramError

from bot import render
from bot.lanes import Lanes, Send
from bot.languages import personal
from bot.outcomes import Outcome
from bot.service import GameService
from bot.telegram_errors import Fate, classify

log = logging.getLogger(__name__)


@dataclass(eq=False)
class Notices:
    service: GameService
    lanes: Lanes
    bot: Bot

    async def table_opened(self, outcome: Outcome) -> list[int]:
        """A lobby was committed: claim and queue its notices; the people told."""
        stored = outcome.stored
        if stored.chat_id > 0:
            return []
        people = await self.service.claim_notices(stored.chat_id, stored.game_id, stored.creator_id)
        opener = outcome.meta.names.get(stored.creator_id, "")
        for user_id in people:
            # Written in his own language, else in the group's.
            lang = personal(await self.service.user(user_id)) or outcome.chat.language
            rendered = render.notice(
                chat_id=stored.chat_id,
                chat_title=outcome.meta.chat_title,
                game_id=stored.game_id,
                opener=opener,
                lang=lang,
            )
            self.lanes.post(user_id, self._sender(user_id, rendered), "notice")
        if people:
            log.info("game=%s chat=%s notices=%d", stored.game_id, stored.chat_id, len(people))
        return people

    def _sender(self, user_id: int, rendered: render.Rendered) -> Send:
        """One notice's send, made when the person's lane gets to it."""

        async def send() -> object:
            try:
                return await self.bot.send_message(
                    user_id, rendered.text, reply_markup=rendered.markup, **self.lanes.send_args()
                )
            except TelegramError as error:
                if classify(error).fate is Fate.CHAT_LOST:  # he blocked the bot
                    dropped = await self.service.bot_blocked(user_id)
                    log.info("user=%s refuses the bot: off %d notice lists", user_id, dropped)
                raise  # the lane judges it as any other send (a lost private chat, a retry)

        return send
