"""Logging set-up: one stream handler whose lines never carry a secret or a hidden card.

The bot token and the webhook secret are replaced wherever they appear (PTB's HTTP client logs
request URLs). At DEBUG, python-telegram-bot logs every request's parameters and every update —
the private hand messages, with the cards a player has not shown yet, among them — so the
arguments of telegram's own debug records are reduced to short scalars (the endpoint's name
stays, the payload goes).
"""

from __future__ import annotations

import logging

PAYLOAD = "<payload not logged>"
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


def configure_logging(level: str, secrets: list[str]) -> None:
    handler = logging.StreamHandler()
    handler.setFormatter(
        RedactingFormatter("%(asctime)s %(levelname)s %(name)s: %(message)s", secrets)
    )
    handler.addFilter(NoPayloads())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)
    # One line per HTTP request is noise at INFO; failures still show as warnings.
    logging.getLogger("httpx").setLevel(logging.WARNING)
