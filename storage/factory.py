"""DATABASE_URL → a storage backend."""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from typing import Final

from storage.errors import UnknownBackend
from storage.interface import Storage
from storage.sqlite import SqliteStorage

DEFAULT_DATABASE_URL: Final = "sqlite:///ochko.sqlite3"


def _redact(url: str) -> str:
    """Hide a password, because the URL ends up in start-up error messages and logs."""
    return re.sub(r"^([a-zA-Z][\w+.-]*://[^/@:]*):[^/@]*@", r"\1:***@", url)


def open_storage(
    database_url: str,
    *,
    synchronous: str = "FULL",
    clock: Callable[[], float] = time.time,
    default_language: str = "ru",
) -> Storage:
    """A backend for the URL, not yet started (call `await storage.start()`).

    ``default_language`` is the language of a chat that never saved its settings.

    sqlite:///relative/path, sqlite:////absolute/path, sqlite:///:memory: (tests only).
    """
    shown = _redact(database_url)
    scheme, separator, rest = database_url.partition("://")
    if not separator or not scheme:
        raise UnknownBackend(shown, "not a URL")
    scheme = scheme.lower()
    if scheme in ("postgres", "postgresql"):
        raise UnknownBackend(shown, "the PostgreSQL backend is not implemented yet")
    if scheme != "sqlite":
        raise UnknownBackend(shown, f"unknown scheme {scheme!r}")
    if not rest.startswith("/"):
        raise UnknownBackend(shown, "an SQLite URL has no host: use three slashes")
    path = rest[1:]
    if not path:
        raise UnknownBackend(shown, "no database path")
    if "?" in path or "#" in path:
        raise UnknownBackend(shown, "URL parameters are not supported")
    return SqliteStorage(
        path, synchronous=synchronous, clock=clock, default_language=default_language
    )
