"""The SQLite backend (aiosqlite): the connection owner and its transactions.

connection.py owns the connection (lock, PRAGMAs, group commit); block.py is one transaction
block (its statements run on the event loop's thread); each group of tables has a module of
its own (games, ledger, stats, chats, delivery, chat_migration) whose read and write mixins
make up SqliteStorage and SqliteTransaction.
"""

from storage.sqlite.connection import SqliteStorage
from storage.sqlite.transaction import SqliteTransaction

__all__ = ["SqliteStorage", "SqliteTransaction"]
