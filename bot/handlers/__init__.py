"""Telegram handlers: parse → service → render, by feature (docs/architecture.md lists them),
registered by `bot.commands`. Game actions commit before the bot answers, and delivery shows
them afterwards; the handlers read and write through the service, never the storage."""
