"""Raw reads of a storage database of either backend, with a plain connection of their own: what
another process would see, i.e. only what is committed.

Synchronous, so that they read the same way from sync tests, async tests and the crash test's
parent process; on PostgreSQL the query runs on an event loop of its own in a helper thread.
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

import asyncpg

T = TypeVar("T")
Rows = list[tuple[Any, ...]]


def is_sqlite(url: str) -> bool:
    return url.lower().startswith("sqlite:")


def sqlite_path(url: str) -> str:
    if not is_sqlite(url):
        raise ValueError(f"not an SQLite URL: {url}")
    return url.split("://", 1)[1].removeprefix("/")


def on_postgres(url: str, work: Callable[[asyncpg.Connection], Awaitable[T]]) -> T:
    """Runs ``work`` on a fresh connection to the database, and waits for its result."""

    async def run() -> T:
        conn = await asyncpg.connect(url)
        try:
            return await work(conn)
        finally:
            await conn.close()

    # A thread of its own: the caller may be inside a running event loop (an async test).
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, run()).result()


def fetch(url: str, sql: str, *args: object) -> Rows:
    """The rows of one query, as tuples. Parameters: ``?`` on SQLite, ``$1`` on PostgreSQL."""
    if is_sqlite(url):
        conn = sqlite3.connect(sqlite_path(url))
        try:
            return conn.execute(sql, args).fetchall()
        finally:
            conn.close()

    async def work(conn: asyncpg.Connection) -> Rows:
        return [tuple(row.values()) for row in await conn.fetch(sql, *args)]

    return on_postgres(url, work)


def fetch_all(url: str, *queries: str) -> list[Rows]:
    """The rows of each query, all read in one transaction: one consistent view."""
    if is_sqlite(url):
        conn = sqlite3.connect(sqlite_path(url), isolation_level=None)
        try:
            conn.execute("BEGIN")
            try:
                return [conn.execute(sql).fetchall() for sql in queries]
            finally:
                conn.execute("ROLLBACK")
        finally:
            conn.close()

    async def work(conn: asyncpg.Connection) -> list[Rows]:
        async with conn.transaction(isolation="repeatable_read", readonly=True):
            return [[tuple(row.values()) for row in await conn.fetch(sql)] for sql in queries]

    return on_postgres(url, work)


def execute(url: str, sql: str) -> None:
    """One statement, committed: a change made behind the storage's back, as by another process."""
    if is_sqlite(url):
        conn = sqlite3.connect(sqlite_path(url))
        try:
            with conn:
                conn.execute(sql)
        finally:
            conn.close()
        return

    async def work(conn: asyncpg.Connection) -> None:
        await conn.execute(sql)

    on_postgres(url, work)


def tables(url: str) -> list[str]:
    """The names of the database's tables, sorted."""
    if is_sqlite(url):
        sql = "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name"
    else:
        sql = (
            "SELECT table_name::text FROM information_schema.tables WHERE table_type = 'BASE "
            "TABLE' AND table_schema NOT IN ('pg_catalog', 'information_schema') ORDER BY 1"
        )
    return [name for (name,) in fetch(url, sql)]


def columns(url: str, table: str) -> list[str]:
    if is_sqlite(url):
        return [row[1] for row in fetch(url, f"PRAGMA table_info({table})")]
    sql = (
        "SELECT column_name::text FROM information_schema.columns WHERE table_name = $1 "
        "AND table_schema NOT IN ('pg_catalog', 'information_schema') ORDER BY ordinal_position"
    )
    return [name for (name,) in fetch(url, sql, table)]


def snapshot(url: str) -> dict[str, Rows]:
    """Every row of every table, each table's rows sorted."""
    if is_sqlite(url):
        return {t: sorted(fetch(url, f"SELECT * FROM {t}"), key=repr) for t in tables(url)}

    async def work(conn: asyncpg.Connection) -> dict[str, Rows]:
        names = [
            (schema, name)
            for schema, name in await conn.fetch(
                "SELECT table_schema::text, table_name::text FROM information_schema.tables "
                "WHERE table_type = 'BASE TABLE' "
                "AND table_schema NOT IN ('pg_catalog', 'information_schema') ORDER BY 2"
            )
        ]
        result = {}
        for schema, name in names:
            rows = await conn.fetch(f'SELECT * FROM "{schema}"."{name}"')
            result[name] = sorted((tuple(row.values()) for row in rows), key=repr)
        return result

    return on_postgres(url, work)


def foreign_key_problems(url: str) -> Rows:
    """Rows whose foreign key names a row that does not exist: (table, key columns, values)."""
    if is_sqlite(url):
        return fetch(url, "PRAGMA foreign_key_check")

    async def work(conn: asyncpg.Connection) -> Rows:
        # Checked row by row rather than trusted: a constraint may be NOT VALID or deferred.
        keys = await conn.fetch(
            "SELECT c.conrelid::regclass::text AS child, c.confrelid::regclass::text AS parent, "
            "array(SELECT attname::text FROM unnest(c.conkey) WITH ORDINALITY k(n, i) "
            "JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.n ORDER BY i) "
            "AS columns, "
            "array(SELECT attname::text FROM unnest(c.confkey) WITH ORDINALITY k(n, i) "
            "JOIN pg_attribute a ON a.attrelid = c.confrelid AND a.attnum = k.n ORDER BY i) "
            "AS referenced FROM pg_constraint c WHERE c.contype = 'f'"
        )
        problems: Rows = []
        for key in keys:
            child, parent = key["child"], key["parent"]
            present = " AND ".join(f'c."{col}" IS NOT NULL' for col in key["columns"])
            match = " AND ".join(
                f'p."{ref}" = c."{col}"'
                for col, ref in zip(key["columns"], key["referenced"], strict=True)
            )
            cols = ", ".join(f'c."{col}"' for col in key["columns"])
            rows = await conn.fetch(
                f"SELECT {cols} FROM {child} c WHERE {present} "
                f"AND NOT EXISTS (SELECT 1 FROM {parent} p WHERE {match})"
            )
            problems += [(child, tuple(key["columns"]), tuple(row.values())) for row in rows]
        return problems

    return on_postgres(url, work)
