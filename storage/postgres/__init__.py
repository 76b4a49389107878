"""The PostgreSQL backend (asyncpg): connection.py owns the pool, block.py is one transaction on
a pooled connection, driver.py types the part of asyncpg used and turns its errors into storage
errors, migrate.py keeps the schema version under an advisory lock. Several bot processes may
share one database: each table module says how it stays correct under concurrency."""

from storage.postgres.block import PostgresTransaction
from storage.postgres.connection import POOL_MAX, PostgresStorage

__all__ = ["POOL_MAX", "PostgresStorage", "PostgresTransaction"]
