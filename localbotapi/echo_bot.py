"""A minimal python-telegram-bot bot for the sandbox's smoke test (and a sanity check of the
server against PTB's real Application, polling loop and SIGTERM handling).

/start answers "hi" (plus its parameter, if any); any other text is echoed back with two
buttons, naming the message it replies to; a press is answered with a toast and announced in the
chat, and "Stop" answers with a deep link into the private chat, as the real bot does for a player
who has never opened it. Configured like the real bot: BOT_TOKEN and BOT_API_BASE_URL.
"""

from __future__ import annotations

import os

from telegram import InlineKeyboardButton, InlineKeyboardMarkup, Update
from telegram.ext import (
    Application,
    CallbackQueryHandler,
    CommandHandler,
    ContextTypes,
    MessageHandler,
    filters,
)

BUTTONS = InlineKeyboardMarkup(
    [
        [
            InlineKeyboardButton("Again", callback_data="again"),
            InlineKeyboardButton("Stop", callback_data="stop"),
        ]
    ]
)


async def start(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    if update.effective_message is not None:
        await update.effective_message.reply_text(" ".join(["hi", *(context.args or [])]))


async def echo(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    message = update.effective_message
    if message is None or message.text is None:
        return
    text = f"echo: {message.text}"
    replied = message.reply_to_message
    if replied is not None and replied.from_user is not None:
        text += f" (a reply to {replied.from_user.first_name} #{replied.message_id})"
    await message.reply_text(text, reply_markup=BUTTONS)


async def pressed(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    query = update.callback_query
    if query is None:
        return
    if query.data == "stop":
        await query.answer(url=f"https://t.me/{context.bot.username}?start=stopped")
    else:
        await query.answer(f"pressed {query.data}")
    if query.message is not None and query.message.chat is not None:
        await context.bot.send_message(
            query.message.chat.id, f"{query.from_user.first_name} pressed {query.data}"
        )


def main() -> None:
    application = (
        Application.builder()
        .token(os.environ["BOT_TOKEN"])
        .base_url(os.environ.get("BOT_API_BASE_URL", "https://api.telegram.org/bot"))
        .build()
    )
    application.add_handler(CommandHandler("start", start))
    application.add_handler(MessageHandler(filters.TEXT & ~filters.COMMAND, echo))
    application.add_handler(CommandHandler("chart", echo))  # a command that reads the reply
    application.add_handler(CallbackQueryHandler(pressed))
    application.run_polling(timeout=10)


if __name__ == "__main__":
    main()
