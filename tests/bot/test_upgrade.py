"""A game in mid-round when the bot is upgraded: the database is at the schema before delivery
had a table of its own (version 9, the messages in the games' rows), and the new code, once
it has migrated it, plays the game on to its end without sending a message again or losing
one."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from bot.service import Actor, Command, Request
from localbotapi import BotApiServer
from storage import MIGRATIONS, SqliteStorage
from tests.bot.conftest import Harness, make_settings, restart_harness, start_harness, stop_harness
from tests.bot.test_refusals import classic_at_stake

# The columns step 10 moved out of the games, as version 9 kept them.
MESSAGE_COLUMNS = ("table_message_id", "hand_messages", "shown_version", "posted_seq")


async def as_version_9(path: Path) -> None:
    """Rewrite the database as version 9 held it: the same rows, delivery's record in the
    games' own columns (where the code of then wrote it), no screens table."""
    old = path.with_suffix(".v9")
    storage = SqliteStorage(old, migrations=tuple(MIGRATIONS[:9]))
    await storage.start()
    await storage.stop()
    _copy_rows(path, old)


def _copy_rows(path: Path, old: Path) -> None:
    """Every row of ``path`` into the empty version-9 database ``old``, which then takes its
    place."""
    conn = sqlite3.connect(old)
    try:
        conn.execute("ATTACH DATABASE ? AS new", (str(path),))
        tables = [
            name
            for (name,) in conn.execute(
                "SELECT name FROM main.sqlite_master WHERE type = 'table' "
                "AND name NOT LIKE 'sqlite_%'"
            )
        ]
        with conn:
            for table in tables:
                names = [row[1] for row in conn.execute(f"PRAGMA main.table_info({table})")]
                # A column a later step moved elsewhere (not delivery's) reads as NULL.
                kept = {row[1] for row in conn.execute(f"PRAGMA new.table_info({table})")}
                values = [f"g.{n}" if n in kept else "NULL" for n in names]
                source = f"new.{table} AS g"
                if table == "games":
                    values = [
                        f"coalesce(s.{n}, {0 if n != 'hand_messages' else repr('{}')})"
                        if n in MESSAGE_COLUMNS[1:]
                        else f"s.{n}"
                        if n == "table_message_id"
                        else value
                        for n, value in zip(names, values, strict=True)
                    ]
                    source += " LEFT JOIN new.screens AS s USING (game_id)"
                conn.execute(
                    f"INSERT INTO main.{table} ({', '.join(names)}) "
                    f"SELECT {', '.join(values)} FROM {source}"
                )
        conn.execute("DETACH DATABASE new")
    finally:
        conn.close()
    for suffix in ("", "-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    old.rename(path)


def sent(h: Harness) -> list[tuple[int | str, str]]:
    """Every message the bot sent: (chat, text)."""
    return [(r.chat_id or 0, str(r.params.get("text", ""))) for r in h.calls("sendMessage")]


async def test_a_game_mid_round_plays_on_after_the_upgrade(tmp_path: Path) -> None:
    server = BotApiServer(flood_limits=False)
    first = await start_harness(server, make_settings(tmp_path))
    a, b, c, _ = first.users
    try:
        await classic_at_stake(first, ["10S", "9S", "7H", "AS", "8D", "KD", "10D"])
        await first.say(b, "/bet 50")
        await first.say(b, "/hit")  # 10 + A = 21, paid at once
        await first.say(c, "/bet 25")
        await first.say(c, "/dark")
        await first.say(a, "/hit")
        stored = await first.stored()
        screen = await first.screen(stored)
        assert screen.table_message_id is not None and len(screen.hand_messages) == 3
        # The last move settles the round and commits its result; the process dies before
        # delivery hears of it: the result waits in the stored outbox.
        outcome = await first.rt.service.act(
            Request(stored.game_id, Actor(a.id, "Аня"), Command("hit"))
        )
        assert outcome.meta.outbox and outcome.stored.state["engine"]["phase"] == "round_over"
        before = sent(first)
        table = first.group.message(screen.table_message_id)
        assert table is not None
    finally:
        await first.rt.delivery.stop()
        await first.rt.scheduler.stop()
        await first.rt.storage.stop()
        await first.app.shutdown()
    path = Path(str(first.settings.database_url).removeprefix("sqlite:///"))  # type: ignore[union-attr]
    await as_version_9(path)
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA user_version").fetchone() == (9,)
    assert conn.execute(
        "SELECT table_message_id, posted_seq FROM games WHERE game_id = ?", (stored.game_id,)
    ).fetchone() == (screen.table_message_id, screen.posted_seq)
    conn.close()

    second = await restart_harness(first)
    try:
        await second.pump()
        await second.rt.delivery.drain()
        assert (await second.screen(stored.game_id)).table_message_id == table.message_id
        after = sent(second)[len(before) :]
        # The pending result is posted once; no table and no hand is posted again.
        group = [text for chat, text in after if chat == second.group.id]
        assert len(group) == 1 and group[0].startswith("🏁 <b>Раунд 1"), after
        assert "Вика" in group[0] and "975" in group[0], after
        assert [chat for chat, _ in after] == [second.group.id], after
        assert [await second.balance(u) for u in (a, b, c)] == [900, 1050, 975]
        # Play goes on: the next round gets its table, and the game ends with its summary.
        count = len(second.group.all_messages)
        await second.say(a, "/next")
        new_table = (await second.screen(stored.game_id)).table_message_id
        assert new_table not in (None, table.message_id)
        await second.say(a, "/endgame")
        question = second.group.last_with_buttons()
        assert question is not None
        yes = [d for _, d in question.flat_buttons if d and d.endswith(":y")]
        await second.press_data(a, question, yes[0])
        ended = await second.rt.storage.load_game(stored.game_id)
        assert ended is not None and ended.status == "finished"
        texts = second.bot_texts_since(count)
        assert sum("Фишки по итогам игры" in t for t in texts) == 1, texts
        assert (await second.rt.storage.check_ledger(second.group.id)).ok
    finally:
        await stop_harness(second)
