"""What only one player sees: the private hand message, the «👁 my cards» alert and the «💡»
odds alert."""

from __future__ import annotations

import html
from dataclasses import replace
from fractions import Fraction

from bot.i18n import number, t
from bot.render.common import (
    DEALT_PHASES,
    ROUND_PHASES,
    TIMED_PHASES,
    Rendered,
    Snapshot,
    action_rows,
    app_rows,
    bold_name,
    card,
    cards_text,
    clip,
    inline_markup,
    short_name,
)
from bot.render.tables import (
    cover_warning,
    hand_status,
    public_cards,
    round_banker,
    shown_round,
    time_left,
)
from rules.game import Game
from rules.odds import Odds, odds_for
from rules.scoring import hand_value
from rules.table import Hand, HandStatus, Phase


def owner_total(game: Game, own: Hand, lang: str) -> str:
    """The total of the cards the owner sees, marked when a dark card is not counted."""
    seen = own.visible_to_owner()
    total = hand_value([c for c in seen if c is not None], game.variant).total
    return t("hand-total_dark" if None in seen else "hand-total", lang, total=total)


def hand(s: Snapshot, player: int, lang: str) -> Rendered:
    game = s.game
    chat = html.escape(short_name(s.chat_title, 48)) if s.chat_title.strip() else ""
    chat = chat or t("hand-chat_fallback", lang, game=str(s.game_id))
    round_no = shown_round(game)
    lines = [t("hand-header" if round_no else "hand-header_first", lang, chat=chat, round=round_no)]
    if not game.is_seated(player):
        lines.append(t("hand-not_seated", lang))
        return Rendered("\n".join(lines), None)
    seat = game.seat(player)
    own = game.hands.get(player) if game.phase is not Phase.LOBBY else None
    if own is not None and own.cards:
        seen = own.visible_to_owner()
        shown = " ".join(t("hand-dark_card", lang) if c is None else card(c) for c in seen)
        lines += [t("hand-cards", lang, cards=shown), owner_total(game, own, lang)]
    elif game.phase in ROUND_PHASES:
        lines.append(t("hand-no_cards", lang))
    banker = round_banker(game)
    if player == banker == game.banker:
        # All his chips, the bank among them, as /balance and the result say them. (A bank
        # passed on at the round's end: this round's hand still shows what it played as.)
        mine_all = t("hand-banker_self", lang, balance=seat.balance + game.bank)
        held = " " + t("held-bank_note", lang, bank=game.bank) if game.bank else ""
        lines.append(mine_all + held)
    elif own is not None and own.stake:
        lines.append(t("hand-stake", lang, stake=own.stake, balance=seat.balance))
    else:
        lines.append(t("hand-balance", lang, balance=seat.balance))
    if banker is not None and banker != player and game.phase in DEALT_PHASES:
        banker_hand = game.hands.get(banker)
        if banker_hand is not None and banker_hand.cards:
            cards = public_cards(s, banker_hand, lang)
            lines.append(t("hand-banker_card", lang, name=bold_name(s, banker, lang), cards=cards))
    if game.bottom is not None and game.phase in ROUND_PHASES:
        lines.append(t("hand-bottom", lang, card=card(game.bottom)))
    legal = game.legal_actions()
    mine = legal.actor == player and legal.phase in TIMED_PHASES
    if game.phase is Phase.ENDED:
        # Not «waiting» for a turn that will never come.
        lines.append(t("prompt-ended", lang))
    elif own is not None and game.phase is not Phase.LOBBY and not mine:
        lines.append(t("hand-status", lang, status=hand_status(s, own, lang)))
    if mine:
        turn = legal.phase if legal.phase in (Phase.BANK, Phase.STAKE) else "draw"
        lines.append(t(f"hand-turn_{turn}", lang, minimum=legal.minimum, maximum=legal.maximum))
        if legal.phase is Phase.STAKE:
            lines.append(cover_warning(s, lang))  # beside the ⚠ buttons of this message
        lines.append(time_left(s, lang))  # (empty lines are dropped below)
    elif legal.actor is not None and legal.phase in TIMED_PHASES:
        lines.append(t("hand-waiting_for", lang, name=bold_name(s, legal.actor, lang)))
    text_ = "\n".join(line for line in lines if line)
    rows = action_rows(replace(s, lang=lang), peek=False) if mine else []
    return Rendered(text_, inline_markup([*rows, *app_rows(s, lang, private=True)]))


def peek(s: Snapshot, player: int, lang: str) -> str:
    """The "👁 my cards" alert: only the presser sees it."""
    game = s.game
    own = game.hands.get(player)
    if own is None or not game.is_seated(player) or game.phase in (Phase.LOBBY, Phase.ENDED):
        return t("peek-not_playing", lang)
    if not own.cards:
        key = "peek-not_playing" if own.status is HandStatus.OUT else "peek-no_cards"
        return clip(t(key, lang))
    seen = own.visible_to_owner()
    total = hand_value([c for c in seen if c is not None], game.variant).total
    key = "peek-cards_dark" if None in seen else "peek-cards"
    return clip(t(key, lang, cards=cards_text(seen), total=total))


def odds_alert(odds: Odds, lang: str) -> str:
    """The "💡" alert: the chances of a bust and of 21 with the next card, as "k of n (p%)"."""
    if odds.candidates == 0:
        return t("odds-no_cards", lang)

    def part(share: Fraction, cards: Fraction) -> str:
        percent = number(share * 100, lang, decimals=1)  # rounded half up
        if cards.denominator != 1:  # own unknown cards: no whole count to show
            return t("odds-part_percent", lang, percent=percent)
        return t("odds-part", lang, count=int(cards), total=odds.candidates, percent=percent)

    bust = part(odds.bust, odds.bust_cards)
    twenty_one = part(odds.twenty_one, odds.twenty_one_cards)
    return clip(t("odds-alert", lang, bust=bust, twenty_one=twenty_one))


def odds_text(game: Game, player: int, lang: str) -> str:
    """The answer to «💡»: ``player``'s odds with the next card, or that only whoever is
    drawing now sees them."""
    found = odds_for(game, player)
    return t("odds-not_drawing", lang) if found is None else odds_alert(found, lang)
