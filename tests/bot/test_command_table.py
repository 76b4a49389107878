"""One table of commands: every command of a menu answers in the scope it is listed for, /help
lists exactly the menu, aliases keep working; private /balance; who reads which language."""

from __future__ import annotations

import re
from pathlib import Path

from bot import commands, i18n, render
from bot.app import command_menus
from localbotapi import BotApiServer, FakeUser
from localbotapi.models import scope_key
from tests.bot.conftest import Harness, make_settings, plain, start_harness, stop_harness

GROUP_SCOPE = scope_key({"type": "all_group_chats"})
PRIVATE_SCOPE = scope_key({"type": "all_private_chats"})


def menu_of(harness: Harness, scope: str, code: str = "") -> list[tuple[str, str]]:
    """The menu the bot registered with the server for a scope and a language code."""
    return [(c["command"], c["description"]) for c in harness.bot.commands[(scope, code)]]


def listed(help_text: str) -> list[tuple[str, str]]:
    """The (command, description) lines of a /help text as the chat shows it."""
    return re.findall(r"^/([a-z_]+) — (.+)$", help_text, re.MULTILINE)


def refusals(lang: str) -> set[str]:
    """Answers that would mean the command is not handled where its menu lists it."""
    return {
        plain(render.text(key, lang))
        for key in ("group_only", "private_only", "private-unknown_command")
    }


async def answers(harness: Harness, user: FakeUser, text: str, *, private: bool) -> list[str]:
    """Everything the bot wrote to ``user`` or the group in answer to ``text``."""
    group, own = len(harness.group.all_messages), len(harness.private(user).all_messages)
    await harness.say(user, text, harness.bot if private else None)
    said = harness.private_since(user, own)
    if not private:
        said += [t for t in harness.bot_texts_since(group) if t != harness.pointer(user)]
    return said


async def test_every_menu_command_answers_where_it_is_listed(harness: Harness) -> None:
    a, b, _, _ = harness.users
    group_menu = menu_of(harness, GROUP_SCOPE)
    private_menu = menu_of(harness, PRIVATE_SCOPE)
    assert group_menu == commands.menu("ru", private=False)
    assert private_menu == commands.menu("ru", private=True)
    # The commands that were silently missing are listed, and handled below.
    assert {"passbank", "next", "cancel"} <= {name for name, _ in group_menu}
    assert "balance" in {name for name, _ in private_menu}
    bad = refusals("ru")
    # In the group (the admin asks: /settings is his), with no game yet; /newgame last.
    names = [name for name, _ in group_menu]
    for name in [n for n in names if n != "newgame"] + ["newgame"]:
        said = await answers(harness, a, f"/{name}", private=False)
        assert said, f"/{name} in a group: no answer"
        assert not bad & set(said), (name, said)
        if name == "help":
            assert listed(said[0]) == group_menu
    # In the private chat, by someone who sits at no table.
    for name, _ in private_menu:
        said = await answers(harness, b, f"/{name}", private=True)
        assert said, f"/{name} in private: no answer"
        assert not bad & set(said), (name, said)
        if name == "help":
            assert listed(said[0]) == private_menu


async def test_menus_per_language_and_scope_match_help(tmp_path: Path) -> None:
    server = BotApiServer(flood_limits=False)
    h = await start_harness(server, make_settings(tmp_path, default_language="en"), players=1)
    try:
        for code, private, entries in command_menus("en"):
            scope = PRIVATE_SCOPE if private else GROUP_SCOPE
            lang = code or "en"  # without a code: DEFAULT_LANGUAGE
            shown = menu_of(h, scope, code or "")
            assert shown == [(c.command, c.description) for c in entries]
            assert shown == listed(
                plain(
                    render.help_text(
                        commands.sections(lang, private=private), lang, private=private
                    )
                )
            )
        assert menu_of(h, GROUP_SCOPE, "ru") != menu_of(h, GROUP_SCOPE, "en")
        assert menu_of(h, GROUP_SCOPE) == menu_of(h, GROUP_SCOPE, "en")
    finally:
        await stop_harness(h)


async def test_unknown_commands_in_private_get_a_hint_and_in_groups_nothing(
    harness: Harness,
) -> None:
    a = harness.users[0]
    said = await answers(harness, a, "/poker", private=True)
    assert said == [plain(render.text("private-unknown_command", "ru"))]
    assert await answers(harness, a, "/poker", private=False) == []  # maybe another bot's


async def test_group_only_commands_in_private_say_where_they_work(harness: Harness) -> None:
    b = harness.users[1]
    for name in ("join", "deal", "next", "cancel", "endgame", "top", "settings"):
        said = await answers(harness, b, f"/{name}", private=True)
        assert said == [plain(render.text("group_only", "ru"))], name


async def test_passbank_and_its_alias_pass_hand_on_the_bank(harness: Harness) -> None:
    a, b, c, _ = harness.users
    harness.script(decks=[["10S", "9S", "7H", "6D"]], lots=[0])  # Аня banks
    await harness.say(a, "/newgame")
    await harness.say(b, "/join")
    await harness.say(c, "/join")
    await harness.say(a, "/deal")
    game = harness.rt.service.game(await harness.stored())
    assert game.banker == a.id
    # Not the banker: refused, nothing changes.
    version = (await harness.stored()).version
    said = await answers(harness, b, "/passbank", private=False)
    assert len(said) == 1 and not refusals("ru") & set(said)
    assert (await harness.stored()).version == version
    await harness.say(a, "/passbank")
    game = harness.rt.service.game(await harness.stored())
    assert game.banker not in (None, a.id)
    second = game.banker
    await harness.say(next(u for u in harness.users if u.id == second), "/pass")  # the alias
    assert harness.rt.service.game(await harness.stored()).banker not in (None, second)


async def test_private_balance_lists_every_chat_played_in(harness: Harness) -> None:
    a, b, _, _ = harness.users
    assert await answers(harness, a, "/balance", private=True) == [plain(render.balances([], "ru"))]
    await harness.say(a, "/newgame")  # seats Аня in «Очко»
    other = harness.server.create_group("Пятница", members=[a, b], admins=[a])
    await harness.say(a, "/newgame", other)
    await harness.say(b, "/join", other)
    seats = [
        (harness.group.id, "Очко", await harness.balance(a)),
        (other.id, "Пятница", await harness.balance(a, other)),
    ]
    rows = sorted(seats, key=lambda row: (-row[2], row[0]))
    said = await answers(harness, a, "/balance", private=True)
    assert said == [plain(render.balances([(title, n) for _, title, n in rows], "ru"))]
    assert "Очко" in said[0] and "Пятница" in said[0]
    # In a group it is still that group's own balance (Борис never played in «Очко»).
    said = await answers(harness, b, "/balance", private=False)
    start = harness.rt.settings.starting_balance
    assert said == [plain(render.balance("Борис", start, "ru"))]


async def test_a_person_reads_his_own_language_and_the_group_its_own(harness: Harness) -> None:
    a, b, _, _ = harness.users
    await harness.say(a, "/lang en")  # the group speaks English now
    # Someone whose Telegram speaks neither language and who never chose one: everything
    # he alone reads is in the language of the group he plays in.
    quiet = harness.server.create_user("Ёж", language_code=None)
    harness.group.add_member(quiet)
    await harness.say(quiet, "/start", harness.bot)
    # Nothing tells yet which group he plays in: the bot's default.
    assert harness.private_texts(quiet)[-1] == plain(
        render.help_text(commands.sections("ru", private=True), "ru", private=True)
    )
    await harness.say(a, "/newgame")
    toast = await harness.press(quiet, harness.table(), i18n.t("btn-join", "en"))
    assert toast.text == render.text("joined", "en")
    said = await answers(harness, quiet, "/verify", private=True)
    assert said == [plain(render.text("refusal-none_yet", "en"))]
    said = await answers(harness, quiet, "/help", private=True)
    assert said == [
        plain(render.help_text(commands.sections("en", private=True), "en", private=True))
    ]
    # Telegram says Борис speaks Russian: his private answers are Russian...
    said = await answers(harness, b, "/help", private=True)
    assert said == [
        plain(render.help_text(commands.sections("ru", private=True), "ru", private=True))
    ]
    # ...until he chooses English himself.
    await harness.say(b, "/lang en", harness.bot)
    said = await answers(harness, b, "/help", private=True)
    assert said == [
        plain(render.help_text(commands.sections("en", private=True), "en", private=True))
    ]
    # A group answer posted in the group is in the group's language, whoever asks.
    newcomer = harness.newcomer("Дима")  # Telegram: Russian; no private chat
    said = await answers(harness, newcomer, "/help", private=False)
    assert said == [
        plain(render.help_text(commands.sections("en", private=False), "en", private=False))
    ]


async def test_telegram_language_reaches_the_cards_sent_privately(harness: Harness) -> None:
    a = harness.users[0]
    english = harness.server.create_user("Kate", language_code="en-GB")
    harness.group.add_member(english)
    await harness.say(english, "/start", harness.bot)
    known = await harness.rt.storage.get_user(english.id)
    assert known is not None and known.client_language == "en" and known.language is None
    harness.script(decks=[["10S", "9S", "7H", "6D"]], lots=[0])  # Аня banks
    await harness.say(a, "/newgame")
    await harness.say(english, "/join")
    await harness.say(a, "/deal")
    await harness.say(a, "/bank 100")
    hand = harness.private_texts(english)[-1]
    assert i18n.t("hand-cards", "en", cards="").strip() in hand
    assert i18n.t("hand-cards", "ru", cards="").strip() not in hand
    # The group reads Russian all the same.
    assert i18n.t("preset-classic36-name", "ru") in harness.table().content


async def test_default_language_reaches_new_chats_and_people(tmp_path: Path) -> None:
    server = BotApiServer(flood_limits=False)
    h = await start_harness(server, make_settings(tmp_path, default_language="en"), opened=0)
    try:
        a = h.users[0]
        assert (await h.rt.storage.get_chat(h.group.id)).language == "en"
        await h.say(a, "/newgame")
        assert h.table().content.startswith(plain(i18n.t("lobby-header", "en")))
        stranger = server.create_user("Hans", language_code="de")
        await h.say(stranger, "/start", h.bot)
        assert h.private_texts(stranger)[-1] == plain(
            render.help_text(commands.sections("en", private=True), "en", private=True)
        )
    finally:
        await stop_harness(h)
