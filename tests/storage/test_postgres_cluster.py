"""The throwaway PostgreSQL cluster of the tests: a working, empty database per test, on a cluster
nobody else can reach, gone when the session ends, and a clear failure where PostgreSQL is
missing."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import asyncpg
import pytest

from localpg import cluster as postgres_cluster
from localpg.cluster import PostgresCluster, PostgresUnavailable, database_of, socket_of

ROOT = Path(__file__).resolve().parents[2]
# The databases earlier rounds of test_each_test_gets_its_own_empty_database were given.
EARLIER: list[str] = []


def tables_of(rows: list[asyncpg.Record]) -> list[str]:
    return [row["table_name"] for row in rows]


@pytest.mark.postgres_only
@pytest.mark.parametrize("round_", [1, 2])
async def test_each_test_gets_its_own_empty_database(database_url: str, round_: int) -> None:
    conn = await asyncpg.connect(database_url)
    try:
        name = await conn.fetchval("SELECT current_database()")
        assert name == database_of(database_url) and name not in EARLIER
        listed = await conn.fetch(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'"
        )
        assert tables_of(listed) == []  # the table the round before made is not here
        existing = {r["datname"] for r in await conn.fetch("SELECT datname FROM pg_database")}
        assert not existing & set(EARLIER), "an earlier test's database was not dropped"
        await conn.execute("CREATE TABLE leftover (id bigint PRIMARY KEY, note text)")
        await conn.execute("INSERT INTO leftover VALUES ($1, $2)", round_, "Очко ♠")
        assert await conn.fetchrow("SELECT * FROM leftover") == (round_, "Очко ♠")
        assert await conn.fetchval("SHOW server_encoding") == "UTF8"
    finally:
        await conn.close()
    EARLIER.append(name)


@pytest.mark.postgres_only
async def test_the_cluster_listens_on_its_own_socket_only(
    database_url: str, postgres_cluster: PostgresCluster
) -> None:
    assert socket_of(database_url) == str(postgres_cluster.socket_dir)
    assert postgres_cluster.socket_dir.is_relative_to(postgres_cluster.folder)
    conn = await asyncpg.connect(database_url)
    try:
        settings = {
            name: await conn.fetchval(f"SHOW {name}")
            for name in ("listen_addresses", "unix_socket_directories", "max_connections")
        }
        # The server refuses root; as root, it runs as Debian's postgres user.
        server_uid = os.stat(f"/proc/{await conn.fetchval('SELECT pg_backend_pid()')}").st_uid
    finally:
        await conn.close()
    assert settings == {
        "listen_addresses": "",
        "unix_socket_directories": str(postgres_cluster.socket_dir),
        "max_connections": "200",
    }
    if os.geteuid() == 0:
        assert server_uid != 0
    else:
        assert server_uid == os.geteuid()


def test_new_databases_are_empty_and_dropped_ones_gone(postgres_cluster: PostgresCluster) -> None:
    urls = [postgres_cluster.new_database() for _ in range(2)]
    assert urls[0] != urls[1]
    user_tables = "SELECT count(*) FROM pg_tables WHERE schemaname NOT IN ('pg_catalog', " + (
        "'information_schema')"
    )
    assert postgres_cluster.psql(user_tables, database_of(urls[1])) == "0\n"
    postgres_cluster.drop_database(urls[0])
    listed = postgres_cluster.psql("SELECT datname FROM pg_database").split()
    assert database_of(urls[0]) not in listed and database_of(urls[1]) in listed
    postgres_cluster.drop_database(urls[1])


def test_missing_binaries_say_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(postgres_cluster, "find_bindir", lambda: None)
    with pytest.raises(PostgresUnavailable, match="install Debian's `postgresql` package"):
        PostgresCluster.start_new()


def run_python(code: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1", **env},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


# A PostgreSQL test of the suite, in a pytest session where the binaries are not found.
WITHOUT_POSTGRES = """
import sys, pytest
import localpg.cluster
localpg.cluster.find_bindir = lambda: None
sys.exit(pytest.main(["-p", "no:cacheprovider", "-o", "addopts=", "-q", "-rs",
    "tests/storage/test_basics.py::test_chat_settings_default_then_saved"]))
"""


def test_without_postgres_the_postgres_tests_fail_unless_switched_off() -> None:
    failed = run_python(WITHOUT_POSTGRES, OCHKO_TEST_POSTGRES="")
    # The SQLite run passes; the PostgreSQL one must not: CI cannot go green without it.
    assert failed.returncode == 1, failed.stdout + failed.stderr
    assert "1 passed, 1 error" in failed.stdout, failed.stdout
    assert "install Debian's `postgresql` package" in failed.stdout
    skipped = run_python(WITHOUT_POSTGRES, OCHKO_TEST_POSTGRES="0")
    assert skipped.returncode == 0, skipped.stdout + skipped.stderr
    assert "1 passed, 1 skipped" in skipped.stdout and "OCHKO_TEST_POSTGRES=0" in skipped.stdout


# Starts the process's cluster, prints its folder and server pid, then ends as told.
STARTS_AND_ENDS = """
import os, sys
from localpg.cluster import PostgresCluster
cluster = PostgresCluster.shared()
pid = (cluster.data / "postmaster.pid").read_text().split()[0]
print(cluster.folder, pid, flush=True)
if sys.argv[-1] == "kill":
    os.kill(os.getpid(), 9)
raise KeyboardInterrupt  # an interrupted session
"""


def started(run: subprocess.CompletedProcess[str]) -> tuple[Path, int]:
    folder, pid = run.stdout.split()
    return Path(folder), int(pid)


def gone(pid: int) -> bool:
    deadline = time.monotonic() + 10
    while postgres_cluster._alive(pid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


@pytest.mark.usefixtures("postgres_cluster")  # skipped with the other PostgreSQL tests
def test_an_interrupted_session_stops_and_removes_its_cluster() -> None:
    run = run_python(STARTS_AND_ENDS)
    assert "KeyboardInterrupt" in run.stderr
    folder, pid = started(run)
    assert not folder.exists() and gone(pid)


@pytest.mark.usefixtures("postgres_cluster")
def test_a_killed_sessions_cluster_is_reaped_by_the_next() -> None:
    run = run_python(STARTS_AND_ENDS.replace("sys.argv[-1]", "'kill'"))
    folder, pid = started(run)
    # kill -9 runs no atexit: the server lives on, until the next cluster of any session starts.
    assert folder.exists() and postgres_cluster._alive(pid)
    cluster = PostgresCluster.start_new()
    try:
        assert not folder.exists() and gone(pid)
    finally:
        cluster.stop()
    assert not cluster.folder.exists()
