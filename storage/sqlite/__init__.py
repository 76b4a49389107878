"""The SQLite backend (aiosqlite): the connection owner and its transactions.

connection.py owns the connection (lock, PRAGMAs, group commit); block.py is one transaction
block (its statements run on the event loop's thread), running the tables' SQL of storage/sql
(shared with the PostgreSQL backend); cache.py keeps chat settings and users; migrate.py is
what the migration runner (storage/migrations) needs of SQLite: the version in PRAGMA
user_version.
"""

from storage.sqlite.block import SqliteTransaction
from storage.sqlite.connection import SqliteStorage

__all__ = ["SqliteStorage", "SqliteTransaction"]
