"""The lobby message: the preset, who has sat down, and the buttons to join, leave, start or
cancel (with the deep link when someone has not opened the private chat)."""

from __future__ import annotations

from telegram import InlineKeyboardButton

from bot.callbacks import Act
from bot.i18n import t
from bot.render.common import (
    Rendered,
    Snapshot,
    _app_rows,
    _button,
    _fit,
    _markup,
    _name,
    _preset_label,
    deep_link,
)


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
    rows += _app_rows(s, lang, private=False)
    return Rendered(_fit(head, body, tail, lang), _markup(rows))


def _summary(preset_name: str, lang: str) -> str:
    key = f"preset-{preset_name}-summary"
    summary = t(key, lang)
    return "" if summary == key else summary
