"""Rendering: texts and keyboards of every message, on real engine games."""

from __future__ import annotations

import string
from collections.abc import Callable
from html.parser import HTMLParser

import pytest
from telegram import InlineKeyboardMarkup

from bot import i18n, render
from bot.callbacks import Act, parse_game, parse_notice, parse_setting
from bot.commands import COMMANDS, sections
from bot.render.common import (
    MAX_ALERT,
    MAX_TEXT,
    bank_amounts,
    cards_text,
    fit_text,
    nice_floor,
    stake_amounts,
)
from bot.render.info import rules_parts
from bot.settings_options import OPTIONS
from rules.achievements import CODES
from rules.errors import RulesError
from rules.events import Event, RoundSettled, SessionEnded
from rules.game import Game, new_game
from rules.table import Phase
from rules.variants import PRESETS
from storage.models import Achievement, ChatSettings, LeaderboardRow, PlayerStats
from tests.bot.conftest import PHONE_ROWS, phone_rows, plain
from tests.rules.helpers import ScriptedSource

NAMES = {1: "Анна", 2: '<b>&"x"', 3: "Вика", 4: "Гена"}
NOW = 1_000_000.0


class _Checker(HTMLParser):
    """Parses the Telegram HTML subset: tags must balance and be known."""

    allowed = frozenset({"b", "i", "u", "s", "code", "pre", "a"})

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        assert tag in self.allowed, tag
        self.stack.append(tag)

    def handle_endtag(self, tag: str) -> None:
        assert self.stack and self.stack.pop() == tag, tag


def valid_html(text: str) -> None:
    checker = _Checker()
    checker.feed(text)
    checker.close()
    assert not checker.stack
    assert '<b>&"x"' not in text and '&"x' not in text
    assert len(text) <= MAX_TEXT


def snap(game: Game, *, lang: str = "ru", version: int = 5, names: dict[int, str] | None = None):
    return render.Snapshot(
        game_id=42,
        version=version,
        game=game,
        names=names or NAMES,
        creator_id=1,
        lang=lang,
        deadline=NOW + 41.5,
        private_ok=frozenset({1, 3}),
        bot_username="ochko_bot",
        now=NOW,
        chat_title="Карты & <друзья>",
    )


def buttons(markup: InlineKeyboardMarkup | None) -> list[tuple[Act, int | None]]:
    out = []
    for row in markup.inline_keyboard if markup else ():
        for b in row:
            data = b.callback_data if isinstance(b.callback_data, str) else None
            if b.url or parse_notice(data) is not None:  # a call to play's 🔔: not the game's
                continue
            parsed = parse_game(data)
            assert parsed is not None, b.callback_data
            assert parsed.game_id == 42 and parsed.version == 5
            out.append((parsed.act, parsed.amount))
    return out


def hidden_cards(game: Game) -> set[str]:
    """Cards nobody but (maybe) the owner may see, minus anything shown publicly."""
    public = {str(game.bottom)} if game.bottom else set()
    hidden = set()
    for hand in game.hands.values():
        for c, seen in zip(hand.cards, hand.visible_to_others(), strict=True):
            if seen is None:
                hidden.add(str(c))
            else:
                public.add(str(c))
    return hidden - public


def table_game(preset: str, decks: list[list[str]] | None = None, seats: int = 3) -> Game:
    players = [(p, 1000) for p in range(1, seats + 1)]
    source = ScriptedSource(decks=decks or [], lots=[0] * 10)
    return new_game(PRESETS[preset], players, source=source)


Policy = Callable[[Game], list[Event]]


def default_policy(game: Game) -> list[Event]:
    legal = game.legal_actions()
    actor = legal.actor
    if legal.phase is Phase.BANK:
        assert actor is not None
        return game.set_bank(actor, max(1, legal.maximum // 2))
    if legal.phase is Phase.STAKE:
        assert actor is not None
        return game.stake(actor, max(1, legal.maximum // 4))
    if legal.phase in (Phase.DRAW, Phase.BANKER):
        assert actor is not None
        if "dark" in legal.actions and game.hand_value(actor).total >= 17:
            return game.dark(actor)
        if "hit" in legal.actions and game.hand_value(actor).total < 16:
            return game.hit(actor)
        return game.stand(actor)
    raise AssertionError(legal.phase)


def expected_acts(game: Game) -> set[Act]:
    legal = game.legal_actions()
    acts: set[Act] = set()
    if legal.phase is Phase.BANK:
        acts = {Act.BANK, Act.PASS}
    elif legal.phase is Phase.STAKE:
        acts = {Act.BET, Act.PEEK}
    elif legal.phase in (Phase.DRAW, Phase.BANKER):
        acts = {Act.STAND, Act.PEEK}
        acts |= {Act.HIT, Act.ODDS} if "hit" in legal.actions else set()
        acts |= {Act.DARK} if "dark" in legal.actions else set()
    elif legal.phase is Phase.ROUND_OVER:
        acts = {Act.NEXT} | ({Act.PASS} if "pass_bank" in legal.actions else set())
    return acts


def play_rounds(game: Game, rounds: int = 3) -> list[tuple[str, list[Event]]]:
    """Plays, checking every rendering on the way; returns the phases seen with their events."""
    seen: list[tuple[str, list[Event]]] = []
    events = game.start()
    played = 0
    for _ in range(200):
        s = snap(game)
        check_state(s, events)
        seen.append((game.phase.value, events))
        if game.phase is Phase.ENDED:
            break
        if game.phase is Phase.ROUND_OVER:
            played += 1
            if played >= rounds:
                events = game.end()
                continue
            events = game.next_round()
            continue
        events = default_policy(game)
    return seen


def check_state(s: render.Snapshot, events: list[Event]) -> None:
    game = s.game
    for lang in ("ru", "en"):
        ls = render.Snapshot(**{**s.__dict__, "lang": lang})
        tbl = render.table(ls, render.announce(ls, events))
        valid_html(tbl.text)
        acts = buttons(tbl.markup)
        assert set(acts) == {(a, n) for a, n in acts}  # parse back
        assert {a for a, _ in acts} == expected_acts(game), (game.phase, acts)
        if game.phase is Phase.STAKE:
            legal = game.legal_actions()
            amounts = [n for a, n in acts if a is Act.BET]
            assert amounts and all(n is not None and 1 <= n <= legal.maximum for n in amounts)
            assert len(amounts) == len(set(amounts))
        if game.phase in (Phase.STAKE, Phase.DRAW, Phase.BANKER):
            hidden = hidden_cards(game)
            group = tbl.text + "\n".join(render.announce(ls, events))
            for c in hidden:
                assert c not in group, (c, group)
            for player in game.hands:
                private = render.hand(ls, player, lang)
                valid_html(private.text)
                hand = game.hands[player]
                for c, mine in zip(hand.cards, hand.visible_to_owner(), strict=True):
                    if mine is not None:
                        assert str(c) in private.text
                if hand.has_dark and not hand.revealed:
                    assert ("втёмную" if lang == "ru" else "blind") in private.text
                private_acts = {a for a, _ in buttons(private.markup)}
                assert Act.PEEK not in private_acts
                if game.turn == player:
                    assert private_acts == expected_acts(game) - {Act.PEEK}
                else:
                    assert private.markup is None
                alert = render.peek(ls, player, lang)
                assert len(alert) <= MAX_ALERT
        for event in events:
            if isinstance(event, RoundSettled):
                res = render.result(ls, event)
                valid_html(res.text)
                check_result(res.text, event, ls.lang)
                assert {a for a, _ in buttons(res.markup)} == (
                    expected_acts(game) if game.phase is Phase.ROUND_OVER else set()
                )
            if isinstance(event, SessionEnded):
                end = render.session_end(ls, event)
                valid_html(end.text)
                assert end.markup is None


def check_result(text: str, settled: RoundSettled, lang: str = "ru") -> None:
    for r in settled.results:
        if r.outcome == "win":
            assert f"+{r.net}" in text
        elif r.outcome == "lose":
            assert f"−{-r.net}" in text
        elif r.outcome == "push":
            assert "при своих" in text or "push" in text
        for code in r.cards:
            assert render.card(__import__("rules.cards").cards.Card.parse(code)) in text
    for player, amount in settled.balances:
        # The banker's chips are his balance and the bank he holds at the showdown.
        held = settled.bank if player == settled.banker else 0
        assert f"— {i18n.number(amount + held, lang)}" in text
        if held:
            assert i18n.number(held, lang) in text.split(f"— {i18n.number(amount + held, lang)}")[1]
    assert i18n.number(settled.bank, lang) in text


# ---------------------------------------------------------------------- i18n


def _fields(template: str) -> set[str]:
    return {f for _, f, _, _ in string.Formatter().parse(template) if f}


def test_every_key_has_both_languages_and_same_placeholders() -> None:
    assert i18n.keys("ru") == i18n.keys("en")
    for key in i18n.keys("ru"):
        assert i18n.variables(key, "ru") == i18n.variables(key, "en"), key


def test_t_falls_back_to_russian_and_never_raises() -> None:
    assert i18n.t("btn-hit", "de") == i18n.t("btn-hit", "ru")
    assert i18n.t("no.such.key", "ru") == "no.such.key"
    assert "{amount}" in i18n.t("btn-stake", "en")
    assert i18n.t("btn-stake", "ru", amount=1000) == i18n.t("btn-stake", "ru", amount="1\u00a0000")


# ---------------------------------------------------------------------- full games


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_full_games_render_every_phase(preset: str) -> None:
    game = table_game(preset, seats=4 if preset != "home36" else 3)
    seen = play_rounds(game, rounds=3)
    phases = {phase for phase, _ in seen}
    assert {"stake", "draw", "round_over", "ended"} <= phases


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_lobby(preset: str) -> None:
    game = new_game(PRESETS[preset], [(1, 1000), (2, 1000)])
    for lang in ("ru", "en"):
        out = render.lobby(snap(game, lang=lang))
        valid_html(out.text)
        assert "&lt;b&gt;&amp;&quot;x&quot;" in out.text
        assert "✉" in out.text
        acts = buttons(out.markup)
        assert [a for a, _ in acts] == [Act.JOIN, Act.LEAVE, Act.START, Act.CANCEL]
        urls = [b.url for row in out.markup.inline_keyboard for b in row if b.url]  # type: ignore[union-attr]
        assert urls == ["https://t.me/ochko_bot?start=g42"]
    summary = render.lobby(snap(game)).text
    assert render.text(f"preset-{preset}-name", "ru") in summary


def test_classic_bank_stake_and_draw_buttons() -> None:
    game = table_game("classic36", [["10H", "9S", "KD", "AH", "8C"]])
    game.start()
    out = render.table(snap(game))
    assert buttons(out.markup) == [
        (Act.BANK, 100),
        (Act.BANK, 250),
        (Act.BANK, 500),
        (Act.BANK, 1000),
        (Act.PASS, None),
    ]
    assert "банк от 1 до 1\u00a0000 ⏱ 42 с" in out.text
    game.set_bank(1, 200)
    out = render.table(snap(game))
    assert buttons(out.markup) == [
        (Act.BET, 1),
        (Act.BET, 20),
        (Act.BET, 50),
        (Act.BET, 100),
        (Act.BET, 200),
        (Act.PEEK, None),
    ]
    assert "Ва-банк 200" in out.text or any(
        b.text == "Ва-банк 200"
        for row in out.markup.inline_keyboard
        for b in row  # type: ignore[union-attr]
    )
    assert "ставка до 200" in out.text
    assert "🔻 Нижняя карта" in out.text
    assert "K♦" in out.text  # the banker's face-up card
    assert "10♥" not in out.text and "9♠" not in out.text
    game.stake(2, 50)
    out = render.table(snap(game))
    assert [a for a, _ in buttons(out.markup)] == [
        Act.HIT,
        Act.STAND,
        Act.ODDS,
        Act.DARK,
        Act.PEEK,
    ]
    assert "ещё или хватит?" in out.text
    private = render.hand(snap(game), 2, "ru")
    assert "10♥" in private.text and "Сумма: <b>10</b>" in private.text
    assert [a for a, _ in buttons(private.markup)] == [Act.HIT, Act.STAND, Act.ODDS, Act.DARK]
    assert render.peek(snap(game), 2, "ru") == "Ваши карты: 10♥ — 10"
    assert render.peek(snap(game), 9, "ru") == "Вы не в игре"
    assert render.hand(snap(game), 3, "ru").markup is None


def test_twenty_one_and_bust_announced_and_dark_hidden() -> None:
    # order: player 2, player 3, banker 1; then hits
    game = table_game("classic36", [["10H", "9S", "KD", "AH", "10C", "QS"]])
    game.start()
    game.set_bank(1, 500)
    game.stake(2, 50)
    events = game.hit(2)  # 10 + A = 21
    notes = render.announce(snap(game), events)
    assert any("очко!" in n and "+50" in n for n in notes)
    assert all('&"x' not in n for n in notes)
    game.stake(3, 50)
    events = game.dark(3)  # 9 + 10 dark: nobody sees it
    s = snap(game)
    assert "10♣" not in render.table(s).text
    assert "10♣" not in "".join(render.announce(s, events))
    mine = render.hand(s, 3, "ru").text
    assert "🂠 (втёмную)" in mine and "10♣" not in mine
    assert "+ карта втёмную" in mine
    assert "втёмную" in render.peek(s, 3, "ru")


def test_bust_is_revealed_and_announced() -> None:
    game = table_game("classic36", [["10H", "9S", "KD", "8H", "10C"]])
    game.start()
    game.set_bank(1, 500)
    game.stake(2, 50)
    events = game.hit(2)  # 10 + 8 = 18
    events = game.hit(2)  # + 10 = 28: bust
    notes = render.announce(snap(game), events)
    assert any("перебор, 28" in n for n in notes)
    text = render.table(snap(game)).text
    assert "10♥ 8♥ 10♣ = 28" in text and "💥 перебор" in text


def test_round_over_pass_bank_button_after_three_rounds() -> None:
    game = table_game("classic36")
    game.start()
    game.set_bank(1, 300)
    for _ in range(3):
        while game.phase is not Phase.ROUND_OVER:
            default_policy(game)
        if game.banker_rounds < 3:
            game.next_round()
    if game.banker == 1 and game.can_pass_bank(1):
        acts = [a for a, _ in buttons(render.table(snap(game)).markup)]
        assert acts == [Act.NEXT, Act.PASS]


def test_big_table_fits() -> None:
    long_names = {p: ("&<>" * 30)[:64] for p in range(1, 11)}
    game = new_game(PRESETS["twodecks104"], [(p, 10**9) for p in range(1, 11)])
    s = snap(game, names=long_names)
    valid_html(render.lobby(s).text)
    game.start()
    while game.phase is not Phase.ROUND_OVER:
        s = snap(game, names=long_names)
        out = render.table(s, ["x" * 300] * 5)
        valid_html(out.text)
        for p in game.players:
            valid_html(render.hand(s, p, "en").text)
        default_policy(game)
    assert len(render.table(snap(game, names=long_names)).text) <= MAX_TEXT


def test_fit_drops_lines_gracefully() -> None:
    body = [f"<b>{i}</b>" + "x" * 500 for i in range(20)]
    text = fit_text(["head"], body, ["tail"], "ru")
    assert len(text) <= MAX_TEXT and "… и ещё" in text and text.endswith("tail")
    valid_html(text)


ERROR_CODES = [
    "cannot_cover_stake",
    "not_your_turn",
    "wrong_phase",
    "amount_out_of_range",
    "cannot_afford",
    "too_many_cards",
    "deck_exhausted",
    "option_disabled",
    "cannot_pass_bank",
    "game_over",
    "not_seated",
    "already_seated",
    "table_full",
    "not_enough_players",
    "invalid_variant",
    "illegal_action",
    # the refusals said as the real reason (rules.refusals)
    "stake_first",
    "bank_first",
    "your_draw",
    "round_on",
    "bank_by_banker",
    "bank_all_in",
    "bank_named",
    "banker_no_stake",
    "no_dark",
    "banker_no_dark",
    "leaving_already",
]
BOT_CODES = [
    "no_chips_wait",
    "no_chips_refill_off",
    "stale_button",
    "foreign_game",
    "group_button",
    "no_game",
    "not_allowed",
    "private_needed",
    "bad_amount",
    "game_exists",
    "user_game_limit",
    "slow_down",
]


def test_every_engine_error_code_has_a_text() -> None:
    import rules.errors as errors

    codes = {
        cls.code
        for cls in vars(errors).values()
        if isinstance(cls, type) and issubclass(cls, RulesError) and cls is not RulesError
    }
    assert codes <= set(ERROR_CODES)
    for code in codes | set(BOT_CODES):
        assert i18n.has(f"refusal-{code}"), code


@pytest.mark.parametrize("lang", ["ru", "en"])
def test_refusals_short_and_filled(lang: str) -> None:
    params = {"minimum": 1, "maximum": 150, "limit": 3, "seats": 8, "rounds": 3, "played": 1}
    for code in [*ERROR_CODES, *BOT_CODES, "something_new"]:
        for p in (params, {}):
            text = render.refusal(code, p, lang)
            assert text and len(text) <= MAX_ALERT
            assert "{" not in text
    assert render.refusal("bad_amount", params, "ru") == "Нужно целое число от 1 до 150."
    assert "1" in render.refusal("amount_out_of_range", params, lang)
    assert "150" in render.refusal("amount_out_of_range", params, lang)
    assert render.refusal("something_new", {}, lang) == i18n.t("refusal-generic", lang)


@pytest.mark.parametrize("lang", ["ru", "en"])
def test_peek_is_short_with_many_cards(lang: str) -> None:
    game = table_game("twodecks104", seats=2)
    game.start()
    for p in game.players:
        assert len(render.peek(snap(game), p, lang)) <= MAX_ALERT


@pytest.mark.parametrize("preset", sorted(PRESETS))
@pytest.mark.parametrize("lang", ["ru", "en"])
def test_rules_text(preset: str, lang: str) -> None:
    text = render.rules_text(preset, lang)
    valid_html(text)
    # Each part one phone screen.
    for part in rules_parts(preset, lang):
        assert phone_rows(plain("\n".join(part))) <= PHONE_ROWS
    assert "{" not in text
    assert "/rules" in render.rules_text("nonsense", lang) or "classic36" in render.rules_text(
        "nonsense", lang
    )


@pytest.mark.parametrize("lang", ["ru", "en"])
def test_help_and_small_texts(lang: str) -> None:
    for private in (True, False):
        text = render.help_text(sections(lang, private=private), lang, private=private)
        valid_html(text)
        assert "/help" in text
    assert "/newgame" in render.help_text(sections(lang, private=False), lang, private=False)
    valid_html(render.balance('<b>&"x"', 1200, lang))
    rows = [LeaderboardRow(i, f"<b>&{i}", 1000 - i, 5 - i, 10, 3) for i in range(12)]
    for period in ("all", "week"):
        top = render.leaderboard(rows, lang, period=period)
        valid_html(top)
        assert "🥇" in top
    assert render.leaderboard([], lang, period="all")
    st = PlayerStats(1, 2, "<b>&", 10, 5, 4, 1, 2, 1, 3, 200, -50)
    valid_html(render.stats(st, '<b>&"x"', lang))
    earned = [Achievement(code, 1, n, 0.0) for n, code in enumerate(CODES, 1)]
    shown = render.stats(st, '<b>&"x"', lang, earned)
    valid_html(shown)
    assert shown.count(i18n.t("stats-achievement_round", lang, round=12)) == 1
    valid_html(render.stats(None, '<b>&"x"', lang))
    valid_html(render.text("chart-none", lang, name='<b>&"x"'))
    for key in i18n.keys(lang):
        assert "{" not in render.text(key, lang, **dict.fromkeys(i18n.variables(key, lang), "1"))


@pytest.mark.parametrize("lang", ["ru", "en"])
def test_settings_menu(lang: str) -> None:
    settings = ChatSettings(-1001234567890, "ru", "home36", {"dark_draw": False}, 60)
    out = render.settings_menu(settings, lang)
    valid_html(out.text)
    assert out.markup is not None
    parsed = []
    for row in out.markup.inline_keyboard:
        for b in row:
            setting = parse_setting(b.callback_data if isinstance(b.callback_data, str) else None)
            assert setting is not None and setting.chat_id == settings.chat_id
            parsed.append((setting.key, setting.value))
    keys = {k for k, _ in parsed}
    assert keys == {option.key for option in OPTIONS} | {"close"}
    assert {"preset", "dark_draw", "fine", "acelow", "timeout", "house", "lang"} <= keys
    assert {v for k, v in parsed if k == "preset"} == set(PRESETS)
    # Every value of every option has its button, and no other button is drawn.
    assert sorted(parsed) == sorted(
        [(o.key, v) for o in OPTIONS for v in o.values] + [("close", "x")]
    )
    chosen = [b.text for row in out.markup.inline_keyboard for b in row if b.text.startswith("✅")]
    # One per option: preset, dark off, fine 100, acelow off, timeout 60, house off, ...
    assert len(chosen) == len(OPTIONS)


def test_card() -> None:
    from rules.cards import Card

    assert render.card(Card.parse("10H")) == "10♥"
    assert render.card(Card.parse("AS")) == "A♠"
    # The joker has a glyph of its own: 🃏 is the logo of every header and the «Ещё карту»
    # button, so a hand «10♠ 🃏» would not read as two cards.
    joker = render.card(Card.parse("X1"))
    assert joker == render.card(Card.parse("X2")) == "★"
    for key in ("btn-hit", "lobby-header", "table-header_first"):
        for lang in ("ru", "en"):
            assert joker not in i18n.t(key, lang, preset="x"), key
    assert cards_text([Card.parse("10S"), Card.parse("X2"), None]) == "10♠ ★ 🂠"


def test_handler_keys_exist_in_both_languages() -> None:
    keys = ["error-internal", "group_only", "hand_in_group", "joined", "lang-switched"]
    keys += ["lang-usage", "btn-open_private", "private-opened", "settings-saved", "unknown_preset"]
    keys += [command.help_key for command in COMMANDS]
    for key in keys:
        for lang in ("ru", "en"):
            assert render.text(key, lang, name="<x>", known="a, b") != key, key
    assert "&lt;x&gt;" in render.text("unknown_preset", "ru", name="<x>", known="a")


# ------------------------------------------------------------------ details a Friday group notices


def test_quick_amounts_are_round_numbers() -> None:
    assert bank_amounts(1050) == [100, 250, 500, 1050]  # not 105, 262, 525
    assert stake_amounts(1, 1000) == [1, 100, 250, 500, 1000]
    assert stake_amounts(10, 75) == [10, 15, 30, 75]
    assert [nice_floor(n) for n in (0, 7, 37, 105, 262, 525, 999, 12_345)] == [
        0,
        7,
        30,
        100,
        250,
        500,
        800,
        10_000,
    ]
    round_ = {m * 10**k for m in (10, 15, 20, 25, 30, 40, 50, 60, 75, 80) for k in range(6)}
    for maximum in range(1, 5000, 7):
        for minimum in (1, 10):
            picks = stake_amounts(minimum, maximum)
            assert picks == sorted(set(picks))
            assert all(minimum <= a <= maximum for a in picks)
            # Every quick amount but the two ends is round.
            assert all(a < 10 or a in round_ for a in picks if a not in (minimum, maximum))
        picks = bank_amounts(maximum)
        assert picks[-1] == maximum and all(a < 10 or a in round_ for a in picks[:-1])


@pytest.mark.parametrize("lang", ["ru", "en"])
def test_the_odds_button_has_a_word(lang: str) -> None:
    game = table_game("classic36", [["10H", "9S", "KD", "AH", "8C"]])
    game.start()
    game.set_bank(1, 200)
    game.stake(2, 50)
    for out in (render.table(snap(game, lang=lang)), render.hand(snap(game), 2, lang)):
        assert out.markup is not None
        labels = [
            b.text
            for row in out.markup.inline_keyboard
            for b in row
            if (found := parse_game(str(b.callback_data))) and found.act is Act.ODDS
        ]
        assert len(labels) == 1
        assert any(ch.isalpha() for ch in labels[0]), labels  # «💡 Шансы», not a bare «💡»


@pytest.mark.parametrize("lang", ["ru", "en"])
def test_verify_shows_cards_as_on_the_table_and_no_repository_path(lang: str) -> None:
    from rules.events import RevealedShuffle
    from rules.fairness import commitment

    order = ("10H", "X1", "AS", "QD", "7C", "X2")
    salt = "00ff" * 8
    shuffle = RevealedShuffle(commitment(order, salt), salt, order, order[:3], False)
    text = render.verify(3, [shuffle], lang)
    valid_html(text)
    lines = text.split("\n")
    # The order, then the cards dealt from it, as the table writes cards.
    shown = [line for line in lines if "10♥ ★ A♠" in line and "→" not in line]
    assert len(shown) == 2, lines
    assert shown[0].endswith("10♥ ★ A♠ Q♦ 7♣ ★") and shown[1].endswith("10♥ ★ A♠"), shown
    assert not any(code in line for line in shown for code in order)
    assert "docs/" not in text and ".md" not in text
    assert "✅" in lines[-2]


def test_the_end_of_a_game_is_one_summary() -> None:
    game = table_game("classic36", [["10H", "9S", "KD", "AH", "8C"]])
    game.start()
    game.set_bank(1, 200)
    ended = next(e for e in game.end() if isinstance(e, SessionEnded))
    by = render.session_end(snap(game), ended, ended_by="Анна").text
    valid_html(by)
    lines = by.split("\n")
    assert lines[0] == "🏁 <b>Анна</b> завершает игру"  # who ended it, and no «завершил»: no gender
    assert lines[1] == ""  # straight to the balances: no second or third «game over»
    assert by.lower().count("оконч") + by.lower().count("заверш") == 1
    expired = render.session_end(snap(game), ended, expired=True).text
    assert expired.count("⌛") == 1 and "🏁" not in expired
    english = render.session_end(snap(game, lang="en"), ended, ended_by="Анна").text
    assert english.count("ended the game") == 1 and "<b>Анна</b> ended the game" in english
    # A hand after the end says the game is over, not «waiting».
    hand = render.hand(snap(game), 2, "ru").text
    assert hand.endswith(i18n.t("prompt-ended", "ru")) and "ждёт" not in hand
    # The ended table points to the summary instead of repeating it.
    table = render.table(snap(game)).text
    assert table.endswith(i18n.t("prompt-ended_below", "ru")) and "Итоговые" not in table


def test_end_confirmation_buttons_belong_to_the_asker() -> None:
    from bot.callbacks import parse_end

    out = render.end_confirm('<b>&"x"', 42, 7, 1_800_000_030, 30, "ru")
    valid_html(out.text)
    assert "30 с" in out.text
    assert out.markup is not None
    pressed = [parse_end(str(b.callback_data)) for row in out.markup.inline_keyboard for b in row]
    assert [(p.game_id, p.user_id, p.expires, p.yes) for p in pressed if p] == [
        (42, 7, 1_800_000_030, True),
        (42, 7, 1_800_000_030, False),
    ]
    assert parse_end("e:42:7:1800000030:x") is None and parse_end("g:42:7:hit") is None


@pytest.mark.parametrize("lang", ["ru", "en"])
def test_rules_of_a_running_game_with_overrides(lang: str) -> None:
    from rules.variants import with_overrides

    variant = with_overrides(PRESETS["home36"], {"bust_fine_percent": 50, "dark_draw": False})
    text = render.rules_text(variant.name, lang, variant, running=True)
    head = text.split("\n")[1]
    assert i18n.t("rules-running", lang) in head and i18n.t("rules-chat_overrides", lang) in head
    assert i18n.t("rules-fine", lang, percent=50) in text
    assert i18n.t("rules-no_dark", lang) in text
    plain_preset = render.rules_text("home36", lang, PRESETS["home36"], running=True)
    assert i18n.t("rules-chat_overrides", lang) not in plain_preset
