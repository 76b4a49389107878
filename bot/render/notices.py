"""A call to play: the private notice that a table opened in a group (with the button that
seats the person and the one that stops the notices), and the 🔔 button of the group's lobby
and results that switches the presser's notices of that group on or off."""

from __future__ import annotations

from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from bot.callbacks import NoticeAct, NoticeButton
from bot.i18n import t
from bot.render.common import Rendered, text


def notice(*, chat_id: int, chat_title: str, game_id: int, opener: str, lang: str) -> Rendered:
    """The notice a subscriber gets in his private chat when ``opener`` opens a table."""
    body = text("notice-text", lang, chat=chat_title or str(chat_id), name=opener)
    rows = [
        [
            InlineKeyboardButton(
                t("btn-join", lang),
                callback_data=NoticeButton(NoticeAct.JOIN, game_id).encode(),
            )
        ],
        [
            InlineKeyboardButton(
                t("notice-btn-off", lang),
                callback_data=NoticeButton(NoticeAct.OFF, chat_id).encode(),
            )
        ],
    ]
    return Rendered(body, InlineKeyboardMarkup(rows))


def switch_row(lang: str) -> list[InlineKeyboardButton]:
    """The group's 🔔: the presser's notices of this group, on or off (the toast says which)."""
    data = NoticeButton(NoticeAct.SWITCH).encode()
    return [InlineKeyboardButton(t("notice-btn-switch", lang), callback_data=data)]


def switched(on: bool, lang: str, *, private_open: bool = True) -> str:
    """The toast of a switch: what he gets from now on (and where he must write first)."""
    if not on:
        return t("notice-off", lang)
    return t("notice-on" if private_open else "notice-on_closed", lang)
