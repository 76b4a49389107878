"""Players who never opened the private chat, bad input, and twenty groups at once."""

from __future__ import annotations

import asyncio

import pytest

from bot.callbacks import Act
from localbotapi.models import CallbackQuery, FakeUser, Message
from rules.table import Phase
from tests.e2e.conftest import BOT_USERNAME, E2E, IN_ROUND, Table, card_symbol, game_buttons


async def test_player_without_private_chat_peeks_then_opens_it(e2e: E2E) -> None:
    group, users = e2e.group_with_players("No private", 3)
    alfa, bravo, charlie = users
    await e2e.start_bot()
    await e2e.open_private([alfa, bravo])
    table = Table(e2e, group, users, preset="classic36", by_buttons={charlie.id, alfa.id})
    await alfa.send(group, "/newgame classic36")
    await e2e.wait_until(lambda: e2e.db.game(group.id), "the lobby")
    _, answer = await table.press(charlie, Act.JOIN)
    game_id = table.game_id
    assert answer.url == f"https://t.me/{BOT_USERNAME}?start=g{game_id}"
    await table.command(bravo, "/join")
    row = await table.act(alfa, Act.START)

    peeked = False
    while row.phase in IN_ROUND:
        hand = row.game.hands.get(charlie.id)
        if not peeked and hand is not None and hand.cards:
            peek = await _press_peek(table, charlie)
            assert peek.show_alert
            for card, dark in zip(hand.cards, hand.dark, strict=True):
                if not dark:
                    assert card_symbol(card.code) in (peek.text or ""), peek.text
            peeked = True
        row = await table.act(*table.decide(row))
    assert peeked, "Charlie never had cards to peek at"
    log = await table.play_round(check=False)
    table.check_result_balances(log)
    await table.check_private_hands(log)  # Alfa and Bravo only
    assert not [m for m in charlie.private_messages(e2e.bot) if m.from_bot]

    # Charlie opens the private chat from the deep link: a confirmation, then the hand.
    await charlie.send_private(e2e.bot, f"/start g{game_id}")
    chat = charlie.private_chat(e2e.bot)
    await chat.wait_for(lambda m: True, timeout=10)
    symbols = [card_symbol(c.code) for c in table.row().game.hands[charlie.id].cards]
    await e2e.wait_until(
        lambda: any(all(s in m.content for s in symbols) for m in chat.bot_messages),
        "Charlie's hand in the private chat",
    )
    await table.next_round(bravo)
    log = await table.play_round()  # every check, Charlie's private hand included
    assert e2e.db.user_private_opened(charlie.id)
    e2e.assert_within_limits()


async def _press_peek(table: Table, user: object) -> object:
    def find() -> Message | None:
        for message in reversed(table.group.messages):
            if any(b.act is Act.PEEK and b.game_id == table.game_id for b in game_buttons(message)):
                return message
        return None

    message = await table.e2e.server.wait_for(find, 70, description="a 👁 button")
    data = next(b for b in game_buttons(message) if b.act is Act.PEEK).encode()
    query = await user.press(message, data=data)  # type: ignore[attr-defined]
    return await query.wait(10)


def _raw_press(e2e: E2E, user: object, message: Message, data: str) -> CallbackQuery:
    """A callback query with arbitrary data, as a modified client could send it."""
    server = e2e.server
    query = CallbackQuery(str(next(server._query_ids)), user, message, e2e.bot, data)  # type: ignore[arg-type]
    server._queries[query.id] = query
    server.push_update(
        e2e.bot,
        {
            "callback_query": {
                "id": query.id,
                "from": user.to_dict(),  # type: ignore[attr-defined]
                "message": message.to_dict(),
                "chat_instance": "1",
                "data": data,
            }
        },
    )
    return query


async def test_bad_input_changes_nothing_and_is_answered(e2e: E2E) -> None:
    group, users = e2e.group_with_players("Bad input", 3)
    alfa, bravo, charlie = users
    await e2e.start_bot()
    await e2e.open_private(users)
    table = Table(e2e, group, users, preset="classic36")
    await alfa.send(group, "/newgame")
    await e2e.wait_until(lambda: e2e.db.game(group.id), "the lobby")
    lobby = table.row()

    async def refused_command(user: FakeUser, text: str, before: object) -> str:
        # The answer goes to the asker's private chat (open here), not into the group.
        private = user.private_chat(e2e.bot)
        last = private.last_message
        await user.send(group, text)
        reply = await private.wait_for(
            lambda m: not m.content.startswith("🃏"), timeout=30, after=last
        )
        row = table.row()
        assert (row.version, row.state) == (before.version, before.state), text  # type: ignore[attr-defined]
        assert reply.content.strip() and "Traceback" not in reply.content, (text, reply.content)
        return reply.content

    await refused_command(bravo, "/newgame", lobby)
    await refused_command(alfa, "/newgame home36", lobby)
    assert len(e2e.db.query("SELECT game_id FROM games WHERE chat_id = ?", (group.id,))) == 1

    await table.command(bravo, "/join")
    await table.command(charlie, "/join")
    row = await table.act(alfa, Act.START)
    while row.phase is not Phase.STAKE:
        row = await table.act(*table.decide(row))
    on_turn = table.user(row.turn or 0)
    for text in ("/bet abc", "/bet -5", "/bet 0", "/bet 100000000000000000000", "/bet 1 2"):
        await refused_command(on_turn, text, row)
    # Someone not on turn presses the current stake button.
    other = next(u for u in users if u.id != on_turn.id)

    def stake_message() -> Message | None:
        for message in reversed(group.messages):
            buttons = [b for b in game_buttons(message) if b.act is Act.BET]
            if buttons and buttons[0].version >= row.meta["turn_since"]:
                return message
        return None

    message = await e2e.server.wait_for(stake_message, 70, description="the stake buttons")
    data = next(b for b in game_buttons(message) if b.act is Act.BET).encode()
    answer = await (await other.press(message, data=data)).wait(10)
    assert answer.show_alert and answer.text, answer
    # Malformed and foreign callback data, pushed raw.
    for data in (
        "g:abc",
        "g:1:1:hit:5",
        "g:0:1:hit",
        f"g:{table.game_id}:1:fly",
        f"g:{table.game_id}:99999:hit",
        "g:987654:1:hit",
        "s:1:lang:xx",
        "x" * 64,
        "💥",
    ):
        answer = await _raw_press(e2e, on_turn, message, data).wait(10)
        assert answer.show_alert and answer.text, (data, answer)
    after = table.row()
    assert (after.version, after.state) == (row.version, row.state)
    assert "ERROR" not in e2e.log() and "unhandled" not in e2e.log()
    e2e.assert_within_limits()


@pytest.mark.slow
async def test_twenty_groups_at_once(e2e: E2E) -> None:
    tables = []
    for index in range(20):
        group, users = e2e.group_with_players(f"Group {index}", 2 + index % 2)
        preset = ("classic36", "home36")[index % 2]
        tables.append(Table(e2e, group, users, preset=preset))
    await e2e.start_bot()
    await e2e.open_private([u for t in tables for u in t.users])
    started = asyncio.get_running_loop().time()
    logs = await asyncio.wait_for(
        asyncio.gather(*(t.play_session(rounds=1 + i % 2) for i, t in enumerate(tables))),
        timeout=200,
    )
    took = asyncio.get_running_loop().time() - started
    rounds = sum(len(x) for x in logs)
    writes = sum(log.group_writes for x in logs for log in x)
    print(
        f"20 groups: {rounds} rounds in {took:.1f}s, {writes} group writes, "
        f"{len(e2e.server.requests)} requests"
    )
    e2e.assert_within_limits()
