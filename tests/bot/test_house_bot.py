"""The house banker in a chat: an admin turns it on, /newgame seats it, a round is played
against it by buttons, it names the bank and draws by itself (never on a timer), and /top
lists it under its name."""

from __future__ import annotations

from bot import render
from bot.callbacks import Act
from bot.house import HOUSE_BALANCE, HOUSE_ID
from tests.bot.conftest import Harness, plain
from tests.bot.test_commands import setting


async def test_a_round_against_the_house_by_buttons(harness: Harness) -> None:
    a, b, _, _ = harness.users
    await harness.say(a, "/settings")
    menu = harness.group.last_with_buttons()
    assert menu is not None
    answer = await harness.press_data(a, menu, setting(menu, "house", "on"))
    assert not answer.show_alert, answer
    assert (await harness.rt.storage.get_chat(harness.group.id)).house_banker

    # Seats: Аня, the house, Борис. The house banks: Борис plays first, then Аня.
    harness.script(decks=[["10S", "9S", "7H", "AS", "6D", "6C", "6H", "6S"]])
    await harness.say(a, "/newgame")
    stored = await harness.stored()
    assert stored.state["engine"]["house"] == HOUSE_ID
    # The house has a seat row (one house table per chat), but no person's game cap applies.
    assert await harness.rt.storage.seated_games(HOUSE_ID) == [stored.game_id]
    house = await harness.rt.storage.get_player(harness.group.id, HOUSE_ID)
    assert house is not None and house.balance == HOUSE_BALANCE  # granted through the ledger
    answer = await harness.press_act(b, harness.table(), Act.JOIN)
    assert not answer.show_alert, answer
    await harness.press_act(a, harness.table(), Act.START)

    stored = await harness.stored()
    engine = stored.state["engine"]
    assert (engine["banker"], engine["bank"]) == (HOUSE_ID, HOUSE_BALANCE)  # named by itself
    assert (engine["phase"], engine["turn"]) == ("stake", b.id)
    stakes = [btn.amount for btn in harness.acts(harness.table()) if btn.act is Act.BET]
    await harness.press_act(b, harness.table(), Act.BET, stakes[0])
    await harness.press_act(b, harness.table(), Act.HIT)  # 10 + A = 21: paid at once
    stakes = [btn.amount for btn in harness.acts(harness.table()) if btn.act is Act.BET]
    await harness.press_act(a, harness.table(), Act.BET, stakes[0])
    before = (await harness.stored()).version
    await harness.press_act(a, harness.table(), Act.STAND)  # 9; the house plays at once

    stored = await harness.stored()
    engine = stored.state["engine"]
    assert engine["phase"] == "round_over" and engine["banker"] == HOUSE_ID
    # Аня's stand (the house drew in it); the result is posted without a new version.
    assert stored.version == before + 1
    house_hand = next(h for h in engine["hands"] if h["player"] == HOUSE_ID)
    assert house_hand["cards"][0] == "7H" and len(house_hand["cards"]) >= 2  # it drew on 7
    assert not any(
        entry.get("p") == HOUSE_ID and entry["a"] == "timeout" for entry in engine["log"]
    )
    ledger = await harness.rt.storage.check_ledger(harness.group.id)
    assert ledger.ok, ledger

    # The next round: the house keeps the bank and the table waits on Борис, not on the house.
    await harness.press_act(b, harness.table(), Act.NEXT)
    engine = (await harness.stored()).state["engine"]
    assert engine["banker"] == HOUSE_ID and engine["turn"] == b.id

    seen = len(harness.private(b).all_messages)
    await harness.say(b, "/top all")
    rows = await harness.rt.storage.leaderboard(harness.group.id, limit=10)
    assert HOUSE_ID in [row.user_id for row in rows]
    (top,) = harness.private_since(b, seen)  # the asker's private chat
    assert harness.group.all_messages[-1].content == harness.pointer(b)
    assert top == plain(render.leaderboard(rows, "ru", period="all"))
    assert "Банкир-бот" in top and "🏦 🏦" not in top


async def test_the_house_is_off_by_default(harness: Harness) -> None:
    a, _, _, _ = harness.users
    await harness.say(a, "/newgame")
    engine = (await harness.stored()).state["engine"]
    assert engine["house"] is None and [s["player"] for s in engine["seats"]] == [a.id]


async def test_the_house_banks_at_one_table_of_a_chat_at_a_time(forum: Harness) -> None:
    """Its chips are one balance per chat: a second topic's table cannot seat it too."""
    h = forum
    a, _, c, _ = h.users
    await h.say(a, "/settings")
    menu = h.group.last_with_buttons()
    assert menu is not None
    await h.press_data(a, menu, setting(menu, "house", "on"))
    first = h.group.create_topic("Стол 1")
    second = h.group.create_topic("Стол 2")
    await h.say(a, "/newgame", thread_id=first)
    count = len(h.group.all_messages)
    seen = len(h.private(c).all_messages)
    await h.say(c, "/newgame", thread_id=second)
    assert h.private_since(c, seen) == [render.refusal("house_busy", {}, "ru")]
    replies = [(m.content, m.thread_id) for m in h.group.all_messages[count:] if m.from_bot]
    assert replies == [(h.pointer(c), second)]  # where to find the answer, in that topic
    assert await h.rt.storage.load_active_game(h.group.id, second) is None
    assert await h.rt.storage.seated_games(HOUSE_ID) == [(await h.stored(first)).game_id]
