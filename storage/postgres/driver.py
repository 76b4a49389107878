"""The part of asyncpg this backend uses, typed, and how its errors become storage errors.

asyncpg ships no type information: its objects are described here by protocols, so that the
rest of the backend is checked by mypy --strict like the SQLite backend.
"""

from __future__ import annotations

from collections.abc import Awaitable, Iterable, Sequence
from typing import Any, Final, Protocol, TypeAlias, TypeVar, cast

from storage.errors import ConcurrencyConflict, StorageError

T = TypeVar("T")

try:
    import asyncpg  # type: ignore[import-untyped]
except ImportError:  # the postgres extra is not installed: open_storage refuses a PostgreSQL URL
    asyncpg = None


def available() -> bool:
    """asyncpg is installed (`pip install 'ochko-bot[postgres]'`)."""
    return asyncpg is not None


# A result row. asyncpg's Record indexes, iterates and has a length like a tuple, and this
# backend reads rows by position only: typed as the sequence it is used as.
Record: TypeAlias = Sequence[Any]


class ServerTransaction(Protocol):
    """asyncpg's transaction object: BEGIN, COMMIT, ROLLBACK (a SAVEPOINT when nested)."""

    async def start(self) -> None: ...

    async def commit(self) -> None: ...

    async def rollback(self) -> None: ...


class Connection(Protocol):
    async def fetch(self, query: str, *args: object) -> list[Record]: ...

    async def fetchrow(self, query: str, *args: object) -> Record | None: ...

    async def execute(self, query: str, *args: object) -> str: ...

    async def executemany(self, query: str, args: Iterable[Sequence[object]]) -> None: ...

    def transaction(self) -> ServerTransaction: ...


class Pool(Protocol):
    async def fetch(self, query: str, *args: object) -> list[Record]: ...

    def acquire(self) -> Awaitable[Connection]: ...

    async def release(self, conn: Connection) -> None: ...

    async def close(self) -> None: ...

    def terminate(self) -> None: ...


async def create_pool(dsn: str, *, min_size: int, max_size: int) -> Pool:
    pool = await asyncpg.create_pool(dsn, min_size=min_size, max_size=max_size)
    return cast(Pool, pool)


def read_committed(conn: Connection) -> ServerTransaction:
    """A transaction of the connection at READ COMMITTED, named rather than left to the
    server's default_transaction_isolation: what the table modules say of concurrency holds at
    that level."""
    transaction: ServerTransaction = cast(Any, conn).transaction(isolation="read_committed")
    return transaction


# Everything the driver raises about the server, the connection or the arguments of a query.
DRIVER_ERRORS: Final[tuple[type[Exception], ...]] = (
    (asyncpg.PostgresError, asyncpg.InterfaceError, OSError) if asyncpg else (OSError,)
)
# What PostgreSQL raises for a transaction that lost a race: safe to run again from the start.
# (Without asyncpg, empty: isinstance() of no class is False.)
_LOST_RACE: Final[tuple[type[Exception], ...]] = (
    (asyncpg.exceptions.SerializationError, asyncpg.exceptions.DeadlockDetectedError)
    if asyncpg
    else ()
)
_UNIQUE_VIOLATION: Final[tuple[type[Exception], ...]] = (
    (asyncpg.exceptions.UniqueViolationError,) if asyncpg else ()
)
# The one-open-game-per-thread index. The statements that could violate it check for the
# other game first, so the index only ever fires when that game was opened concurrently.
OPEN_GAME_INDEX: Final = "games_open_by_thread"


def describe(error: Exception) -> str:
    """The error in one line: a server error's primary message (its DETAIL and HINT lines,
    which str() appends, are in the error's attributes), anything else as it prints."""
    message = getattr(error, "message", None)
    text = message if isinstance(message, str) and message else str(error)
    return " ".join(text.split()) or type(error).__name__


def storage_error(error: Exception) -> StorageError:
    """The storage error that stands for a driver error (raise it `from` the driver's)."""
    if isinstance(error, _LOST_RACE):
        return ConcurrencyConflict(f"the transaction lost a race, run it again: {describe(error)}")
    if (
        isinstance(error, _UNIQUE_VIOLATION)
        and getattr(error, "constraint_name", None) == OPEN_GAME_INDEX
    ):
        return ConcurrencyConflict(
            "another game of the thread was opened concurrently, run it again: " + describe(error)
        )
    return StorageError(f"PostgreSQL: {describe(error)}")


async def translated(step: Awaitable[T]) -> T:
    """The step's driver errors as storage errors."""
    try:
        return await step
    except DRIVER_ERRORS as error:
        raise storage_error(error) from error


def affected(status: str) -> int:
    """The row count of a command's status tag ("UPDATE 3", "INSERT 0 1", "DELETE 0")."""
    count = status.rpartition(" ")[2]
    return int(count) if count.isdigit() else 0
