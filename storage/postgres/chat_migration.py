"""A group upgraded to a supergroup: everything of the old chat id moves to the new one.

Concurrency: migrate_chat reads (the open games of both ids, the players in both, their ledger
rows) and then writes what it computed from that. Telegram tells of an upgrade in both chats,
so two processes may migrate the same pair at once: the call first takes a transaction-scoped
advisory lock on each chat id, in id order (a lock on the chat whether or not it has a row of
settings), then locks the players of both ids. A second call waits for the first to commit and
then reads an empty old id; a transfer or refill of one of those players waits for the
migration, and then finds its player moved (UnknownAccount: the action is run again against
the new chat). Every read below comes after the locks, so each sees what was committed before.
"""

from __future__ import annotations

from storage.errors import GameExists
from storage.postgres.base import dumps
from storage.postgres.block import TransactionBlock
from storage.postgres.stats import MERGE_STATS
from storage.sqlite.chat_migration import _combined_afters as combined_afters

# Statements that write rows of the new id from rows of the old one: $1 the old id, $2 the new.
_MOVE_PLAYERS = (
    "INSERT INTO players (chat_id, user_id, name, balance, created_at) "
    "SELECT $2::bigint, user_id, name, balance, created_at FROM players WHERE chat_id = $1 "
    "ON CONFLICT (chat_id, user_id) DO UPDATE SET balance = players.balance + EXCLUDED.balance, "
    "created_at = LEAST(players.created_at, EXCLUDED.created_at)"
)
_MOVE_STATS = (
    "INSERT INTO stats (chat_id, user_id, rounds, wins, losses, pushes, twentyones, "
    "golden_points, busts, net, biggest_win) SELECT $2::bigint, user_id, rounds, wins, losses, "
    "pushes, twentyones, golden_points, busts, net, biggest_win FROM stats "
    "WHERE chat_id = $1 ON CONFLICT (chat_id, user_id) DO UPDATE SET " + MERGE_STATS
)
# No timestamp tells when settings were saved, but a row of the new id can only have been
# saved after the upgrade: it wins whole.
_MOVE_SETTINGS = (
    "INSERT INTO chats (chat_id, language, preset, overrides, turn_timeout, house_banker, "
    "daily_refill) SELECT $2::bigint, language, preset, overrides, turn_timeout, house_banker, "
    "daily_refill FROM chats WHERE chat_id = $1 ON CONFLICT (chat_id) DO NOTHING"
)
_MOVE_DIGESTS = (
    "INSERT INTO shown_messages (chat_id, message_id, digest, shown_at) "
    "SELECT $2::bigint, message_id, digest, shown_at FROM shown_messages WHERE chat_id = $1 "
    "ON CONFLICT (chat_id, message_id) DO NOTHING"
)


class ChatMigration(TransactionBlock):
    """migrate_chat, which writes every table that has a chat id."""

    async def migrate_chat(self, old_chat_id: int, new_chat_id: int) -> list[int]:
        if old_chat_id == new_chat_id:
            raise ValueError(f"chat {old_chat_id} cannot be migrated to itself")
        for chat_id in sorted((old_chat_id, new_chat_id)):
            await self._rows("SELECT pg_advisory_xact_lock($1)", chat_id)
        await self._rows(
            "SELECT 1 FROM players WHERE chat_id IN ($1, $2) ORDER BY chat_id, user_id FOR UPDATE",
            old_chat_id,
            new_chat_id,
        )
        # Refused before any write, so that nothing of this call is left to undo. A game opened
        # in such a thread after this check makes the move of the games below hit the unique
        # index: a ConcurrencyConflict, and run again, this check refuses it.
        clash = await self._row(
            "SELECT old.thread_id FROM games AS old JOIN games AS new "
            "ON new.chat_id = $2 AND new.thread_id = old.thread_id AND new.status <> 'finished' "
            "WHERE old.chat_id = $1 AND old.status <> 'finished' ORDER BY old.thread_id",
            old_chat_id,
            new_chat_id,
        )
        if clash is not None:
            raise GameExists(new_chat_id, clash[0])
        # Players in both chats: their ledger rows' balance-after values become the combined
        # balance, computed while each row still tells which chat it belonged to.
        both = await self._rows(
            "SELECT old.user_id, old.balance, new.balance FROM players AS old "
            "JOIN players AS new ON new.chat_id = $2 AND new.user_id = old.user_id "
            "WHERE old.chat_id = $1",
            old_chat_id,
            new_chat_id,
        )
        if both:
            ledger = await self._rows(
                "WITH users_ AS (SELECT jsonb_array_elements_text($3::jsonb)::bigint) "
                "SELECT entry_id, chat_id, source_kind, source_id, target_kind, target_id, "
                "amount, source_after, target_after FROM ledger WHERE chat_id IN ($1, $2) "
                "AND ((source_kind = 'player' AND source_id IN (SELECT * FROM users_)) "
                "OR (target_kind = 'player' AND target_id IN (SELECT * FROM users_))) "
                "ORDER BY entry_id",
                old_chat_id,
                new_chat_id,
                dumps([row[0] for row in both]),
            )
            balances = {row[0]: (row[1], row[2]) for row in both}
            # The same arithmetic as the SQLite backend's, on the same rows.
            changed = combined_afters(ledger, old_chat_id, balances)
            if changed:
                await self._execute(
                    "UPDATE ledger SET source_after = c.source_after, "
                    "target_after = c.target_after "
                    "FROM jsonb_to_recordset($1::jsonb) "
                    "AS c (source_after bigint, target_after bigint, entry_id bigint) "
                    "WHERE ledger.entry_id = c.entry_id",
                    dumps(
                        [
                            {"source_after": s, "target_after": t, "entry_id": e}
                            for s, t, e in changed
                        ]
                    ),
                )
        # Players first (stats and stat events refer to them), the old rows last.
        await self._execute(_MOVE_PLAYERS, old_chat_id, new_chat_id)
        await self._execute(_MOVE_STATS, old_chat_id, new_chat_id)
        await self._execute("DELETE FROM stats WHERE chat_id = $1", old_chat_id)
        await self._execute(
            "UPDATE stat_events SET chat_id = $1 WHERE chat_id = $2", new_chat_id, old_chat_id
        )
        await self._execute("DELETE FROM players WHERE chat_id = $1", old_chat_id)
        await self._execute(
            "UPDATE ledger SET chat_id = $1 WHERE chat_id = $2", new_chat_id, old_chat_id
        )
        moved = await self._rows(
            "UPDATE games SET chat_id = $1 WHERE chat_id = $2 RETURNING game_id, status",
            new_chat_id,
            old_chat_id,
        )
        await self._execute(_MOVE_SETTINGS, old_chat_id, new_chat_id)
        await self._execute("DELETE FROM chats WHERE chat_id = $1", old_chat_id)
        await self._execute(_MOVE_DIGESTS, old_chat_id, new_chat_id)
        await self._execute("DELETE FROM shown_messages WHERE chat_id = $1", old_chat_id)
        return sorted(row[0] for row in moved if row[1] != "finished")
