"""/settings, /lang, the informational commands, and two games in two forum topics."""

from __future__ import annotations

import asyncio
import re
from dataclasses import replace

import pytest
from telegram import Update

from bot import i18n, render
from bot.callbacks import Act
from bot.commands import sections
from bot.handlers import endgame
from bot.replies import PER_PERSON_SECONDS, SAME_COMMAND_SECONDS
from localbotapi.models import Message
from rules.variants import PRESETS
from tests.bot.conftest import Harness, plain
from tests.bot.test_rounds import play_round


def setting(menu: Message, key: str, value: str) -> str:
    for _, data in menu.flat_buttons:
        if data and data.endswith(f":{key}:{value}"):
            return data
    raise AssertionError(f"no {key}={value} button in {menu.buttons}")


async def test_an_admin_sets_preset_dark_draw_and_fine_for_the_next_game(
    harness: Harness,
) -> None:
    a, b, _, _ = harness.users
    await harness.say(a, "/settings")
    menu = harness.group.last_with_buttons()
    assert menu is not None
    for key, value in (("preset", "home36"), ("dark_draw", "off"), ("fine", "50")):
        answer = await harness.press_data(a, menu, setting(menu, key, value))
        assert not answer.show_alert, (key, value, answer)
    chat = await harness.rt.storage.get_chat(harness.group.id)
    assert chat.preset == "home36"
    assert chat.overrides == {"dark_draw": False, "bust_fine_percent": 50}
    # The menu is edited in place and marks the choices.
    assert menu.edit_count == 3
    assert any(
        text.startswith("✅") and data == setting(menu, "fine", "50")
        for text, data in menu.flat_buttons
    )
    await harness.say(b, "/newgame")
    variant = (await harness.stored()).state["engine"]["variant"]
    assert (variant["name"], variant["dark_draw"], variant["bust_fine_percent"]) == (
        "home36",
        False,
        50,
    )
    # A preset named in /newgame is played as it is, without the chat's overrides.
    await harness.end_game(b)
    await harness.say(b, "/newgame big54")
    variant = (await harness.stored()).state["engine"]["variant"]
    assert (variant["name"], variant["dark_draw"], variant["bust_fine_percent"]) == (
        "big54",
        True,
        100,
    )


async def test_an_invalid_combination_is_refused_with_an_alert(harness: Harness) -> None:
    a, _, _, _ = harness.users
    await harness.say(a, "/settings")
    menu = harness.group.last_with_buttons()
    assert menu is not None
    await harness.press_data(a, menu, setting(menu, "preset", "twodecks104"))
    before = await harness.rt.storage.get_chat(harness.group.id)
    assert before.preset == "twodecks104"
    # twodecks104 counts aces 1 or 11 always, and its banker plays first (no dark draw).
    for key, value in (("acelow", "off"), ("dark_draw", "on")):
        answer = await harness.press_data(a, menu, setting(menu, key, value))
        assert answer.show_alert and answer.text, (key, value)
        # Why, in the chat's language: no engine text in English is appended.
        assert answer.text == render.setting_refusal(key, "ru")
        assert answer.text.startswith("Так нельзя: ")
        assert not re.search("[A-Za-z]{3,}", answer.text), answer.text
        assert await harness.rt.storage.get_chat(harness.group.id) == before
    # The close button leaves the saved settings.
    await harness.press_data(a, menu, setting(menu, "close", "x"))
    assert not menu.inline_keyboard


async def test_two_admins_change_two_settings_at_once_and_both_stay(harness: Harness) -> None:
    a, b, _, _ = harness.users
    harness.group.admins.add(b.id)  # Борис is an admin of the group too
    await harness.say(a, "/settings")
    await harness.say(b, "/settings")  # both known as admins: neither press waits on Telegram
    menu = harness.group.last_with_buttons()
    assert menu is not None
    before = await harness.rt.storage.get_chat(harness.group.id)
    assert not before.house_banker and "bust_fine_percent" not in before.overrides
    queries = [
        await a.press(menu, data=setting(menu, "house", "on")),
        await b.press(menu, data=setting(menu, "fine", "50")),
    ]
    # Both presses handled at the same time, as the bot's concurrent updates are.
    _, body = await harness.server.dispatch(
        harness.bot.token, "getUpdates", {"offset": harness.offset, "timeout": 0}
    )
    assert len(body["result"]) == 2
    harness.offset = body["result"][-1]["update_id"] + 1
    app = harness.app
    await asyncio.gather(*(app.process_update(Update.de_json(u, app.bot)) for u in body["result"]))
    await harness.deliver()
    answers = [await query.wait(timeout=5) for query in queries]
    assert not any(answer.show_alert for answer in answers), answers
    chat = await harness.rt.storage.get_chat(harness.group.id)
    assert chat.house_banker and chat.overrides == {"bust_fine_percent": 50}


async def test_lang_switches_the_group_to_english(harness: Harness) -> None:
    a, b, _, _ = harness.users
    # Answers to group commands go to the asker's private chat, one pointer in the group.
    count, seen_a, seen_b = (
        len(chat.all_messages) for chat in (harness.group, harness.private(a), harness.private(b))
    )
    await harness.say(b, "/lang en")  # not an admin
    assert harness.private_since(b, seen_b) == [render.refusal("lang_group_admins", {}, "ru")]
    assert harness.bot_texts_since(count) == [harness.pointer(b)]
    assert (await harness.rt.storage.get_chat(harness.group.id)).language == "ru"
    count = len(harness.group.all_messages)
    await harness.say(a, "/lang en")
    assert (await harness.rt.storage.get_chat(harness.group.id)).language == "en"
    # The group's language is said in the group, in it; Аня's own chat gets nothing.
    assert harness.private_since(a, seen_a) == []
    assert harness.bot_texts_since(count) == [plain(render.text("lang-group_switched", "en"))]
    count = len(harness.group.all_messages)
    seen_b = len(harness.private(b).all_messages)
    await harness.say(b, "/help")
    # What Борис alone reads is in his language: his Telegram speaks Russian.
    assert harness.private_since(b, seen_b) == [
        plain(render.help_text(sections("ru", private=False), "ru", private=False))
    ]
    assert harness.bot_texts_since(count) == []  # Борис was pointed to his chat a moment ago
    await harness.say(b, "/newgame")
    assert harness.table().content.startswith(plain(i18n.t("lobby-header", "en")))
    answer = await harness.press_raw(b, harness.table(), "g:1:99:hit")
    assert answer.text == render.refusal("stale_button", {}, "ru")
    # Without a private chat the answer is posted in the group, in its language.
    newcomer = harness.newcomer("Дима")
    count = len(harness.group.all_messages)
    await harness.say(newcomer, "/help")
    assert harness.bot_texts_since(count) == [
        plain(render.help_text(sections("en", private=False), "en", private=False))
    ]


async def test_help_rules_balance_top_and_stats_answer(harness: Harness) -> None:
    _, b, _, _ = harness.users
    count = len(harness.group.all_messages)
    seen = len(harness.private(b).all_messages)
    await harness.say(b, "/help")
    await harness.say(b, "/rules twodecks104")
    await harness.say(b, "/rules poker")
    help_text = plain(render.help_text(sections("ru", private=False), "ru", private=False))
    rules = plain(render.rules_text("twodecks104", "ru"))
    unknown = plain(
        render.text(
            "unknown_preset", "ru", name="poker", known="classic36, home36, big54, twodecks104"
        )
    )
    # Борис has opened the private chat: the answers are there, the group gets one pointer.
    assert harness.private_since(b, seen) == [help_text, rules, unknown]
    assert harness.bot_texts_since(count) == [harness.pointer(b)]
    await play_round(harness, "classic36", buttons=False, next_round=False)
    count = len(harness.group.all_messages)
    seen = len(harness.private(b).all_messages)
    await harness.say(b, "/balance")
    await harness.say(b, "/top all")
    await harness.say(b, "/stats")
    stats = await harness.rt.storage.player_stats(harness.group.id, b.id)
    assert stats is not None and stats.rounds == 1 and stats.wins == 1 and stats.net == 50
    balance, top, own = harness.private_since(b, seen)
    assert harness.bot_texts_since(count) == []  # one pointer every few minutes
    assert balance == plain(render.balance("Борис", 1050, "ru"))
    rows = await harness.rt.storage.leaderboard(harness.group.id, limit=10)
    # The banker Аня's 900 and the 75 in her bank tie with Вика's 975 (the lower id first).
    assert [(r.name, r.balance) for r in rows] == [("Борис", 1050), ("Аня", 975), ("Вика", 975)]
    assert top == plain(render.leaderboard(rows, "ru", period="all"))
    # Борис's 10 and ace: 21 on two cards, his first achievement in the chat.
    earned = await harness.rt.storage.achievements(harness.group.id, b.id)
    assert [(a.code, a.round_no) for a in earned] == [("natural", 1)]
    assert own == plain(render.stats(stats, "Борис", "ru", earned))
    # In the private chat: the balance of every chat he plays in (here, one).
    await harness.say(b, "/balance", harness.bot)
    assert harness.private_texts(b)[-1] == plain(render.balances([("Очко", 1050)], "ru"))

    # Without a private chat the answers are posted in the group: one a minute per person,
    # and the same command once a minute in the chat.
    dima, eva = harness.newcomer("Дима"), harness.newcomer("Ева")
    count = len(harness.group.all_messages)
    await harness.say(dima, "/help")
    await harness.say(dima, "/rules twodecks104")  # Дима was answered a moment ago: dropped
    await harness.say(eva, "/help")  # /help was answered a moment ago: dropped
    await harness.say(eva, "/rules poker")
    assert harness.bot_texts_since(count) == [help_text, unknown]
    harness.advance_reply_clock(max(SAME_COMMAND_SECONDS, PER_PERSON_SECONDS))
    count = len(harness.group.all_messages)
    await harness.say(dima, "/rules twodecks104")
    await harness.say(eva, "/help")
    await harness.say(eva, "/balance")  # Ева was answered a moment ago: dropped
    assert harness.bot_texts_since(count) == [rules, help_text]


async def test_two_games_in_two_forum_topics_run_independently(forum: Harness) -> None:
    h = forum
    a, b, c, d = h.users
    first = h.group.create_topic("Стол 1")
    second = h.group.create_topic("Стол 2")
    h.script(decks=[["10S", "9S", "AS"]], lots=[0])  # Борис 10, Аня 9 face up, then an ace
    await h.say(a, "/newgame classic36", thread_id=first)
    await h.say(c, "/newgame home36", thread_id=second)
    one = await h.stored(first)
    two = await h.stored(second)
    assert one.game_id != two.game_id
    assert (one.thread_id, two.thread_id) == (first, second)
    h.script(decks=[["10S", "9S", "8S", "7H"]], lots=[0], game_id=two.game_id)
    # A second game in the same topic is refused: in Борис's private chat, with the pointer to
    # it in that topic.
    count = len(h.group.all_messages)
    seen = len(h.private(b).all_messages)
    await h.say(b, "/newgame", thread_id=first)
    assert h.private_since(b, seen) == [render.refusal("game_exists", {}, "ru")]
    refused = [m for m in h.group.all_messages[count:] if m.from_bot]
    assert [(m.content, m.thread_id) for m in refused] == [(h.pointer(b), first)]
    # Each game's messages stay in its topic.
    lobbies = {m.thread_id: m for m in h.group.messages if m.from_bot and m.inline_keyboard}
    assert set(lobbies) == {first, second}
    await h.press_act(b, lobbies[first], Act.JOIN)
    await h.press_act(d, lobbies[second], Act.JOIN)
    await h.say(a, "/deal", thread_id=first)
    await h.say(d, "/deal", thread_id=second)
    await h.say(a, "/bank 100", thread_id=first)
    one = await h.stored(first)
    two = await h.stored(second)
    assert one.state["engine"]["phase"] == "stake" and one.state["engine"]["turn"] == b.id
    assert two.state["engine"]["phase"] == "stake" and two.state["engine"]["turn"] == d.id
    # Acting in topic 1 leaves topic 2 alone, and the other way round.
    await h.say(b, "/bet 50", thread_id=first)
    await h.say(b, "/hit", thread_id=first)  # 10 + A = 21
    assert (await h.stored(second)).version == two.version
    one = await h.stored(first)
    assert one.state["engine"]["phase"] == "round_over"  # 21 with nobody left to play
    await h.say(d, "/bet 100", thread_id=second)
    assert (await h.stored(second)).version == two.version + 1
    assert (await h.stored(first)).version == one.version
    count = len(h.group.all_messages)
    seen = len(h.private(d).all_messages)
    await h.say(d, "/hit", thread_id=first)  # topic 1's round is over; Гоша's turn is in 2
    # He is not at topic 1's table: he hears that, and how to sit down (not «another stage»).
    refused = render.refusal("not_seated", {}, "ru")
    assert h.private_since(d, seen) == [refused]
    assert refused.startswith("Вы не за столом") and "/join" in refused
    replies = [m for m in h.group.all_messages[count:] if m.from_bot]
    assert [(m.content, m.thread_id) for m in replies] == [(h.pointer(d), first)]
    assert (await h.stored(second)).version == two.version + 1
    # Chips: one account per player in the chat, shared by both tables, all conserved.
    assert await h.balance(b) == 1050
    assert await h.balance(c) == 0  # all in as the banker of topic 2
    assert (await h.rt.storage.check_ledger(h.group.id)).ok
    for message in h.group.all_messages:
        if message.from_bot:
            assert message.thread_id in (first, second), message


# ------------------------------------------------------------------ /endgame asks first


async def _a_round_with_a_stake(harness: Harness) -> None:
    a, b, c, _ = harness.users
    harness.script(decks=[["10S", "9S", "7H", "AS", "8D", "KD"]], lots=[0])
    await harness.say(a, "/newgame classic36")
    await harness.say(b, "/join")
    await harness.say(c, "/join")
    await harness.say(b, "/deal")
    await harness.say(a, "/bank 100")  # Аня banks (the lot)
    await harness.say(b, "/bet 50")


def _answer_data(question: Message, yes: bool) -> str:
    found = [d for _, d in question.flat_buttons if d and d.endswith(":y" if yes else ":n")]
    assert len(found) == 1, question.buttons
    return found[0]


async def test_endgame_asks_its_asker_and_ends_with_one_summary(harness: Harness) -> None:
    a, b, c, _ = harness.users
    await _a_round_with_a_stake(harness)
    game = await harness.stored()
    assert game.state["engine"]["hands"][0]["stake"] == 50, game.state["engine"]["hands"]
    count = len(harness.group.all_messages)
    await harness.say(c, "/endgame")  # neither the creator, the banker nor an admin
    assert not any(m.from_bot and m.inline_keyboard for m in harness.group.all_messages[count:])

    count = len(harness.group.all_messages)
    await harness.say(a, "/endgame")
    asked = [m for m in harness.group.all_messages[count:] if m.from_bot]
    assert len(asked) == 1, [m.content for m in asked]
    question = asked[0]
    assert (
        question.content.split("\n")[0].endswith(", точно завершить игру?")
        and "Аня" in question.content
    )
    assert (await harness.stored()).status != "finished"
    # Somebody else's press changes nothing.
    answer = await harness.press_data(b, question, _answer_data(question, yes=True))
    assert answer.show_alert and answer.text == render.end_not_yours("Аня", "ru")
    assert (await harness.stored()).version == game.version
    # «Keep playing»: the question says so and loses its buttons.
    await harness.press_data(a, question, _answer_data(question, yes=False))
    assert not question.inline_keyboard
    assert question.content == plain(render.text("endgame-kept", "ru", name="Аня"))
    assert (await harness.stored()).version == game.version

    # Asked again, and confirmed: the game ends, the question goes, ONE summary is posted.
    await harness.say(a, "/endgame")
    question = harness.group.last_with_buttons()
    assert question is not None and question.content.split("\n")[0].endswith(
        ", точно завершить игру?"
    )
    count = len(harness.group.all_messages)
    answer = await harness.press_data(a, question, _answer_data(question, yes=True))
    assert not answer.show_alert, answer
    ended = await harness.rt.storage.load_game(game.game_id)
    assert ended is not None and ended.status == "finished"
    assert question.deleted
    posted = [m.content for m in harness.group.all_messages[count:] if m.from_bot]
    assert len(posted) == 1, posted
    summary = posted[0]
    assert summary.startswith("🏁 Аня завершает игру\n"), summary
    assert summary.count("заверш") == 1 and "окончен" not in summary and "завершил" not in summary
    assert "Фишки по итогам игры" in summary
    table = harness.group.message((await harness.screen(game)).table_message_id or 0)
    assert table is not None and i18n.t("prompt-ended_below", "ru") in table.content
    assert harness.group.last_with_buttons() is None  # no live button anywhere in the group
    assert await harness.balance(b) == 1000  # the stake of the unfinished round came back
    assert (await harness.rt.storage.check_ledger(harness.group.id)).ok
    # A late press on a closed question does nothing.
    answer = await harness.press_raw(a, question, _answer_data(question, yes=True))
    assert answer.show_alert and answer.text == render.text("endgame-over", "ru")


async def test_endgame_question_expires(harness: Harness) -> None:
    a, _, _, _ = harness.users
    await _a_round_with_a_stake(harness)
    game = await harness.stored()
    # Pressed after its time (judged by the service's clock; a phone may still show the
    # buttons the bot removed): refused.
    await harness.say(a, "/endgame")
    question = harness.group.last_with_buttons()
    assert question is not None and question.content.split("\n")[0].endswith(
        ", точно завершить игру?"
    )
    yes = _answer_data(question, yes=True)
    await harness.advance_clock(endgame.END_CONFIRM_SECONDS + 1)
    answer = await harness.press_raw(a, question, yes)
    assert answer.show_alert and answer.text == render.text("endgame-expired", "ru")
    assert not question.inline_keyboard
    assert question.content == plain(render.text("endgame-expired", "ru"))
    assert (await harness.stored()).status != "finished"
    # Left alone, the question closes itself when its time is up.
    await harness.say(a, "/endgame")
    question = harness.group.last_with_buttons()
    assert question is not None and question.content.split("\n")[0].endswith(
        ", точно завершить игру?"
    )
    await harness.advance_clock(endgame.END_CONFIRM_SECONDS - 1)
    assert question.inline_keyboard  # not yet
    await harness.advance_clock(1)
    assert not question.inline_keyboard
    assert question.content == plain(render.text("endgame-expired", "ru"))
    stored = await harness.stored()
    assert stored.status != "finished" and stored.game_id == game.game_id


async def test_rules_without_a_name_show_the_running_game(harness: Harness) -> None:
    a, b, _, _ = harness.users
    seen = len(harness.private(a).all_messages)
    await harness.say(a, "/rules")  # no game: the chat's preset (classic36)
    assert harness.private_since(a, seen) == [plain(render.rules_text("classic36", "ru"))]
    # The chat's settings change the next game; a game of another preset runs meanwhile.
    chat = await harness.rt.storage.get_chat(harness.group.id)
    async with harness.rt.storage.transaction() as tx:
        await tx.save_chat_settings(
            replace(chat, preset="home36", overrides={"bust_fine_percent": 50})
        )
    await harness.say(b, "/newgame big54")
    harness.advance_reply_clock(SAME_COMMAND_SECONDS)
    seen = len(harness.private(a).all_messages)
    await harness.say(a, "/rules")
    (shown,) = harness.private_since(a, seen)
    big54 = PRESETS["big54"]
    assert shown == plain(render.rules_text("big54", "ru", big54, running=True))
    assert i18n.t("rules-running", "ru") in shown and "big54" in shown
    await harness.end_game(b)
    harness.advance_reply_clock(SAME_COMMAND_SECONDS)
    seen = len(harness.private(a).all_messages)
    await harness.say(a, "/rules")  # the next game: home36 with the chat's fine
    (shown,) = harness.private_since(a, seen)
    assert "home36" in shown and i18n.t("rules-chat_overrides", "ru") in shown
    assert plain(i18n.t("rules-fine", "ru", percent=50)) in shown


@pytest.mark.parametrize("preset", ["classic36", "home36", "big54", "twodecks104"])
async def test_only_the_newest_message_of_a_chat_carries_buttons(
    harness: Harness, preset: str
) -> None:
    """Superseded hand messages, old tables and old results lose their buttons: at every step
    each chat has at most one message that still acts; after /endgame none."""

    def live() -> dict[int, list[int]]:
        chats = [harness.group, *(harness.private(u) for u in harness.users)]
        return {
            chat.id: [m.message_id for m in chat.messages if m.from_bot and m.inline_keyboard]
            for chat in chats
        }

    async def check(step: int) -> None:
        for chat, ids in live().items():
            assert len(ids) <= 1, (step, chat, ids)

    await play_round(harness, preset, buttons=True, on_step=check)
    await check(-1)
    await harness.end_game(harness.users[0])
    assert all(not ids for ids in live().values()), live()
