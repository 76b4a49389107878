"""Delivery bookkeeping: the update ids already processed and the digest of what each bot
message shows.

Concurrency (PostgreSQL): claim_update is INSERT … ON CONFLICT DO NOTHING: of two transactions
claiming one update id, the second waits for the first and claims nothing if it commits (the
update is then processed exactly once), or claims it if the first rolls back.
"""

from __future__ import annotations

from collections.abc import Collection

from storage.jsontext import dumps
from storage.sql.base import TableReads, TableWrites


class DeliveryReads(TableReads):
    async def is_processed(self, update_id: int) -> bool:
        row = await self._row("SELECT 1 FROM processed_updates WHERE update_id = $1", update_id)
        return row is not None

    async def shown_digest(self, chat_id: int, message_id: int) -> str | None:
        """What `record_shown` last stored. It outlives the process, so that after a restart
        an edit that would show what the message already shows can be skipped: Telegram
        refuses it ("message is not modified"), which costs a request and, under flood limits,
        a slot."""
        row = await self._row(
            "SELECT digest FROM shown_messages WHERE chat_id = $1 AND message_id = $2",
            chat_id,
            message_id,
        )
        return None if row is None else str(row[0])


class DeliveryWrites(TableWrites):
    async def claim_update(self, update_id: int) -> bool:
        """False when the update was already processed: abandon the action."""
        inserted = await self._execute(
            "INSERT INTO processed_updates (update_id, processed_at) VALUES ($1, $2) "
            "ON CONFLICT (update_id) DO NOTHING",
            update_id,
            self._clock(),
        )
        return inserted == 1

    async def prune_processed(self, before: float) -> int:
        """A pruned id can be claimed again: prune only ids older than Telegram could
        redeliver."""
        return await self._execute("DELETE FROM processed_updates WHERE processed_at < $1", before)

    async def record_shown(self, chat_id: int, message_id: int, digest: str) -> None:
        """Call it once Telegram has accepted the send or edit, not before: were it recorded
        first, a crash before the edit would make the edit look needless forever."""
        await self._execute(
            "INSERT INTO shown_messages (chat_id, message_id, digest, shown_at) "
            "VALUES ($1, $2, $3, $4) ON CONFLICT (chat_id, message_id) DO UPDATE SET "
            "digest = EXCLUDED.digest, shown_at = EXCLUDED.shown_at",
            chat_id,
            message_id,
            digest,
            self._clock(),
        )

    async def forget_shown(self, chat_id: int, message_ids: Collection[int]) -> None:
        """For messages deleted or replaced, so that the table does not grow every round."""
        if message_ids:
            await self._execute(
                "DELETE FROM shown_messages WHERE chat_id = $1 AND message_id IN ({ids $2})",
                chat_id,
                dumps(sorted(set(message_ids))),
            )

    async def prune_shown(self, before: float) -> int:
        """Messages that old are not edited any more; were one edited anyway, a forgotten
        digest costs one edit that Telegram may answer with "message is not modified"."""
        return await self._execute("DELETE FROM shown_messages WHERE shown_at < $1", before)
