"""A call to play: who asked to be told when a table opens in a chat (`notice_subscribers`),
and the notices claimed for each table (`notices_sent`).

A notice is claimed in the transaction that decides to send it, one row per table and person
(the primary key): a repeated decision — the same update handled again, another replica — claims
nothing twice. The rows of the last hour are what a chat's ``notices_per_hour`` counts, per
person; older ones are pruned as the chat claims again.
"""

from __future__ import annotations

from typing import Final

from storage.sql.base import TableReads, TableWrites

HOUR: Final = 3600.0
KEEP: Final = 24 * HOUR  # claims older than this no longer matter to anything

# $1 chat, $2 game, $3 the opener (no notice for him), $4 now, $5 an hour ago, $6 the cap.
# Each subscriber whose private chat is open and who got fewer than $6 notices from the chat
# in the last hour gets a claim; a claim made already (the same table) is left alone.
_CLAIM: Final = (
    "INSERT INTO notices_sent (game_id, user_id, chat_id, sent_at) "
    "SELECT CAST($2 AS BIGINT), s.user_id, s.chat_id, CAST($4 AS DOUBLE PRECISION) "
    "FROM notice_subscribers AS s JOIN users AS u ON u.user_id = s.user_id "
    "WHERE s.chat_id = $1 AND s.user_id <> $3 AND u.private_opened "
    "AND (SELECT COUNT(*) FROM notices_sent AS n WHERE n.chat_id = s.chat_id "
    "AND n.user_id = s.user_id AND n.sent_at > $5) < $6 "
    "ORDER BY s.user_id "
    "ON CONFLICT (game_id, user_id) DO NOTHING RETURNING user_id"
)
# A group became a supergroup (storage/sql/chat_migration.py): its subscribers follow it, $1
# the old id, $2 the new one (the claims are moved with a plain UPDATE: keyed by the table).
MOVE_SUBSCRIBERS: Final = (
    "INSERT INTO notice_subscribers (chat_id, user_id, since) "
    "SELECT CAST($2 AS BIGINT), user_id, since FROM notice_subscribers "
    "WHERE chat_id = $1 ON CONFLICT (chat_id, user_id) DO NOTHING"
)


class NoticeReads(TableReads):
    async def is_subscribed(self, chat_id: int, user_id: int) -> bool:
        row = await self._row(
            "SELECT 1 FROM notice_subscribers WHERE chat_id = $1 AND user_id = $2",
            chat_id,
            user_id,
        )
        return row is not None

    async def subscribers(self, chat_id: int) -> list[int]:
        return await self._column(
            "SELECT user_id FROM notice_subscribers WHERE chat_id = $1 ORDER BY user_id", chat_id
        )

    async def notice_sent(self, game_id: int, user_id: int) -> bool:
        """Whether ``user_id`` was sent a notice of this table (its button seats him)."""
        row = await self._row(
            "SELECT 1 FROM notices_sent WHERE game_id = $1 AND user_id = $2", game_id, user_id
        )
        return row is not None


class NoticeWrites(TableWrites):
    async def subscribe(self, chat_id: int, user_id: int) -> bool:
        """Tell him when a table opens in the chat; False when he had asked already."""
        written = await self._execute(
            "INSERT INTO notice_subscribers (chat_id, user_id, since) VALUES ($1, $2, $3) "
            "ON CONFLICT (chat_id, user_id) DO NOTHING",
            chat_id,
            user_id,
            self._clock(),
        )
        return written > 0

    async def unsubscribe(self, chat_id: int, user_id: int) -> bool:
        """No more notices from the chat; False when he had none to stop."""
        written = await self._execute(
            "DELETE FROM notice_subscribers WHERE chat_id = $1 AND user_id = $2", chat_id, user_id
        )
        return written > 0

    async def unsubscribe_everywhere(self, user_id: int) -> int:
        """He blocked the bot: no notices from any chat; how many he had."""
        return await self._execute("DELETE FROM notice_subscribers WHERE user_id = $1", user_id)

    async def claim_notices(
        self, chat_id: int, game_id: int, opener: int, per_hour: int, now: float
    ) -> list[int]:
        """Claim a notice of the table ``game_id`` for each of the chat's subscribers who
        should get one (the opener never; only with the private chat open; fewer than
        ``per_hour`` from this chat in the last hour; none claimed for this table yet): the
        people to send one to, by id."""
        await self._execute(
            "DELETE FROM notices_sent WHERE chat_id = $1 AND sent_at < $2", chat_id, now - KEEP
        )
        if per_hour <= 0:
            return []
        return await self._column(_CLAIM, chat_id, game_id, opener, now, now - HOUR, per_hour)
