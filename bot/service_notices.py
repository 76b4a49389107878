"""A call to play, the service's side: who asked, per chat, to be told when a table opens
there, and the notices claimed when one does.

A notice is claimed in the transaction that decides to send it (`Transaction.claim_notices`):
once per table and person, at most the chat's ``notices_per_hour`` an hour per person, never
for the opener, only for people whose private chat with the bot is open — whichever process
decides, and however often. Sending is `bot.notices`'.

:class:`ServiceNotices` is part of `bot.service.GameService`.
"""

from __future__ import annotations

from collections.abc import Callable

from storage import Storage


class ServiceNotices:
    """The call to play of `bot.service.GameService` (which sets these attributes)."""

    storage: Storage
    clock: Callable[[], float]

    async def subscribed(self, chat_id: int, user_id: int) -> bool:
        return await self.storage.is_subscribed(chat_id, user_id)

    async def set_notices(
        self, chat_id: int, user_id: int, on: bool | None = None, update_id: int | None = None
    ) -> bool:
        """Start (``on``), stop, or with None switch a person's notices of the chat's tables;
        returns whether he gets them now. A switch asked by an update that came before (Telegram
        may deliver one twice) switches nothing again."""
        async with self.storage.transaction() as tx:
            if on is None:
                now = await tx.is_subscribed(chat_id, user_id)
                if update_id is not None and not await tx.claim_update(update_id):
                    return now
                on = not now
            if on:
                await tx.subscribe(chat_id, user_id)
            else:
                await tx.unsubscribe(chat_id, user_id)
        return on

    async def claim_notices(self, chat_id: int, game_id: int, opener: int) -> list[int]:
        """A table opened in the chat: the people to tell, each claimed once (see above)."""
        async with self.storage.transaction() as tx:
            # Two tables opening at once in one chat (forum topics) count each other's claims.
            await tx.lock_chat(chat_id)
            chat = await tx.get_chat(chat_id)
            return await tx.claim_notices(
                chat_id, game_id, opener, chat.notices_per_hour, self.clock()
            )

    async def was_noticed(self, game_id: int, user_id: int) -> bool:
        """Whether he was sent a notice of this table (so its button may seat him)."""
        return await self.storage.notice_sent(game_id, user_id)

    async def member_left(self, chat_id: int, user_id: int) -> bool:
        """He left the group (or was removed): off its list. True when he was on it."""
        async with self.storage.transaction() as tx:
            return await tx.unsubscribe(chat_id, user_id)

    async def bot_blocked(self, user_id: int) -> int:
        """He blocked the bot: off every list; how many he was on."""
        async with self.storage.transaction() as tx:
            return await tx.unsubscribe_everywhere(user_id)
