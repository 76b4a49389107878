"""The SQLite backend (aiosqlite): connection.py owns the connection (its PRAGMAs, the group
commit), block.py is one transaction block, cache.py keeps chat settings and users, migrate.py
keeps the schema version in PRAGMA user_version."""

from storage.sqlite.connection import SqliteStorage

__all__ = ["SqliteStorage"]
