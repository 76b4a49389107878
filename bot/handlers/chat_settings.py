"""A group's /settings menu and its buttons (the options are `bot.settings_options`)."""

from __future__ import annotations

from telegram import CallbackQuery, InlineKeyboardMarkup
from telegram.error import TelegramError

from bot import render, settings_options
from bot.callbacks import parse_setting
from bot.handlers import seasons
from bot.handlers.common import (
    Asked,
    Pressed,
    Runtime,
    answer,
    group_command,
    person_language,
    pressed,
)
from bot.service import Refused

SEASON_KEYS = ("season", "tz")  # the options that move the end of the chat's season


@group_command
async def cmd_settings(asked: Asked) -> None:
    rt, chat = asked.rt, asked.chat
    settings = await rt.service.admin_settings(chat.id, asked.admin())
    menu = render.settings_menu(settings, settings.language)
    await asked.say(menu.text, menu.markup, in_group=True)


@pressed
async def on_setting_button(press: Pressed) -> None:
    rt, query, lang, user, chat_id = press.rt, press.query, press.lang, press.user, press.chat_id
    button = parse_setting(query.data)
    if (
        button is None
        or button.chat_id != chat_id
        or not settings_options.valid(button.key, button.value)
    ):
        await answer(query, render.refusal("stale_button", {}, lang), alert=True)
        return
    admin = press.admin()
    closing = button.key == settings_options.CLOSE
    try:
        if closing:
            settings = await rt.service.admin_settings(chat_id, admin)
        else:
            settings = await rt.service.change_setting(chat_id, button.key, button.value, admin)
    except Refused as refused:
        if refused.code == "invalid_variant":
            # What does not go together, in the catalog's words (never the engine's English).
            await answer(query, render.setting_refusal(button.key, lang), alert=True)
        else:
            await answer(query, render.refusal(refused.code, refused.params, lang), alert=True)
        return
    if closing:
        await answer(query)
        _edit_later(rt, query, render.text("settings-saved", settings.language), None)
        return
    if button.key in SEASON_KEYS:
        await seasons.settings_changed(rt, chat_id)
    lang = await person_language(rt, user, chat_id)  # the chat's may have just changed
    await answer(query, render.text("settings-saved", lang))
    menu = render.settings_menu(settings, settings.language)
    _edit_later(rt, query, menu.text, menu.markup)


def _edit_later(
    rt: Runtime, query: CallbackQuery, text_: str, markup: InlineKeyboardMarkup | None
) -> None:
    """Edit the settings menu through the chat's lane: the handler never waits for the
    group's flood budget."""
    message = query.message
    if message is None:
        return

    async def edit() -> object:
        try:
            # The bot's method, not the query's shortcut: only ExtBot takes rate_limit_args.
            return await query.get_bot().edit_message_text(
                text_,
                chat_id=message.chat.id,
                message_id=message.message_id,
                reply_markup=markup,
                **rt.delivery.lanes.send_args(),
            )
        except TelegramError as error:
            if "not modified" not in str(error).lower():
                raise
            return None

    rt.delivery.lanes.post(message.chat.id, edit, "settings menu")
