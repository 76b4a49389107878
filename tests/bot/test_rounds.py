"""A whole round of every preset, played once by buttons and once by typed commands, through
``Application.process_update``: the result message, the balances in storage, and the chat's
chips conserved."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

import pytest

from bot import i18n, render
from bot.callbacks import Act
from rules.cards import Card
from tests.bot.conftest import Harness, hand_codes, plain

Step = tuple[int, Act, int | None, bool]
"""(player index, action, amount, from the private chat) — the private flag only for buttons."""

COMMANDS = {
    Act.BANK: "/bank",
    Act.BET: "/bet",
    Act.HIT: "/hit",
    Act.STAND: "/stand",
    Act.DARK: "/dark",
    Act.PASS: "/pass",
    Act.NEXT: "/next",
}


@dataclass(frozen=True)
class Plan:
    players: int
    deck: list[str]  # the first shuffle, top first (the rest follows in canonical order)
    steps: list[Step]
    balances: list[int]  # every player's balance in storage after the round
    # The balances the result shows, where they differ from storage's: the banker's include the
    # bank he holds at the showdown (storage keeps it apart until it goes back to him).
    shown: list[int] | None
    bank: int  # the bank after the round
    banker_cards: list[str]  # shown in the result message
    round_two_banker: int  # who banks the next round


PLANS: dict[str, Plan] = {
    # Named bank, one card each (the banker's face up), stakes per turn, 21 paid at once,
    # a dark draw, the banker draws to 21.
    "classic36": Plan(
        players=3,
        deck=["10S", "9S", "7H", "AS", "8D", "KD", "10D"],
        steps=[
            (0, Act.BANK, 100, False),
            (1, Act.BET, 50, False),
            (1, Act.HIT, None, True),  # 10 + A = 21: paid at once
            (2, Act.BET, 25, False),
            (2, Act.DARK, None, False),  # 9 + 8 = 17, unseen until the showdown
            (0, Act.HIT, None, True),  # 7 + K(4) = 11
            (0, Act.HIT, None, False),  # 11 + 10 = 21: the banker stands by himself
        ],
        balances=[900, 1050, 975],
        shown=[975, 1050, 975],  # Аня: 900 and 75 in the bank
        bank=75,
        banker_cards=["7H", "KD", "10D"],
        round_two_banker=0,
    ),
    # All-in bank, everyone stakes after the first deal within a shared cap, 100% bust fine.
    "home36": Plan(
        players=4,
        deck=["10S", "9S", "8S", "7H", "AS", "10H", "10D", "6D", "JH", "10C"],
        steps=[
            (1, Act.BET, 50, False),
            (2, Act.BET, 100, True),  # a round stake: the buttons offer 100, not 125
            (3, Act.BET, 50, False),
            (1, Act.HIT, None, False),  # 10 + A = 21: paid at once
            (2, Act.HIT, None, False),  # 9 + 10 = 19
            (2, Act.STAND, None, True),
            (3, Act.HIT, None, False),  # 8 + 10 = 18
            (3, Act.HIT, None, False),  # 18 + 6 = 24: bust, stake and fine lost at once
            (0, Act.HIT, None, False),  # 7 + J(2) = 9
            (0, Act.HIT, None, True),  # 9 + 10 = 19
            (0, Act.STAND, None, False),  # 19 against 19: a push
        ],
        balances=[0, 1050, 1000, 900],
        shown=[1050, 1050, 1000, 900],  # Аня: all of it in the bank
        bank=1050,
        banker_cards=["7H", "JH", "10C"],
        round_two_banker=0,
    ),
    # The 54-card deck with wild jokers.
    "big54": Plan(
        players=3,
        deck=["X1", "10S", "9H", "10H", "7S", "10C"],
        steps=[
            (1, Act.BET, 250, False),
            (2, Act.BET, 50, True),
            (1, Act.HIT, None, False),  # joker + 10 = 21: paid at once
            (2, Act.HIT, None, False),  # 10 + 7 = 17
            (2, Act.STAND, None, False),
            (0, Act.HIT, None, True),  # 9 + 10 = 19
            (0, Act.STAND, None, False),
        ],
        balances=[0, 1250, 950],
        shown=[800, 1250, 950],
        bank=800,
        banker_cards=["9H", "10C"],
        round_two_banker=0,
    ),
    # The first banker declines, the next one names the bank; stakes before the deal; naturals
    # pay double; the banker plays first; the bank passes every round.
    "twodecks104": Plan(
        players=4,
        deck=["10S", "9S", "10D", "10C", "AH", "7H", "8D", "6C", "3H", "2S"],
        steps=[
            (0, Act.PASS, None, False),  # Аня declines: Борис banks
            (1, Act.BANK, 100, True),
            (2, Act.BET, 25, False),
            (3, Act.BET, 50, True),
            (0, Act.BET, 10, False),  # the deal: Вика has a natural (10 + A), paid double
            (1, Act.HIT, None, False),  # the banker first: 10 + 6 + 3 = 19
            (1, Act.STAND, None, True),
            (3, Act.HIT, None, False),  # 9 + 7 + 2 = 18
            (3, Act.STAND, None, False),
            (0, Act.STAND, None, True),  # 10 + 8 = 18
        ],
        balances=[990, 1010, 1050, 950],
        shown=[990, 1010, 1050, 950],  # Борис: 900 and the 110 in the bank, handed back after
        bank=0,  # handed back to Борис: the bank passes every round
        banker_cards=["10C", "6C", "3H"],
        round_two_banker=2,
    ),
}


async def play_round(
    harness: Harness,
    preset: str,
    *,
    buttons: bool,
    on_step: Callable[[int], Awaitable[None]] | None = None,
    next_round: bool = True,
) -> None:
    """Play the plan's round; ``on_step(i)`` runs after each step but the last (the showdown)."""
    plan = PLANS[preset]
    users = harness.users[: plan.players]
    harness.script(decks=[plan.deck], lots=[0])
    await harness.say(users[0], f"/newgame {preset}")
    for user in users[1:]:
        if buttons:
            answer = await harness.press_act(user, harness.table(), Act.JOIN)
            assert not answer.show_alert, answer
        else:
            await harness.say(user, "/join")
    if buttons:
        await harness.press_act(users[1], harness.table(), Act.START)
    else:
        await harness.say(users[1], "/deal")
    game = await harness.stored()
    assert game.state["engine"]["banker"] == users[0].id  # the lot (scripted: 0)
    # Who has not opened the private chat is called to his turn in the group.
    mentions = {plain(render.turn_mention(u.id, u.first_name, "ru")) for u in users}
    result_at = 0
    for index, (who, act, amount, private) in enumerate(plan.steps):
        user = users[who]
        before = (await harness.stored()).version
        if index == len(plan.steps) - 1:
            result_at = len(harness.group.all_messages)
        if buttons:
            if private:
                message = harness.private(user).last_with_buttons()
                assert message is not None, f"no buttons in {user.first_name}'s private chat"
            else:
                message = harness.table()
            answer = await harness.press_act(user, message, act, amount)
            assert not answer.show_alert, (index, act, answer)
        else:
            text = COMMANDS[act] + (f" {amount}" if amount is not None else "")
            sent = len(harness.group.all_messages)
            await harness.say(user, text)
            replies = [
                m.content
                for m in harness.group.all_messages[sent:]
                if m.from_bot and m.content not in mentions
            ]
            assert result_at or not replies, (index, text, replies)  # no refusal was posted
        if on_step is not None and not result_at:
            await on_step(index)
        after = await harness.stored()
        # One action, one new version (posting the result saves once more: its outbox empties).
        assert after.version == before + 1, (index, act)  # delivery records without a version

    # The showdown: one result message with every hand, the payments and the balances.
    posted = [m for m in harness.group.all_messages[result_at:] if m.from_bot]
    assert len(posted) == 1, [m.text for m in posted]
    result = posted[0].text or ""
    for user in users:
        assert user.first_name in result
    for code in plan.banker_cards:
        assert render.card(Card.parse(code)) in result
    for user, amount in zip(users, plan.shown or plan.balances, strict=True):
        assert f"{user.first_name} — {i18n.number(amount, 'ru')}" in result
    for who, balance in enumerate(plan.balances):
        assert await harness.balance(users[who]) == balance, users[who].first_name
    stored = await harness.stored()
    assert stored.state["engine"]["bank"] == plan.bank
    assert stored.state["engine"]["phase"] == "round_over"
    ledger = await harness.rt.storage.check_ledger(harness.group.id)
    assert ledger.ok, ledger
    assert ledger.balances + ledger.open_banks == 1000 * plan.players

    if not next_round:
        return
    # The next round opens below the result, in a new table message; the old one loses its
    # buttons, and the result's "next round" button is refused from now on.
    old_table_id = (await harness.screen(stored)).table_message_id
    assert old_table_id is not None
    old_table = harness.group.message(old_table_id)
    assert old_table is not None and not old_table.inline_keyboard  # the result carries "next"
    next_data = harness.data_of(posted[0], Act.NEXT)
    if buttons:
        await harness.press_act(users[plan.round_two_banker], posted[0], Act.NEXT)
    else:
        await harness.say(users[plan.round_two_banker], "/next")
    stored = await harness.stored()
    assert stored.state["engine"]["round_no"] == 2 or stored.state["engine"]["phase"] == "bank"
    assert stored.state["engine"]["banker"] == users[plan.round_two_banker].id
    assert harness.table() is not old_table
    assert harness.table().message_id > posted[0].message_id
    assert not old_table.inline_keyboard
    # The result's "next round" button is gone, and a press that was already on its way is
    # refused (the one who pressed it is told his press was taken), changing nothing.
    # (A link to the round's replay may stay: it presses nothing.)
    assert not [b for row in posted[0].inline_keyboard for b in row if "callback_data" in b]
    assert (await harness.rt.storage.check_ledger(harness.group.id)).ok
    version = stored.version
    presser = users[plan.round_two_banker] if buttons else None
    for user in users:
        answer = await harness.press_raw(user, posted[0], next_data)
        if user is presser:
            # His own press again (a double tap, or delivered twice): not applied twice, and
            # told so quietly, with his cards as they are now.
            assert not answer.show_alert, answer
            assert (answer.text or "").startswith(render.text("pressed-done", "ru")), answer
            for code in hand_codes(stored, user.id):
                assert render.card(Card.parse(code)) in (answer.text or ""), (code, answer)
        else:
            assert answer.show_alert, (user.first_name, answer)
        assert (await harness.stored()).version == version, user.first_name


@pytest.mark.parametrize("preset", list(PLANS))
async def test_round_by_buttons(harness: Harness, preset: str) -> None:
    await play_round(harness, preset, buttons=True)


@pytest.mark.parametrize("preset", list(PLANS))
async def test_round_by_commands(harness: Harness, preset: str) -> None:
    await play_round(harness, preset, buttons=False)


async def test_a_hand_of_a_round_whose_bank_passed_shows_what_its_player_played_as(
    harness: Harness,
) -> None:
    """The bank passes at the round's end (twodecks104): Вика, banker of the next round, played
    this one with a stake, and Борис banked it — each one's private hand keeps saying so."""
    await play_round(harness, "twodecks104", buttons=True, next_round=False)
    boris, vika = harness.users[1], harness.users[2]
    assert (await harness.stored()).state["engine"]["banker"] == vika.id  # passed already
    vika_hand = harness.private(vika).messages[-1].text or ""
    assert plain(render.text("hand-stake", "ru", stake=25, balance=1050)) in vika_hand, vika_hand
    assert plain(render.text("hand-banker_self", "ru", balance=1050)) not in vika_hand, vika_hand
    boris_hand = harness.private(boris).messages[-1].text or ""
    assert plain(render.text("hand-balance", "ru", balance=1010)) in boris_hand, boris_hand
