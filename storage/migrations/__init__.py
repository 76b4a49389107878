"""Schema migrations: one ordered list of steps for both backends.

Step n (1-based) moves a database from version n-1 to n: the module `mNNN_what.py`, whose
docstring's first paragraph describes it and whose APPLY is an SQL script, a function of the
dialect returning one (most are `typed(...)`, storage/migrations/typed.py), or a coroutine
function of a StepDb for a step that must compute (`$1` placeholders, as in the table modules).

On either backend step n produces the same tables, columns, constraints and indexes, in its own
types (ids and chip amounts BIGINT on PostgreSQL, times DOUBLE PRECISION, JSON as TEXT; game_id
and entry_id identity columns BY DEFAULT, so that rows moved from another database keep their
ids). Steps are only ever appended: a released step is never edited, because databases in the
field have already run it (its rendering for each backend must stay what it was).
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re
from abc import ABC, abstractmethod
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass
from typing import ClassVar, Final, cast

from storage.errors import DatabaseTooNew
from storage.sql.base import Row
from storage.sql.dialect import Dialect


class StepDb(ABC):
    """The connection a step runs on, in the transaction that records its version; and what
    `migrate` needs of a backend around the steps."""

    dialect: ClassVar[Dialect]

    @abstractmethod
    async def script(self, script: str) -> None: ...

    @abstractmethod
    async def rows(self, sql: str, *args: object) -> list[Row]: ...

    @abstractmethod
    async def execute(self, sql: str, *args: object) -> None: ...

    @abstractmethod
    async def version(self) -> int:
        """The schema version (0 for a database never migrated), read without writing."""

    @abstractmethod
    async def record(self, version: int) -> None:
        """Record the version, in the transaction of the step that produced it."""

    @abstractmethod
    def transaction(self) -> AbstractAsyncContextManager[None]: ...

    @asynccontextmanager
    async def exclusive(self) -> AsyncIterator[None]:
        """Held while steps are applied, to keep other processes' runners out, when the
        transaction does not already (SQLite's BEGIN IMMEDIATE does)."""
        yield


StepFunction = Callable[[StepDb], Awaitable[None]]


@dataclass(frozen=True, slots=True)
class Migration:
    description: str
    # A script, the script of a dialect, or a coroutine function for a step that computes.
    apply: str | Callable[[Dialect], str] | StepFunction


async def migrate(db: StepDb, steps: Sequence[Migration]) -> int:
    """Bring the database up to `len(steps)`; returns the number of steps applied here.

    Each step runs in the transaction that records its version, so a crash leaves the database
    at the previous or the next version, never in between. Several processes may start at
    once: the version is read again inside each step's transaction (under `exclusive`), so
    that exactly one applies each step and the others find it done. A database newer than the
    steps is refused with DatabaseTooNew before anything is written.
    """
    supported = len(steps)
    current = await db.version()
    if current > supported:
        raise DatabaseTooNew(current, supported)
    applied = 0
    if current == supported:
        return applied
    async with db.exclusive():
        while True:
            async with db.transaction():
                current = await db.version()
                if current > supported:
                    raise DatabaseTooNew(current, supported)
                if current == supported:
                    return applied
                apply = steps[current].apply
                if isinstance(apply, str):
                    await db.script(apply)
                elif inspect.iscoroutinefunction(apply):
                    await cast(StepFunction, apply)(db)
                else:
                    await db.script(cast(Callable[[Dialect], str], apply)(db.dialect))
                await db.record(current + 1)
            applied += 1


_STEP_NAME: Final = re.compile(r"m(\d{3})_\w+")


def _discover() -> tuple[Migration, ...]:
    """The step modules, in order. Numbers must run 1, 2, 3… without a gap or a duplicate: the
    position of a step is the database version it produces."""
    found: dict[int, str] = {}
    for info in pkgutil.iter_modules(__path__):
        match = _STEP_NAME.fullmatch(info.name)
        if match is None:
            continue
        number = int(match[1])
        if number in found:
            raise RuntimeError(f"migrations {found[number]} and {info.name} share a number")
        found[number] = info.name
    if sorted(found) != list(range(1, len(found) + 1)):
        raise RuntimeError(f"migration numbers must run from 1 without a gap: {sorted(found)}")
    steps: list[Migration] = []
    for number in sorted(found):
        module = importlib.import_module(f"{__name__}.{found[number]}")
        doc, apply = module.__doc__, module.APPLY
        if not doc or not (isinstance(apply, str) or callable(apply)):
            raise RuntimeError(f"migration {found[number]}: a docstring and APPLY expected")
        steps.append(Migration(" ".join(doc.split("\n\n")[0].split()), apply))
    return tuple(steps)


MIGRATIONS: Sequence[Migration] = _discover()
