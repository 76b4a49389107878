"""The SQLite runner of the migrations (storage/migrations): the version is `PRAGMA
user_version`, each step runs in the BEGIN IMMEDIATE transaction that records it."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

import aiosqlite

from storage.errors import DatabaseTooNew
from storage.migrations import MIGRATIONS, Migration, run_step
from storage.sql.base import Row
from storage.sql.dialect import SQLITE


def split_script(script: str) -> list[str]:
    """Split an SQL script into statements, respecting strings and trigger bodies."""
    statements: list[str] = []
    pending = ""
    for line in script.splitlines(keepends=True):
        pending += line
        if sqlite3.complete_statement(pending):
            statement = pending.strip()
            if statement.strip(";\n "):
                statements.append(statement)
            pending = ""
    if pending.strip():
        statements.append(pending.strip())
    return statements


class _StepDb:
    """A step's view of the connection (storage.migrations.StepDb)."""

    dialect = SQLITE

    def __init__(self, conn: aiosqlite.Connection) -> None:
        self._conn = conn

    async def script(self, script: str) -> None:
        # Python's executescript() would commit the open transaction first: one by one.
        for statement in split_script(script):
            await self._conn.execute(statement)

    async def rows(self, sql: str, *args: object) -> list[Row]:
        return list(await self._conn.execute_fetchall(SQLITE.sql(sql), args))

    async def execute(self, sql: str, *args: object) -> None:
        await self._conn.execute(SQLITE.sql(sql), args)


async def schema_version(conn: aiosqlite.Connection) -> int:
    rows = list(await conn.execute_fetchall("PRAGMA user_version"))
    return int(rows[0][0])


async def migrate(conn: aiosqlite.Connection, steps: Sequence[Migration] = MIGRATIONS) -> int:
    """Bring the database up to `len(steps)`; returns the number of steps applied.

    Each step runs in the transaction that records its version, so a crash leaves the database at
    the previous or the next version, never in between.
    """
    supported = len(steps)
    applied = 0
    while True:
        current = await schema_version(conn)
        if current > supported:
            raise DatabaseTooNew(current, supported)
        if current == supported:
            return applied
        await conn.execute("BEGIN IMMEDIATE")
        try:
            # Another process may have migrated while we waited for the write lock.
            if await schema_version(conn) != current:
                await conn.execute("ROLLBACK")
                continue
            await run_step(steps[current], _StepDb(conn))
            # PRAGMA takes no parameters; the value is our own integer.
            await conn.execute(f"PRAGMA user_version = {current + 1:d}")
            await conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                await conn.execute("ROLLBACK")
            raise
        applied += 1
