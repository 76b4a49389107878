"""Schema migrations: an ordered list of steps, recorded in `PRAGMA user_version`.

Step n (1-based) moves a database from version n-1 to n. Each step is a module of this package,
`mNNN_what.py`, holding DESCRIPTION and APPLY (an SQL script, or a coroutine function for a step
that must compute something); MIGRATIONS lists them by number. Steps are only ever appended: a
released step is never edited, because databases in the field have already run it.
"""

from __future__ import annotations

import importlib
import pkgutil
import re
import sqlite3
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import Final

import aiosqlite

from storage.errors import DatabaseTooNew

StepFunction = Callable[[aiosqlite.Connection], Awaitable[None]]


@dataclass(frozen=True, slots=True)
class Migration:
    description: str
    # Either an SQL script or a coroutine function for steps that must compute something.
    apply: str | StepFunction


_STEP_NAME: Final = re.compile(r"m(\d{3})_\w+")


def step_modules(package: str, path: Iterable[str]) -> list[ModuleType]:
    """The step modules of a package (mNNN_*.py, each with DESCRIPTION and APPLY), in order.

    Numbers must run 1, 2, 3… without a gap or a duplicate: the position of a step is the
    database version it produces. Shared by every backend's package of steps.
    """
    found: dict[int, str] = {}
    for info in pkgutil.iter_modules(path):
        match = _STEP_NAME.fullmatch(info.name)
        if match is None:
            continue
        number = int(match[1])
        if number in found:
            raise RuntimeError(f"migrations {found[number]} and {info.name} share a number")
        found[number] = info.name
    if sorted(found) != list(range(1, len(found) + 1)):
        raise RuntimeError(f"migration numbers must run from 1 without a gap: {sorted(found)}")
    return [importlib.import_module(f"{package}.{found[number]}") for number in sorted(found)]


def _discover() -> tuple[Migration, ...]:
    """This package's steps (see step_modules)."""
    steps: list[Migration] = []
    for module in step_modules(__name__, __path__):
        description, apply = module.DESCRIPTION, module.APPLY
        if not isinstance(description, str) or not (isinstance(apply, str) or callable(apply)):
            name = module.__name__.rpartition(".")[2]
            raise RuntimeError(f"migration {name}: DESCRIPTION and APPLY expected")
        steps.append(Migration(description, apply))
    return tuple(steps)


MIGRATIONS: Sequence[Migration] = _discover()


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


async def schema_version(conn: aiosqlite.Connection) -> int:
    rows = list(await conn.execute_fetchall("PRAGMA user_version"))
    return int(rows[0][0])


async def migrate(conn: aiosqlite.Connection, steps: Sequence[Migration] = MIGRATIONS) -> int:
    """Bring the database up to `len(steps)`; returns the number of steps applied.

    Each step runs in the transaction that records its version, so a crash leaves the database at
    the previous or the next version, never in between. Python's executescript() would commit the
    open transaction first, hence statements are executed one by one.
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
            step = steps[current]
            if isinstance(step.apply, str):
                for statement in split_script(step.apply):
                    await conn.execute(statement)
            else:
                await step.apply(conn)
            # PRAGMA takes no parameters; the value is our own integer.
            await conn.execute(f"PRAGMA user_version = {current + 1:d}")
            await conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                await conn.execute("ROLLBACK")
            raise
        applied += 1
