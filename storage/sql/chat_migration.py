"""A group upgraded to a supergroup: everything of the old chat id moves to the new one.

Concurrency (PostgreSQL): migrate_chat reads (the open games of both ids, the players in both,
their ledger rows) and then writes what it computed from that. Telegram tells of an upgrade in
both chats, so two processes may migrate the same pair at once: the call first takes a
transaction-scoped advisory lock on each chat id, in id order (a lock on the chat whether or
not it has a row of settings), then locks the players of both ids. A second call waits for the
first to commit and then reads an empty old id; a transfer or refill of one of those players
waits for the migration, and then finds its player moved (UnknownAccount: the action is run
again against the new chat). Every read below comes after the locks, so each sees what was
committed before. SQLite, with its single writer, takes no lock.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Final

from storage.errors import GameExists
from storage.jsontext import dumps
from storage.sql.base import Row, TableWrites
from storage.sql.notices import MOVE_SUBSCRIBERS
from storage.sql.stats import MERGE_STATS

# Statements that write rows of the new id from rows of the old one: $1 the old id, $2 the new.
_MOVE_PLAYERS: Final = (
    "INSERT INTO players (chat_id, user_id, name, balance, created_at) "
    "SELECT CAST($2 AS BIGINT), user_id, name, balance, created_at FROM players "
    "WHERE chat_id = $1 ON CONFLICT (chat_id, user_id) DO UPDATE SET "
    "balance = players.balance + EXCLUDED.balance, "
    "created_at = {least}(players.created_at, EXCLUDED.created_at)"
)
_MOVE_STATS: Final = (
    "INSERT INTO stats (chat_id, user_id, rounds, wins, losses, pushes, twentyones, "
    "golden_points, busts, net, biggest_win) SELECT CAST($2 AS BIGINT), user_id, rounds, wins, "
    "losses, pushes, twentyones, golden_points, busts, net, biggest_win FROM stats "
    "WHERE chat_id = $1 ON CONFLICT (chat_id, user_id) DO UPDATE SET " + MERGE_STATS
)
# No timestamp tells when settings were saved, but a row of the new id can only have been
# saved after the upgrade: it wins whole.
_MOVE_SETTINGS: Final = (
    "INSERT INTO chats (chat_id, language, preset, overrides, turn_timeout, house_banker, "
    "daily_refill, notices_per_hour, season, utc_offset) "
    "SELECT CAST($2 AS BIGINT), language, preset, overrides, turn_timeout, house_banker, "
    "daily_refill, notices_per_hour, season, utc_offset FROM chats WHERE chat_id = $1 "
    "ON CONFLICT (chat_id) DO NOTHING"
)
# The seasons that ended keep their podiums (one of the new id at the same time wins).
_MOVE_SEASONS: Final = (
    "INSERT INTO seasons (chat_id, starts_at, ends_at, number, podium, champion_id, "
    "champion_until) SELECT CAST($2 AS BIGINT), starts_at, ends_at, number, podium, "
    "champion_id, champion_until FROM seasons WHERE chat_id = $1 "
    "ON CONFLICT (chat_id, starts_at) DO NOTHING"
)
_MOVE_DIGESTS: Final = (
    "INSERT INTO shown_messages (chat_id, message_id, digest, shown_at) "
    "SELECT CAST($2 AS BIGINT), message_id, digest, shown_at FROM shown_messages "
    "WHERE chat_id = $1 ON CONFLICT (chat_id, message_id) DO NOTHING"
)


class ChatMigration(TableWrites):
    async def migrate_chat(self, old_chat_id: int, new_chat_id: int) -> list[int]:
        """Move everything of the chat to its new id; the ids of the unfinished games moved.

        The new id may already have rows, written by updates that arrived there before the
        migration was handled: merged without losing a chip. A player in both gets the sum
        of both balances (both grants stay in the ledger, and the player's balance-after
        values are rewritten to the combined balance, so that the history ends at the
        balance); statistics are added; names, settings, seasons and digests are the new chat's.
        `GameExists` (nothing written) if a thread has an unfinished game under both ids: two
        open games cannot be merged. Idempotent: once the old id is empty a call returns [].
        """
        if old_chat_id == new_chat_id:
            raise ValueError(f"chat {old_chat_id} cannot be migrated to itself")
        if self._dialect.concurrent:
            for chat_id in sorted((old_chat_id, new_chat_id)):
                await self._rows("SELECT pg_advisory_xact_lock($1)", chat_id)
            await self._rows(
                "SELECT 1 FROM players WHERE chat_id IN ($1, $2) "
                "ORDER BY chat_id, user_id{lock_update}",
                old_chat_id,
                new_chat_id,
            )
        # Refused before any write, so that nothing of this call is left to undo. On PostgreSQL
        # a game opened in such a thread after this check makes the move of the games below
        # hit the unique index: a ConcurrencyConflict, and run again, this check refuses it.
        clash = await self._row(
            "SELECT old.thread_id FROM games AS old JOIN games AS new "
            "ON new.chat_id = $2 AND new.thread_id = old.thread_id AND new.status <> 'finished' "
            "WHERE old.chat_id = $1 AND old.status <> 'finished' ORDER BY old.thread_id",
            old_chat_id,
            new_chat_id,
        )
        if clash is not None:
            raise GameExists(new_chat_id, clash[0])
        for chat_id in (old_chat_id, new_chat_id):
            self._wrote_chat(chat_id)
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
                "SELECT entry_id, chat_id, source_kind, source_id, target_kind, target_id, "
                "amount, source_after, target_after FROM ledger WHERE chat_id IN ($1, $2) "
                "AND ((source_kind = 'player' AND source_id IN ({ids $3})) "
                "OR (target_kind = 'player' AND target_id IN ({ids $3}))) "
                "ORDER BY entry_id",
                old_chat_id,
                new_chat_id,
                dumps([row[0] for row in both]),
            )
            balances = {row[0]: (row[1], row[2]) for row in both}
            changed = _combined_afters(ledger, old_chat_id, balances)
            if changed:
                await self._executemany(
                    "UPDATE ledger SET source_after = $1, target_after = $2 WHERE entry_id = $3",
                    changed,
                )
        # Players first (stats and stat events refer to them), the old rows last.
        await self._execute(_MOVE_PLAYERS, old_chat_id, new_chat_id)
        await self._execute(_MOVE_STATS, old_chat_id, new_chat_id)
        await self._execute("DELETE FROM stats WHERE chat_id = $1", old_chat_id)
        await self._execute(
            "UPDATE stat_events SET chat_id = $1 WHERE chat_id = $2", new_chat_id, old_chat_id
        )
        # Achievements: one of each per person; one earned in both chats keeps the new one's.
        await self._execute(
            "INSERT INTO achievements (chat_id, user_id, code, game_id, round_no, earned_at) "
            "SELECT $1, user_id, code, game_id, round_no, earned_at FROM achievements "
            "WHERE chat_id = $2 ON CONFLICT (chat_id, user_id, code) DO NOTHING",
            new_chat_id,
            old_chat_id,
        )
        await self._execute("DELETE FROM achievements WHERE chat_id = $1", old_chat_id)
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
        await self._execute(_MOVE_SEASONS, old_chat_id, new_chat_id)
        await self._execute("DELETE FROM seasons WHERE chat_id = $1", old_chat_id)
        await self._execute(_MOVE_DIGESTS, old_chat_id, new_chat_id)
        await self._execute("DELETE FROM shown_messages WHERE chat_id = $1", old_chat_id)
        await self._execute(MOVE_SUBSCRIBERS, old_chat_id, new_chat_id)
        await self._execute("DELETE FROM notice_subscribers WHERE chat_id = $1", old_chat_id)
        await self._execute(
            "UPDATE notices_sent SET chat_id = $1 WHERE chat_id = $2", new_chat_id, old_chat_id
        )
        return sorted(row[0] for row in moved if row[1] != "finished")


def _combined_afters(
    rows: Iterable[Row], old_chat_id: int, balances: Mapping[int, tuple[int, int]]
) -> list[tuple[int | None, int | None, int]]:
    """(source_after, target_after, entry_id) of the ledger rows whose balance-after values
    change when the players of two chats become one: each becomes the player's balance in the
    row's chat (as recorded) plus their balance in the other chat at that moment.

    `rows` (entry_id, chat_id, source_kind, source_id, target_kind, target_id, amount,
    source_after, target_after) are the ledger rows of both chats that involve those players,
    by entry_id; `balances` maps each such user to their (old chat, new chat) balance now. A
    chat's balance before its first row is that row's balance-after undone (0 when the ledger
    is complete), or the balance now if it has no row at all.
    """
    # The player sides of each row: (index of the after value, in the old chat?, user).
    sides: list[tuple[Row, list[tuple[int, bool, int]]]] = []
    running: dict[tuple[int, bool], int] = {}  # (user, in the old chat?) -> balance
    for row in rows:
        in_old = row[1] == old_chat_id
        found: list[tuple[int, bool, int]] = []
        for index, kind, user, sign in ((7, row[2], row[3], -1), (8, row[4], row[5], 1)):
            if kind == "player" and user in balances and row[index] is not None:
                found.append((index, in_old, user))
                running.setdefault((user, in_old), row[index] - sign * row[6])
        sides.append((row, found))
    for user, (old_balance, new_balance) in balances.items():
        running.setdefault((user, True), old_balance)
        running.setdefault((user, False), new_balance)
    changed: list[tuple[int | None, int | None, int]] = []
    for row, found in sides:
        after: list[int | None] = [row[7], row[8]]
        for index, in_old, user in found:
            running[(user, in_old)] = row[index]
            after[index - 7] = row[index] + running[(user, not in_old)]
        if after != [row[7], row[8]]:
            changed.append((after[0], after[1], row[0]))
    return changed
