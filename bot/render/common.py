"""The pieces every view of :mod:`bot.render` is made of. What the view modules share is public
here (and in :mod:`~bot.render.tables`); a name with a leading underscore is its own module's
alone (checked by tests/bot/test_view_imports.py).
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from telegram import InlineKeyboardButton, InlineKeyboardMarkup, WebAppInfo

from bot.callbacks import Act, GameButton
from bot.i18n import has, t
from rules.cards import Card
from rules.game import Game
from rules.table import Phase

MAX_TEXT = 4096
MAX_ALERT = 200
NAME_LIMIT = 32  # characters of a display name shown (before escaping)
HIDDEN = "🂠"
JOKER = "★"
PRESET_ORDER = ("classic36", "home36", "big54", "twodecks104")
ROUND_PHASES = (Phase.STAKE, Phase.DRAW, Phase.BANKER)
DEALT_PHASES = (*ROUND_PHASES, Phase.ROUND_OVER)  # the round's hands are on the table
TIMED_PHASES = (Phase.BANK, Phase.STAKE, Phase.DRAW, Phase.BANKER)
MEDALS = ("🥇", "🥈", "🥉")


@dataclass(frozen=True)
class Snapshot:
    game_id: int
    version: int
    game: Game
    names: Mapping[int, str]  # display names of seated players (raw, unescaped)
    creator_id: int
    lang: str  # "ru" | "en" (the group's language)
    deadline: float | None  # unix time the current turn's timer runs out
    private_ok: frozenset[int]  # players who opened the private chat with the bot
    bot_username: str
    now: float
    chat_title: str = ""  # the group's title (raw), for the private hand message
    paused: bool = False  # nobody played, so the table waits (bot.service.Meta.paused)
    # The Mini App of this table when the bot offers one: the page (for a private chat's
    # web_app button) and the direct link (for the group's).
    app_page: str = ""
    app_link: str = ""
    # Its short name (BotFather's) beside the direct link: a round's replay is linked so too.
    app_name: str = ""


@dataclass(frozen=True, slots=True)
class Offer:
    """One button a keyboard offers: the act it presses (with its amount) and its label."""

    act: Act
    label: str
    amount: int | None = None
    # A stake the bank may not pay in full if it wins (its label carries ⚠, explained beside it).
    warn: bool = False


@dataclass(frozen=True)
class Rendered:
    text: str
    markup: InlineKeyboardMarkup | None


# ---------------------------------------------------------------------- small pieces


def card(c: Card) -> str:
    """``10♥``, ``A♠``, ``★``: the joker gets a glyph of its own, since 🃏 is the game's logo
    and the draw button's; a hand «10♠ 🃏» would read as a card and a stray emblem."""
    return JOKER if c.is_joker else str(c)


def cards_text(cards: Sequence[Card | None]) -> str:
    return " ".join(HIDDEN if c is None else card(c) for c in cards)


def codes_text(codes: Sequence[str]) -> str:
    return " ".join(card(Card.parse(code)) for code in codes)


def short_name(raw: str, limit: int = NAME_LIMIT) -> str:
    return clip(" ".join(raw.split()) or "?", limit)


def escape_name(raw: str) -> str:
    return f"<b>{html.escape(short_name(raw))}</b>"


def bold_name(s: Snapshot, player: int, lang: str | None = None) -> str:
    return escape_name(s.names.get(player) or t("player-unknown", lang or s.lang, id=str(player)))


def mention(user_id: int, raw_name: str) -> str:
    """A name that notifies its owner when posted in a new message (a text mention)."""
    return f'<a href="tg://user?id={int(user_id)}">{html.escape(short_name(raw_name))}</a>'


def preset_label(name: str, lang: str) -> str:
    key = f"preset-{name}-name"
    return t(key, lang) if has(key) else html.escape(name)


def signed(amount: int) -> str:
    if amount > 0:
        return f"+{amount}"
    if amount < 0:
        return f"−{-amount}"
    return "0"


def clip(text_: str, limit: int = MAX_ALERT) -> str:
    return text_ if len(text_) <= limit else text_[: limit - 1] + "…"


def fit_text(head: list[str], body: list[str], tail: list[str], lang: str) -> str:
    """Join the lines, dropping body lines from the end (with a '… and N more' line) until the
    text fits Telegram's limit. Lines are whole HTML fragments, so no tag is ever cut."""
    for kept in range(len(body), -1, -1):
        more = [t("more", lang, count=len(body) - kept)] if kept < len(body) else []
        text_ = "\n".join([*head, *body[:kept], *more, *tail])
        if len(text_) <= MAX_TEXT:
            return text_
    return clip("\n".join([*head, *tail]), MAX_TEXT)


def game_button(s: Snapshot, offer: Offer) -> InlineKeyboardButton:
    data = GameButton(s.game_id, s.version, offer.act, offer.amount).encode()
    return InlineKeyboardButton(offer.label, callback_data=data)


def inline_markup(rows: list[list[InlineKeyboardButton]]) -> InlineKeyboardMarkup | None:
    rows = [row for row in rows if row]
    return InlineKeyboardMarkup(rows) if rows else None


def _chunks(items: list[Offer], size: int) -> list[list[Offer]]:
    return [items[i : i + size] for i in range(0, len(items), size)]


# ---------------------------------------------------------------------- amounts


# Leading digits of the amounts a button may show: 100, 150, 200, 250, 300, 400, 500, 600, 750,
# 800 and their tens and thousands — what people say at a table, not 105, 262 or 525.
_NICE = (10, 15, 20, 25, 30, 40, 50, 60, 75, 80)


def nice_floor(amount: int) -> int:
    """The largest round amount not above ``amount`` (0 below 1): 1050 → 1000, 262 → 250."""
    if amount < 1:
        return 0
    if amount < 10:
        return amount
    scale = 1
    while amount >= 100 * scale:
        scale *= 10
    return max(n * scale for n in _NICE if n * scale <= amount)


def bank_amounts(maximum: int) -> list[int]:
    """Quick bank amounts: round numbers near 10%, 25% and 50% of the maximum, and the whole
    maximum, deduplicated, each ≤ maximum."""
    if maximum < 1:
        return []
    return sorted({max(1, nice_floor(maximum * p // 100)) for p in (10, 25, 50)} | {maximum})


def stake_amounts(minimum: int, maximum: int) -> list[int]:
    """Quick stakes: the minimum, round numbers near 10%, 25% and 50% of the maximum, and the
    maximum, deduplicated."""
    if maximum < minimum or maximum < 1:
        return []
    picks = {max(minimum, nice_floor(maximum * p // 100)) for p in (10, 25, 50)}
    return sorted(picks | {minimum, maximum})


# ---------------------------------------------------------------------- keyboards


def action_offers(s: Snapshot, *, peek: bool) -> list[list[Offer]]:
    """The buttons of whoever acts now (from ``game.legal_actions()``), by row: what each
    does and says. The chat draws them as inline buttons (:func:`action_rows`), the Mini App
    as its own."""
    game, lang = s.game, s.lang
    legal = game.legal_actions()
    rows: list[list[Offer]] = []
    if legal.phase is Phase.BANK and "set_bank" in legal.actions:
        buttons = []
        for a in bank_amounts(legal.maximum):
            key = "btn-bank_all" if a == legal.maximum else "btn-bank_amount"
            buttons.append(Offer(Act.BANK, t(key, lang, amount=a), a))
        rows.extend(_chunks(buttons, 4))
        if "pass_bank" in legal.actions:
            rows.append([Offer(Act.PASS, t("btn-decline_bank", lang))])
    elif legal.phase is Phase.STAKE and "stake" in legal.actions:
        amounts = stake_amounts(legal.minimum, legal.maximum)
        cover = game.stake_cover(legal.actor) if legal.actor is not None else legal.maximum
        if legal.minimum <= cover < legal.maximum and cover not in amounts:
            amounts = sorted([*amounts, cover])  # the most the bank is sure to pay, one tap away
        buttons = []
        for a in amounts:
            if a == legal.maximum and a == game.bank:
                key = "btn-va_bank"
            elif a == legal.maximum and a > legal.minimum:
                key = "btn-stake_max"
            else:
                key = "btn-stake"
            label = t(key, lang, amount=a)
            if a > cover:
                # The bank may not pay this stake in full: the button says so before the tap.
                label = t("btn-stake_uncovered", lang, label=label)
            buttons.append(Offer(Act.BET, label, a, warn=a > cover))
        rows.extend(_chunks(buttons, 4))
    elif legal.phase in (Phase.DRAW, Phase.BANKER) and legal.actor is not None:
        # Each button with the legal action it needs: 💡 only while a card may still be drawn.
        drawing = (("hit", Act.HIT), ("stand", Act.STAND), ("hit", Act.ODDS))
        rows.append([Offer(a, t(f"btn-{a}", lang)) for need, a in drawing if need in legal.actions])
        if "dark" in legal.actions:
            rows.append([Offer(Act.DARK, t("btn-dark", lang))])
    elif legal.phase is Phase.ROUND_OVER:
        row = [Offer(Act.NEXT, t("btn-next", lang))]
        if "pass_bank" in legal.actions:
            row.append(Offer(Act.PASS, t("btn-pass_bank", lang)))
        rows.append(row)
    if s.paused and legal.phase in TIMED_PHASES:
        rows.append([Offer(Act.RESUME, t("btn-resume", lang))])
    if peek and legal.phase in ROUND_PHASES:
        rows.append([Offer(Act.PEEK, t("btn-peek", lang))])
    return rows


def action_rows(s: Snapshot, *, peek: bool) -> list[list[InlineKeyboardButton]]:
    return [[game_button(s, offer) for offer in row] for row in action_offers(s, peek=peek)]


def app_rows(s: Snapshot, lang: str, *, private: bool) -> list[list[InlineKeyboardButton]]:
    """The way into the table's Mini App: a web_app button in a private chat, the direct
    link in the group (Telegram refuses web_app buttons there)."""
    if private and s.app_page:
        label = t("app-open_private", lang)
        return [[InlineKeyboardButton(label, web_app=WebAppInfo(s.app_page))]]
    if not private and s.app_link:
        return [[InlineKeyboardButton(t("app-open_group", lang), url=s.app_link)]]
    return []


def text(key: str, lang: str, **params: object) -> str:
    """Any other string by key; every ``str`` parameter is HTML-escaped (names in bold)."""
    safe = {
        k: (escape_name(v) if k == "name" else html.escape(v)) if isinstance(v, str) else v
        for k, v in params.items()
    }
    return t(key, lang, **safe)


def achievement_title(code: str, lang: str) -> str | None:
    """The catalog's name of an achievement (rules/achievements.py), None for a code this
    version does not know (recorded by a newer one)."""
    key = f"achievement-{code}"
    return t(key, lang) if has(key) else None
