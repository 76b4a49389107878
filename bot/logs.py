"""Logging set-up: one stream handler whose lines never carry a secret or a hidden card.

The bot token and the webhook secret are replaced wherever they appear (PTB's HTTP client logs
request URLs). At DEBUG, python-telegram-bot logs every request's parameters and every update —
the private hand messages, with the cards a player has not shown yet, among them — so the
arguments of telegram's own debug records are reduced to short scalars (the endpoint's name
stays, the payload goes).

With LOG_FORMAT=json each record is one JSON object on one line (:class:`JsonFormatter`), with
the chat and the game it is about where known: named in the message (``chat=…``, ``game=…``,
the bot's habit), else the chat of the update being handled and the game being acted on
(:func:`bind`, a context variable of the task). The same filter and the same redaction apply.
"""

from __future__ import annotations

import logging
import re
from contextvars import ContextVar
from datetime import UTC, datetime

import orjson

PAYLOAD = "<payload not logged>"
_chat: ContextVar[int | None] = ContextVar("ochko_log_chat", default=None)
_game: ContextVar[int | None] = ContextVar("ochko_log_game", default=None)
_NAMED = re.compile(r"\b(chat|game)[= ](-?\d+)")
_UNSET = object()
SHORT = 64  # characters: an endpoint name or a count passes, a message text or an update does not


class RedactingFormatter(logging.Formatter):
    """Keeps the bot token out of every log line."""

    def __init__(self, fmt: str, secrets: list[str]) -> None:
        super().__init__(fmt)
        self._secrets = [s for s in secrets if s]

    def format(self, record: logging.LogRecord) -> str:
        text = super().format(record)
        for secret in self._secrets:
            text = text.replace(secret, "<redacted>")
        return text


def bind(*, chat: object = _UNSET, game: object = _UNSET) -> None:
    """The chat and game this task's log records are about from now on (None: none)."""
    if chat is not _UNSET:
        _chat.set(chat if isinstance(chat, int) else None)
    if game is not _UNSET:
        _game.set(game if isinstance(game, int) else None)


class JsonFormatter(RedactingFormatter):
    """One JSON object per line: time, level, logger, message, chat and game where known, and
    the traceback of an exception. Redacted as the text lines are."""

    def __init__(self, secrets: list[str]) -> None:
        super().__init__("%(message)s", secrets)

    def format(self, record: logging.LogRecord) -> str:
        message = record.getMessage()
        entry: dict[str, object] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": message,
        }
        named = {key: int(value) for key, value in _NAMED.findall(message)}
        chat = named.get("chat", _chat.get())
        game = named.get("game", _game.get())
        if chat is not None:
            entry["chat"] = chat
        if game is not None:
            entry["game"] = game
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        elif record.exc_text:
            entry["exception"] = record.exc_text
        text = orjson.dumps(entry).decode()
        for secret in self._secrets:
            text = text.replace(secret, "<redacted>")
        return text


class NoPayloads(logging.Filter):
    """Drops request parameters, responses and updates from python-telegram-bot's debug lines."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.name.startswith("telegram") and record.levelno <= logging.DEBUG and record.args:
            args = record.args if isinstance(record.args, tuple) else (record.args,)
            record.args = tuple(_short(arg) for arg in args)
        return True


def _short(arg: object) -> object:
    if isinstance(arg, bool | int | float):
        return arg
    if isinstance(arg, str) and len(arg) <= SHORT and "\n" not in arg:
        return arg
    return PAYLOAD


def configure_logging(level: str, secrets: list[str], log_format: str = "text") -> None:
    handler = logging.StreamHandler()
    if log_format == "json":
        handler.setFormatter(JsonFormatter(secrets))
    else:
        handler.setFormatter(
            RedactingFormatter("%(asctime)s %(levelname)s %(name)s: %(message)s", secrets)
        )
    handler.addFilter(NoPayloads())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)
    # One line per HTTP request is noise at INFO; failures still show as warnings.
    logging.getLogger("httpx").setLevel(logging.WARNING)
