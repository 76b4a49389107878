"""The /settings menu of a chat: one line and one row of buttons per option."""

from __future__ import annotations

import html

from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from bot.callbacks import SettingButton
from bot.i18n import t
from bot.render.common import Rendered
from bot.settings_options import CLOSE, CLOSE_VALUE, OPTIONS
from storage.models import ChatSettings


def settings_menu(settings: ChatSettings, lang: str) -> Rendered:
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
