"""SqliteTransaction: a transaction block with the reads and writes of every group of tables."""

from __future__ import annotations

from storage.interface import Transaction
from storage.sqlite.chat_migration import ChatMigration
from storage.sqlite.chats import ChatReads, ChatWrites
from storage.sqlite.claims import ClaimWrites, LeaseReads
from storage.sqlite.delivery import DeliveryReads, DeliveryWrites
from storage.sqlite.games import GameReads, GameWrites
from storage.sqlite.ledger import LedgerReads, LedgerWrites
from storage.sqlite.stats import StatsWrites


class SqliteTransaction(
    ChatWrites,
    GameWrites,
    LedgerWrites,
    StatsWrites,
    DeliveryWrites,
    ChatMigration,
    ClaimWrites,
    ChatReads,
    GameReads,
    LedgerReads,
    DeliveryReads,
    LeaseReads,
    Transaction,
):
    """The reads and writes of one block of a group commit (see SqliteStorage)."""
