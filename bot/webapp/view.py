"""What one person's Mini App shows of a game, as JSON, in the snapshot's language. A pure view
made of :mod:`bot.render`'s pieces: the texts are the chat's, HTML turned into plain text, since
the page puts every string in with ``textContent``. Every hand but the viewer's is
:meth:`~rules.table.Hand.visible_to_others`, the viewer's own ``visible_to_owner`` — decided here,
on what the server sends, never left to the page.
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from functools import cache
from typing import Any

from bot import deep_links, render
from bot.callbacks import Act
from bot.i18n import t
from bot.render.common import DEALT_PHASES, ROUND_PHASES, TIMED_PHASES, Offer, action_offers
from bot.render.hands import owner_total
from bot.render.lobbies import lobby_offers
from bot.render.tables import cover_warning, hand_status, round_banker, shown_round, table_prompt
from rules.cards import Card
from rules.events import RoundSettled
from rules.scoring import hand_value
from rules.table import Phase

# Acts the page offers: 👁 («my cards») is the page itself.
PAGE_ACTS = frozenset(Act) - {Act.PEEK}
NEWS_SHOWN = 5
_TAG = re.compile(r"<[^>]*>")
# The page's own words, by key (the catalogs' app-<key> messages): static/app.js holds no
# words and asks for exactly these (tests/bot/test_miniapp_labels.py).
LABELS = (
    "title",
    "bank",
    "banker",
    "stake",
    "balance",
    "your_cards",
    "your_turn",
    "bottom",
    "events",
    "result",
    "no_game",
    "connecting",
    "offline",
    "live",
    "seconds",
    "not_seated",
    "waiting_next",
    "players",
    "dark_card",
    "deck_hash",
    "replay_link",
    "achievements",
)


def plain(fragment: str) -> str:
    """Telegram HTML as the plain text it shows (names were escaped when it was rendered, so
    no tag here came from a user)."""
    return html.unescape(_TAG.sub("", fragment))


@cache
def labels(lang: str) -> dict[str, str]:
    return {key: t(f"app-{key}", lang) for key in LABELS}


def card_json(c: Card | None) -> dict[str, Any] | None:
    if c is None:
        return None
    return {"code": c.code, "text": render.card(c), "red": c.suit in ("H", "D")}


def _chips(s: render.Snapshot, player: int) -> int:
    """A seated person's chips as the chat counts them (💰): the banker's bank is his too (the
    chat adds how much of it is in the bank; the page shows the bank beside the banker)."""
    game = s.game
    held = game.bank if player == game.banker else 0
    return game.seat(player).balance + held


def _seat(s: render.Snapshot, player: int, in_round: bool, banker: int | None) -> dict[str, Any]:
    game, lang = s.game, s.lang
    hand = game.hands.get(player) if in_round else None
    seat = game.seat(player) if game.is_seated(player) else None
    entry: dict[str, Any] = {
        "id": player,
        "name": s.names.get(player) or t("player-unknown", lang, id=str(player)),
        "me": False,  # the viewer's own seat is marked per page (game_state)
        "banker": player == banker,
        "on_turn": game.turn == player and game.phase in ROUND_PHASES,
        "stake": None,
        "cards": [],
        "total": None,
        "status": "",
        "balance": _chips(s, player) if seat is not None else None,
        "leaving": bool(seat is not None and seat.leaving),
    }
    if hand is not None:
        # Everyone's hand as the group sees it, the viewer's too: what the page shows of a
        # seat must be what the others see of it; the viewer's own cards are in "me".
        entry["stake"] = hand.stake or None
        entry["cards"] = [card_json(c) for c in hand.visible_to_others()]
        if hand.revealed:
            entry["total"] = hand_value(hand.cards, game.variant).total
        entry["status"] = plain(hand_status(s, hand, lang))
    return entry


def _me(s: render.Snapshot, viewer: int) -> dict[str, Any] | None:
    game, lang = s.game, s.lang
    if not game.is_seated(viewer):
        return None
    own = game.hands.get(viewer) if game.phase is not Phase.LOBBY else None
    cards: list[dict[str, Any] | None] = []
    total_text = ""
    status = ""
    if own is not None and own.cards:
        cards = [{"dark": True} if c is None else card_json(c) for c in own.visible_to_owner()]
        total_text = plain(owner_total(game, own, lang))
    if own is not None and game.phase in DEALT_PHASES:
        status = plain(hand_status(s, own, lang))
    return {
        "seated": True,
        "banker": viewer == game.banker,
        "stake": own.stake if own is not None and own.stake else None,
        "balance": _chips(s, viewer),
        "cards": cards,
        "total_text": total_text,
        "status": status,
    }


def _actions(s: render.Snapshot, viewer: int) -> list[dict[str, Any]]:
    """The buttons this person may press now: the offers of the chat's own keyboards (so the
    page offers exactly the amounts and labels the chat does, from the game's legal actions),
    less those meant for someone else."""
    game = s.game
    legal = game.legal_actions()
    seated = game.is_seated(viewer)
    if game.phase is Phase.ENDED:
        return []
    if game.phase is Phase.LOBBY:
        rows = lobby_offers(s)
        allowed = {Act.LEAVE, Act.START} if seated else {Act.JOIN}
        if viewer == s.creator_id:
            allowed.add(Act.CANCEL)
    elif legal.actor == viewer and legal.phase in TIMED_PHASES and not s.paused:
        rows = action_offers(s, peek=False)  # the private hand's
        allowed = set(PAGE_ACTS)
    else:
        rows = action_offers(s, peek=False)  # the table's
        if seated:
            allowed = {Act.NEXT, Act.RESUME} | ({Act.PASS} if viewer == game.banker else set())
        else:
            # Mid-game a newcomer sits down for the next round (the chat's /join does the same).
            rows = [*rows, [Offer(Act.JOIN, t("btn-join", s.lang))]]
            allowed = {Act.JOIN}
    return [
        {"act": offer.act.value, "label": offer.label, "amount": offer.amount, "version": s.version}
        for row in rows
        for offer in row
        if offer.act in allowed
    ]


def _turn(s: render.Snapshot, viewer: int) -> dict[str, Any] | None:
    legal = s.game.legal_actions()
    actor = legal.actor
    if actor is None or legal.phase not in TIMED_PHASES:
        return None
    return {
        "id": actor,
        "name": s.names.get(actor, str(actor)),
        "mine": actor == viewer and not s.paused,
        "deadline": None if s.paused else s.deadline,
    }


def _prompt(s: render.Snapshot) -> str:
    """The table's prompt; between rounds, that the next one starts by itself, with the
    page's own countdown (``next_round_at``) instead of a number that would go stale."""
    if _next_round_at(s) is not None:
        return plain(t("prompt-next_round", s.lang))
    return plain(table_prompt(s, s.game.legal_actions(), s.lang))


def _next_round_at(s: render.Snapshot) -> float | None:
    """When the next round deals itself (None: not between rounds, or the table is paused)."""
    return s.deadline if s.game.phase is Phase.ROUND_OVER and not s.paused else None


def table_state(
    s: render.Snapshot,
    *,
    news: Sequence[Any] = (),
    settled: RoundSettled | None = None,
    chat_title: str = "",
    end_note: str = "",
) -> dict[str, Any]:
    """What everyone at the table sees of this version (the same for every page that reads it:
    worked out once per version and language, see :func:`game_state`). ``news`` are the stored
    notable events (decoded), ``settled`` the result of the round on the table when known."""
    game, lang = s.game, s.lang
    in_round = game.phase in DEALT_PHASES and bool(game.hands)
    banker = round_banker(game) if in_round else game.banker
    if in_round:
        order = [p for p in (banker, *game.order) if p is not None and p in game.hands]
        waiting = [p for p in game.players if p not in order and p != game.banker]
    else:
        order = [p for p in game.players if p != banker]
        order, waiting = ([banker] if banker is not None else []) + order, []
    seats = [_seat(s, player, in_round, banker) for player in order]
    banker_json = None
    if game.banker is not None:
        banker_json = {"name": s.names.get(game.banker, str(game.banker)), "bank": game.bank}
    round_no = shown_round(game)
    preset = plain(t(f"preset-{game.variant.name}-name", lang))
    if game.phase is Phase.LOBBY:
        heading = plain(t("lobby-header", lang)) + " · " + preset
    else:
        key = "table-header" if round_no else "table-header_first"
        heading = plain(t(key, lang, round=round_no, preset=preset))
    result = None
    if settled is not None and game.phase in (Phase.ROUND_OVER, Phase.ENDED):
        shown = render.result(s, settled, next_note=False).text
        lines = [line for raw in shown.split("\n") if (line := plain(raw)).strip()]
        result = {"title": lines[0], "lines": lines[1:]}  # (a result has its header)
        if settled.shuffles:  # its replay, where the page checks the deck
            result["replay"] = deep_links.replay_param(s.game_id, settled.round_no)
    notes = [plain(note) for note in render.announce(s, news)][-NEWS_SHOWN:]
    if end_note:
        notes.append(plain(end_note))
    return {
        "id": s.game_id,
        "version": s.version,
        "phase": game.phase.value,
        "round": round_no,
        "heading": heading,
        "chat_title": chat_title,
        "banker": banker_json,
        "bottom": card_json(game.bottom) if game.phase in ROUND_PHASES else None,
        # The whole hash, from before the first card (the chat shows its first 16 digits).
        "commitment": (
            game.shuffles[-1]["commitment"]
            if game.shuffles and game.phase in DEALT_PHASES
            else None
        ),
        "seats": seats,
        "waiting": [s.names.get(p, str(p)) for p in waiting],
        "prompt": _prompt(s),
        "next_round_at": _next_round_at(s),
        "news": notes,
        "result": result,
    }


def game_state(
    s: render.Snapshot, viewer: int, table: dict[str, Any] | None = None
) -> dict[str, Any]:
    """The game as ``viewer`` may see it; ``table`` is :func:`table_state` of the same snapshot
    (worked out now when not given)."""
    shared = table if table is not None else table_state(s)
    seats = [seat | {"me": True} if seat["id"] == viewer else seat for seat in shared["seats"]]
    actions = _actions(s, viewer)
    prompt = shared["prompt"]
    if any(action["act"] == Act.BET.value for action in actions):
        # The ⚠ of a stake button is explained beside it, to whoever is offered it.
        warning = plain(cover_warning(s, s.lang))
        prompt = f"{prompt} · {warning}" if warning else prompt
    return shared | {
        "seats": seats,
        "prompt": prompt,
        "me": _me(s, viewer),
        "turn": _turn(s, viewer),
        "actions": actions,
    }


def achievements(earned: Sequence[tuple[str, int]], lang: str) -> list[dict[str, Any]]:
    """The person's achievements in the chat, (code, round) in the order earned: each with
    its name, what it is for and the round that earned it (codes this version does not know
    left out)."""
    return [
        {
            "code": code,
            "title": title,
            "about": t(f"achievement-{code}-about", lang),
            "round": plain(t("stats-achievement_round", lang, round=round_no)),
        }
        for code, round_no in earned
        if (title := render.achievement_title(code, lang)) is not None
    ]


def page_state(
    lang: str, now: float, game: dict[str, Any] | None, earned: Sequence[tuple[str, int]] = ()
) -> dict[str, Any]:
    """The whole answer: the page's words, the server's clock (for the countdown), the game
    and the person's achievements in its chat."""
    return {
        "lang": lang,
        "labels": labels(lang),
        "server_time": now,
        "game": game,
        "achievements": achievements(earned, lang),
    }
