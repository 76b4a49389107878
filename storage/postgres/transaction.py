"""PostgresTransaction: a transaction block with the reads and writes of every group of tables."""

from __future__ import annotations

from storage.interface import Transaction
from storage.postgres.chat_migration import ChatMigration
from storage.postgres.chats import ChatReads, ChatWrites
from storage.postgres.claims import LeaseReads, LeaseWrites
from storage.postgres.delivery import DeliveryReads, DeliveryWrites
from storage.postgres.games import GameReads, GameWrites
from storage.postgres.ledger import LedgerReads, LedgerWrites
from storage.postgres.stats import StatsWrites


class PostgresTransaction(
    ChatWrites,
    GameWrites,
    LedgerWrites,
    StatsWrites,
    DeliveryWrites,
    ChatMigration,
    LeaseWrites,
    ChatReads,
    GameReads,
    LedgerReads,
    DeliveryReads,
    LeaseReads,
    Transaction,
):
    """The reads and writes of one transaction, on the pooled connection it holds."""
