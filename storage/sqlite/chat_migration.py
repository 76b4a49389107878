"""A group upgraded to a supergroup: everything of the old chat id moves to the new one."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from storage.errors import GameExists
from storage.jsontext import dumps
from storage.sqlite.base import Row
from storage.sqlite.block import TransactionBlock
from storage.sqlite.stats import MERGE_STATS


class ChatMigration(TransactionBlock):
    """migrate_chat, which writes every table that has a chat id."""

    async def migrate_chat(self, old_chat_id: int, new_chat_id: int) -> list[int]:
        if old_chat_id == new_chat_id:
            raise ValueError(f"chat {old_chat_id} cannot be migrated to itself")
        # Refused before any write, so that nothing of this call is left to undo.
        clash = await self._row(
            "SELECT old.thread_id FROM games AS old JOIN games AS new "
            "ON new.chat_id = ?2 AND new.thread_id = old.thread_id AND new.status != 'finished' "
            "WHERE old.chat_id = ?1 AND old.status != 'finished' ORDER BY old.thread_id",
            (old_chat_id, new_chat_id),
        )
        if clash is not None:
            raise GameExists(new_chat_id, clash[0])
        for chat_id in (old_chat_id, new_chat_id):
            self._writes.chats.add(chat_id)
            self._caches.chats.pop(chat_id, None)
        # Players in both chats: their ledger rows' balance-after values become the combined
        # balance, computed while each row still tells which chat it belonged to.
        both = await self._rows(
            "SELECT old.user_id, old.balance, new.balance FROM players AS old "
            "JOIN players AS new ON new.chat_id = ?2 AND new.user_id = old.user_id "
            "WHERE old.chat_id = ?1",
            (old_chat_id, new_chat_id),
        )
        if both:
            ledger = await self._rows(
                "SELECT entry_id, chat_id, source_kind, source_id, target_kind, target_id, "
                "amount, source_after, target_after FROM ledger WHERE chat_id IN (?1, ?2) "
                "AND ((source_kind = 'player' AND source_id IN (SELECT value FROM json_each(?3))) "
                "OR (target_kind = 'player' AND target_id IN (SELECT value FROM json_each(?3)))) "
                "ORDER BY entry_id",
                (old_chat_id, new_chat_id, dumps([row[0] for row in both])),
            )
            balances = {row[0]: (row[1], row[2]) for row in both}
            changed = _combined_afters(ledger, old_chat_id, balances)
            if changed:
                await self._executemany(
                    "UPDATE ledger SET source_after = ?, target_after = ? WHERE entry_id = ?",
                    changed,
                )
        # Players first (stats and stat events refer to them), the old rows last.
        await self._execute(
            "INSERT INTO players (chat_id, user_id, name, balance, created_at) "
            "SELECT ?2, user_id, name, balance, created_at FROM players WHERE chat_id = ?1 "
            "ON CONFLICT (chat_id, user_id) DO UPDATE SET balance = balance + excluded.balance, "
            "created_at = min(created_at, excluded.created_at)",
            (old_chat_id, new_chat_id),
        )
        await self._execute(
            "INSERT INTO stats (chat_id, user_id, rounds, wins, losses, pushes, twentyones, "
            "golden_points, busts, net, biggest_win) SELECT ?2, user_id, rounds, wins, losses, "
            "pushes, twentyones, golden_points, busts, net, biggest_win FROM stats "
            "WHERE chat_id = ?1 ON CONFLICT (chat_id, user_id) DO UPDATE SET " + MERGE_STATS,
            (old_chat_id, new_chat_id),
        )
        await self._execute("DELETE FROM stats WHERE chat_id = ?", (old_chat_id,))
        await self._execute(
            "UPDATE stat_events SET chat_id = ? WHERE chat_id = ?", (new_chat_id, old_chat_id)
        )
        await self._execute("DELETE FROM players WHERE chat_id = ?", (old_chat_id,))
        await self._execute(
            "UPDATE ledger SET chat_id = ? WHERE chat_id = ?", (new_chat_id, old_chat_id)
        )
        moved = await self._rows(
            "UPDATE games SET chat_id = ? WHERE chat_id = ? RETURNING game_id, status",
            (new_chat_id, old_chat_id),
        )
        # No timestamp tells when settings were saved, but a row of the new id can only have
        # been saved after the upgrade: it wins whole.
        await self._execute(
            "INSERT INTO chats (chat_id, language, preset, overrides, turn_timeout, house_banker, "
            "daily_refill) SELECT ?2, language, preset, overrides, turn_timeout, house_banker, "
            "daily_refill FROM chats "
            "WHERE chat_id = ?1 ON CONFLICT (chat_id) DO NOTHING",
            (old_chat_id, new_chat_id),
        )
        await self._execute("DELETE FROM chats WHERE chat_id = ?", (old_chat_id,))
        await self._execute(
            "INSERT INTO shown_messages (chat_id, message_id, digest, shown_at) "
            "SELECT ?2, message_id, digest, shown_at FROM shown_messages WHERE chat_id = ?1 "
            "ON CONFLICT (chat_id, message_id) DO NOTHING",
            (old_chat_id, new_chat_id),
        )
        await self._execute("DELETE FROM shown_messages WHERE chat_id = ?", (old_chat_id,))
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
