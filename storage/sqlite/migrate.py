"""The SQLite side of the migrations (storage/migrations): the version is `PRAGMA user_version`,
each step runs in the BEGIN IMMEDIATE transaction that records it (its write lock keeps other
processes' runners out)."""

from __future__ import annotations

import sqlite3
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import aiosqlite

from storage.migrations import StepDb
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


class SqliteStepDb(StepDb):
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

    async def version(self) -> int:
        rows = list(await self._conn.execute_fetchall("PRAGMA user_version"))
        return int(rows[0][0])

    async def record(self, version: int) -> None:
        # PRAGMA takes no parameters; the value is our own integer.
        await self._conn.execute(f"PRAGMA user_version = {version:d}")

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[None]:
        await self._conn.execute("BEGIN IMMEDIATE")
        try:
            yield
            await self._conn.execute("COMMIT")
        except BaseException:
            if self._conn.in_transaction:
                await self._conn.execute("ROLLBACK")
            raise
