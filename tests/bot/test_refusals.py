"""Every refusal: presses out of turn, outdated, foreign and forged buttons, bad amounts,
commands without the right — each answered clearly, each leaving the game as it was."""

from __future__ import annotations

import re

import pytest

from bot import render
from bot.callbacks import Act
from storage import StoredGame
from tests.bot.conftest import Harness, hand_codes

DECK = ["10S", "9S", "7H", "AS", "8D", "KD", "10D"]


def refusal(code: str, **params: object) -> str:
    return render.refusal(code, params, "ru")


async def classic_at_stake(harness: Harness, deck: list[str] = DECK) -> StoredGame:
    """classic36 with Аня, Борис and Вика; Аня banks 100; Борис is to stake (1 to 100)."""
    a, b, c = harness.users[:3]
    harness.script(decks=[deck], lots=[0])
    await harness.say(a, "/newgame classic36")
    await harness.say(b, "/join")
    await harness.say(c, "/join")
    await harness.say(a, "/deal")
    await harness.say(a, "/bank 100")
    stored = await harness.stored()
    assert stored.state["engine"]["phase"] == "stake"
    assert stored.state["engine"]["turn"] == b.id
    return stored


async def unchanged(harness: Harness, before: StoredGame) -> None:
    after = await harness.stored()
    assert after.version == before.version
    assert after.state == before.state
    assert (await harness.rt.storage.check_ledger(harness.group.id)).ok


async def test_press_out_of_turn_is_an_alert_and_changes_nothing(harness: Harness) -> None:
    a, b, c, d = harness.users
    stored = await classic_at_stake(harness)
    table = harness.table()
    answer = await harness.press_act(c, table, Act.BET, 50)
    assert answer.show_alert
    assert answer.text == refusal("not_your_turn", turn_name="Борис")
    # The banker, and a member who is not at the table, fare no better.
    assert (await harness.press_act(a, table, Act.BET, 50)).show_alert
    answer = await harness.press_act(d, table, Act.BET, 50)
    assert answer.show_alert and answer.text == refusal("not_seated")
    await unchanged(harness, stored)
    assert [await harness.balance(u) for u in (a, b, c)] == [900, 1000, 1000]
    # The right player's press still works afterwards.
    answer = await harness.press_act(b, table, Act.BET, 50)
    assert not answer.show_alert
    assert (await harness.stored()).version == stored.version + 1


async def test_outdated_button_is_refused(harness: Harness) -> None:
    _, b, c, _ = harness.users
    await classic_at_stake(harness)
    table = harness.table()
    old = harness.data_of(table, Act.BET, 50)
    await harness.say(b, "/bet 50")
    stored = await harness.stored()
    assert stored.state["engine"]["phase"] == "draw"
    for data in (old, old.replace(f":{stored.version - 1}:", f":{stored.version + 5}:")):
        answer = await harness.press_raw(b, table, data)
        assert answer.show_alert and answer.text == refusal("stale_button"), data
    # A button drawn for the current decision but at an earlier version of it is still good:
    # the hit button of Борис' draw.
    answer = await harness.press_raw(c, table, f"g:{stored.game_id}:{stored.version}:hit")
    assert answer.text == refusal("not_your_turn", turn_name="Борис")
    await unchanged(harness, stored)


async def test_button_of_another_game_pressed_in_another_chat(harness: Harness) -> None:
    a, b, c, _ = harness.users
    stored = await classic_at_stake(harness)
    data = harness.data_of(harness.table(), Act.BET, 50)
    other = harness.server.create_group("Другой стол", members=[a, b, c], admins=[a])
    await harness.say(b, "/newgame", other)
    lobby = other.last_with_buttons()
    assert lobby is not None
    answer = await harness.press_raw(b, lobby, data)
    assert answer.show_alert and answer.text == refusal("foreign_game")
    await unchanged(harness, stored)
    # The other chat's lobby is untouched too.
    second = await harness.stored(chat=other)
    assert second.game_id != stored.game_id and second.version == 1


@pytest.mark.parametrize(
    "data",
    [
        "g:1:x:hit",
        "g:1:5:hit:10",  # an amount where none belongs
        "g:1:5:bet",  # no amount where one belongs
        "g:1:5:bet:0",
        "g:1:5:bet:-5",
        "g:01:5:hit",
        "g:1:5:fly",
        "g:1:5:hit\n",
        "g:1٣:5:hit",  # another script's digits: game 13 to int(), not a number here
        "g:1:5:bet:٣٠",
        "g:1:5:hit:" + "1" * 60,  # over 64 bytes
        "g:" + "9" * 70,
        "s:..",
        "s:-100:preset:classic36",
        "x",
        "",
    ],
)
async def test_malformed_callback_data_is_refused(harness: Harness, data: str) -> None:
    _, b, _, _ = harness.users
    stored = await classic_at_stake(harness)
    answer = await harness.press_raw(b, harness.table(), data)
    assert answer.show_alert
    assert answer.text == refusal("stale_button")
    await unchanged(harness, stored)


async def test_button_of_an_unknown_game(harness: Harness) -> None:
    _, b, _, _ = harness.users
    stored = await classic_at_stake(harness)
    answer = await harness.press_raw(b, harness.table(), "g:999:1:hit")
    assert answer.show_alert and answer.text == refusal("game_over")
    await unchanged(harness, stored)


@pytest.mark.parametrize(
    "text",
    [
        "/bet -5",
        "/bet 0",
        "/bet abc",
        "/bet 1.5",
        "/bet",
        "/bet 10 20",
        "/bet 99999999999999999999",  # huge: not even a number the bot reads
        "/bet 999999999999999",  # huge, yet a number: more than anyone has
        "/bet 101",  # above the cap (the bank)
        "/bet 1000",  # above the cap, within the balance
        "/bet ٣٠",  # Arabic-Indic digits: 30 to int(), not an amount to the bot
        "/bet ३०",  # Devanagari
        "/bet ３０",  # fullwidth
        "/bet 3٠",  # mixed
    ],
)
async def test_bad_stakes_get_the_allowed_range(harness: Harness, text: str) -> None:
    _, b, _, _ = harness.users
    stored = await classic_at_stake(harness)
    count = len(harness.group.all_messages)
    seen = len(harness.private(b).all_messages)
    await harness.say(b, text)
    # The refusal goes to Борис's private chat; the group gets a pointer to it.
    replies = harness.private_since(b, seen)
    assert len(replies) == 1, replies
    assert harness.bot_texts_since(count) == [harness.pointer(b)]
    numbers = re.findall(r"\d+", replies[0])
    assert "100" in numbers, replies[0]  # the cap: the bank
    # Every reply names the whole range, except "more than anyone has", which names the
    # maximum (its wording comes from the engine's cannot_afford refusal).
    assert "1" in numbers or "не больше 100" in replies[0], replies[0]
    await unchanged(harness, stored)
    assert await harness.balance(b) == 1000


async def test_newgame_while_a_game_runs(harness: Harness) -> None:
    _, b, _, _ = harness.users
    stored = await classic_at_stake(harness)
    table = harness.table()
    count = len(harness.group.all_messages)
    seen = len(harness.private(b).all_messages)
    await harness.say(b, "/newgame home36")
    assert harness.private_since(b, seen) == [refusal("game_exists")]
    assert harness.bot_texts_since(count) == [harness.pointer(b)]
    assert harness.table() is table
    await unchanged(harness, stored)


async def test_endgame_needs_the_creator_the_banker_or_an_admin(harness: Harness) -> None:
    a, b, c, d = harness.users  # Аня is the group's admin and does not play
    await harness.say(b, "/newgame")
    await harness.say(c, "/join")
    await harness.say(d, "/join")
    lobby = harness.table()
    answer = await harness.press_act(c, lobby, Act.CANCEL)
    assert answer.show_alert and answer.text == refusal("cancel_creator", creator_name="Борис")
    await harness.say(c, "/deal")
    stored = await harness.stored()
    assert stored.state["engine"]["banker"] == b.id
    count = len(harness.group.all_messages)
    seen = len(harness.private(d).all_messages)
    await harness.say(d, "/endgame")
    assert harness.private_since(d, seen) == [refusal("not_allowed")]
    assert harness.bot_texts_since(count) == [harness.pointer(d)]
    await unchanged(harness, stored)
    await harness.end_game(a)
    ended = await harness.rt.storage.load_game(stored.game_id)
    assert ended is not None and ended.status == "finished"
    assert await harness.rt.storage.load_active_game(harness.group.id, 0) is None
    # No live button is left on the table message (it ended before the first deal).
    assert harness.group.last_with_buttons() is None
    assert [await harness.balance(u) for u in (b, c, d)] == [1000, 1000, 1000]
    assert (await harness.rt.storage.check_ledger(harness.group.id)).ok
    # A new game can start now.
    await harness.say(c, "/newgame")
    assert (await harness.stored()).game_id != stored.game_id


async def test_an_admin_closes_someone_elses_lobby_with_its_button(harness: Harness) -> None:
    a, b, c, _ = harness.users  # Аня is the group's admin
    await harness.say(b, "/newgame")
    await harness.say(c, "/join")
    lobby = harness.table()
    stored = await harness.stored()
    asked = len(harness.calls("getChatMember"))
    answer = await harness.press_act(c, lobby, Act.CANCEL)
    assert answer.show_alert and answer.text == refusal("cancel_creator", creator_name="Борис")
    await unchanged(harness, stored)
    answer = await harness.press_act(a, lobby, Act.CANCEL)
    assert not answer.show_alert
    closed = await harness.rt.storage.load_game(stored.game_id)
    assert closed is not None and closed.status == "finished"
    assert closed.state["meta"]["ended_by"] == a.id
    # Telegram was asked about Вика and Аня, once each: the rule needed it for them.
    assert len(harness.calls("getChatMember")) == asked + 2


async def test_whom_the_rules_let_act_is_never_asked_about_admin_rights(harness: Harness) -> None:
    _, b, c, _ = harness.users
    await harness.say(b, "/newgame")
    await harness.say(c, "/join")
    await harness.say(b, "/cancel")  # his own lobby
    assert await harness.rt.storage.load_active_game(harness.group.id, 0) is None
    await harness.say(c, "/newgame")
    await harness.say(b, "/join")
    await harness.end_game(c)  # his own game
    assert await harness.rt.storage.load_active_game(harness.group.id, 0) is None
    assert harness.calls("getChatMember") == []


async def test_settings_need_an_admin(harness: Harness) -> None:
    a, b, _, _ = harness.users
    count = len(harness.group.all_messages)
    seen = len(harness.private(b).all_messages)
    await harness.say(b, "/settings")
    # Admins only: not «the creator, the banker or an admin», which is /endgame's rule.
    assert harness.private_since(b, seen) == [refusal("admins_only")]
    assert refusal("admins_only") == "Это могут только админы группы."
    assert harness.bot_texts_since(count) == [harness.pointer(b)]
    assert harness.group.last_with_buttons() is None
    assert harness.private(b).last_with_buttons() is None
    await harness.say(a, "/settings")
    menu = harness.group.last_with_buttons()
    assert menu is not None
    before = await harness.rt.storage.get_chat(harness.group.id)
    data = next(d for _, d in menu.flat_buttons if d and d.endswith(":preset:home36"))
    answer = await harness.press_raw(b, menu, data)
    assert answer.show_alert and answer.text == refusal("admins_only")
    assert await harness.rt.storage.get_chat(harness.group.id) == before


async def test_cancelled_lobby_keeps_no_live_buttons(harness: Harness) -> None:
    a, b, _, _ = harness.users
    await harness.say(a, "/newgame")
    await harness.say(b, "/join")
    lobby = harness.table()
    answer = await harness.press_act(a, lobby, Act.CANCEL)
    assert not answer.show_alert
    assert await harness.rt.storage.load_active_game(harness.group.id, 0) is None
    assert not lobby.inline_keyboard
    assert harness.group.last_with_buttons() is None


async def test_a_duplicate_update_is_applied_once(harness: Harness) -> None:
    _, b, _, _ = harness.users
    # Борис: 6, then 6 and 6 — each hit leaves him free to hit again, so a duplicate that got
    # through would draw a second card instead of being refused.
    await classic_at_stake(harness, ["6S", "9S", "7H", "6H", "6D"])
    await harness.say(b, "/bet 50")
    await harness.say(b, "/hit")
    command = harness.processed[-1]
    assert command["message"]["text"] == "/hit"
    stored = await harness.stored()
    assert len(hand_codes(stored, b.id)) == 2
    count = len(harness.group.all_messages)
    seen = len(harness.private(b).all_messages)
    await harness.redeliver(command)  # the same update_id again, as Telegram may resend it
    assert harness.bot_texts_since(count) == []
    assert harness.private_since(b, seen) == []
    await unchanged(harness, stored)
    answer = await harness.press_act(b, harness.table(), Act.HIT)
    assert not answer.show_alert
    press = harness.processed[-1]
    stored = await harness.stored()
    assert len(hand_codes(stored, b.id)) == 3
    answered = len(harness.calls("answerCallbackQuery"))
    await harness.redeliver(press)
    await unchanged(harness, stored)
    assert await harness.balance(b) == 1000
    # The duplicate press is answered quietly (no alert); Telegram refuses a second answer to
    # one query, and the bot takes that in its stride.
    answers = harness.calls("answerCallbackQuery")
    assert len(answers) == answered + 1
    assert not answers[-1].ok and "show_alert" not in answers[-1].params
    assert all(r.ok for r in harness.server.requests if r.method != "answerCallbackQuery")


async def test_a_press_forged_in_ones_own_private_chat_seats_nobody(harness: Harness) -> None:
    """Callback data of another group's game sent from the presser's own private chat: join,
    start, cancel, leave and the next round are the group's buttons, never sent to a private
    chat, and are refused there — an outsider is not seated, the creator does not start."""
    a, b, _, _ = harness.users
    await harness.say(a, "/newgame classic36")
    await harness.say(b, "/join")
    stored = await harness.stored()
    outsider = harness.server.create_user("Чужак")  # not a member of the group
    await harness.say(outsider, "/start", harness.bot)
    inside = harness.private(outsider).all_messages[-1]
    game, version = stored.game_id, stored.version
    for act in (Act.JOIN, Act.START, Act.CANCEL, Act.LEAVE, Act.NEXT):
        answer = await harness.press_raw(outsider, inside, f"g:{game}:{version}:{act.value}")
        assert answer.show_alert and answer.text == refusal("group_button"), act
    await unchanged(harness, stored)
    assert not harness.rt.service.game(await harness.stored()).is_seated(outsider.id)
    # The lobby's own creator and a seated player fare no better from their private chats.
    for user in (a, b):
        await harness.say(user, "/start", harness.bot)
        inside = harness.private(user).all_messages[-1]
        for act in (Act.START, Act.CANCEL, Act.LEAVE):
            answer = await harness.press_raw(user, inside, f"g:{game}:{version}:{act.value}")
            assert answer.show_alert and answer.text == refusal("group_button"), (user, act)
    await unchanged(harness, stored)
    # The same presses on the group's lobby still work.
    assert not (await harness.press_act(a, harness.table(), Act.START)).show_alert
    assert (await harness.stored()).state["engine"]["phase"] != "lobby"


async def test_the_private_hands_buttons_still_work(harness: Harness) -> None:
    """What the bot does put in a private chat: the banker names the bank from his hand, the
    player stakes and draws from his."""
    a, b, c, _ = harness.users
    harness.script(decks=[DECK], lots=[0])
    await harness.say(a, "/newgame classic36")
    await harness.say(b, "/join")
    await harness.say(c, "/join")
    await harness.say(a, "/deal")
    assert (await harness.stored()).state["engine"]["phase"] == "bank"
    hand = harness.private(a).last_with_buttons()
    assert hand is not None
    assert not (await harness.press_act(a, hand, Act.BANK, 100)).show_alert
    stored = await harness.stored()
    assert stored.state["engine"]["phase"] == "stake" and stored.state["engine"]["turn"] == b.id
    hand = harness.private(b).last_with_buttons()
    assert hand is not None
    assert not (await harness.press_act(b, hand, Act.BET, 50)).show_alert
    hand = harness.private(b).last_with_buttons()
    assert hand is not None
    assert not (await harness.press_act(b, hand, Act.STAND)).show_alert
    assert (await harness.stored()).state["engine"]["turn"] == c.id
