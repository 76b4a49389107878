"""DATABASE_URL → a storage backend."""

from __future__ import annotations

import time
from collections.abc import Callable
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from storage.errors import MissingDriver, UnknownBackend, redact_url
from storage.postgres import POOL_MAX, PostgresStorage, driver
from storage.sql import Storage
from storage.sqlite import SqliteStorage


def open_storage(
    database_url: str,
    *,
    synchronous: str = "FULL",
    clock: Callable[[], float] = time.time,
    default_language: str = "ru",
) -> Storage:
    """A backend for the URL (its forms: docs/deployment.md; sqlite:///:memory: in tests), not
    yet started (call `await storage.start()`). A PostgreSQL URL is read by asyncpg but for
    pool_max=N, the bot's own: the most connections the process opens (default POOL_MAX).

    ``synchronous`` is SQLite's PRAGMA synchronous (PostgreSQL's durability is the server's
    configuration); ``default_language`` is the language of a chat that never saved its
    settings."""
    shown = redact_url(database_url)
    scheme, separator, rest = database_url.partition("://")
    if not separator or not scheme:
        raise UnknownBackend(shown, "not a URL")
    scheme = scheme.lower()
    if scheme in ("postgres", "postgresql"):
        dsn, pool_max = _postgres_url(database_url, shown)
        if not driver.available():
            raise MissingDriver(shown)
        return PostgresStorage(
            dsn, pool_max=pool_max, clock=clock, default_language=default_language
        )
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


def _postgres_url(url: str, shown: str) -> tuple[str, int]:
    """The DSN for asyncpg (without pool_max, which asyncpg would send to the server as a
    setting) and the pool size."""
    parts = urlsplit(url)
    if parts.fragment:
        raise UnknownBackend(shown, "a PostgreSQL URL has no #fragment")
    query = parse_qsl(parts.query, keep_blank_values=True)
    sizes = [value for key, value in query if key == "pool_max"]
    if not sizes:
        return url, POOL_MAX
    if len(sizes) > 1 or not sizes[0].isdigit() or int(sizes[0]) < 1:
        raise UnknownBackend(shown, "pool_max must be one whole number, at least 1")
    rest = urlencode([(key, value) for key, value in query if key != "pool_max"])
    return urlunsplit(parts._replace(query=rest)), int(sizes[0])
