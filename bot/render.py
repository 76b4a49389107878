"""Texts and inline keyboards of every message the bot sends (HTML parse mode).

Pure functions of a :class:`Snapshot` of a game: no I/O, no Telegram calls. Every user-supplied
string (names, chat titles) goes through :func:`html.escape`; no text exceeds 4096 characters and
no alert exceeds 200. Hidden cards never reach a group text: the table shows each hand as
:meth:`rules.table.Hand.visible_to_others` allows, the private hand as ``visible_to_owner``.
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction

from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from bot.callbacks import Act, EndButton, GameButton, SettingButton
from bot.i18n import has, number, t, t_map
from bot.service import HOUSE_ID, house_name
from bot.settings_options import CLOSE, CLOSE_VALUE, OPTIONS
from rules.cards import Card
from rules.events import (
    BankBroken,
    BankerChosen,
    BankerTurn,
    BankPassed,
    BankSet,
    Busted,
    DeckShuffled,
    Event,
    LeaveScheduled,
    NaturalsSettled,
    PlayerLeft,
    PlayerSeated,
    RevealedShuffle,
    RoundSettled,
    SatOut,
    SessionEnded,
    Stood,
    TwentyOne,
)
from rules.fairness import verify_commitment, verify_deal
from rules.game import Game
from rules.odds import Odds
from rules.scoring import hand_value
from rules.table import Hand, HandStatus, Legal, Phase
from rules.variants import PRESETS, StakeCap, Variant
from storage.models import ChatSettings, LeaderboardRow, PlayerStats

MAX_TEXT = 4096
MAX_ALERT = 200
NAME_LIMIT = 32  # characters of a display name shown (before escaping)
HIDDEN = "🂠"
JOKER = "★"
DEEP_LINK_PREFIX = "g"  # t.me/<bot>?start=g<game id>
PRESET_ORDER = ("classic36", "home36", "big54", "twodecks104")
ROUND_PHASES = (Phase.STAKE, Phase.DRAW, Phase.BANKER)
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


@dataclass(frozen=True)
class Rendered:
    text: str
    markup: InlineKeyboardMarkup | None


# ---------------------------------------------------------------------- small pieces


def card(c: Card) -> str:
    """``10♥``, ``A♠``, ``★``: the joker gets a glyph of its own, since 🃏 is the game's logo
    and the «Ещё карту» button; a hand «10♠ 🃏» would read as a card and a stray emblem."""
    return JOKER if c.is_joker else str(c)


def cards_text(cards: Sequence[Card | None]) -> str:
    return " ".join(HIDDEN if c is None else card(c) for c in cards)


def _codes_text(codes: Sequence[str]) -> str:
    return " ".join(card(Card.parse(code)) for code in codes)


def _short(raw: str, limit: int = NAME_LIMIT) -> str:
    raw = " ".join(raw.split()) or "?"
    return raw if len(raw) <= limit else raw[: limit - 1] + "…"


def escape_name(raw: str) -> str:
    """A user-supplied name, shortened and escaped, in bold."""
    return f"<b>{html.escape(_short(raw))}</b>"


def _raw_name(s: Snapshot, player: int, lang: str | None = None) -> str:
    name = s.names.get(player)
    return name if name else t("player-unknown", lang or s.lang, id=str(player))


def _name(s: Snapshot, player: int, lang: str | None = None) -> str:
    return escape_name(_raw_name(s, player, lang))


def mention(user_id: int, raw_name: str) -> str:
    """A name that notifies its owner when posted in a new message (a text mention)."""
    return f'<a href="tg://user?id={int(user_id)}">{html.escape(_short(raw_name))}</a>'


def turn_mention(user_id: int, raw_name: str, lang: str) -> str:
    """The group message that tells a player without a private chat it is their move."""
    return t("turn-mention", lang, mention=mention(user_id, raw_name))


def _preset_label(name: str, lang: str) -> str:
    key = f"preset-{name}-name"
    label = t(key, lang)
    return html.escape(name) if label == key else label


def _signed(amount: int) -> str:
    if amount > 0:
        return f"+{amount}"
    if amount < 0:
        return f"−{-amount}"
    return "0"


def _clip_alert(text_: str) -> str:
    return text_ if len(text_) <= MAX_ALERT else text_[: MAX_ALERT - 1] + "…"


def _fit(head: list[str], body: list[str], tail: list[str], lang: str) -> str:
    """Join the lines, dropping body lines from the end (with a '… and N more' line) until the
    text fits Telegram's limit. Lines are whole HTML fragments, so no tag is ever cut."""
    lines = [*head, *body, *tail]
    text_ = "\n".join(lines)
    if len(text_) <= MAX_TEXT:
        return text_
    kept = list(body)
    while kept:
        kept.pop()
        more = t("more", lang, count=len(body) - len(kept))
        text_ = "\n".join([*head, *kept, more, *tail])
        if len(text_) <= MAX_TEXT:
            return text_
    text_ = "\n".join([*head, *tail])
    return text_ if len(text_) <= MAX_TEXT else text_[: MAX_TEXT - 1] + "…"


def _button(label: str, s: Snapshot, act: Act, amount: int | None = None) -> InlineKeyboardButton:
    data = GameButton(s.game_id, s.version, act, amount).encode()
    return InlineKeyboardButton(label, callback_data=data)


def _markup(rows: list[list[InlineKeyboardButton]]) -> InlineKeyboardMarkup | None:
    rows = [row for row in rows if row]
    return InlineKeyboardMarkup(rows) if rows else None


def _chunks(buttons: list[InlineKeyboardButton], size: int) -> list[list[InlineKeyboardButton]]:
    return [buttons[i : i + size] for i in range(0, len(buttons), size)]


def deep_link(s: Snapshot) -> str | None:
    """``https://t.me/<bot>?start=g<game id>``: opens the private chat from the group."""
    if not s.bot_username:
        return None
    return f"https://t.me/{s.bot_username.lstrip('@')}?start={DEEP_LINK_PREFIX}{s.game_id}"


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
    picks = {max(1, nice_floor(maximum * p // 100)) for p in (10, 25, 50)} | {maximum}
    return sorted(a for a in picks if 1 <= a <= maximum)


def stake_amounts(minimum: int, maximum: int) -> list[int]:
    """Quick stakes: the minimum, round numbers near 10%, 25% and 50% of the maximum, and the
    maximum, deduplicated."""
    if maximum < minimum or maximum < 1:
        return []
    picks = {minimum, maximum} | {
        max(minimum, nice_floor(maximum * p // 100)) for p in (10, 25, 50)
    }
    return sorted(a for a in picks if minimum <= a <= maximum)


# ---------------------------------------------------------------------- keyboards


def _action_rows(s: Snapshot, *, peek: bool) -> list[list[InlineKeyboardButton]]:
    """The buttons of whoever acts now (from ``game.legal_actions()``)."""
    game, lang = s.game, s.lang
    legal = game.legal_actions()
    rows: list[list[InlineKeyboardButton]] = []
    if legal.phase is Phase.BANK and "set_bank" in legal.actions:
        amounts = bank_amounts(legal.maximum)
        buttons = [
            _button(
                t("btn-bank_all" if a == legal.maximum else "btn-bank_amount", lang, amount=a),
                s,
                Act.BANK,
                a,
            )
            for a in amounts
        ]
        rows.extend(_chunks(buttons, 4))
        if "pass_bank" in legal.actions:
            rows.append([_button(t("btn-decline_bank", lang), s, Act.PASS)])
    elif legal.phase is Phase.STAKE and "stake" in legal.actions:
        amounts = stake_amounts(legal.minimum, legal.maximum)
        cover = game.stake_cover(legal.actor) if legal.actor is not None else legal.maximum
        if legal.minimum <= cover < legal.maximum and cover not in amounts:
            amounts = sorted([*amounts, cover])  # the most the bank is sure to pay, one tap away
        buttons = []
        for a in amounts:
            if a == legal.maximum and a > legal.minimum:
                key = "btn-va_bank" if a == game.bank else "btn-stake_max"
            elif a == legal.maximum and a == game.bank:
                key = "btn-va_bank"
            else:
                key = "btn-stake"
            label = t(key, lang, amount=a)
            if a > cover:
                # The bank may not pay this stake in full: the button says so before the tap.
                label = t("btn-stake_uncovered", lang, label=label)
            buttons.append(_button(label, s, Act.BET, a))
        rows.extend(_chunks(buttons, 4))
    elif legal.phase in (Phase.DRAW, Phase.BANKER) and legal.actor is not None:
        row = []
        if "hit" in legal.actions:
            row.append(_button(t("btn-hit", lang), s, Act.HIT))
        if "stand" in legal.actions:
            row.append(_button(t("btn-stand", lang), s, Act.STAND))
        if "hit" in legal.actions:
            row.append(_button(t("btn-odds", lang), s, Act.ODDS))
        rows.append(row)
        if "dark" in legal.actions:
            rows.append([_button(t("btn-dark", lang), s, Act.DARK)])
    elif legal.phase is Phase.ROUND_OVER:
        row = [_button(t("btn-next", lang), s, Act.NEXT)]
        if "pass_bank" in legal.actions:
            row.append(_button(t("btn-pass_bank", lang), s, Act.PASS))
        rows.append(row)
    if s.paused and legal.phase in TIMED_PHASES:
        rows.append([_button(t("btn-resume", lang), s, Act.RESUME)])
    if peek and legal.phase in ROUND_PHASES:
        rows.append([_button(t("btn-peek", lang), s, Act.PEEK)])
    return rows


# ---------------------------------------------------------------------- lobby


def lobby(s: Snapshot) -> Rendered:
    game, lang = s.game, s.lang
    variant = game.variant
    head = [
        t("lobby-header", lang),
        t("lobby-preset", lang, preset=_preset_label(variant.name, lang)),
        _summary(variant.name, lang),
        "",
        t("lobby-players", lang, count=len(game.seats), maximum=variant.max_seats),
    ]
    body = []
    for index, seat in enumerate(game.seats, 1):
        marks = []
        if seat.player in s.private_ok:
            marks.append("✉")
        if seat.player == s.creator_id:
            marks.append(f"({t('lobby-creator', lang)})")
        suffix = (" " + " ".join(marks)) if marks else ""
        body.append(f"{index}. {_name(s, seat.player)}{suffix}")
    if not game.seats:
        body.append(t("lobby-empty", lang))
    tail = [""]
    if any(p not in s.private_ok for p in game.players):
        tail.append(t("lobby-private_hint", lang))
    missing = variant.min_seats - len(game.seats)
    if missing > 0:
        tail.append(t("lobby-need_more", lang, count=missing))
    elif len(game.seats) >= variant.max_seats:
        tail.append(t("lobby-full", lang))
    else:
        tail.append(t("lobby-ready", lang))
    rows = [
        [_button(t("btn-join", lang), s, Act.JOIN), _button(t("btn-leave", lang), s, Act.LEAVE)],
        [
            _button(t("btn-start", lang), s, Act.START),
            _button(t("btn-cancel", lang), s, Act.CANCEL),
        ],
    ]
    link = deep_link(s)
    if link and any(p not in s.private_ok for p in game.players):
        rows.append([InlineKeyboardButton(t("btn-open_private", lang), url=link)])
    return Rendered(_fit(head, body, tail, lang), _markup(rows))


def _summary(preset_name: str, lang: str) -> str:
    key = f"preset-{preset_name}-summary"
    summary = t(key, lang)
    return "" if summary == key else summary


# ---------------------------------------------------------------------- the table


def _round_banker(game: Game) -> int | None:
    """The banker of the round on the table (the bank may have passed since it ended)."""
    for player in game.hands:
        if player not in game.order:
            return player
    return game.banker


def _status(s: Snapshot, hand: Hand, lang: str) -> str:
    game = s.game
    status = hand.status
    if status is HandStatus.BUST and not hand.revealed:
        return t("status-stood", lang)  # a banker's hidden bust (banker plays first)
    if status is HandStatus.WON:
        value = hand_value(hand.cards, game.variant)
        if value.golden:
            return t("status-golden", lang)
        if game.variant.naturals and len(hand.cards) == 2 and value.total == 21:
            return t("status-natural", lang)
        return t("status-twenty_one", lang) if value.twenty_one else t("status-won", lang)
    if game.turn == hand.player and game.phase in ROUND_PHASES:
        return t("status-on_turn", lang)
    key = {
        HandStatus.WAITING: "status-waiting",
        HandStatus.STAKED: "status-staked",
        HandStatus.DRAWING: "status-waiting",
        HandStatus.STOOD: "status-stood",
        HandStatus.BUST: "status-bust",
        HandStatus.LOST: "status-lost",
        HandStatus.OUT: "status-out",
    }[status]
    return t(key, lang)


def _public_cards(s: Snapshot, hand: Hand, lang: str) -> str:
    if not hand.cards:
        return t("table-no_cards", lang)
    shown = cards_text(hand.visible_to_others())
    if hand.revealed:
        total = hand_value(hand.cards, s.game.variant).total
        shown += " " + t("table-total", lang, total=total)
    return shown


def _player_line(s: Snapshot, place: int, player: int, lang: str) -> str:
    game = s.game
    # Between rounds (naming the next bank) the last round's hands are history, not the table.
    in_round = game.phase in (*ROUND_PHASES, Phase.ROUND_OVER)
    hand = game.hands.get(player) if in_round else None
    details: list[str] = []
    if hand is not None:
        if hand.stake:
            details.append(t("table-stake", lang, amount=hand.stake))
        if hand.cards:
            details.append(_public_cards(s, hand, lang))
        details.append(_status(s, hand, lang))
    if game.is_seated(player):
        seat = game.seat(player)
        details.append(t("table-balance", lang, amount=seat.balance))
        if seat.leaving:
            details.append(t("status-leaving", lang))
    return t(
        "table-player_row", lang, place=place, name=_name(s, player), details=" · ".join(details)
    )


def _prompt(s: Snapshot, legal: Legal, lang: str) -> str:
    game = s.game
    actor = legal.actor
    if legal.phase is Phase.BANK and actor is not None:
        return t("prompt-bank", lang, name=_name(s, actor), maximum=legal.maximum)
    if s.paused and game.phase is not Phase.ROUND_OVER and actor is not None:
        return t("prompt-paused", lang, name=_name(s, actor))
    if legal.phase is Phase.STAKE and actor is not None:
        prompt = t(
            "prompt-stake",
            lang,
            name=_name(s, actor),
            minimum=legal.minimum,
            maximum=legal.maximum,
        )
        return prompt + _cover_note(game, actor, legal, lang)
    if legal.phase is Phase.DRAW and actor is not None:
        return t("prompt-draw", lang, name=_name(s, actor))
    if legal.phase is Phase.BANKER and actor is not None:
        return t("prompt-banker", lang, name=_name(s, actor))
    if game.phase is Phase.ROUND_OVER:
        return next_round_note(s, lang) or t("prompt-round_over", lang)
    if game.phase is Phase.ENDED:
        # The summary with the final balances is the message below: the table only says so.
        return t("prompt-ended_below" if game.round_no else "prompt-ended", lang)
    return ""


def _cover_note(game: Game, player: int, legal: Legal, lang: str) -> str:
    """« · ⚠ the bank is sure to pay up to N» when a stake within the range may be paid only in
    part (the bank may owe the others first); empty when every allowed stake is covered."""
    cover = game.stake_cover(player)
    if cover >= legal.maximum:
        return ""
    return " · " + t("prompt-stake_cover", lang, cover=cover)


def next_round_note(s: Snapshot, lang: str) -> str:
    """Between rounds: the table waits (paused), or the next round deals itself in N s."""
    if s.game.phase is not Phase.ROUND_OVER:
        return ""
    if s.paused:
        return t("prompt-paused_between", lang)
    if s.deadline is None:
        return ""
    seconds = max(0, int(s.deadline - s.now + 0.999))
    return t("prompt-next_round_in", lang, seconds=seconds)


def _time_left(s: Snapshot, lang: str) -> str:
    if s.deadline is None or s.game.phase not in TIMED_PHASES or s.paused:
        return ""
    seconds = max(0, int(s.deadline - s.now + 0.999))
    return t("table-time_left", lang, seconds=seconds)


def shown_round(game: Game) -> int:
    """The number of the round a table (or hand) is about: while the bank is being named it is
    the round to come, not the one before it."""
    return game.round_no + 1 if game.phase is Phase.BANK else game.round_no


def table(s: Snapshot, news: Sequence[str] = ()) -> Rendered:
    """The live table message of the group; ``news`` (from :func:`announce`) goes at the end."""
    game, lang = s.game, s.lang
    preset = _preset_label(game.variant.name, lang)
    round_no = shown_round(game)
    if round_no:
        header = t("table-header", lang, round=round_no, preset=preset)
    else:
        header = t("table-header_first", lang, preset=preset)
    head = [header]
    if game.banker is not None:
        # Both what is in the bank and what the banker keeps besides: his chips are the two.
        own = game.seat(game.banker).balance if game.is_seated(game.banker) else 0
        head.append(
            t(
                "table-banker_own",
                lang,
                name=_name(s, game.banker),
                bank=game.bank,
                own=own,
                total=own + game.bank,
            )
        )
    else:
        head.append(t("table-no_banker", lang))
    if game.bottom is not None and game.phase in ROUND_PHASES:
        head.append(t("table-bottom", lang, card=card(game.bottom)))
    if game.shuffles and game.phase in (*ROUND_PHASES, Phase.ROUND_OVER):
        # Only the commitment: the salt and the order stay secret until the showdown.
        prefix = game.shuffles[-1]["commitment"][:16]
        head.append(t("table-commitment", lang, prefix=prefix))
    body: list[str] = []
    in_round = game.phase in (*ROUND_PHASES, Phase.ROUND_OVER) and bool(game.hands)
    listed: set[int] = set()
    round_banker = _round_banker(game) if in_round else None
    if round_banker is not None and round_banker in game.hands:
        banker_hand = game.hands[round_banker]
        cards = _public_cards(s, banker_hand, lang)
        if game.phase is Phase.BANKER or banker_hand.revealed:
            cards += " · " + _status(s, banker_hand, lang)
        body.append(t("table-banker_row", lang, name=_name(s, round_banker), cards=cards))
        listed.add(round_banker)
    if in_round:
        for place, player in enumerate(game.order, 1):
            body.append(_player_line(s, place, player, lang))
            listed.add(player)
    others = [p for p in game.players if p not in listed and p != game.banker]
    if others:
        if in_round:
            names = ", ".join(_name(s, p) for p in others)
            body.append(t("table-waiting_next", lang, names=names))
        else:
            start = len(listed) + 1
            body.extend(_player_line(s, start + i, p, lang) for i, p in enumerate(others))
    legal = game.legal_actions()
    tail: list[str] = [""]
    prompt = _prompt(s, legal, lang)
    timer = _time_left(s, lang)
    if prompt and timer:
        tail.append(f"{prompt} · {timer}")
    elif prompt or timer:
        tail.append(prompt or timer)
    for line in news[-5:]:
        tail.append(t("table-news", lang, text=line))
    text_ = _fit(head, body, tail, lang)
    if game.phase is Phase.ENDED:
        return Rendered(text_, None)
    return Rendered(text_, _markup(_action_rows(s, peek=True)))


# ---------------------------------------------------------------------- showdown


def _payment(stake: int, net: int, outcome: str, fine_percent: int, lang: str, due: int = 0) -> str:
    if net > 0 and due > net:
        # The bank ran dry before this winner: say what was due and why it is less.
        return t("pay-win_short", lang, amount=net, due=due)
    if outcome == "push" and net == 0 and due > 0:
        return t("pay-push_dry", lang, due=due)
    if outcome == "win" or net > 0:
        return t("pay-win", lang, amount=net)
    if outcome == "lose" or net < 0:
        lost = -net
        if lost > stake > 0:
            return t("pay-lose_fine", lang, amount=lost, fine=lost - stake)
        return t("pay-lose", lang, amount=lost)
    return t("pay-push", lang)


def result(s: Snapshot, settled: RoundSettled) -> Rendered:
    game, lang = s.game, s.lang
    head = [t("result-header", lang, round=settled.round_no)]
    banker_cards = _codes_text(settled.banker_cards) or t("table-no_cards", lang)
    banker_line = t(
        "result-banker",
        lang,
        name=_name(s, settled.banker),
        cards=banker_cards,
        total=settled.banker_total,
    )
    if settled.banker_bust:
        banker_line += " · " + t("result-bust", lang)
    head.append(banker_line)
    body: list[str] = []
    banker_net = 0
    for r in settled.results:
        if r.outcome == "out":
            body.append(t("result-out_row", lang, name=_name(s, r.player)))
            continue
        banker_net -= r.net
        marks = []
        if r.golden:
            marks.append(t("result-golden", lang))
        elif r.twenty_one:
            marks.append(t("result-twenty_one", lang))
        if r.natural:
            marks.append(t("result-natural", lang))
        if r.bust:
            marks.append(t("result-bust", lang))
        if r.dark:
            marks.append(t("result-dark", lang))
        total = f"<b>{r.total}</b>" + (" " + ", ".join(marks) if marks else "")
        body.append(
            t(
                "result-row",
                lang,
                name=_name(s, r.player),
                cards=_codes_text(r.cards) or t("table-no_cards", lang),
                total=total,
                payment=_payment(
                    r.stake, r.net, r.outcome, game.variant.bust_fine_percent, lang, r.due
                ),
            )
        )
    tail = [
        "",
        t("result-banker_net", lang, amount=_signed(banker_net)),
        t("result-bank", lang, bank=settled.bank),
        t("result-balances", lang),
    ]
    # The banker's chips are his balance and the bank he holds (back to him when it passes).
    balances = [
        t(
            "result-balance_row_bank",
            lang,
            name=_name(s, p),
            amount=amount + settled.bank,
            bank=settled.bank,
        )
        if p == settled.banker and settled.bank > 0
        else t("result-balance_row", lang, name=_name(s, p), amount=amount)
        for p, amount in settled.balances
    ]
    note = next_round_note(s, lang) if game.phase is Phase.ROUND_OVER else ""
    if note:
        balances = [*balances, "", note]
    deck = _deck_reveal(settled, lang)
    text_ = _fit(head, body, [*tail, *balances, *deck], lang)
    if len(text_) > MAX_TEXT:  # pragma: no cover - only with absurd inputs
        text_ = _fit(head, body, [*tail, *deck], lang)
    rows: list[list[InlineKeyboardButton]] = []
    if game.phase is Phase.ROUND_OVER:
        rows = _action_rows(s, peek=False)
    return Rendered(text_, _markup(rows))


# ---------------------------------------------------------------------- provably fair deck


def _deck_reveal(settled: RoundSettled, lang: str) -> list[str]:
    """The result's last lines: each shuffle's full commitment and its salt, and /verify."""
    if not settled.shuffles:
        return []
    lines = [""]
    many = len(settled.shuffles) > 1
    for n, shuffle in enumerate(settled.shuffles, 1):
        label = f" {n}" if many else ""
        lines.append(
            t("result-deck", lang, n=label, commitment=shuffle.commitment, salt=shuffle.salt)
        )
    lines.append(t("result-verify_hint", lang, round=str(settled.round_no)))
    return lines


def verify(round_no: int, shuffles: Sequence[RevealedShuffle], lang: str) -> str:
    """The answer to /verify for a settled round: for each shuffle the commitment, the salt, the
    committed order and the cards dealt from it, checked with :mod:`rules.fairness`."""
    if not shuffles:
        return t("verify-legacy", lang, round=round_no)
    lines = [t("verify-header", lang, round=round_no)]
    all_ok = True
    for n, shuffle in enumerate(shuffles, 1):
        hash_ok = verify_commitment(shuffle.commitment, shuffle.order, shuffle.salt)
        deal_ok = verify_deal(shuffle.order, shuffle.dealt)
        all_ok = all_ok and hash_ok and deal_ok
        lines += [
            "",
            t("verify-recycled" if shuffle.recycled else "verify-shuffle", lang, n=n),
            t("verify-commitment", lang, value=html.escape(shuffle.commitment)),
            t("verify-salt", lang, value=html.escape(shuffle.salt)),
            # Cards as the table shows them; the codes that are hashed are explained in words.
            t("verify-order", lang, value=_codes_text(shuffle.order)),
            t(
                "verify-dealt",
                lang,
                count=len(shuffle.dealt),
                value=_codes_text(shuffle.dealt) or "—",
            ),
            t("verify-hash_ok" if hash_ok else "verify-hash_bad", lang)
            + " · "
            + t("verify-deal_ok" if deal_ok else "verify-deal_bad", lang),
        ]
    lines += ["", t("verify-ok" if all_ok else "verify-bad", lang), t("verify-how", lang)]
    text_ = "\n".join(lines)
    return text_ if len(text_) <= MAX_TEXT else text_[: MAX_TEXT - 1] + "…"


def session_end(
    s: Snapshot, ended: SessionEnded, *, ended_by: str | None = None, expired: bool = False
) -> Rendered:
    """The one summary of a finished game: a single line saying why (who ended it — ``ended_by``
    is that person's raw name —, that it expired, or the rule that ended it), then the final
    balances."""
    lang = s.lang
    if ended_by is not None:
        head = [t("end-header_by", lang, name=escape_name(ended_by))]
    elif expired:
        head = [t("game-expired", lang)]
    else:
        reason_key = f"end-reason-{ended.reason}"
        reason = t(reason_key, lang)
        if reason == reason_key:
            reason = t("end-reason-other", lang)
        head = [t("end-header", lang), reason, *_end_details(s, ended, lang)]
    head += ["", t("end-balances", lang)]
    ranked = sorted(ended.balances, key=lambda pair: -pair[1])
    body = [
        f"{MEDALS[i] if i < len(MEDALS) else f'{i + 1}.'} "
        + t("result-balance_row", lang, name=_name(s, p), amount=amount)
        for i, (p, amount) in enumerate(ranked)
    ]
    tail = ["", t("end-new_game", lang)]
    return Rendered(_fit(head, body, tail, lang), None)


def _end_details(s: Snapshot, ended: SessionEnded, lang: str) -> list[str]:
    """Why nobody could take the bank: who turned it down, who had no chips, who held it."""
    if ended.reason not in ("no_banker", "all_dealt", "no_players"):
        return []
    lines = []
    groups = [("end-declined", ended.declined), ("end-broke", ended.broke)]
    if ended.reason != "no_players" and ended.declined:
        groups.append(("end-dealt", ended.dealt))
    for key, players in groups:
        if players:
            lines.append(t(key, lang, names=", ".join(_name(s, p) for p in players)))
    return lines


def end_confirm(
    name: str, game_id: int, user_id: int, expires: int, seconds: int, lang: str
) -> Rendered:
    """«End the game?» in the group: buttons only the asker's press counts on, until
    ``expires`` (unix time)."""
    rows = [
        [
            InlineKeyboardButton(
                t("btn-endgame_yes", lang),
                callback_data=EndButton(game_id, user_id, expires, True).encode(),
            ),
            InlineKeyboardButton(
                t("btn-endgame_no", lang),
                callback_data=EndButton(game_id, user_id, expires, False).encode(),
            ),
        ]
    ]
    body = t("endgame-confirm", lang, name=escape_name(name), seconds=seconds)
    return Rendered(body, InlineKeyboardMarkup(rows))


def end_not_yours(name: str, lang: str) -> str:
    """The alert for someone else's press on «end the game?» (plain text: alerts have no HTML)."""
    return _clip_alert(t("endgame-not_yours", lang, name=_short(name)))


# ---------------------------------------------------------------------- private hand


def _owner_view(s: Snapshot, hand: Hand, lang: str) -> tuple[str, str]:
    """The owner's cards (dark ones as 🂠 «втёмную») and the total of the cards he sees."""
    seen = hand.visible_to_owner()
    parts = [t("hand-dark_card", lang) if c is None else card(c) for c in seen]
    known = [c for c in seen if c is not None]
    total = hand_value(known, s.game.variant).total
    has_hidden = any(c is None for c in seen)
    key = "hand-total_dark" if has_hidden else "hand-total"
    return " ".join(parts), t(key, lang, total=total)


def hand(s: Snapshot, player: int, lang: str) -> Rendered:
    """The player's private hand message."""
    game = s.game
    chat = html.escape(_short(s.chat_title, 48)) if s.chat_title.strip() else ""
    chat = chat or t("hand-chat_fallback", lang, game=str(s.game_id))
    if shown_round(game):
        lines = [t("hand-header", lang, chat=chat, round=shown_round(game))]
    else:
        lines = [t("hand-header_first", lang, chat=chat)]
    if not game.is_seated(player):
        lines.append(t("hand-not_seated", lang))
        return Rendered("\n".join(lines), None)
    seat = game.seat(player)
    own = game.hands.get(player) if game.phase is not Phase.LOBBY else None
    if own is not None and own.cards:
        shown, total = _owner_view(s, own, lang)
        lines.append(t("hand-cards", lang, cards=shown))
        lines.append(total)
    elif game.phase in ROUND_PHASES:
        lines.append(t("hand-no_cards", lang))
    if player == game.banker:
        lines.append(t("hand-banker_self", lang, bank=game.bank, balance=seat.balance))
    elif own is not None and own.stake:
        lines.append(t("hand-stake", lang, stake=own.stake, balance=seat.balance))
    else:
        lines.append(t("hand-balance", lang, balance=seat.balance))
    banker = _round_banker(game) if game.hands else None
    if banker is not None and banker != player and banker in game.hands:
        banker_hand = game.hands[banker]
        if banker_hand.cards and game.phase in (*ROUND_PHASES, Phase.ROUND_OVER):
            lines.append(
                t(
                    "hand-banker_card",
                    lang,
                    name=_name(s, banker, lang),
                    cards=_public_cards(s, banker_hand, lang),
                )
            )
    if game.bottom is not None and game.phase in ROUND_PHASES:
        lines.append(t("hand-bottom", lang, card=card(game.bottom)))
    legal = game.legal_actions()
    mine = legal.actor == player and legal.phase in TIMED_PHASES
    if game.phase is Phase.ENDED:
        # Not «waiting» for a turn that will never come.
        lines.append(t("prompt-ended", lang))
    elif own is not None and game.phase is not Phase.LOBBY and not mine:
        lines.append(t("hand-status", lang, status=_status(s, own, lang)))
    if mine:
        if legal.phase is Phase.BANK:
            lines.append(t("hand-turn_bank", lang, maximum=legal.maximum))
        elif legal.phase is Phase.STAKE:
            lines.append(
                t("hand-turn_stake", lang, minimum=legal.minimum, maximum=legal.maximum)
                + _cover_note(game, player, legal, lang)
            )
        else:
            lines.append(t("hand-turn_draw", lang))
        timer = _time_left(s, lang)
        if timer:
            lines.append(timer)
    elif legal.actor is not None and legal.phase in TIMED_PHASES:
        lines.append(t("hand-waiting_for", lang, name=_name(s, legal.actor, lang)))
    text_ = "\n".join(lines)
    if not mine:
        return Rendered(text_, None)
    own_lang = replace(s, lang=lang)
    return Rendered(text_, _markup(_action_rows(own_lang, peek=False)))


def peek(s: Snapshot, player: int, lang: str) -> str:
    """The "👁 my cards" alert: only the presser sees it."""
    game = s.game
    own = game.hands.get(player)
    if own is None or not game.is_seated(player) or game.phase in (Phase.LOBBY, Phase.ENDED):
        return t("peek-not_playing", lang)
    if own.status is HandStatus.OUT and not own.cards:
        return t("peek-not_playing", lang)
    if not own.cards:
        return _clip_alert(t("peek-no_cards", lang))
    seen = own.visible_to_owner()
    known = [c for c in seen if c is not None]
    total = hand_value(known, game.variant).total
    shown = " ".join(HIDDEN if c is None else card(c) for c in seen)
    key = "peek-cards_dark" if len(known) < len(seen) else "peek-cards"
    return _clip_alert(t(key, lang, cards=shown, total=total))


def _percent(share: Fraction, lang: str) -> str:
    """A share as a percentage with one decimal, rounded half up («38,7» in Russian)."""
    return number(share * 100, lang, decimals=1)


def odds_alert(odds: Odds, lang: str) -> str:
    """The "💡" alert: «Перебор: 12 из 31 (38,7%) · Очко: 3 из 31 (9,7%)»."""
    if odds.candidates == 0:
        return t("odds-no_cards", lang)

    def part(share: Fraction, cards: Fraction) -> str:
        if cards.denominator != 1:  # own unknown cards: no whole count to show
            return t("odds-part_percent", lang, percent=_percent(share, lang))
        return t(
            "odds-part",
            lang,
            count=int(cards),
            total=odds.candidates,
            percent=_percent(share, lang),
        )

    bust = part(odds.bust, odds.bust_cards)
    twenty_one = part(odds.twenty_one, odds.twenty_one_cards)
    return _clip_alert(t("odds-alert", lang, bust=bust, twenty_one=twenty_one))


# ---------------------------------------------------------------------- news


def announce(s: Snapshot, events: Sequence[Event]) -> list[str]:
    """One-line notes of the notable events of an action (no hidden card is ever named)."""
    lang = s.lang
    notes: list[str] = []

    def name(player: int) -> str:
        return _name(s, player)

    for event in events:
        if isinstance(event, TwentyOne):
            key = "news-golden" if event.golden else "news-twenty_one"
            note = t(key, lang, name=name(event.player), paid=event.paid)
            if event.due > event.paid:
                note += " " + t("news-paid_short", lang, due=event.due)
            notes.append(note)
        elif isinstance(event, Busted):
            notes.append(t("news-bust", lang, name=name(event.player), total=event.total))
        elif isinstance(event, BankBroken):
            notes.append(t("news-bank_broken", lang, name=name(event.banker)))
        elif isinstance(event, BankPassed):
            if event.new_banker is None:
                notes.append(t("news-bank_nobody", lang))
            elif event.reason == "declined":
                notes.append(
                    t(
                        "news-bank_declined",
                        lang,
                        old=name(event.old_banker),
                        name=name(event.new_banker),
                    )
                )
            else:
                notes.append(t("news-bank_passed", lang, name=name(event.new_banker)))
        elif isinstance(event, BankerChosen):
            if event.by_lot:
                notes.append(t("news-banker_lot", lang, name=name(event.player)))
        elif isinstance(event, BankSet):
            notes.append(t("news-bank_set", lang, name=name(event.banker), amount=event.amount))
        elif isinstance(event, PlayerSeated):
            notes.append(t("news-joined", lang, name=name(event.player)))
        elif isinstance(event, PlayerLeft):
            notes.append(t("news-left", lang, name=name(event.player)))
        elif isinstance(event, LeaveScheduled):
            notes.append(t("news-leave_scheduled", lang, name=name(event.player)))
        elif isinstance(event, Stood):
            if event.reason == "timeout":
                notes.append(t("news-timeout_stand", lang, name=name(event.player)))
            elif event.reason == "dark":
                notes.append(t("news-dark", lang, name=name(event.player)))
        elif isinstance(event, SatOut):
            if event.reason == "timeout":
                notes.append(t("news-timeout_out", lang, name=name(event.player)))
            elif event.reason == "bank_empty":
                notes.append(t("news-bank_empty", lang, name=name(event.player)))
            elif event.reason == "cannot_afford":
                notes.append(t("news-sat_out", lang, name=name(event.player)))
        elif isinstance(event, NaturalsSettled):
            if event.banker_natural and s.game.banker is not None:
                notes.append(t("news-naturals_banker", lang, name=name(s.game.banker)))
            elif event.players:
                names = ", ".join(name(p) for p in event.players)
                notes.append(t("news-naturals_players", lang, names=names))
        elif isinstance(event, DeckShuffled) and event.recycled:
            notes.append(t("news-reshuffled", lang))
        elif isinstance(event, BankerTurn):
            notes.append(t("news-banker_turn", lang, name=name(event.banker)))
        elif isinstance(event, SessionEnded):
            notes.append(t("news-session_ended", lang))
    return notes


# ---------------------------------------------------------------------- refusals


def refusal(code: str, params: Mapping[str, object], lang: str) -> str:
    """A short alert (≤ 200 characters) for a refusal code of the engine or of the bot."""
    safe = {k: html.escape(v) if isinstance(v, str) else v for k, v in params.items()}
    key = f"refusal-{code}"
    if code in ("amount_out_of_range", "bad_amount"):
        low, high = params.get("minimum"), params.get("maximum")
        if isinstance(low, int) and isinstance(high, int) and high < low:
            key = "refusal-amount_none"
        elif code == "bad_amount" and not (isinstance(low, int) and isinstance(high, int)):
            key = "refusal-bad_amount_plain"
        elif params.get("what") in ("bank", "stake"):
            key = f"refusal-range_{params['what']}"  # «the bank», not «the stake», for /bank
    elif code == "not_your_turn" and isinstance(params.get("turn_name"), str):
        key = "refusal-not_your_turn_name"  # whose turn it is
    elif code == "wrong_phase" and isinstance(params.get("phase"), str):
        key = "refusal-wrong_phase_at"  # what is going on now, and what to do
    elif code == "cannot_pass_bank" and "rounds" in params and "played" in params:
        key = "refusal-cannot_pass_bank_rounds"
    elif code == "cannot_pass_bank" and params.get("why") == "not_banker":
        has_name = isinstance(params.get("banker_name"), str)
        key = "refusal-cannot_pass_bank_banker" if has_name else "refusal-cannot_pass_bank"
    elif code == "cannot_pass_bank" and params.get("why") == "never":
        key = "refusal-cannot_pass_bank_never"
    elif code == "cannot_afford" and not isinstance(params.get("maximum"), int):
        key = "refusal-generic"
    if not has(key):
        key = "refusal-generic"
    return _clip_alert(t_map(key, lang, safe, missing="?"))


# ---------------------------------------------------------------------- other texts


def setting_refusal(key: str, lang: str) -> str:
    """A setting the chat's rules do not take, in the catalog's words: the options offered
    (dark draw, ace as one) clash only with twodecks104's banker-first and picture-ten rules."""
    reasons = {"dark_draw": "settings-invalid-dark_draw", "acelow": "settings-invalid-ace_low"}
    reason_key = reasons.get(key, "")
    if not has(reason_key):
        return _clip_alert(t("refusal-invalid_variant", lang))
    return _clip_alert(t("settings-invalid", lang, reason=t(reason_key, lang)))


def text(key: str, lang: str, **params: object) -> str:
    """Any other string by key; every ``str`` parameter is HTML-escaped (names in bold)."""
    safe: dict[str, object] = {}
    for k, v in params.items():
        if isinstance(v, str):
            safe[k] = escape_name(v) if k == "name" else html.escape(v)
        else:
            safe[k] = v
    return t(key, lang, **safe)


def commands(lang: str, *, private: bool) -> list[tuple[str, str]]:
    """(command, one-line description) of the private chat's menu or a group's, from the
    command table (`bot.commands`): the same list for /help and ``set_my_commands``."""
    # The table refers to the handlers, which use this module: read when first needed.
    from bot.commands import menu

    return menu(lang, private=private)


def help_text(lang: str, *, private: bool) -> str:
    header = t("help-header_private" if private else "help-header_group", lang)
    lines = [header, ""]
    lines.extend(f"/{name} — {desc}" for name, desc in commands(lang, private=private))
    lines.extend(["", t("help-footer", lang)])
    return "\n".join(lines)


def rules_text(
    preset_name: str, lang: str, variant: Variant | None = None, *, running: bool = False
) -> str:
    """The preset's rules in at most 25 lines, from its values (``variant`` may carry the chat's
    overrides; by default the preset itself). ``running``: they are the running game's."""
    name = preset_name.strip().lower()
    if variant is None:
        if name not in PRESETS:
            return t("rules-unknown", lang, presets=", ".join(PRESET_ORDER))
        variant = PRESETS[name]
    v = variant
    header = t("rules-header", lang, preset=_preset_label(v.name, lang), name=html.escape(v.name))
    notes = [t("rules-running", lang)] if running else []
    if PRESETS.get(v.name) not in (None, v):
        notes.append(t("rules-chat_overrides", lang))
    if notes:
        header += "\n" + " ".join(notes)
    lines = [
        header,
        t("rules-seats", lang, minimum=v.min_seats, maximum=v.max_seats),
        t(f"rules-deck-{v.deck.value}", lang),
        t(f"rules-values-{v.values.value}", lang),
    ]
    if v.ace_low_on_bust and v.values.value == "russian":
        lines.append(t("rules-ace_low", lang))
    if v.jokers_wild:
        lines.append(t("rules-jokers", lang))
    lines.append(t(f"rules-bank-{v.bank_mode.value}", lang))
    if v.bank_limit is not None:
        lines.append(t("rules-bank_limit", lang, limit=v.bank_limit))
    lines.append(t("rules-deal", lang, count=v.first_deal))
    if v.banker_card_up:
        lines.append(t("rules-banker_up", lang))
    if v.show_bottom:
        lines.append(t("rules-bottom", lang))
    lines.append(t(f"rules-stakes-{v.stake_timing.value}", lang))
    lines.append(
        t("rules-cap-shared" if v.stake_cap is StakeCap.SHARED else "rules-cap-bank", lang)
    )
    lines.append(t("rules-max_cards", lang, count=v.max_cards))
    if v.instant_21:
        lines.append(t("rules-instant_21", lang))
    if v.golden_point:
        lines.append(t("rules-golden", lang))
    if v.naturals:
        lines.append(t("rules-naturals", lang))
    if v.bust_fine_percent:
        lines.append(t("rules-fine", lang, percent=v.bust_fine_percent))
    else:
        lines.append(t("rules-no_fine", lang))
    if v.both_bust_quits:
        lines.append(t("rules-both_bust", lang))
    lines.append(t("rules-dark" if v.dark_draw else "rules-no_dark", lang))
    lines.append(t("rules-banker_first" if v.banker_first else "rules-banker_last", lang))
    lines.append(t(f"rules-pass-{v.bank_passing.value}", lang))
    if v.voluntary_pass_after is not None:
        lines.append(t("rules-pass-voluntary", lang, rounds=v.voluntary_pass_after))
    if v.end_when_all_dealt:
        lines.append(t("rules-end_all_dealt", lang))
    lines.append(t(f"rules-order-{v.turn_order.value}", lang))
    others = [p for p in PRESET_ORDER if p != v.name]
    lines.append(t("rules-others", lang, presets=", ".join(f"/rules {p}" for p in others)))
    return "\n".join(lines[:25])


def _top_name(row: LeaderboardRow, lang: str) -> str:
    """A player's name on /top; the house banker's in the reader's language."""
    return house_name(lang) if row.user_id == HOUSE_ID else row.name


def leaderboard(rows: Sequence[LeaderboardRow], lang: str, *, period: str) -> str:
    """``period``: "all" (by balance) or "day"/"week"/"month" (by the net result)."""
    period_key = f"top-period-{period}"
    label = t(period_key, lang)
    if label == period_key:
        label = html.escape(period)
    head = [t("top-header", lang, period=label)]
    if not rows:
        return "\n".join([*head, t("top-empty", lang)])
    body = []
    for i, row in enumerate(rows):
        place = MEDALS[i] if i < len(MEDALS) else f"{i + 1}."
        if period == "all":
            line = t(
                "top-row",
                lang,
                place=place,
                name=escape_name(_top_name(row, lang)),
                balance=row.balance,
                net=_signed(row.net),
                rounds=row.rounds,
            )
            if row.bank:
                line += " " + t("held-bank_note", lang, bank=row.bank)
        else:
            line = t(
                "top-row_period",
                lang,
                place=place,
                name=escape_name(_top_name(row, lang)),
                net=_signed(row.net),
                rounds=row.rounds,
                wins=row.wins,
            )
        body.append(line)
    return _fit(head, body, [], lang)


def stats(st: PlayerStats | None, name: str, lang: str) -> str:
    shown = escape_name(name)
    if st is None or st.rounds == 0:
        return t("stats-none", lang, name=shown)
    percent = round(100 * st.wins / st.rounds) if st.rounds else 0
    return "\n".join(
        [
            t("stats-header", lang, name=html.escape(_short(name))),
            t(
                "stats-rounds",
                lang,
                rounds=st.rounds,
                wins=st.wins,
                losses=st.losses,
                pushes=st.pushes,
            ),
            t("stats-win_rate", lang, percent=percent),
            t(
                "stats-special",
                lang,
                twentyones=st.twentyones,
                golden=st.golden_points,
                busts=st.busts,
            ),
            t("stats-money", lang, biggest=st.biggest_win, net=_signed(st.net)),
        ]
    )


def balance(name: str, amount: int, lang: str, bank: int = 0) -> str:
    """``amount``: all the person's chips, ``bank`` of them in the bank he is holding."""
    line = t("balance-line", lang, name=escape_name(name), amount=amount)
    return line + (" " + t("held-bank_note", lang, bank=bank) if bank else "")


def balances(rows: Sequence[tuple[str | None, int]], lang: str) -> str:
    """A private /balance: (chat title or None when unknown, balance) per chat played in."""
    if not rows:
        return t("balance-private_none", lang)
    lines = [t("balance-private_header", lang)]
    for title, amount in rows:
        if title is None:
            lines.append(t("balance-private_line_untitled", lang, amount=amount))
        else:
            lines.append(t("balance-private_line", lang, chat=html.escape(title), amount=amount))
    return "\n".join(lines)


def chart_title(name: str, lang: str) -> str:
    """The chart's own title: plain text drawn into the picture, not HTML."""
    return t("chart-title", lang, name=_short(name, 32))


def chart_caption(name: str, amount: int, start: int, lang: str) -> str:
    """The photo's caption (HTML): the current balance against the first one charted."""
    return t(
        "chart-caption",
        lang,
        name=escape_name(name),
        amount=amount,
        start=start,
        net=_signed(amount - start),
    )


# ---------------------------------------------------------------------- settings


def settings_menu(settings: ChatSettings, lang: str) -> Rendered:
    """The /settings menu, one line and one row of buttons per option of
    `bot.settings_options.OPTIONS`."""
    chat = settings.chat_id
    lines = [t("settings-header", lang), ""]
    rows: list[list[InlineKeyboardButton]] = []
    for option in OPTIONS:
        current = option.read(settings)
        if current:
            shown = current if option.own_language else lang
            word = option.word(current, shown)
            safe = html.escape(word) if isinstance(word, str) else word
            lines.append(t(option.line, shown, **{option.param: safe}))
        elif option.unset_line is not None:
            lines.append(t(option.unset_line, lang))
        buttons = []
        for value in option.values:
            label_lang = value if option.own_language else lang
            label = t(option.label, label_lang, value=option.word(value, label_lang))
            data = SettingButton(chat, option.key, value).encode()
            mark = "✅ " if value == current else ""
            buttons.append(InlineKeyboardButton(mark + label, callback_data=data))
        rows.extend(buttons[i : i + option.per_row] for i in range(0, len(buttons), option.per_row))
    if settings.overrides:
        items = ", ".join(html.escape(f"{k}={v}") for k, v in sorted(settings.overrides.items()))
        lines.append(t("settings-overrides", lang, items=items))
    lines.extend(["", t("settings-hint", lang)])
    close = SettingButton(chat, CLOSE, CLOSE_VALUE).encode()
    rows.append([InlineKeyboardButton(t("btn-close", lang), callback_data=close)])
    return Rendered("\n".join(lines), InlineKeyboardMarkup(rows))
