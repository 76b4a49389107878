"""A local Telegram Bot API server for end-to-end tests and the offline sandbox.

Importing this package imports nothing third-party, so `python3 -m localbotapi.sandbox` can
set up the virtualenv first; the names below load on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .flood import FloodLimits
    from .models import CallbackAnswer, CallbackQuery, Chat, FakeBot, FakeUser, Message
    from .server import BotApiServer, ServerThread

__all__ = [
    "BotApiServer",
    "CallbackAnswer",
    "CallbackQuery",
    "Chat",
    "FakeBot",
    "FakeUser",
    "FloodLimits",
    "Message",
    "ServerThread",
]

_HOMES = {
    "BotApiServer": "server",
    "ServerThread": "server",
    "FloodLimits": "flood",
    "CallbackAnswer": "models",
    "CallbackQuery": "models",
    "Chat": "models",
    "FakeBot": "models",
    "FakeUser": "models",
    "Message": "models",
}


def __getattr__(name: str) -> Any:
    if name in _HOMES:
        from importlib import import_module

        return getattr(import_module(f".{_HOMES[name]}", __name__), name)
    raise AttributeError(name)
