"""The Fluent catalogs: both languages carry the same messages, every id the code asks for exists,
every message formats cleanly with plural forms chosen by CLDR (no «карт(е)» or «card(s)»), and
whole games of every preset read without a placeholder, a raw id or (in English) stray Russian."""

from __future__ import annotations

import ast
import html
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from fluent.syntax import FluentParser
from fluent.syntax import ast as fl

from bot import i18n, render
from bot.commands import sections
from rules.events import RoundSettled, SessionEnded
from rules.game import Game
from rules.table import Phase
from rules.variants import PRESETS
from storage.models import ChatSettings, LeaderboardRow, PlayerStats
from tests.bot.test_render import NAMES, default_policy, snap, table_game

BOT = Path(__file__).resolve().parents[2] / "bot"
SAMPLES = (1, 2, 5, 11, 21, 22)
# The plural categories CLDR gives whole numbers in each language.
PLURAL_KEYS = {"ru": {"one", "few", "many"}, "en": {"one", "other"}}
# A hand-made plural or gender ending in brackets: «карт(е)», «card(s)», «открыл(а)».
HACK = re.compile(r"\((?:е|а|ы|и|ов|ей|s|es)\)", re.IGNORECASE)
CYRILLIC = re.compile(r"[А-Яа-яЁё]")
# Variables that carry a count of something (a noun next to them must agree with them).
COUNT_VARS = frozenset(
    {
        "count",
        "rounds",
        "played",
        "wins",
        "losses",
        "pushes",
        "seats",
        "minimum",
        "maximum",
        "limit",
        "twentyones",
        "golden",
        "busts",
    }
)
# Words that may stand next to a bare count: prepositions, «ещё», units written short.
BESIDE_COUNT = {
    "ru": frozenset({"от", "до", "из", "больше", "ещё", "с", "при", "сыграно", "бы"}),
    "en": frozenset({"to", "of", "more", "s", "played"}),
}


def _messages(lang: str) -> Iterator[fl.Message]:
    for path in sorted((BOT / "locales" / lang).glob("*.ftl")):
        resource = FluentParser().parse(path.read_text(encoding="utf-8"))
        junk = [entry.content for entry in resource.body if isinstance(entry, fl.Junk)]
        assert not junk, (path, junk)
        yield from (entry for entry in resource.body if isinstance(entry, fl.Message))


def _selects(node: object) -> Iterator[fl.SelectExpression]:
    if isinstance(node, fl.SelectExpression):
        yield node
    if isinstance(node, fl.BaseNode):
        for value in vars(node).values():
            for child in value if isinstance(value, list) else [value]:
                yield from _selects(child)


def _format(key: str, lang: str, args: dict[str, object]) -> tuple[str, list[Exception]]:
    bundle = i18n.bundle(lang)
    message = bundle.get_message(key)
    assert message.value is not None, key
    text, errors = bundle.format_pattern(message.value, args)
    return str(text), list(errors)


# ---------------------------------------------------------------------- (1) ids and variables


def test_both_languages_have_the_same_ids_and_variables() -> None:
    assert i18n.keys("ru") == i18n.keys("en")
    for key in i18n.keys("ru"):
        assert i18n.variables(key, "ru") == i18n.variables(key, "en"), key


def _id_patterns() -> Iterator[tuple[str, int, str]]:
    """(file, line, id or regex) for each message id the bot's code names: the first argument
    of t()/text()/t_map()/has() (both arms of a conditional, f-strings as patterns), the code
    of every refusal, any literal that looks like an id of a known family, and any f-string
    that begins like one (``f"preset-{name}-name"``, kept in a variable before the lookup)."""
    families = {key.split("-")[0] for key in i18n.keys("ru") if "-" in key}
    id_like = re.compile(r"^(?:" + "|".join(sorted(families)) + r")-[a-z0-9_-]*[a-z0-9_]$")
    id_start = re.compile(r"^(?:" + "|".join(sorted(families)) + r")-[a-z0-9_-]*$")
    for path in sorted(BOT.rglob("*.py")):
        name = str(path.relative_to(BOT))
        tree = ast.parse(path.read_text(encoding="utf-8"))
        # A task's name= ("turn-timers") is no message id; an f-string's pieces ("rules-deck-")
        # are checked with their f-string below.
        names = {
            id(k.value) for k in ast.walk(tree) if isinstance(k, ast.keyword) and k.arg == "name"
        }
        names |= {id(v) for f in ast.walk(tree) if isinstance(f, ast.JoinedStr) for v in f.values}
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Constant)
                and isinstance(node.value, str)
                and id_like.match(node.value)
                and id(node) not in names
            ):
                yield name, node.lineno, re.escape(node.value)
            if (
                isinstance(node, ast.JoinedStr)
                and isinstance(node.values[0], ast.Constant)
                and id_start.match(str(node.values[0].value))
            ):
                yield name, node.lineno, _pattern(node)
            if not isinstance(node, ast.Call) or not node.args:
                continue
            func = node.func
            called = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
            first = node.args[0]
            arms = [first.body, first.orelse] if isinstance(first, ast.IfExp) else [first]
            for arm in arms:
                if called in ("t", "text", "t_map", "has"):
                    if isinstance(arm, ast.Constant) and isinstance(arm.value, str):
                        yield name, node.lineno, re.escape(arm.value)
                    elif isinstance(arm, ast.JoinedStr):
                        yield name, node.lineno, _pattern(arm)
                elif called in ("refusal", "Refused") and isinstance(arm, ast.Constant):
                    yield name, node.lineno, re.escape(f"refusal-{arm.value}")


def _pattern(fstring: ast.JoinedStr) -> str:
    """The ids an f-string can make: its constant pieces as they are, each value as a word."""
    return "".join(
        re.escape(v.value) if isinstance(v, ast.Constant) else "[a-z0-9_]+" for v in fstring.values
    )


def test_every_id_the_code_names_is_in_the_catalogs() -> None:
    keys = i18n.keys("ru")
    found = list(_id_patterns())
    assert len(found) > 200  # the scan sees the code's calls, not nothing
    missing = [
        (name, line, pattern)
        for name, line, pattern in found
        if not any(re.fullmatch(pattern, key) for key in keys)
    ]
    assert not missing


def _string_constants() -> set[str]:
    """Every string literal of the bot's code but a subscript's (``match["yes"]`` names a regex
    group): an id kept as data (``values=("on", "off")`` looked up with ``t(value, lang)``,
    ``none_text="hand_in_group"``) is named by one of them."""
    found: set[str] = set()
    for path in sorted(BOT.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        slices = {id(node.slice) for node in ast.walk(tree) if isinstance(node, ast.Subscript)}
        found |= {
            node.value
            for node in ast.walk(tree)
            if isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and id(node) not in slices
        }
    return found


def test_every_id_in_the_catalogs_is_used_by_the_code() -> None:
    """The other direction: a message no code can ask for is dead text for translators to keep
    up. An id counts as used when a pattern of :func:`_id_patterns` matches it or the code has
    it as a literal. ``render.refusal``'s ``f"refusal-{code}"`` would match every refusal: a
    refusal counts only for a code the engine raises or the bot's code names."""
    keys = i18n.keys("ru")
    any_refusal = re.escape("refusal-") + "[a-z0-9_]+"
    patterns = [re.compile(p) for _, _, p in _id_patterns() if p != any_refusal]
    assert len(patterns) > 200
    literals = _string_constants()
    refusals = {f"refusal-{code}" for code in _engine_codes() | literals}
    unused = sorted(
        key
        for key in keys
        if key not in literals
        and key not in refusals
        and not any(pattern.fullmatch(key) for pattern in patterns)
    )
    assert unused == []


def _engine_codes() -> set[str]:
    errors = (BOT.parent / "rules" / "errors.py").read_text(encoding="utf-8")
    return set(re.findall(r'^\s+code = "([a-z_]+)"', errors, re.MULTILINE)) - {"rules_error"}


def test_every_refusal_code_of_the_engine_has_a_text() -> None:
    codes = _engine_codes()
    assert len(codes) > 10
    assert {code for code in codes if not i18n.has(f"refusal-{code}")} == set()


# ---------------------------------------------------------------------- (2) every message


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
def test_every_message_formats_cleanly_with_counts(lang: str) -> None:
    for key in sorted(i18n.keys(lang)):
        names = i18n.variables(key, lang)
        for n in SAMPLES:
            text, errors = _format(key, lang, dict.fromkeys(names, n))
            assert not errors, (key, n, errors)
            assert "{" not in text and "}" not in text, (key, n, text)
            assert not HACK.search(text), (key, n, text)
            assert "-" not in key or key not in text, (key, text)
            if lang == "en":
                assert not CYRILLIC.search(text), (key, text)
                assert "«" not in text and "»" not in text, (key, text)  # Russian quotes


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
def test_every_plural_selector_has_each_cldr_category(lang: str) -> None:
    seen = 0
    for message in _messages(lang):
        for select in _selects(message):
            keys = {v.key.name for v in select.variants if isinstance(v.key, fl.Identifier)}
            # A selector on a word ([lobby], [bank]) or on exact numbers only is no plural.
            if keys & {"zero", "one", "two", "few", "many"}:
                assert PLURAL_KEYS[lang] <= keys, (message.id.name, keys)
                seen += 1
    assert seen >= 15


def _bare_counts(elements: list[fl.PatternElement]) -> Iterator[tuple[str, str, str]]:
    """(word before, variable, word after) for each count variable outside a selector."""
    for i, element in enumerate(elements):
        if not isinstance(element, fl.Placeable):
            continue
        expression = element.expression
        if not isinstance(expression, fl.VariableReference):
            continue
        if expression.id.name not in COUNT_VARS:
            continue
        before = elements[i - 1] if i else None
        after = elements[i + 1] if i + 1 < len(elements) else None
        yield (
            _word(r"(\w+):? $", before),
            expression.id.name,
            _word(r"^ (\w+)", after),
        )


def _word(pattern: str, element: fl.PatternElement | None) -> str:
    found = re.findall(pattern, element.value) if isinstance(element, fl.TextElement) else []
    return found[0] if found else ""


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
def test_no_count_meets_a_noun_outside_a_plural_selector(lang: str) -> None:
    """«после { $rounds } раундов» or «раундов: { $rounds }» fit only some numbers; a count with
    a noun next to it belongs in a selector, where each CLDR category gets its own form."""
    allowed = BESIDE_COUNT[lang]
    bad = []
    for message in _messages(lang):
        if message.value is None:
            continue
        for before, name, after in _bare_counts(message.value.elements):
            if after and not after.isdigit() and after not in allowed:
                bad.append((message.id.name, name, after))
            # Russian labels in the genitive plural («раундов: 3») dodge the plural.
            if lang == "ru" and CYRILLIC.search(before) and before not in allowed:
                bad.append((message.id.name, before, name))
    assert not bad


RU_PLURALS = {
    # key: (params other than the count, the count's name, renderings for SAMPLES)
    "verify-dealt": (
        {"value": "—"},
        "count",
        [
            "Роздана 1 карта: —",
            "Роздано 2 карты: —",
            "Роздано 5 карт: —",
            "Роздано 11 карт: —",
            "Роздана 21 карта: —",
            "Роздано 22 карты: —",
        ],
    ),
    "rules-deal": (
        {},
        "count",
        [
            "Раздача: каждому по 1 карте.",
            "Раздача: каждому по 2 карты.",
            "Раздача: каждому по 5 карт.",
            "Раздача: каждому по 11 карт.",
            "Раздача: каждому по 21 карте.",
            "Раздача: каждому по 22 карты.",
        ],
    ),
    "rules-draw": (
        {},
        "count",
        [
            f"Ваш ход: «🃏 Ещё карту» или «✋ Хватит». В руке не больше {n}."
            for n in ("1 карты", "2 карт", "5 карт", "11 карт", "21 карты", "22 карт")
        ],
    ),
    "lobby-need_more": (
        {},
        "count",
        [
            "Для начала нужен ещё 1 игрок.",
            "Для начала нужно ещё 2 игрока.",
            "Для начала нужно ещё 5 игроков.",
            "Для начала нужно ещё 11 игроков.",
            "Для начала нужен ещё 21 игрок.",
            "Для начала нужно ещё 22 игрока.",
        ],
    ),
    "rules-pass-voluntary": (
        {},
        "rounds",
        [
            f"Продержав банк {n}, банкир может передать его сам: «🔁 Передать банк» или /passbank."
            for n in ("1 раунд", "2 раунда", "5 раундов", "11 раундов", "21 раунд", "22 раунда")
        ],
    ),
    "refusal-user_game_limit": (
        {},
        "limit",
        [
            "Вы уже играете за 1 столом — больше нельзя.",
            "Вы уже играете за 2 столами — больше нельзя.",
            "Вы уже играете за 5 столами — больше нельзя.",
            "Вы уже играете за 11 столами — больше нельзя.",
            "Вы уже играете за 21 столом — больше нельзя.",
            "Вы уже играете за 22 столами — больше нельзя.",
        ],
    ),
    "top-row_period": (
        {"place": "🥇", "name": "Аня", "net": "+5", "rounds": 3},
        "wins",
        [
            "🥇 Аня — <b>+5</b> (3 раунда, 1 победа)",
            "🥇 Аня — <b>+5</b> (3 раунда, 2 победы)",
            "🥇 Аня — <b>+5</b> (3 раунда, 5 побед)",
            "🥇 Аня — <b>+5</b> (3 раунда, 11 побед)",
            "🥇 Аня — <b>+5</b> (3 раунда, 21 победа)",
            "🥇 Аня — <b>+5</b> (3 раунда, 22 победы)",
        ],
    ),
    "refusal-cannot_pass_bank_rounds": (
        {"played": 1},
        "rounds",
        [
            f"Банк можно передать, только продержав его {n}. Пока сыгран 1 из {n.split()[0]}."
            for n in ("1 раунд", "2 раунда", "5 раундов", "11 раундов", "21 раунд", "22 раунда")
        ],
    ),
}
EN_PLURALS = {
    "rules-deal": (
        {},
        "count",
        ["First deal: 1 card each."] + [f"First deal: {n} cards each." for n in SAMPLES[1:]],
    ),
    "verify-dealt": (
        {"value": "—"},
        "count",
        ["1 card dealt: —"] + [f"{n} cards dealt: —" for n in SAMPLES[1:]],
    ),
    "stats-rounds": (
        {"wins": 1, "losses": 2, "pushes": 0},
        "rounds",
        ["1 round: 1 win, 2 losses, 0 pushes"]
        + [f"{n} rounds: 1 win, 2 losses, 0 pushes" for n in SAMPLES[1:]],
    ),
}


@pytest.mark.parametrize(
    ("lang", "key"),
    [("ru", key) for key in RU_PLURALS] + [("en", key) for key in EN_PLURALS],
)
def test_a_count_picks_the_right_noun_form(lang: str, key: str) -> None:
    params, count, expected = (RU_PLURALS if lang == "ru" else EN_PLURALS)[key]
    got = [i18n.t(key, lang, **params, **{count: n}) for n in SAMPLES]
    # Only the words are checked here: markup around a value (<code>) is the view's choice.
    assert [re.sub(r"</?code>", "", text) for text in got] == expected


def test_russian_stats_agree_with_every_count() -> None:
    stats = PlayerStats(
        chat_id=-1,
        user_id=7,
        name="Вика",
        rounds=21,
        wins=11,
        losses=2,
        pushes=1,
        twentyones=22,
        golden_points=1,
        busts=5,
        biggest_win=300,
        net=-40,
    )
    text = render.stats(stats, "Вика", "ru")
    assert "21 раунд: 11 побед, 2 поражения, 1 раз при своих" in text
    assert "Очко — 22 раза · золотое очко — 1 раз · перебор — 5 раз" in text


# ---------------------------------------------------------------------- (3) whole games


def _raw_id(text: str) -> str | None:
    """A message id (or one spelt with a dot, as a typo would leave it) shown as it is."""
    families = {key.split("-")[0] for key in i18n.keys("ru") if "-" in key}
    for match in re.finditer(r"\b([a-z_]+)[.\-]([a-z_]+)\b", text):
        if match.group(1) in families or match.group(0) in i18n.keys("ru"):
            return match.group(0)
    return None


def _check(text: str, lang: str, where: str) -> None:
    assert "{" not in text and "}" not in text, (where, text)
    assert not HACK.search(text), (where, text)
    assert _raw_id(text) is None, (where, _raw_id(text), text)
    if lang == "en":
        rest = text
        for raw in (*NAMES.values(), "Карты & <друзья>"):
            rest = rest.replace(html.escape(raw), "").replace(raw, "")
        assert not CYRILLIC.search(rest), (where, text)


def _game_texts(game: Game, lang: str) -> Iterator[tuple[str, str]]:
    """Plays three rounds (then ends the game), yielding every text a player could see."""
    s = snap(game, lang=lang)
    yield "lobby", render.lobby(s).text
    events = game.start()
    rounds = 0
    for _ in range(300):
        s = snap(game, lang=lang)
        table = render.table(s, render.announce(s, events))
        yield f"table {game.phase.value}", table.text
        for row in table.markup.inline_keyboard if table.markup else ():
            for button in row:
                yield "button", button.text
        for player in game.players:
            yield "hand", render.hand(s, player, lang).text
            yield "peek", render.peek(s, player, lang)
        for event in events:
            if isinstance(event, RoundSettled):
                yield "result", render.result(s, event).text
                yield "verify", render.verify(event.round_no, event.shuffles, lang)
            if isinstance(event, SessionEnded):
                yield "end", render.session_end(s, event).text
        if game.phase is Phase.ENDED:
            return
        if game.phase is Phase.ROUND_OVER:
            rounds += 1
            events = game.end() if rounds >= 3 else game.next_round()
            continue
        events = default_policy(game)
    raise AssertionError("the game did not end")


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_whole_games_read_cleanly(preset: str, lang: str) -> None:
    game = table_game(preset, seats=4 if preset != "home36" else 3)
    kinds = set()
    for where, text in _game_texts(game, lang):
        kinds.add(where.split()[0])
        _check(text, lang, where)
    assert {"lobby", "table", "hand", "result", "verify", "end"} <= kinds
    _check(render.rules_text(preset, lang), lang, "rules")


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
def test_other_texts_read_cleanly(lang: str) -> None:
    rows = [
        LeaderboardRow(user_id=0, name="🏦", balance=100_500, net=500, rounds=21, wins=1),
        LeaderboardRow(user_id=7, name="Вика", balance=990, net=-10, rounds=2, wins=0),
    ]
    stats = PlayerStats(
        chat_id=-1,
        user_id=7,
        name="Вика",
        rounds=5,
        wins=2,
        losses=2,
        pushes=1,
        twentyones=1,
        golden_points=0,
        busts=2,
        biggest_win=50,
        net=10,
    )
    texts = {
        "help group": render.help_text(sections(lang, private=False), lang, private=False),
        "help private": render.help_text(sections(lang, private=True), lang, private=True),
        "top": render.leaderboard(rows, lang, period="all"),
        "top month": render.leaderboard(rows, lang, period="month"),
        "stats": render.stats(stats, "Вика", lang),
        "settings": render.settings_menu(ChatSettings(chat_id=-1, language=lang), lang).text,
        "rules unknown": render.rules_text("nope", lang),
        "too many cards": render.refusal("too_many_cards", {"maximum": 5}, lang),
    }
    for code in ("table_full", "not_enough_players", "user_game_limit", "cannot_pass_bank"):
        params = {"seats": 8, "minimum": 2, "limit": 3, "rounds": 3, "played": 1}
        texts[code] = render.refusal(code, params, lang)
    for where, text in texts.items():
        _check(text.replace("Вика", ""), lang, where)
    house = render.text("house-name", lang)
    assert house in texts["top"] and "🏦" not in house  # the rows add no «🏦 🏦»


def test_formatted_messages_are_cached_by_value_and_type() -> None:
    """i18n keeps what it formatted: the same text comes back for the same values, and values
    that are equal but written differently (1, 1.0, True) are not mixed up."""
    key = "balance-private_line_untitled"
    for lang in i18n.LANGUAGES:
        for value in (1, 1.0, True, 1.5, 1000, "1"):
            direct = i18n._format(key, lang, {"amount": value}, None)
            assert i18n.t(key, lang, amount=value) == direct
            assert i18n.t(key, lang, amount=value) == direct  # now from the cache
    assert i18n.t(key, "ru", amount=1000) == "• недоступный чат: <b>1\xa0000</b>"
    assert i18n.t(key, "en", amount=1000).endswith("<b>1,000</b>")
    # A value that cannot be a cache key is formatted all the same.
    assert i18n.t(key, "ru", amount=[1]) == i18n._format(key, "ru", {"amount": [1]}, None)
