"""The live table message of the group: the banker and the bank, each hand as the others may see
it, whose move it is and the time left, the news line of notable events (:func:`announce`), and
the mention of a player whose turn it is and who has no private chat."""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial

from bot.i18n import t
from bot.render.common import (
    DEALT_PHASES,
    ROUND_PHASES,
    TIMED_PHASES,
    Rendered,
    Snapshot,
    action_offers,
    action_rows,
    app_rows,
    bold_name,
    card,
    cards_text,
    fit_text,
    inline_markup,
    mention,
    preset_label,
)
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
    SatOut,
    SessionEnded,
    Stood,
    TwentyOne,
)
from rules.game import Game
from rules.scoring import hand_value
from rules.table import Hand, HandStatus, Legal, Phase

NEWS_LINES = 3  # the most lines of news a table shows (a turn rarely has more than one)


def turn_mention(user_id: int, raw_name: str, lang: str) -> str:
    """The group message that tells a player without a private chat it is their move."""
    return t("turn-mention", lang, mention=mention(user_id, raw_name))


# ---------------------------------------------------------------------- the table


def round_banker(game: Game) -> int | None:
    """The banker of the round on the table (the bank may have passed since it ended)."""
    for player in game.hands:
        if player not in game.order:
            return player
    return game.banker


def hand_status(s: Snapshot, hand: Hand, lang: str) -> str:
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
    return t("status-waiting" if status is HandStatus.DRAWING else f"status-{status}", lang)


def public_cards(s: Snapshot, hand: Hand, lang: str) -> str:
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
    hand = game.hands.get(player) if game.phase in DEALT_PHASES else None
    details: list[str] = []
    if hand is not None:
        if hand.stake:
            details.append(t("table-stake", lang, amount=hand.stake))
        if hand.cards:
            details.append(public_cards(s, hand, lang))
        details.append(hand_status(s, hand, lang))
    details += _chips(s, player, lang)
    name = bold_name(s, player)
    return t("table-player_row", lang, place=place, name=name, details=" · ".join(details))


def _chips(s: Snapshot, player: int, lang: str) -> list[str]:
    """`table-balance`: the chips a seated player holds (the one meaning of 💰 and of the
    catalogs' word for chips on every screen: a banker's bank is his too), and that they leave
    after the round."""
    game = s.game
    if not game.is_seated(player):
        return []
    seat = game.seat(player)
    chips = [t("table-balance", lang, amount=seat.balance)]
    if seat.leaving:
        chips.append(t("status-leaving", lang))
    return chips


def _banker_line(s: Snapshot, banker: int | None, lang: str) -> str:
    """The banker's one row (`table-bank`): the bank and their cards as the others see them.
    Their 💰 only while no bank is named: 💰 is all a person's chips, and beside a bank it
    would read as chips besides it (the result and /balance say how much of it is in the
    bank)."""
    game = s.game
    if banker is None:
        return t("table-no_banker", lang)
    details: list[str] = []
    bank = banker == game.banker and (game.bank > 0 or game.phase in DEALT_PHASES)
    if bank:
        details.append(t("table-bank", lang, bank=game.bank))
    hand = game.hands.get(banker) if game.phase in DEALT_PHASES else None
    if hand is not None and hand.cards:
        details.append(public_cards(s, hand, lang))
        if hand.revealed:  # on his turn the prompt below says he draws
            details.append(hand_status(s, hand, lang))
    chips = _chips(s, banker, lang)
    details += chips[1:] if bank else chips
    return t("table-banker_row", lang, name=bold_name(s, banker), details=" · ".join(details))


def table_prompt(s: Snapshot, legal: Legal, lang: str) -> str:
    """What the table waits for, in one short line (the time left and the ⚠ note are the
    table's own: :func:`time_left`, :func:`cover_warning`)."""
    game = s.game
    actor = legal.actor
    if legal.phase is Phase.BANK and actor is not None:
        return t("prompt-bank", lang, name=bold_name(s, actor), maximum=legal.maximum)
    if s.paused and game.phase is not Phase.ROUND_OVER and actor is not None:
        return t("prompt-paused", lang, name=bold_name(s, actor))
    if legal.phase in ROUND_PHASES and actor is not None:
        # A stake's «up to N»: it is never below 1 (rules.state.stake_range), and the line is short.
        return t(f"prompt-{legal.phase}", lang, name=bold_name(s, actor), maximum=legal.maximum)
    if game.phase is Phase.ROUND_OVER:
        # The result below says when the next round starts (and loses that line when it
        # has): a table edited once at the showdown would keep a countdown that went stale.
        return t("prompt-paused_between" if s.paused else "prompt-round_over", lang)
    if game.phase is Phase.ENDED:
        # The summary with the final balances is the message below: the table only says so.
        return t("prompt-ended_below" if game.round_no else "prompt-ended", lang)
    return ""


def cover_warning(s: Snapshot, lang: str) -> str:
    """«⚠ payout guaranteed up to N»: what the ⚠ of a stake button means, said exactly when a
    button offered now carries it (the bank may owe the others first); empty otherwise."""
    legal = s.game.legal_actions()
    offers = [offer for row in action_offers(s, peek=False) for offer in row]
    if legal.actor is None or not any(offer.warn for offer in offers):
        return ""
    return t("prompt-stake_cover", lang, cover=s.game.stake_cover(legal.actor))


def seconds_left(s: Snapshot) -> int:
    return 0 if s.deadline is None else max(0, int(s.deadline - s.now + 0.999))


def next_round_note(s: Snapshot, lang: str) -> str:
    """Between rounds, while nothing has paused the table: the next round deals itself in
    N s, or at once. Said only where it is taken back when it stops being true (the result,
    see `bot.delivery`), never on a table left behind."""
    if s.game.phase is not Phase.ROUND_OVER or s.paused or s.deadline is None:
        return ""
    return t("prompt-next_round_in", lang, seconds=seconds_left(s))


def time_left(s: Snapshot, lang: str) -> str:
    if s.deadline is None or s.game.phase not in TIMED_PHASES or s.paused:
        return ""
    return t("table-time_left", lang, seconds=seconds_left(s))


def shown_round(game: Game) -> int:
    """The number of the round a table (or hand) is about: while the bank is being named it is
    the round to come, not the one before it."""
    return game.round_no + 1 if game.phase is Phase.BANK else game.round_no


def deck_hash_shown(game: Game) -> bool:
    """Whether the table shows the deck's hash: when the round is dealt, before anyone's first
    move (the commitment is public before a card is played), and once it is over (the round's
    message ends with the hash /verify checks). In between it would only crowd the table."""
    if not game.shuffles or game.phase not in DEALT_PHASES:
        return False
    untouched = (HandStatus.WAITING, HandStatus.OUT)
    return game.phase is Phase.ROUND_OVER or all(
        not hand.stake and hand.status in untouched
        for player, hand in game.hands.items()
        if player in game.order
    )


def table(s: Snapshot, news: Sequence[str] = ()) -> Rendered:
    """The live table message of the group, with the news of the turn (``news``, from
    :func:`announce`). Every line but the players' rows fits a phone's message bubble
    (tests/bot/test_glance.py)."""
    game, lang = s.game, s.lang
    preset = preset_label(game.variant.name, lang)
    round_no = shown_round(game)
    key = "table-header" if round_no else "table-header_first"
    head = [t(key, lang, round=round_no, preset=preset)]
    if game.bottom is not None and game.phase in ROUND_PHASES:
        head.append(t("table-bottom", lang, card=card(game.bottom)))
    if deck_hash_shown(game):
        # Only the commitment: the salt and the order stay secret until the showdown.
        prefix = game.shuffles[-1]["commitment"][:16]
        head.append(t("table-commitment", lang, prefix=prefix))
    in_round = game.phase in DEALT_PHASES and bool(game.hands)
    banker = round_banker(game) if in_round else game.banker
    playing = game.order if in_round else []
    body = [_banker_line(s, banker, lang)]
    body += [_player_line(s, place, p, lang) for place, p in enumerate(playing, 1)]
    others = [p for p in game.players if p not in playing and p not in (banker, game.banker)]
    if others and in_round:
        names = ", ".join(bold_name(s, p) for p in others)
        body.append(t("table-waiting_next", lang, names=names))
    else:
        body.extend(_player_line(s, place, p, lang) for place, p in enumerate(others, 1))
    prompt = f"{table_prompt(s, game.legal_actions(), lang)} {time_left(s, lang)}".strip()
    tail = [*news[-NEWS_LINES:], "", *(line for line in (prompt, cover_warning(s, lang)) if line)]
    text_ = fit_text(head, body, tail, lang)
    if game.phase is Phase.ENDED:
        return Rendered(text_, None)
    rows = [*action_rows(s, peek=True), *app_rows(s, lang, private=False)]
    return Rendered(text_, inline_markup(rows))


# ---------------------------------------------------------------------- news


# The news that names one person: the catalog id and the event's field that holds him, by the
# kind of event, or by its kind and reason (other reasons make no news).
_NEWS: dict[object, tuple[str, str]] = {
    BankBroken: ("news-bank_broken", "banker"),
    BankerTurn: ("news-banker_turn", "banker"),
    PlayerSeated: ("news-joined", "player"),
    PlayerLeft: ("news-left", "player"),
    LeaveScheduled: ("news-leave_scheduled", "player"),
    (Stood, "timeout"): ("news-timeout_stand", "player"),
    (Stood, "dark"): ("news-dark", "player"),
    (SatOut, "timeout"): ("news-timeout_out", "player"),
    (SatOut, "bank_empty"): ("news-bank_empty", "player"),
    (SatOut, "cannot_afford"): ("news-sat_out", "player"),
}


def announce(s: Snapshot, events: Sequence[Event]) -> list[str]:
    """One-line notes of the notable events of an action (no hidden card is ever named)."""
    lang, name = s.lang, partial(bold_name, s)
    notes: list[str] = []
    for event in events:
        found = _NEWS.get(type(event)) or _NEWS.get((type(event), getattr(event, "reason", "")))
        if found is not None:
            key, who = found
            notes.append(t(key, lang, name=name(getattr(event, who))))
        elif isinstance(event, TwentyOne):
            key = "news-golden" if event.golden else "news-twenty_one"
            note = t(key, lang, name=name(event.player), paid=event.paid)
            if event.due > event.paid:
                note += " " + t("news-paid_short", lang, due=event.due)
            notes.append(note)
        elif isinstance(event, Busted):
            notes.append(t("news-bust", lang, name=name(event.player), total=event.total))
        elif isinstance(event, BankPassed):
            if event.new_banker is None:
                notes.append(t("news-bank_nobody", lang))
            elif event.reason == "declined":
                old = name(event.old_banker)
                notes.append(t("news-bank_declined", lang, old=old, name=name(event.new_banker)))
            else:
                notes.append(t("news-bank_passed", lang, name=name(event.new_banker)))
        elif isinstance(event, BankerChosen) and event.by_lot:
            notes.append(t("news-banker_lot", lang, name=name(event.player)))
        elif isinstance(event, BankSet):
            notes.append(t("news-bank_set", lang, name=name(event.banker), amount=event.amount))
        elif isinstance(event, NaturalsSettled):
            if event.banker_natural and s.game.banker is not None:
                notes.append(t("news-naturals_banker", lang, name=name(s.game.banker)))
            elif event.players:
                names = ", ".join(name(p) for p in event.players)
                notes.append(t("news-naturals_players", lang, names=names))
        elif isinstance(event, DeckShuffled) and event.recycled:
            notes.append(t("news-reshuffled", lang))
        elif isinstance(event, SessionEnded):
            notes.append(t("news-session_ended", lang))
    return notes
