"""Storage test fixtures: real databases, one parametrization per backend.

Every test that uses `database_url` (or `make_storage`, `storage`) runs once per backend: on an
SQLite file in tmp_path and on a fresh database of a throwaway PostgreSQL cluster, started when
the first PostgreSQL test runs (localpg/cluster.py). Tests about SQLite's own machinery
are marked `sqlite_only`.

Without PostgreSQL's server binaries, the PostgreSQL tests fail (CI must not pass without
them); OCHKO_TEST_POSTGRES=0 skips them instead.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from pathlib import Path

import pytest

from localpg.cluster import PostgresCluster, PostgresUnavailable
from storage import Storage, open_storage
from tests.storage.raw import snapshot

__all__ = ["BACKENDS", "FakeClock", "StorageFactory", "snapshot"]

# Every backend the storage tests run against.
BACKENDS = ["sqlite", "postgresql"]
POSTGRES_OFF = os.environ.get("OCHKO_TEST_POSTGRES", "").strip() == "0"
SKIP_REASON = "OCHKO_TEST_POSTGRES=0: the PostgreSQL tests are switched off"


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "sqlite_only: about SQLite's own machinery (files, group commit, query plans): "
        "the test runs on the SQLite backend alone",
    )
    config.addinivalue_line(
        "markers", "postgres_only: about the PostgreSQL test cluster: runs on PostgreSQL alone"
    )


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "database_url" not in metafunc.fixturenames:
        return
    backends = BACKENDS
    if metafunc.definition.get_closest_marker("sqlite_only"):
        backends = ["sqlite"]
    elif metafunc.definition.get_closest_marker("postgres_only"):
        backends = ["postgresql"]
    params = []
    for backend in backends:
        marks = []
        if backend == "postgresql" and POSTGRES_OFF:
            marks.append(pytest.mark.skip(reason=SKIP_REASON))
        params.append(pytest.param(backend, marks=marks, id=backend))
    metafunc.parametrize("database_url", params, indirect=True)


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


@pytest.fixture(scope="session")
def postgres_cluster() -> Iterator[PostgresCluster]:
    """The session's cluster; requested only by PostgreSQL-parametrized tests, so started lazily."""
    if POSTGRES_OFF:
        pytest.skip(SKIP_REASON)
    try:
        cluster = PostgresCluster.shared()
    except PostgresUnavailable as error:
        pytest.fail(str(error), pytrace=False)
    yield cluster
    cluster.stop()


@pytest.fixture
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A new, empty database of the test's backend (parametrized in pytest_generate_tests)."""
    backend = request.param
    if backend == "sqlite":
        yield f"sqlite:///{tmp_path / 'ochko.sqlite3'}"
    elif backend == "postgresql":
        cluster: PostgresCluster = request.getfixturevalue("postgres_cluster")
        url = cluster.new_database()
        yield url
        cluster.drop_database(url)
    else:
        raise AssertionError(f"no URL for backend {backend}")


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
