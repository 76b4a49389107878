"""Errors raised by the storage layer.

Every message is a single line: start-up errors are printed to the operator as they are.
"""

from __future__ import annotations

import re

from storage.models import Account


def redact_url(url: str) -> str:
    """The URL with its password hidden (in the user part or as a password= parameter): a
    database URL ends up in start-up error messages and logs."""
    url = re.sub(r"^([a-zA-Z][\w+.-]*://[^/@:]*):[^/@]*@", r"\1:***@", url)
    return re.sub(r"([?&]password=)[^&#]*", r"\1***", url, flags=re.IGNORECASE)


class StorageError(Exception):
    """Base class of every error raised by storage/."""


class ConcurrencyConflict(StorageError):
    """The transaction lost a race with another one (of several bot processes on a PostgreSQL
    database: a deadlock broken, a serialization failure, a game saved from a stale copy, which
    is `VersionConflict`). Nothing of it was committed: run it again against the fresh state."""


class VersionConflict(ConcurrencyConflict):
    def __init__(self, game_id: int, expected: int, actual: int) -> None:
        self.game_id, self.expected, self.actual = game_id, expected, actual
        super().__init__(
            f"game {game_id} is at version {actual}, not {expected}: "
            "it was changed concurrently, reload it and retry"
        )


class GameNotFound(StorageError):
    def __init__(self, game_id: int) -> None:
        super().__init__(f"game {game_id} does not exist")


class GameExists(StorageError):
    def __init__(self, chat_id: int, thread_id: int) -> None:
        self.chat_id, self.thread_id = chat_id, thread_id
        super().__init__(f"chat {chat_id} thread {thread_id} already has a game in progress")


class DatabaseTooNew(StorageError):
    def __init__(self, found: int, supported: int) -> None:
        self.found, self.supported = found, supported
        super().__init__(
            f"database schema version {found} is newer than this bot supports ({supported}); "
            "upgrade the bot or restore an older backup"
        )


class CorruptDatabase(StorageError):
    def __init__(self, path: str, detail: str) -> None:
        super().__init__(
            f"database {path!r} is corrupt or unreadable ({detail}); "
            "the file was left untouched, restore a backup or move it away"
        )


class UnopenableDatabase(StorageError):
    """The database file cannot be opened or created: a missing folder, no permission, a folder
    where the file should be. Nothing is wrong with the data; ``reason`` says what to fix."""

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(f"cannot open database {path!r}: {reason}")


class UnknownBackend(StorageError):
    def __init__(self, url: str, reason: str = "unknown scheme") -> None:
        super().__init__(
            f"cannot use DATABASE_URL {url!r}: {reason}; "
            "expected sqlite:///relative/path, sqlite:////absolute/path "
            "or postgresql://user@host:port/database"
        )


class MissingDriver(StorageError):
    def __init__(self, url: str) -> None:
        super().__init__(
            f"DATABASE_URL {url!r} is a PostgreSQL database, but its driver (asyncpg) is not "
            "installed: pip install 'ochko-bot[postgres]' (in a checkout: "
            ".venv/bin/pip install -c .ci/constraints.txt '.[postgres]')"
        )


class UnknownAccount(StorageError):
    def __init__(self, chat_id: int, account: Account) -> None:
        self.account = account
        super().__init__(f"chat {chat_id} has no account {account.kind}:{account.id}")


class InsufficientFunds(StorageError):
    """A transfer would have made a balance or a bank negative; nothing was written."""

    def __init__(self, account: Account, needed: int, available: int) -> None:
        self.account, self.needed, self.available = account, needed, available
        super().__init__(f"{account.kind} {account.id} has {available} chips, {needed} needed")


class TransactionClosed(StorageError):
    """A transaction object was used after its block ended, or storage is not started."""
