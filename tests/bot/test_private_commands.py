"""Commands typed in the private chat act on the one game the person sits in."""

from __future__ import annotations

from bot import render
from tests.bot.conftest import Harness, plain


async def test_hand_and_moves_typed_in_private(harness: Harness) -> None:
    a, b, c, _ = harness.users
    harness.script(decks=[["10S", "9S", "7H", "6D"]], lots=[0])  # Аня banks
    await harness.say(a, "/newgame")
    await harness.say(b, "/join")
    # Someone who sits nowhere is sent to the group.
    await harness.say(c, "/hand", harness.bot)
    assert harness.private_texts(c)[-1] == plain(render.text("hand_in_group", "ru"))
    await harness.say(a, "/deal")
    await harness.say(a, "/bank 100")
    stored = await harness.stored()
    assert stored.state["engine"]["turn"] == b.id
    # /hand in private posts the hand anew there.
    before = len(harness.private(b).all_messages)
    old_hand = (await harness.screen(stored)).hand_messages[b.id]
    await harness.say(b, "/hand", harness.bot)
    assert (await harness.screen()).hand_messages[b.id] != old_hand
    assert len(harness.private(b).all_messages) > before + 1
    # A stake and a card typed privately go to that game.
    await harness.say(b, "/bet 20", harness.bot)
    await harness.say(b, "/hit", harness.bot)
    engine = (await harness.stored()).state["engine"]
    hand = next(h for h in engine["hands"] if h["player"] == b.id)
    assert hand["stake"] == 20 and len(hand["cards"]) == 2
    assert (await harness.rt.storage.check_ledger(harness.group.id)).ok


async def test_deal_between_rounds_deals_the_next_round(harness: Harness) -> None:
    """The table says «next round: the button or /deal»: /deal must do that."""
    a, b, _, _ = harness.users
    harness.script(decks=[["10S", "9S", "7H"], ["8S", "6D", "7C"]], lots=[0])
    await harness.say(a, "/newgame")
    await harness.say(b, "/join")
    await harness.say(a, "/deal")
    await harness.say(a, "/bank 100")
    await harness.say(b, "/bet 10")
    await harness.say(b, "/stand")
    await harness.say(a, "/stand")
    assert (await harness.stored()).state["engine"]["phase"] == "round_over"
    await harness.say(b, "/deal")
    engine = (await harness.stored()).state["engine"]
    assert engine["round_no"] == 2 and engine["phase"] == "stake"
