"""Private hands: the deep link for a player who never opened the chat, the "👁" alert, a
blocked bot, and no hidden card ever reaching the group before the showdown."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot import render
from bot.callbacks import Act
from localbotapi import BotApiServer
from rules.cards import Card
from tests.bot.conftest import (
    Harness,
    hand_codes,
    make_settings,
    plain,
    start_harness,
    stop_harness,
)
from tests.bot.test_rounds import PLANS, play_round

DECK = ["10S", "9S", "7H", "AS", "8D", "KD", "10D"]


def shown(code: str) -> str:
    return render.card(Card.parse(code))


@pytest.fixture
async def closed(tmp_path: Path) -> AsyncIterator[Harness]:
    """Only Аня has opened the private chat with the bot."""
    server = BotApiServer(flood_limits=False)
    h = await start_harness(server, make_settings(tmp_path), opened=1)
    try:
        yield h
    finally:
        await stop_harness(h)


async def test_a_player_without_the_private_chat_plays_by_deep_link_and_peek(
    closed: Harness,
) -> None:
    h = closed
    a, b, c, _ = h.users
    h.script(decks=[DECK], lots=[0])
    await h.say(a, "/newgame classic36")
    answer = await h.press_act(b, h.table(), Act.JOIN)
    link = "https://t.me/ochko_test_bot?start=g1"
    assert answer.url == link
    answer = await h.press_act(c, h.table(), Act.JOIN)
    assert answer.url == link
    # The lobby offers the same link as a button while someone has not opened the chat.
    assert ("url", link) in [("url", data) for _, data in h.table().flat_buttons]
    await h.say(a, "/deal")
    await h.say(a, "/bank 100")
    stored = await h.stored()
    assert hand_codes(stored, b.id) == ["10S"]
    # Nobody could write to Борис or Вика: nothing was delivered, nothing broke.
    assert not h.private(b).messages and not h.private(c).messages
    assert all(r.status == 403 for r in h.server.errors if r.chat_id in (b.id, c.id))
    assert all(r.ok for r in h.server.requests if r.chat_id == h.group.id)
    # "👁" shows the presser's cards only, as an alert nobody else sees.
    answer = await h.press_act(b, h.table(), Act.PEEK)
    assert answer.show_alert and answer.text is not None
    assert shown("10S") in answer.text
    assert shown("9S") not in answer.text
    answer = await h.press_act(c, h.table(), Act.PEEK)
    assert (
        answer.text is not None and shown("9S") in answer.text and shown("10S") not in answer.text
    )
    assert (await h.stored()).version == stored.version  # peeking changes nothing
    # The deep link: /start g1 opens the chat, confirms, and the hand arrives.
    await h.say(b, "/start g1", h.bot)
    texts = h.private_texts(b)
    assert texts[0] == render.text("private-opened", "ru")
    assert any(shown("10S") in t for t in texts[1:]), texts
    # The hand names the group it belongs to (a person may play in several).
    header = plain(render.text("hand-header", "ru", chat=h.group.title, round=1))
    assert any(t.startswith(header) for t in texts[1:]), texts
    assert not any(shown("9S") in t for t in texts), texts
    user = await h.rt.storage.get_user(b.id)
    assert user is not None and user.private_opened
    # Борис plays on from the private chat; Вика still through the group.
    hand = h.private(b).last_with_buttons()
    assert hand is not None
    assert not (await h.press_act(b, hand, Act.BET, 50)).show_alert
    assert not (await h.press_act(b, h.table(), Act.HIT)).show_alert  # 21, paid at once
    assert await h.balance(b) == 1050
    assert (await h.rt.storage.check_ledger(h.group.id)).ok


async def test_a_blocked_bot_falls_back_to_peek(harness: Harness) -> None:
    a, b, c, _ = harness.users
    harness.script(decks=[DECK], lots=[0])
    await harness.say(a, "/newgame classic36")
    b.block(harness.bot)  # after /start: the bot believes it may write to him
    await harness.say(b, "/join")
    await harness.say(c, "/join")
    await harness.say(a, "/deal")
    await harness.say(a, "/bank 100")
    refused = [r for r in harness.server.errors if r.chat_id == b.id]
    assert refused and all(r.status == 403 for r in refused)
    user = await harness.rt.storage.get_user(b.id)
    assert user is not None and not user.private_opened
    # The game goes on: the others' hands keep coming, Борис peeks and stakes in the group.
    assert any(shown("9S") in t for t in harness.private_texts(c))
    answer = await harness.press_act(b, harness.table(), Act.PEEK)
    assert answer.text is not None and shown("10S") in answer.text
    assert not (await harness.press_act(b, harness.table(), Act.BET, 50)).show_alert
    assert (await harness.stored()).state["engine"]["phase"] == "draw"
    assert all(r.ok for r in harness.server.requests if r.chat_id == harness.group.id)
    # /hand in the group now points to the private chat; writing there brings the hand back.
    count = len(harness.group.all_messages)
    await harness.say(b, "/hand")
    reply = harness.group.all_messages[count + 1 :]
    assert [m.content for m in reply] == [render.refusal("private_needed", {}, "ru")]
    assert reply[0].flat_buttons[0][1] == "https://t.me/ochko_test_bot?start=g1"
    await harness.say(b, "/start g1", harness.bot)
    assert any(shown("10S") in t for t in harness.private_texts(b))


def hidden_cards(hands: list[dict[str, object]]) -> dict[int, list[str]]:
    """Each player's cards that nobody else may see now (not face up, hand not revealed).

    Jokers are left out: both show as ★, so one's own joker cannot be told from another's."""
    hidden: dict[int, list[str]] = {}
    for hand in hands:
        cards = hand["cards"]
        face_up = hand["face_up"]
        assert isinstance(cards, list) and isinstance(face_up, list)
        player = hand["player"]
        assert isinstance(player, int)
        if not hand["revealed"]:
            hidden[player] = [
                c for c, up in zip(cards, face_up, strict=True) if not up and not c.startswith("X")
            ]
    return hidden


@pytest.mark.parametrize("preset", list(PLANS))
async def test_no_hidden_card_reaches_the_group_before_the_showdown(
    harness: Harness, preset: str
) -> None:
    users = {u.id: u for u in harness.users}

    async def check(step: int) -> None:
        stored = await harness.stored()
        hands = stored.state["engine"]["hands"]
        group = "\n".join(harness.group_texts())
        for player, codes in hidden_cards(hands).items():
            for code in codes:
                assert shown(code) not in group, (step, users[player].first_name, code)
        # Each private chat shows its owner's cards (a dark card not even to him), and no
        # other player's hidden card.
        for hand in hands:
            owner = users[hand["player"]]
            private = "\n".join(harness.private_texts(owner))
            for code, dark in zip(hand["cards"], hand["dark"], strict=True):
                assert (shown(code) in private) != dark, (step, owner.first_name, code)
            for player, codes in hidden_cards(hands).items():
                if player != owner.id:
                    for code in codes:
                        assert shown(code) not in private, (step, owner.first_name, code)

    await play_round(harness, preset, buttons=False, on_step=check, next_round=False)
    # After the showdown every hand is in the group.
    stored = await harness.stored()
    group = "\n".join(harness.group_texts())
    for hand in stored.state["engine"]["hands"]:
        for code in hand["cards"]:
            assert shown(code) in group


async def test_lang_mid_turn_redraws_the_hand_in_the_new_language_with_its_buttons(
    harness: Harness,
) -> None:
    """/lang in the private chat while it is his turn: the hand he acts from is drawn again in
    his new language and keeps its buttons (it used to lose them until someone acted, as if
    he had no private chat)."""
    a, b = harness.users[:2]
    harness.script(decks=[DECK], lots=[0])
    await harness.say(a, "/newgame classic36")
    await harness.say(b, "/join")
    await harness.say(b, "/deal")
    await harness.say(a, "/bank 100")  # Борис's turn: his stake
    before = harness.private(b).last_with_buttons()
    assert before is not None and "Ваш ход" in before.text, before
    await harness.say(b, "/lang en", harness.bot)
    await harness.deliver()
    after = harness.private(b).last_with_buttons()
    assert after is not None and after.message_id == before.message_id
    assert "Your turn" in after.text and "Ваш ход" not in after.text, after.text
    assert any(data for _, data in after.flat_buttons)
    answer = await harness.press_act(b, after, Act.BET, 50)
    assert not answer.show_alert, answer
