"""Delivery's record of what it showed of each game (`screens`, one row a game), written by
delivery alone; the service writes the games, and reads this only for the results posted (the
outbox it trims).

Concurrency (PostgreSQL): set_screen is one upsert whose conditions compare with the stored row,
so that a late write of an older progress changes nothing; a game that does not exist is
refused by the statement itself (no row inserted).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from storage.errors import GameNotFound
from storage.jsontext import dumps, loads
from storage.models import UNSET, Screen, Unset
from storage.sql.base import TableReads, TableWrites

# The columns in the order of Screen's fields.
_LOAD_SCREEN: Final = (
    "SELECT table_since, table_message_id, hand_messages, posted_seq, shown_version, "
    "mentioned_since, live_result FROM screens WHERE game_id = $1"
)
_TEXT_COLUMNS: Final = ("hand_messages", "live_result")
# Written with the table's: a newer table (or an equal one: the same round's table posted
# again) replaces the message, an older one leaves it.
_IF_NEWER_TABLE: Final = (
    "CASE WHEN EXCLUDED.table_since >= screens.table_since THEN EXCLUDED.{0} ELSE screens.{0} END"
)


class ScreenReads(TableReads):
    async def load_screen(self, game_id: int) -> Screen:
        row = await self._row(_LOAD_SCREEN, game_id)
        if row is None:
            return Screen(game_id)
        since, message_id, hands, posted, shown, mentioned, live = row
        # JSON object keys are strings; user ids are ints everywhere else.
        return Screen(
            game_id,
            since,
            message_id,
            {int(k): int(v) for k, v in loads(hands).items()},
            posted,
            shown,
            mentioned,
            None if live is None else loads(live),
        )


class ScreenQueries(TableReads):
    async def stale_views(self) -> list[int]:
        return await self._column(
            "SELECT games.game_id FROM games LEFT JOIN screens ON screens.game_id = games.game_id "
            "WHERE games.status <> 'finished' "
            "AND coalesce(screens.shown_version, 0) < games.version ORDER BY games.game_id"
        )


class ScreenWrites(TableWrites):
    async def set_screen(
        self,
        game_id: int,
        *,
        table_since: int | Unset = UNSET,
        table_message_id: int | Unset | None = UNSET,
        hand_messages: Mapping[int, int] | Unset = UNSET,
        shown_version: int | Unset = UNSET,
        posted_seq: int | Unset = UNSET,
        mentioned_since: int | Unset = UNSET,
        live_result: Mapping[str, Any] | Unset | None = UNSET,
    ) -> None:
        """Arguments left UNSET are unchanged. A table message is recorded with the
        `table_since` it was posted for and kept only if that is not older than the recorded
        one (`shown_version` given with it too): a late write of an older round's table does
        not replace a newer one. `posted_seq` and `mentioned_since` only grow, so that a late
        writer of an older progress cannot make results be posted twice."""
        if isinstance(table_since, Unset) != isinstance(table_message_id, Unset):
            raise ValueError("a table message is recorded with the table_since it shows")
        table = not isinstance(table_since, Unset)
        columns: list[str] = []
        params: list[object] = [game_id]
        updates: list[str] = []
        if table:
            columns += ["table_since", "table_message_id"]
            params += [table_since, table_message_id]
            updates += [
                "table_since = {greatest}(screens.table_since, EXCLUDED.table_since)",
                "table_message_id = " + _IF_NEWER_TABLE.format("table_message_id"),
            ]
        hands = (
            hand_messages
            if isinstance(hand_messages, Unset)
            else dumps({str(k): v for k, v in hand_messages.items()})
        )
        live = (
            live_result
            if live_result is None or isinstance(live_result, Unset)
            else dumps(live_result)
        )
        grows = "{{greatest}}(screens.{0}, EXCLUDED.{0})"  # a late older write changes nothing
        for column, value, update in (
            ("hand_messages", hands, "EXCLUDED.hand_messages"),
            ("shown_version", shown_version, _IF_NEWER_TABLE if table else "EXCLUDED.{0}"),
            ("posted_seq", posted_seq, grows),
            ("mentioned_since", mentioned_since, grows),
            ("live_result", live, "EXCLUDED.{0}"),
        ):
            if not isinstance(value, Unset):
                columns.append(column)
                params.append(value)
                updates.append(f"{column} = " + update.format(column))
        if not columns:
            return
        # Typed in the statement: a parameter of a SELECT list has no column to take its type
        # from on PostgreSQL.
        values = "".join(
            f", CAST(${n} AS {'TEXT' if column in _TEXT_COLUMNS else 'BIGINT'})"
            for n, column in enumerate(columns, start=2)
        )
        changed = await self._execute(
            f"INSERT INTO screens (game_id, {', '.join(columns)}) SELECT $1{values} "
            "WHERE EXISTS (SELECT 1 FROM games WHERE game_id = $1) "
            f"ON CONFLICT (game_id) DO UPDATE SET {', '.join(updates)}",
            *params,
        )
        if changed == 0:
            raise GameNotFound(game_id)
