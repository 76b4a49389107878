"""Persistence of chats, players, games, the ledger and statistics.

bot/ codes against `Storage` and `Transaction`; `open_storage(DATABASE_URL)` picks the backend.
"""

from storage.errors import (
    ConcurrencyConflict,
    CorruptDatabase,
    DatabaseTooNew,
    GameExists,
    GameNotFound,
    InsufficientFunds,
    MissingDriver,
    StorageError,
    TransactionClosed,
    UnknownAccount,
    UnknownBackend,
    UnopenableDatabase,
    VersionConflict,
)
from storage.factory import open_storage
from storage.migrations import MIGRATIONS, Migration
from storage.models import (
    UNSET,
    Account,
    Achievement,
    ChatSettings,
    GameStatus,
    LeaderboardRow,
    LedgerCheck,
    Player,
    PlayerStats,
    Refill,
    Screen,
    Season,
    StatsDelta,
    StoredGame,
    Transfer,
    User,
)
from storage.postgres import PostgresStorage
from storage.sql import Storage, Transaction
from storage.sqlite import SqliteStorage

__all__ = [
    "MIGRATIONS",
    "UNSET",
    "Account",
    "Achievement",
    "ChatSettings",
    "ConcurrencyConflict",
    "CorruptDatabase",
    "DatabaseTooNew",
    "GameExists",
    "GameNotFound",
    "GameStatus",
    "InsufficientFunds",
    "LeaderboardRow",
    "LedgerCheck",
    "Migration",
    "MissingDriver",
    "Player",
    "PlayerStats",
    "PostgresStorage",
    "Refill",
    "Screen",
    "Season",
    "SqliteStorage",
    "StatsDelta",
    "Storage",
    "StorageError",
    "StoredGame",
    "Transaction",
    "TransactionClosed",
    "Transfer",
    "UnknownAccount",
    "UnknownBackend",
    "UnopenableDatabase",
    "User",
    "VersionConflict",
    "open_storage",
]
