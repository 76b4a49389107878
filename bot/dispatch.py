"""Which handler answers which update: every handler of `bot.handlers`, in order, in one place
(:func:`register`), the commands from their table (`bot.commands`).

Above both: the command table refers to the handlers, so the handlers never import it (nor
this module), and the imports go one way.
"""

from __future__ import annotations

from typing import Any

from telegram import Update
from telegram.ext import (
    Application,
    CallbackQueryHandler,
    ChatMemberHandler,
    MessageHandler,
    TypeHandler,
    filters,
)

from bot import commands
from bot.handlers.chat_settings import on_setting_button
from bot.handlers.chats import on_error, on_migration, on_my_membership, reopen_chat
from bot.handlers.endgame import on_end_button
from bot.handlers.game import on_game_button, on_unknown_button
from bot.handlers.private import on_private_text, remember_language


def register(application: Application[Any, Any, Any, Any, Any, Any]) -> None:
    """Every handler, in order. Commands answer new messages only: an edited message must not
    run its command again."""
    new = filters.UpdateType.MESSAGE
    application.add_handler(TypeHandler(Update, remember_language), group=-2)
    application.add_handler(TypeHandler(Update, reopen_chat), group=-1)
    commands.register(application)
    application.add_handler(CallbackQueryHandler(on_game_button, pattern=r"^g:"))
    application.add_handler(CallbackQueryHandler(on_setting_button, pattern=r"^s:"))
    application.add_handler(CallbackQueryHandler(on_end_button, pattern=r"^e:"))
    application.add_handler(CallbackQueryHandler(on_unknown_button))
    application.add_handler(MessageHandler(filters.StatusUpdate.MIGRATE, on_migration))
    application.add_handler(ChatMemberHandler(on_my_membership, ChatMemberHandler.MY_CHAT_MEMBER))
    application.add_handler(
        MessageHandler(
            filters.ChatType.PRIVATE & filters.TEXT & ~filters.COMMAND & new, on_private_text
        )
    )
    application.add_error_handler(on_error)
