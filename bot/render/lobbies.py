"""The lobby message: the preset, who has sat down, and the buttons to join, leave, start or
cancel (with the deep link when someone has not opened the private chat)."""

from __future__ import annotations

from telegram import InlineKeyboardButton

from bot import deep_links
from bot.callbacks import Act
from bot.i18n import has, t
from bot.render.common import (
    Offer,
    Rendered,
    Snapshot,
    app_rows,
    bold_name,
    fit_text,
    game_button,
    inline_markup,
    preset_label,
)
from bot.render.notices import switch_row


def lobby(s: Snapshot) -> Rendered:
    game, lang = s.game, s.lang
    variant = game.variant
    summary = f"preset-{variant.name}-summary"
    head = [
        t("lobby-header", lang),
        t("lobby-preset", lang, preset=preset_label(variant.name, lang)),
        t(summary, lang) if has(summary) else "",
        "",
        t("lobby-players", lang, count=len(game.seats), maximum=variant.max_seats),
    ]
    body = []
    for index, seat in enumerate(game.seats, 1):
        marks = ["✉"] if seat.player in s.private_ok else []
        if seat.player == s.creator_id:
            marks.append(f"({t('lobby-creator', lang)})")
        body.append(" ".join([f"{index}.", bold_name(s, seat.player), *marks]))
    if not game.seats:
        body.append(t("lobby-empty", lang))
    strangers = any(p not in s.private_ok for p in game.players)  # no private chat yet
    tail = [""]
    if strangers:
        tail.append(t("lobby-private_hint", lang))
    missing = variant.min_seats - len(game.seats)
    if missing > 0:
        tail.append(t("lobby-need_more", lang, count=missing))
    elif len(game.seats) >= variant.max_seats:
        tail.append(t("lobby-full", lang))
    else:
        tail.append(t("lobby-ready", lang))
    rows = [[game_button(s, offer) for offer in row] for row in lobby_offers(s)]
    rows.append(switch_row(lang))  # tell me when a table opens here
    if s.bot_username and strangers:
        link = deep_links.build(s.bot_username, s.game_id)  # opens the private chat
        rows.append([InlineKeyboardButton(t("btn-open_private", lang), url=link)])
    rows += app_rows(s, lang, private=False)
    return Rendered(fit_text(head, body, tail, lang), inline_markup(rows))


def lobby_offers(s: Snapshot) -> list[list[Offer]]:
    lang = s.lang
    return [
        [Offer(Act.JOIN, t("btn-join", lang)), Offer(Act.LEAVE, t("btn-leave", lang))],
        [Offer(Act.START, t("btn-start", lang)), Offer(Act.CANCEL, t("btn-cancel", lang))],
    ]
