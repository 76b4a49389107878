"""The PostgreSQL backend (asyncpg): a pool of connections shared by the transactions.

connection.py owns the pool and runs the migrations; block.py is one transaction on its pooled
connection; each group of tables has a module of its own (games, ledger, stats, chats,
delivery, chat_migration, claims) whose read and write mixins make up PostgresStorage and
PostgresTransaction, as in the SQLite backend. driver.py types the part of asyncpg used and
turns its errors into storage errors. Several bot processes may share one database: each
module says how its read-then-write statements stay correct under concurrency.
"""

from storage.postgres.connection import POOL_MAX, PostgresStorage
from storage.postgres.transaction import PostgresTransaction

__all__ = ["POOL_MAX", "PostgresStorage", "PostgresTransaction"]
