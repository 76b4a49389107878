"""Storage test fixtures: real database files in tmp_path, one parametrization per backend."""

from __future__ import annotations

import sqlite3
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

import pytest

from storage import Storage, open_storage

# Every backend the storage tests run against; a PostgreSQL entry joins when it exists.
BACKENDS = ["sqlite"]


class FakeClock:
    """A clock the test moves by hand, so timestamps are exact."""

    def __init__(self, now: float = 1_700_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


StorageFactory = Callable[..., Awaitable[Storage]]


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture(params=BACKENDS)
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'ochko.sqlite3'}"
    raise AssertionError(f"no URL for backend {request.param}")


@pytest.fixture
async def make_storage(database_url: str, clock: FakeClock) -> AsyncIterator[StorageFactory]:
    """Opens (and finally closes) as many Storage objects on the same database as a test wants."""
    opened: list[Storage] = []

    async def make(**kwargs: object) -> Storage:
        storage = open_storage(database_url, clock=clock, **kwargs)  # type: ignore[arg-type]
        await storage.start()
        opened.append(storage)
        return storage

    yield make
    for storage in opened:
        await storage.stop()


@pytest.fixture
async def storage(make_storage: StorageFactory) -> Storage:
    return await make_storage()


def snapshot(path: str | Path) -> dict[str, list[tuple[object, ...]]]:
    """Every row of every table, read with a separate plain connection."""
    conn = sqlite3.connect(path)
    try:
        tables = [
            name
            for (name,) in conn.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name"
            )
        ]
        return {t: sorted(conn.execute(f"SELECT * FROM {t}"), key=repr) for t in tables}
    finally:
        conn.close()
