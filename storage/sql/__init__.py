"""The SQL of every table, written once for both backends.

One module per group of tables (games, ledger, chats, delivery, screens, stats, claims,
deadlines, chat_migration) holds its statements, with `$1` placeholders, as mixins over
storage/sql/base.py: read mixins, shared by a storage object and its transactions; queries only
the storage object runs; write mixins of a transaction. dialect.py holds the few fragments
where SQLite and PostgreSQL differ. A backend (storage/sqlite, storage/postgres) provides the
connection the statements run on and assembles the two classes below with it; a new table
module is added here once.
"""

from storage.interface import Storage, Transaction
from storage.sql.chat_migration import ChatMigration
from storage.sql.chats import ChatReads, ChatWrites
from storage.sql.claims import LeaseReads, LeaseWrites
from storage.sql.deadlines import DeadlineReads, DeadlineWrites
from storage.sql.delivery import DeliveryReads, DeliveryWrites
from storage.sql.games import GameQueries, GameReads, GameWrites
from storage.sql.ledger import LedgerQueries, LedgerReads, LedgerWrites
from storage.sql.screens import ScreenQueries, ScreenReads, ScreenWrites
from storage.sql.stats import StatsQueries, StatsWrites


class StorageTables(
    ChatReads,
    GameReads,
    GameQueries,
    LedgerReads,
    LedgerQueries,
    StatsQueries,
    DeliveryReads,
    ScreenReads,
    ScreenQueries,
    LeaseReads,
    DeadlineReads,
    Storage,
):
    """The reads of a storage object (outside transactions), over its backend's `_rows`."""


class TransactionTables(
    ChatWrites,
    GameWrites,
    LedgerWrites,
    StatsWrites,
    DeliveryWrites,
    ScreenWrites,
    ChatMigration,
    LeaseWrites,
    DeadlineWrites,
    ChatReads,
    GameReads,
    LedgerReads,
    DeliveryReads,
    ScreenReads,
    LeaseReads,
    DeadlineReads,
    Transaction,
):
    """The reads and writes of one transaction, over its backend's `_rows`, `_execute` and
    `_executemany`."""


__all__ = ["StorageTables", "TransactionTables"]
