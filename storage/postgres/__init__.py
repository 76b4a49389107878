"""The PostgreSQL backend (asyncpg): a pool of connections shared by the transactions.

connection.py owns the pool; migrate.py gives the migration runner (storage/migrations) its
version table and advisory lock; block.py is one transaction on its pooled connection, running
the tables' SQL of storage/sql (shared with the SQLite backend). driver.py types the part of
asyncpg used and turns its errors into storage errors. Several bot processes may share one
database: each table module says how its read-then-write statements stay correct under
concurrency.
"""

from storage.postgres.block import PostgresTransaction
from storage.postgres.connection import POOL_MAX, PostgresStorage

__all__ = ["POOL_MAX", "PostgresStorage", "PostgresTransaction"]
