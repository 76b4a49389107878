"""Moving an SQLite database to PostgreSQL: every table copied, then proven complete.

    python -m storage.copy sqlite:////data/ochko.sqlite3 postgresql://ochko:…@db:5432/ochko

The source is opened with the SQLite backend first, which brings it to the newest schema (as the
bot would at start), the target with the PostgreSQL backend, which creates the schema; both must
then be at the same version. Every table of the SQLite schema is copied column by column by
name, each value converted to the type of the target's column, in one PostgreSQL transaction,
parents before the tables whose foreign keys name them. Before that transaction commits, the
row count of every table and the books of every chat (`check_ledger`, run by each backend's own
code, the target's on the copy's uncommitted rows) are compared: any difference rolls the whole
copy back, so that a failed copy leaves the target as empty as it was.

Only an empty target is accepted (no row in any of the tables copied): merging two databases is
a different job, and refusing keeps a repeated command from doubling every balance.

Longer than 500 lines on purpose: the copy is one procedure (open both ends, copy in one
transaction, prove it, commit or roll back, report) whose steps share the open transaction and
its checks; split into modules, each part would only be read with the others.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sqlite3
import sys
import time
from collections.abc import AsyncIterator, Iterable, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any, Final, Protocol, cast

import aiosqlite

from storage.errors import StorageError, redact_url
from storage.factory import open_storage
from storage.models import LedgerCheck
from storage.postgres import PostgresStorage, PostgresTransaction
from storage.postgres.driver import DRIVER_ERRORS, Connection, storage_error, translated
from storage.postgres.migrate import PostgresStepDb
from storage.sql.ledger import LedgerQueries
from storage.sqlite import SqliteStorage
from storage.sqlite.migrate import SqliteStepDb

# Rows read from SQLite and sent with one COPY: a few MB of memory at most, and few enough
# round trips that COPY's speed (several times executemany's) is what counts.
CHUNK_ROWS: Final = 5000
# The PostgreSQL backend's own bookkeeping: SQLite keeps the version in PRAGMA user_version.
POSTGRES_ONLY: Final = frozenset({"schema_version"})
# How long to wait for the target's tables: longer means another process is using them.
LOCK_TIMEOUT_SECONDS: Final = 10
# PostgreSQL's SQLSTATE for a lock not granted within lock_timeout.
LOCK_NOT_AVAILABLE: Final = "55P03"
# A value shown in an error message is cut to this many characters (a game state is long).
SHOWN_VALUE: Final = 60


class CopyError(StorageError):
    """The copy was refused or failed; nothing of it was committed to the target."""


class TargetNotEmpty(CopyError):
    """The target database already holds rows."""


class SchemaMismatch(CopyError):
    """The two databases are at different schema versions, or their tables or columns differ."""


class VerificationFailed(CopyError):
    """What was copied does not add up to the source (row counts or a chat's books)."""


@dataclass(frozen=True, slots=True)
class CopyReport:
    """What a successful copy committed."""

    source: str  # the URLs with their passwords hidden
    target: str
    schema_version: int
    tables: tuple[tuple[str, int], ...]  # (table, rows copied), in the order they were copied
    # The sums of the target's books of every chat, all ok.
    chats: int
    players: int
    balances: int
    open_banks: int

    def lines(self) -> list[str]:
        width = max((len(name) for name, _ in self.tables), default=0)
        lines = [f"{name:<{width}}  {rows} rows" for name, rows in self.tables]
        lines.append(
            f"ok: {self.chats} chats, {self.players} players, {self.balances} chips in "
            f"balances, {self.open_banks} chips in open banks (schema version "
            f"{self.schema_version}, {self.source} -> {self.target})"
        )
        return lines


@dataclass(frozen=True, slots=True)
class _Table:
    name: str
    columns: tuple[str, ...]
    rows: int


@dataclass(frozen=True, slots=True)
class _Source:
    """The source as one read transaction saw it."""

    conn: aiosqlite.Connection  # inside that read transaction
    version: int
    tables: Mapping[str, _Table]
    checks: Mapping[int, LedgerCheck]  # by chat id


class _CopyConnection(Connection, Protocol):
    """The connection of the copy's transaction: asyncpg's COPY too."""

    async def copy_records_to_table(
        self, table: str, /, *, records: Iterable[Sequence[object]], columns: Sequence[str]
    ) -> str: ...


class _TargetBooks(LedgerQueries, PostgresTransaction):
    """The PostgreSQL backend's own check_ledger on the copy's connection: PostgresStorage's
    would read from another connection, which cannot see the uncommitted copy."""


def _quote(name: str) -> str:
    """An identifier quoted for both SQLite and PostgreSQL."""
    return '"' + name.replace('"', '""') + '"'


def _shown(value: object) -> str:
    text = repr(value)
    return text if len(text) <= SHOWN_VALUE else text[: SHOWN_VALUE - 1] + "…"


# The Python type of each target column type the copy converts to.
_KINDS: Final[Mapping[str, type]] = {
    "boolean": bool,
    "smallint": int,
    "integer": int,
    "bigint": int,
    "real": float,
    "double precision": float,
    "text": str,
    "character varying": str,
}


def _converted(kind: type, value: object) -> object:
    """The value as asyncpg encodes it for a column of ``kind``; TypeError if it is not one of
    that column's values (SQLite stores any value in any column)."""
    if value is None or (kind is not bool and isinstance(value, kind)):
        return value
    if kind is bool and isinstance(value, int) and value in (0, 1):
        return bool(value)  # SQLite stores the backend's booleans as 0/1
    if kind is float and isinstance(value, int):
        return float(value)  # a whole number of seconds: exact below 2**53
    raise TypeError


def _convert(
    table: str, columns: Sequence[str], types: Sequence[str], rows: Iterable[Sequence[object]]
) -> list[tuple[object, ...]]:
    """The rows in the Python types of the target's columns; CopyError naming the column and
    the value that does not fit."""
    kinds = [_KINDS[kind] for kind in types]
    records: list[tuple[object, ...]] = []
    for row in rows:
        record: list[object] = []
        for column, name, kind, value in zip(columns, types, kinds, row, strict=True):
            try:
                record.append(_converted(kind, value))
            except TypeError:
                raise CopyError(
                    f"{table}.{column}: the source's value {_shown(value)} cannot be stored "
                    f"as {name}; nothing was copied"
                ) from None
        records.append(tuple(record))
    return records


async def _chunks(
    conn: aiosqlite.Connection, table: str, columns: Sequence[str], size: int
) -> AsyncIterator[list[tuple[Any, ...]]]:
    cursor = await conn.execute(f"SELECT {', '.join(map(_quote, columns))} FROM {_quote(table)}")
    try:
        while rows := await cursor.fetchmany(size):
            yield [tuple(row) for row in rows]
    finally:
        await cursor.close()


async def _source_tables(conn: aiosqlite.Connection) -> dict[str, _Table]:
    names = [
        str(row[0])
        for row in await conn.execute_fetchall(
            "SELECT name FROM sqlite_master WHERE type = 'table' "
            "AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name"
        )
    ]
    tables: dict[str, _Table] = {}
    for name in names:
        columns = tuple(
            str(row[0])
            for row in await conn.execute_fetchall(
                "SELECT name FROM pragma_table_info(?) ORDER BY cid", (name,)
            )
        )
        counted = list(await conn.execute_fetchall(f"SELECT count(*) FROM {_quote(name)}"))
        tables[name] = _Table(name, columns, int(counted[0][0]))
    return tables


async def _source_chats(conn: aiosqlite.Connection, tables: Mapping[str, _Table]) -> list[int]:
    """Every chat id any table holds rows of: each one's books are compared."""
    selects = [
        f"SELECT chat_id FROM {_quote(table.name)}"
        for table in tables.values()
        if "chat_id" in table.columns
    ]
    if not selects:
        return []
    rows = await conn.execute_fetchall(" UNION ".join(selects) + " ORDER BY 1")
    return [int(row[0]) for row in rows]


@asynccontextmanager
async def _read_source(source: SqliteStorage) -> AsyncIterator[_Source]:
    """The source migrated, then read in one read transaction held until the copy is over."""
    await source.start()  # the newest schema, as the bot would see it
    try:
        try:
            conn = await aiosqlite.connect(source.path, isolation_level=None)
        except sqlite3.Error as error:
            raise CopyError(f"cannot read {source.path!r}: {error}") from error
        try:
            # Deferred: the first read fixes the snapshot every later read of the copy sees.
            await conn.execute("BEGIN")
            version = await SqliteStepDb(conn).version()
            tables = await _source_tables(conn)
            # Through the backend's own code: what the bot would show for each chat. A write
            # to the file after the snapshot (a bot still running) makes them differ from the
            # copy, and the copy is refused.
            checks = {
                chat_id: await source.check_ledger(chat_id)
                for chat_id in await _source_chats(conn, tables)
            }
            await source.stop()
            yield _Source(conn, version, tables, checks)
        finally:
            await conn.close()
    finally:
        await source.stop()


async def _target_columns(conn: _CopyConnection) -> dict[str, dict[str, str]]:
    """table -> column -> data type, of the base tables of the schema the backend writes."""
    rows = await translated(
        conn.fetch(
            "SELECT c.table_name::text, c.column_name::text, c.data_type::text "
            "FROM information_schema.columns c JOIN information_schema.tables t "
            "ON t.table_schema = c.table_schema AND t.table_name = c.table_name "
            "WHERE c.table_schema = current_schema() AND t.table_type = 'BASE TABLE' "
            "ORDER BY c.table_name, c.ordinal_position"
        )
    )
    tables: dict[str, dict[str, str]] = {}
    for table, column, kind in rows:
        if table not in POSTGRES_ONLY:
            tables.setdefault(table, {})[column] = kind
    return tables


def _check_same_schema(
    source: Mapping[str, _Table], target: Mapping[str, Mapping[str, str]]
) -> None:
    """Both schemas name the same tables and columns, in types the copy converts."""
    only_source = sorted(set(source) - set(target))
    only_target = sorted(set(target) - set(source))
    if only_source or only_target:
        raise SchemaMismatch(
            f"the schemas have drifted: tables {only_source} only in the source, "
            f"{only_target} only in the target"
        )
    for name, table in source.items():
        columns = target[name]
        missing = [c for c in table.columns if c not in columns]
        extra = [c for c in columns if c not in table.columns]
        if missing or extra:
            raise SchemaMismatch(
                f"the schemas have drifted: {name} has columns {missing} only in the source, "
                f"{extra} only in the target"
            )
        for column, kind in columns.items():
            if kind not in _KINDS:
                raise SchemaMismatch(f"{name}.{column} is {kind} in the target: not converted")


async def _parents_first(conn: _CopyConnection, names: Iterable[str]) -> list[str]:
    """The tables in an order the target's foreign keys accept rows in (by name otherwise)."""
    rows = await translated(
        conn.fetch(
            "SELECT child.relname::text, parent.relname::text FROM pg_constraint c "
            "JOIN pg_class child ON child.oid = c.conrelid "
            "JOIN pg_class parent ON parent.oid = c.confrelid "
            "WHERE c.contype = 'f' AND child.relnamespace = "
            "(SELECT oid FROM pg_namespace WHERE nspname = current_schema())"
        )
    )
    pending = sorted(names)
    parents: dict[str, set[str]] = {name: set() for name in pending}
    for child, parent in rows:
        if child in parents and parent in parents and child != parent:
            parents[child].add(parent)
    order: list[str] = []
    while pending:
        ready = [name for name in pending if parents[name] <= set(order)]
        if not ready:
            raise SchemaMismatch(f"the target's foreign keys form a cycle among {pending}")
        order += ready
        pending = [name for name in pending if name not in ready]
    return order


async def _lock_empty(conn: _CopyConnection, order: Sequence[str]) -> None:
    """Lock the tables against other writers, then make sure they hold nothing."""
    await translated(conn.execute(f"SET LOCAL lock_timeout = '{LOCK_TIMEOUT_SECONDS:d}s'"))
    try:
        # Reads go on; other writers (a bot started too early, a second copy) wait for COMMIT,
        # so the emptiness checked below still holds when the copy commits.
        await conn.execute(
            f"LOCK TABLE {', '.join(map(_quote, order))} IN SHARE ROW EXCLUSIVE MODE"
        )
    except DRIVER_ERRORS as error:
        if getattr(error, "sqlstate", None) != LOCK_NOT_AVAILABLE:
            raise storage_error(error) from error
        raise CopyError(
            f"the target's tables stayed in use for {LOCK_TIMEOUT_SECONDS} s: stop every bot "
            f"using it and try again ({storage_error(error)})"
        ) from error
    holding = []
    for name in order:
        row = await translated(conn.fetchrow(f"SELECT EXISTS (SELECT 1 FROM {_quote(name)})"))
        if row is not None and row[0]:
            holding.append(name)
    if holding:
        raise TargetNotEmpty(
            f"the target database already holds data (in {', '.join(holding)}): "
            "copy into a new, empty database; nothing was written"
        )


async def _move_sequences(conn: _CopyConnection) -> None:
    """Identity columns continue after the copied ids, so new games and ledger rows get ids of
    their own (COPY with explicit ids leaves a sequence where it was)."""
    rows = await translated(
        conn.fetch(
            "SELECT table_name::text, column_name::text FROM information_schema.columns "
            "WHERE table_schema = current_schema() "
            "AND (is_identity = 'YES' OR column_default LIKE 'nextval(%') "
            "ORDER BY table_name, column_name"
        )
    )
    for table, column in rows:
        await translated(
            conn.execute(
                f"SELECT setval(pg_get_serial_sequence($1, $2), top) FROM "
                f"(SELECT max({_quote(column)}) AS top FROM {_quote(table)}) t "
                "WHERE top IS NOT NULL",
                _quote(table),
                column,
            )
        )


def _books(check: LedgerCheck) -> str:
    return (
        f"granted {check.granted}, issued {check.issued}, balances {check.balances}, "
        f"open banks {check.open_banks}"
    )


async def _verify(
    conn: _CopyConnection, source: _Source, order: Sequence[str]
) -> list[LedgerCheck]:
    """Row counts and every chat's books, read inside the copy's transaction; the target's
    checks."""
    for name in order:
        row = await translated(conn.fetchrow(f"SELECT count(*) FROM {_quote(name)}"))
        copied = 0 if row is None else int(row[0])
        if copied != source.tables[name].rows:
            raise VerificationFailed(
                f"{name}: {source.tables[name].rows} rows in the source, {copied} copied; "
                "the copy was rolled back"
            )
    books = _TargetBooks(conn, time.time)
    checks: list[LedgerCheck] = []
    for chat_id, expected in source.checks.items():
        check = await books.check_ledger(chat_id)
        if check != expected:
            raise VerificationFailed(
                f"chat {chat_id}: the source's books ({_books(expected)}) differ from the "
                f"copy's ({_books(check)}); the copy was rolled back"
            )
        if not check.ok:
            raise VerificationFailed(
                f"chat {chat_id}: its books do not balance in the source ({_books(expected)}): "
                "repair the source first; nothing was copied"
            )
        checks.append(check)
    return checks


async def _copy_into(
    target: PostgresStorage, source: _Source
) -> tuple[list[tuple[str, int]], list[LedgerCheck]]:
    copied: list[tuple[str, int]] = []
    async with target.transaction() as tx:
        # COPY and the copy's own queries run inside the transaction that commits or rolls back.
        conn = cast(_CopyConnection, tx._live())
        version = await translated(PostgresStepDb(conn).version())
        if version != source.version:
            raise SchemaMismatch(
                f"the source is at schema version {source.version}, the target at {version}, "
                "after both were migrated: the two backends' migrations disagree; nothing "
                "was copied"
            )
        columns = await _target_columns(conn)
        _check_same_schema(source.tables, columns)
        order = await _parents_first(conn, source.tables)
        await _lock_empty(conn, order)
        for name in order:
            table = source.tables[name]
            types = [columns[name][column] for column in table.columns]
            rows = 0
            async for chunk in _chunks(source.conn, name, table.columns, CHUNK_ROWS):
                records = _convert(name, table.columns, types, chunk)
                await translated(
                    conn.copy_records_to_table(name, records=records, columns=table.columns)
                )
                rows += len(records)
            copied.append((name, rows))
        await _move_sequences(conn)
        checks = await _verify(conn, source, order)
    return copied, checks


async def copy_database(source_url: str, target_url: str) -> CopyReport:
    """Copy the SQLite database at ``source_url`` into the empty PostgreSQL database at
    ``target_url`` and prove nothing was lost (see the module docstring).

    TargetNotEmpty, SchemaMismatch, VerificationFailed (all CopyError) or another StorageError
    when it cannot be done; the target then holds no row of the copy.
    """
    shown_source, shown_target = redact_url(source_url), redact_url(target_url)
    source = open_storage(source_url)
    if not isinstance(source, SqliteStorage):
        raise CopyError(f"the source must be an SQLite database (sqlite:///…): {shown_source}")
    target = open_storage(target_url)
    if not isinstance(target, PostgresStorage):
        raise CopyError(
            f"the target must be a PostgreSQL database (postgresql://…): {shown_target}"
        )
    # Opening a missing file would create an empty database and copy nothing, successfully.
    if source.path == ":memory:" or not await asyncio.to_thread(os.path.isfile, source.path):
        raise CopyError(f"no SQLite database at {source.path!r}")
    async with _read_source(source) as snapshot:
        await target.start()  # creates or migrates the schema
        try:
            copied, checks = await _copy_into(target, snapshot)
        finally:
            await target.stop()
    return CopyReport(
        source=shown_source,
        target=shown_target,
        schema_version=snapshot.version,
        tables=tuple(copied),
        chats=len(checks),
        players=snapshot.tables["players"].rows if "players" in snapshot.tables else 0,
        balances=sum(check.balances for check in checks),
        open_banks=sum(check.open_banks for check in checks),
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m storage.copy",
        description="Copy an SQLite database of the bot into an empty PostgreSQL database, "
        "then check that every row and every chip arrived. Stop the bot first.",
    )
    parser.add_argument("source", metavar="SOURCE_URL", help="sqlite:////absolute/path")
    parser.add_argument(
        "target", metavar="TARGET_URL", help="postgresql://user:password@host:port/database"
    )
    args = parser.parse_args(argv)
    try:
        report = asyncio.run(copy_database(args.source, args.target))
    except StorageError as error:
        print(f"storage.copy: {error}", file=sys.stderr)
        return 2 if isinstance(error, TargetNotEmpty) else 1
    except KeyboardInterrupt:
        print("storage.copy: interrupted; an unfinished copy is rolled back", file=sys.stderr)
        return 130
    for line in report.lines():
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
