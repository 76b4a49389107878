"""A settled round as the Mini App's replay page shows it, as JSON: the round card by card (who
got which card and when, the dark and the bottom cards, the stakes, the chips to and from the
bank), its result, and the revealed shuffles — the page checks the proof of docs/fairness.md
itself (static/replay.js: SHA-256 with WebCrypto), so this view hands over the facts and no
verdict. A pure view made of :mod:`bot.render`'s pieces; the round is over, so every card is
shown (its deck was revealed at the showdown)."""

from __future__ import annotations

from functools import cache
from typing import Any

from bot import render
from bot.i18n import t
from bot.webapp.view import card_json, plain
from rules.cards import Card
from rules.events import (
    BANK,
    BottomCardShown,
    CardDealt,
    ChipsMoved,
    DeckShuffled,
    Event,
    RoundRecord,
    RoundSettled,
    RoundStarted,
    StakePlaced,
    Stood,
)

# The replay page's own words (static/replay.js asks for each by its id less "app-"). The
# page fills in their ``{mark}``s.
REPLAY_LABELS = (
    "app-replay-title",
    "app-replay-proof",
    "app-replay-checking",
    "app-replay-holds",
    "app-replay-fails",
    "app-replay-hash_ok",
    "app-replay-hash_bad",
    "app-replay-deal_ok",
    "app-replay-deal_bad",
    "app-replay-bottom_bad",
    "app-replay-count_bad",
    "app-replay-no_proof",
    "app-replay-no_crypto",
    "app-replay-commitment",
    "app-replay-salt",
    "app-replay-order",
    "app-replay-prev",
    "app-replay-next",
    "app-replay-first",
    "app-replay-last",
    "app-replay-step",
    "app-replay-how",
    "app-bank",
    "app-stake",
    "app-dark_card",
    "app-bottom",
)
# The marks the page fills in (passed to the catalogs as themselves: "{n}" stays "{n}").
_MARKS = ("round", "n", "computed", "committed", "place", "card", "expected", "total")


@cache
def replay_labels(lang: str) -> dict[str, str]:
    marks = {mark: "{" + mark + "}" for mark in _MARKS}
    return {key.removeprefix("app-"): t(key, lang, **marks) for key in REPLAY_LABELS}


def _name(s: render.Snapshot, player: int) -> str:
    return s.names.get(player) or t("player-unknown", s.lang, id=str(player))


def _frame(s: render.Snapshot, event: Event) -> dict[str, Any] | None:
    """One moment of the replay (None: nothing to show of this event)."""
    lang = s.lang
    say = render.text  # the catalogs' words, each str parameter escaped (undone by plain)
    if isinstance(event, DeckShuffled):
        key = "replay-reshuffled" if event.recycled else "replay-shuffled"
        line = say(key, lang, cards=event.cards, hash=event.commitment)
        return {"kind": "shuffled", "commitment": event.commitment, "text": line}
    if isinstance(event, BottomCardShown):
        shown = card_json(Card.parse(event.card))
        line = say("replay-bottom", lang, card=render.card(Card.parse(event.card)))
        return {"kind": "bottom", "card": shown, "text": line}
    if isinstance(event, CardDealt):
        drawn = Card.parse(event.card)
        key = "replay-card_dark" if event.dark else "replay-card"
        line = say(key, lang, name=_name(s, event.player), card=render.card(drawn))
        return {
            "kind": "card",
            "player": event.player,
            "card": card_json(drawn),
            "dark": event.dark,
            "face_up": event.face_up,
            "text": line,
        }
    if isinstance(event, StakePlaced):
        line = say("replay-stake", lang, name=_name(s, event.player), amount=event.amount)
        return {"kind": "stake", "player": event.player, "amount": event.amount, "text": line}
    if isinstance(event, ChipsMoved):
        moved = event.transfer
        if moved.target == BANK and moved.source != BANK:
            line = say("replay-to_bank", lang, name=_name(s, moved.source), amount=moved.amount)
        elif moved.source == BANK and moved.target != BANK:
            line = say("replay-from_bank", lang, name=_name(s, moved.target), amount=moved.amount)
        else:  # pragma: no cover - the engine moves chips between a player and the bank only
            return None
        return {"kind": "chips", "amount": moved.amount, "reason": moved.reason, "text": line}
    if isinstance(event, Stood) and event.reason == "choice":
        line = say("replay-stood", lang, name=_name(s, event.player))
        return {"kind": "stood", "player": event.player, "text": line}
    if isinstance(event, RoundSettled):
        return {"kind": "settled", "text": say("replay-settled", lang)}
    notes = render.announce(s, [event])
    return {"kind": event.kind, "text": notes[0]} if notes else None


def replay_state(s: render.Snapshot, record: RoundRecord) -> dict[str, Any]:
    """The round ``record`` of the game of ``s`` in ``s.lang``: its frames in order (each with
    the bank after it), the players (the banker first), the shuffles revealed, the result."""
    frames: list[dict[str, Any]] = []
    bank: int | None = None
    banker: int | None = None
    players: list[int] = []
    for number, step in enumerate(record.steps, 1):
        for event in step.events:
            if isinstance(event, RoundStarted) and event.round_no == record.round_no:
                bank, banker = event.bank, event.banker
                players.append(event.banker)
            elif isinstance(event, ChipsMoved) and bank is not None:
                moved = event.transfer
                bank += moved.amount if moved.target == BANK else 0
                bank -= moved.amount if moved.source == BANK else 0
            if bank is None:
                continue  # before the round was dealt (the bank being set): its start says it
            frame = _frame(s, event)
            if frame is None:
                continue
            if isinstance(event, CardDealt) and event.player not in players:
                players.append(event.player)
            frame["text"] = plain(frame["text"])
            frames.append(frame | {"step": number, "bank": bank})
    shown = render.result(s, record.settled, next_note=False).text
    lines = [line for raw in shown.split("\n") if (line := plain(raw)).strip()]
    preset = plain(t(f"preset-{s.game.variant.name}-name", s.lang))
    return {
        "game": s.game_id,
        "round": record.round_no,
        "heading": plain(t("table-header", s.lang, round=record.round_no, preset=preset)),
        "chat_title": s.chat_title,
        "banker": banker,
        "players": [{"id": p, "name": _name(s, p), "banker": p == banker} for p in players],
        "shuffles": [
            {
                "commitment": shuffle.commitment,
                "salt": shuffle.salt,
                "order": list(shuffle.order),
                "recycled": shuffle.recycled,
            }
            for shuffle in record.shuffles
        ],
        "frames": frames,
        "result": {"title": lines[0], "lines": lines[1:]},
    }


def replay_page(lang: str, replay: dict[str, Any]) -> dict[str, Any]:
    """The whole answer: the page's words and the round."""
    return {"ok": True, "lang": lang, "labels": replay_labels(lang), "replay": replay}
