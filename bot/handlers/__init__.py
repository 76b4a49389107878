"""Telegram handlers: parse → service → render, by feature (registered by `bot.dispatch`).

- `common`: the runtime, the opening of a typed command, answers, acting on a game;
- `game`: typed moves, /newgame, /table and the game's buttons; `endgame`: /endgame;
- `info`: /help, /rules, /balance, /top, /stats, /chart, /verify, /odds, /hand;
- `chat_settings`: /settings; `private`: /start, /lang, the private chat, languages;
- `chats`: migration, the bot's membership, errors.

Game actions run under the game's lock and commit before the bot answers; what the chat sees
is shown by delivery afterwards (`bot.delivery`). The handlers read and write through the
service (`bot.service`), never the storage, and ask it who may do what (`bot.permissions`).
"""

from __future__ import annotations

from bot.handlers.common import Handler, Runtime, on_timer
from bot.handlers.info import month_start

__all__ = ["Handler", "Runtime", "month_start", "on_timer"]
