"""The live table message of the group: the banker and the bank, each hand as the others may see
it, whose move it is and the time left, the news line of notable events (:func:`announce`), and
the mention of a player whose turn it is and who has no private chat."""

from __future__ import annotations

from collections.abc import Sequence

from bot.i18n import t
from bot.render.common import (
    ROUND_PHASES,
    TIMED_PHASES,
    Rendered,
    Snapshot,
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
    in_round = game.phase in (*ROUND_PHASES, Phase.ROUND_OVER)
    hand = game.hands.get(player) if in_round else None
    details: list[str] = []
    if hand is not None:
        if hand.stake:
            details.append(t("table-stake", lang, amount=hand.stake))
        if hand.cards:
            details.append(public_cards(s, hand, lang))
        details.append(hand_status(s, hand, lang))
    if game.is_seated(player):
        seat = game.seat(player)
        details.append(t("table-balance", lang, amount=seat.balance))
        if seat.leaving:
            details.append(t("status-leaving", lang))
    return t(
        "table-player_row",
        lang,
        place=place,
        name=bold_name(s, player),
        details=" · ".join(details),
    )


def table_prompt(s: Snapshot, legal: Legal, lang: str) -> str:
    game = s.game
    actor = legal.actor
    if legal.phase is Phase.BANK and actor is not None:
        return t("prompt-bank", lang, name=bold_name(s, actor), maximum=legal.maximum)
    if s.paused and game.phase is not Phase.ROUND_OVER and actor is not None:
        return t("prompt-paused", lang, name=bold_name(s, actor))
    if legal.phase is Phase.STAKE and actor is not None:
        prompt = t(
            "prompt-stake",
            lang,
            name=bold_name(s, actor),
            minimum=legal.minimum,
            maximum=legal.maximum,
        )
        return prompt + cover_note(game, actor, legal, lang)
    if legal.phase is Phase.DRAW and actor is not None:
        return t("prompt-draw", lang, name=bold_name(s, actor))
    if legal.phase is Phase.BANKER and actor is not None:
        return t("prompt-banker", lang, name=bold_name(s, actor))
    if game.phase is Phase.ROUND_OVER:
        return next_round_note(s, lang) or t("prompt-round_over", lang)
    if game.phase is Phase.ENDED:
        # The summary with the final balances is the message below: the table only says so.
        return t("prompt-ended_below" if game.round_no else "prompt-ended", lang)
    return ""


def cover_note(game: Game, player: int, legal: Legal, lang: str) -> str:
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


def time_left(s: Snapshot, lang: str) -> str:
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
    preset = preset_label(game.variant.name, lang)
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
                name=bold_name(s, game.banker),
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
    banker_now = round_banker(game) if in_round else None
    if banker_now is not None and banker_now in game.hands:
        banker_hand = game.hands[banker_now]
        cards = public_cards(s, banker_hand, lang)
        if game.phase is Phase.BANKER or banker_hand.revealed:
            cards += " · " + hand_status(s, banker_hand, lang)
        body.append(t("table-banker_row", lang, name=bold_name(s, banker_now), cards=cards))
        listed.add(banker_now)
    if in_round:
        for place, player in enumerate(game.order, 1):
            body.append(_player_line(s, place, player, lang))
            listed.add(player)
    others = [p for p in game.players if p not in listed and p != game.banker]
    if others:
        if in_round:
            names = ", ".join(bold_name(s, p) for p in others)
            body.append(t("table-waiting_next", lang, names=names))
        else:
            start = len(listed) + 1
            body.extend(_player_line(s, start + i, p, lang) for i, p in enumerate(others))
    legal = game.legal_actions()
    tail: list[str] = [""]
    prompt = table_prompt(s, legal, lang)
    timer = time_left(s, lang)
    if prompt and timer:
        tail.append(f"{prompt} · {timer}")
    elif prompt or timer:
        tail.append(prompt or timer)
    for line in news[-5:]:
        tail.append(t("table-news", lang, text=line))
    text_ = fit_text(head, body, tail, lang)
    if game.phase is Phase.ENDED:
        return Rendered(text_, None)
    rows = [*action_rows(s, peek=True), *app_rows(s, lang, private=False)]
    return Rendered(text_, inline_markup(rows))


# ---------------------------------------------------------------------- news


def announce(s: Snapshot, events: Sequence[Event]) -> list[str]:
    """One-line notes of the notable events of an action (no hidden card is ever named)."""
    lang = s.lang
    notes: list[str] = []

    def name(player: int) -> str:
        return bold_name(s, player)

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
