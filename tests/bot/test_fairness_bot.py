"""The provably fair deck in the chat: the table shows the deck's hash before any move (and again
when the round is over, not while it is played), the result
points to /verify in one line, /verify gives the hash, the salt and the order and checks a settled
round, refuses one still being played, and the group never sees a salt before the showdown."""

from __future__ import annotations

import pytest

from rules.fairness import commitment
from tests.bot.conftest import Harness
from tests.bot.test_rounds import PLANS, play_round


def _secrets(engine: dict[str, object]) -> list[str]:
    """The salts and whole orders of the round being played (never to be shown)."""
    shuffles = engine.get("shuffles") or []
    assert isinstance(shuffles, list)
    return [s["salt"] for s in shuffles] + [" ".join(s["order"]) for s in shuffles]


@pytest.mark.parametrize("preset", list(PLANS))
async def test_commitment_shown_then_revealed_and_verified(harness: Harness, preset: str) -> None:
    seen: list[tuple[str, str]] = []  # (commitment, salt) of round one

    async def before_showdown(index: int) -> None:
        engine = (await harness.stored()).state["engine"]
        if not engine["shuffles"]:
            return  # the bank is still being named: nothing dealt, nothing committed yet
        shuffle = engine["shuffles"][-1]
        assert shuffle["commitment"] == commitment(shuffle["order"], shuffle["salt"])
        seen.append((shuffle["commitment"], shuffle["salt"]))
        # The live table showed the first 16 hex digits of the hash on one short line before
        # the first move (some earlier version of this message), and leaves it out once the
        # round is under way (it stays short on a phone)…
        table = harness.table()
        line = f"🔒 Хеш колоды: {shuffle['commitment'][:16]}…"
        assert len(line) <= 40
        assert any(line in text.split("\n") for text in table.texts), table.texts
        moved = any(
            hand["stake"] or hand["status"] not in ("waiting", "out")
            for hand in engine["hands"]
            if hand["player"] in engine["order"]
        )
        assert (line in (table.text or "").split("\n")) == (not moved), table.text
        # …and nothing the group has seen holds the salt or the order.
        for secret in _secrets(engine):
            assert all(secret not in text for text in harness.group_texts()), index

    await play_round(harness, preset, buttons=True, on_step=before_showdown)
    assert seen, "the round was never seen in play"
    committed, salt = seen[-1]
    assert all(c == committed for c, _ in seen)  # one shuffle in these rounds
    texts = harness.group_texts()
    # Once the round is over, its table message ends with the hash again, beside the result.
    line = f"🔒 Хеш колоды: {committed[:16]}…"
    over = [m.content for m in harness.group.messages if "итоги ниже" in m.content]
    assert over and line in over[0].split("\n"), over
    result = next(t for t in texts if "вскрываемся" in t)
    # One line a round for the deck: /verify gives the rest.
    deck_lines = [line for line in result.split("\n") if "/verify" in line or "🔓" in line]
    assert deck_lines == ["🔓 Колода раскрыта — проверить: /verify 1"], deck_lines
    assert committed not in result and salt not in result

    a = harness.users[0]
    # Round 2 is being played now: its deck is refused, round 1 is checked.
    stored = await harness.stored()
    engine = stored.state["engine"]
    # Round 1's log went to the archive when round 2 began; the state keeps round 2's alone.
    archived = await harness.rt.storage.archived_log(stored.game_id)
    assert archived and engine["log_base"] == len(archived)
    assert engine["log"][0]["a"] in ("next_round", "timeout")
    assert not any(entry["a"] in ("join", "start") for entry in engine["log"])
    # Asked in the group, /verify is answered in the asker's private chat, with one pointer in
    # the group.
    pointed = False
    if engine["phase"] != "bank":
        before, group_before = len(harness.private(a).all_messages), len(harness.group.all_messages)
        await harness.say(a, "/verify 2")
        replies = harness.private_since(a, before)
        assert len(replies) == 1 and "можно проверить после вскрытия" in replies[0], replies
        assert harness.bot_texts_since(group_before) == [harness.pointer(a)]
        pointed = True
        for secret in _secrets(engine):
            assert all(secret not in text for text in harness.group_texts())
            assert all(secret not in text for text in harness.private_texts(a))
        harness.advance_reply_clock(harness.rt.cooldowns.seconds)  # /verify's cooldown
    before, group_before = len(harness.private(a).all_messages), len(harness.group.all_messages)
    await harness.say(a, "/verify")
    reply = harness.private_since(a, before)
    assert len(reply) == 1, reply
    assert "раунд 1" in reply[0] and "✅ колода честная" in reply[0]
    assert committed in reply[0] and salt in reply[0]
    assert "❌" not in reply[0]
    # One pointer per person every few minutes.
    assert harness.bot_texts_since(group_before) == ([] if pointed else [harness.pointer(a)])


async def test_verify_in_private_and_in_english(harness: Harness) -> None:
    await play_round(harness, "classic36", buttons=False, next_round=False)
    a = harness.users[0]
    await harness.say(a, "/lang en", harness.bot)  # the user's own language
    await harness.say(a, "/verify 1", harness.bot)
    reply = harness.private_texts(a)[-1]
    assert "Deck check — round 1" in reply and "✅ the deck was fair" in reply, reply
    harness.advance_reply_clock(harness.rt.cooldowns.seconds)  # /verify's cooldown
    await harness.say(a, "/verify 7", harness.bot)
    assert "no round 7" in harness.private_texts(a)[-1]


async def test_verify_before_any_showdown_is_refused(harness: Harness) -> None:
    a, b = harness.users[:2]
    harness.script(decks=[["10S", "9S", "7H", "6H"]], lots=[0])
    await harness.say(a, "/newgame classic36")
    await harness.say(b, "/join")
    await harness.say(b, "/deal")
    await harness.say(a, "/bank 100")  # Аня banks (the lot): round 1 is dealt
    engine = (await harness.stored()).state["engine"]
    assert engine["round_no"] == 1 and engine["shuffles"]
    before, group_before = len(harness.private(b).all_messages), len(harness.group.all_messages)
    await harness.say(b, "/verify")
    reply = harness.private_since(b, before)
    assert len(reply) == 1 and "Проверять пока нечего" in reply[0], reply
    harness.advance_reply_clock(harness.rt.cooldowns.seconds)  # /verify's cooldown
    await harness.say(b, "/verify 1")
    reply = harness.private_since(b, before)
    assert len(reply) == 2 and "Колоду раунда 1 можно проверить после вскрытия" in reply[-1], reply
    # The answers are Борис's; the group sees one pointer to them.
    assert harness.bot_texts_since(group_before) == [harness.pointer(b)]
    for secret in _secrets(engine):
        assert all(secret not in text for text in harness.group_texts())
        assert all(secret not in text for u in harness.users for text in harness.private_texts(u))
