"""A table that explains itself: a partial payout says why, a stake the bank may not cover is
marked before it is made, the banker's chips include his bank, the round number and the news
lines belong to their round (and turn), an idle table pauses, and refusals say what is wrong."""

from __future__ import annotations

from bot import render
from bot.callbacks import Act
from bot.render.results import _payment
from storage import StoredGame
from tests.bot.conftest import Harness, plain

# classic36: one card each (Борис, Вика, the banker Аня), then Борис draws a nine (19), Вика a
# dark nine (19), Аня a seven: 13 against two winners of 60 with a bank of 100.
DECK = ["10S", "10H", "6D", "9S", "9H", "7C"]


def ru(key: str, **params: object) -> str:
    return plain(render.text(key, "ru", **params))


async def dealt(harness: Harness, bank: int = 100) -> StoredGame:
    a, b, c = harness.users[:3]
    harness.script(decks=[DECK], lots=[0])
    await harness.say(a, "/newgame classic36")
    await harness.say(b, "/join")
    await harness.say(c, "/join")
    await harness.say(a, "/deal")
    await harness.say(a, f"/bank {bank}")
    return await harness.stored()


async def two_winners(harness: Harness) -> None:
    """Борис and Вика stake 60 each and beat the banker; the bank of 100 cannot pay both."""
    _, b, c = harness.users[:3]
    await dealt(harness)
    await harness.say(b, "/bet 60")
    await harness.say(b, "/hit")
    await harness.say(b, "/stand")
    table = harness.table()
    text = plain(table.text or "")
    # Before Вика stakes: the prompt says what the bank is sure to pay, the buttons above it
    # are marked, and that amount is one tap away.
    assert plain(render.text("prompt-stake_cover", "ru", cover=40)) in text
    labels = {b.amount: label for label, b in zip(_labels(table), harness.acts(table), strict=True)}
    assert labels[40] == "40"
    assert labels[100].startswith("⚠") and "100" in labels[100]
    assert not labels[10].startswith("⚠")
    await harness.say(c, "/bet 60")
    await harness.say(c, "/dark")


def _labels(message: object) -> list[str]:
    return [label for label, data in message.flat_buttons if data]  # type: ignore[attr-defined]


async def test_a_partial_payout_says_why_and_the_next_round_is_announced(
    harness: Harness,
) -> None:
    a = harness.users[0]
    await two_winners(harness)
    count = len(harness.group.all_messages)
    await harness.say(a, "/hit")  # 6 + 7 = 13
    await harness.say(a, "/stand")
    stored = await harness.stored()
    assert stored.state["engine"]["phase"] == "round_over"
    result = next(t for t in harness.bot_texts_since(count) if "вскрываемся" in t)
    # Борис is paid in full; Вика only what was left, and the result says why.
    assert "+60" in result
    assert plain(_payment(60, 40, "win", "ru", 60)) in result
    assert "банк кончился" in result
    # The round will go on by itself: the result says when, and how to go on at once.
    assert "Следующий раунд начнётся через" in result and "/next" in result


async def test_the_bankers_balance_includes_his_bank(harness: Harness) -> None:
    a, b, c = harness.users[:3]
    await dealt(harness, bank=200)
    text = plain(harness.table().text or "")
    # The table names the bank on the banker's row; her chips, the bank among them, are in
    # her hand as /balance says them (one number, one meaning: «из них в банке»).
    assert "🏦 Аня — банк 200 · 6♦" in text.split("\n")
    assert "фишки: 1\xa0000 (из них в банке 200)" in plain(harness.private_texts(a)[-1])
    await harness.say(b, "/bet 10")
    await harness.say(b, "/stand")  # 10 against the banker's 6 + 7
    await harness.say(c, "/bet 10")
    await harness.say(c, "/stand")
    count = len(harness.group.all_messages)
    await harness.say(a, "/hit")
    await harness.say(a, "/stand")  # 13: both lose 10, the bank is 220
    result = next(t for t in harness.bot_texts_since(count) if "вскрываемся" in t)
    assert "Аня — 1\xa0020 (из них в банке 220)" in result
    # /balance and /top count the bank she holds.
    seen = len(harness.private(a).all_messages)
    await harness.say(a, "/balance")
    answer = plain(harness.private_since(a, seen)[-1])
    assert "1\xa0020" in answer and "в банке 220" in answer
    seen = len(harness.private(a).all_messages)
    await harness.say(a, "/top all")
    top = plain(harness.private_since(a, seen)[-1]).splitlines()
    assert "Аня" in top[1] and "1\xa0020" in top[1]  # first, above Борис and Вика with 990


async def test_the_bank_naming_table_is_the_next_rounds(harness: Harness) -> None:
    a = harness.users[0]
    await two_winners(harness)
    await harness.say(a, "/hit")
    await harness.say(a, "/stand")  # the bank is broken: Борис names the next one
    dark = ru("news-dark", name="Вика")
    assert any(dark in plain(t) for t in harness.group_texts())
    count = len(harness.group.all_messages)
    await harness.press_act(a, harness.table(), Act.NEXT)
    stored = await harness.stored()
    assert stored.state["engine"]["phase"] == "bank"
    tables = [plain(t) for t in harness.bot_texts_since(count)]
    assert tables and all("Раунд 2" in t for t in tables)
    assert not any(dark in t for t in tables)  # round 1's news stays with round 1
    assert not any("Раунд 1" in t for t in tables)


async def test_the_banker_leaving_before_the_first_round_hands_the_naming_on(
    harness: Harness,
) -> None:
    a, b, c = harness.users[:3]
    harness.script(lots=[0])
    await harness.say(a, "/newgame classic36")
    await harness.say(b, "/join")
    await harness.say(c, "/join")
    await harness.say(a, "/deal")
    await harness.say(a, "/leave")
    stored = await harness.stored()
    engine = stored.state["engine"]
    assert (engine["phase"], engine["turn"], engine["round_no"]) == ("bank", b.id, 0)
    text = plain(harness.table().text or "")
    assert "Раунд окончен" not in text
    assert "Борис: банк от 1 до" in text


async def test_an_idle_table_pauses_and_any_move_goes_on(harness: Harness) -> None:
    a, b, c = harness.users[:3]
    stored = await dealt(harness)
    await harness.say(b, "/bet 10")
    await harness.say(b, "/stand")
    await harness.say(c, "/bet 10")
    await harness.say(c, "/stand")
    await harness.say(a, "/hit")
    await harness.say(a, "/stand")
    # Nobody presses "next round": it deals itself when the pause between rounds is over.
    await harness.advance_clock(harness.rt.settings.turn_timeout + 1)
    await harness.fire_timer(stored.game_id)
    engine = (await harness.stored()).state["engine"]
    assert (engine["phase"], engine["turn"], engine["round_no"]) == ("stake", b.id, 2)
    # Nobody plays in it: rather than sit everyone out on timers, the table pauses.
    count = len(harness.group.all_messages)
    await harness.advance_clock(harness.rt.settings.turn_timeout + 1)
    await harness.fire_timer(stored.game_id)
    paused = await harness.stored()
    assert paused.state["meta"]["paused"] is True
    assert paused.state["engine"] == engine  # nothing was played for anyone
    assert paused.deadline is None
    posted = [m for m in harness.group.all_messages[count:] if m.from_bot]
    assert posted, "the pause is said in a new message at the bottom"
    text = plain(posted[-1].text or "")
    assert "⏸ Пауза" in text and "Борис" in text
    assert Act.RESUME in {b.act for b in harness.acts(posted[-1])}
    # A timer that fires anyway changes nothing; the game is not ended.
    await harness.advance_clock(harness.rt.settings.turn_timeout + 1)
    await harness.fire_timer(stored.game_id)
    assert (await harness.stored()).version == paused.version
    # Anyone at the table goes on: Борис's clock runs again, and he gets a new notice.
    seen = len(harness.private(b).all_messages)
    answer = await harness.press_act(c, posted[-1], Act.RESUME)
    assert not answer.show_alert, answer
    going = await harness.stored()
    assert going.state["meta"].get("paused", False) is False
    assert going.deadline is not None
    assert len(harness.private(b).all_messages) > seen
    await harness.say(b, "/bet 10")
    engine = (await harness.stored()).state["engine"]
    assert (engine["phase"], engine["turn"]) == ("draw", b.id)


async def test_refusals_say_what_is_wrong(harness: Harness) -> None:
    _, b, c, d = harness.users
    await dealt(harness)

    async def answer_to(user: object, text: str) -> str:
        seen = len(harness.private(user).all_messages)  # type: ignore[arg-type]
        await harness.say(user, text)  # type: ignore[arg-type]
        return harness.private_since(user, seen)[0]  # type: ignore[arg-type]

    # Out of turn: whose turn it is, whatever the move.
    assert await answer_to(c, "/hit") == "Сейчас не ваш ход: ходит Борис."
    assert await answer_to(c, "/bet 5") == "Сейчас не ваш ход: ходит Борис."
    # A stake without a number: the stake's range.
    assert await answer_to(b, "/bet") == "Ставка — целое число от 1 до 100: /bet и сумма."
    # Joining during a round: seated, playing from the next one.
    assert await answer_to(d, "/join") == render.text("joined_next", "ru")
    stored = await harness.stored()
    assert d.id in [s["player"] for s in stored.state["engine"]["seats"]]
    assert d.id not in stored.state["engine"]["order"]


async def test_a_bank_of_nothing_is_a_bank_refusal(harness: Harness) -> None:
    a, b, c = harness.users[:3]
    harness.script(lots=[0])
    await harness.say(a, "/newgame classic36")
    await harness.say(b, "/join")
    await harness.say(c, "/join")
    await harness.say(a, "/deal")
    seen = len(harness.private(a).all_messages)
    await harness.say(a, "/bank 0")
    answer = harness.private_since(a, seen)[-1]
    assert answer == "Банк — целое число от 1 до 1\xa0000: /bank и сумма."
    assert "Ставка" not in answer


async def test_the_first_rounds_table_does_not_repeat_who_sat_down(harness: Harness) -> None:
    """The lobby's list of players told who sat down; the first round's news lines do not."""
    b = harness.users[1]
    await dealt(harness)
    text = plain(harness.table().text or "")
    assert ru("news-joined", name=b.first_name) not in text, text
    # Nor does the lot once Борис is on turn: the table's news are the current turn's.
    assert ru("news-banker_lot", name=harness.users[0].first_name) not in text, text
