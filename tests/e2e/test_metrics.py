"""Issue 32: the real bot serves /metrics, /healthz and /readyz from its own web server.

During a round played through the local Bot API server, /metrics parses with Prometheus' own
parser and its counters move as the game is played: updates by kind, actions done, Bot API calls
answered, the press → answer histogram. No label value names a chat, a person or a token.
On PostgreSQL, /readyz fails while the database refuses the bot and recovers when it is back;
/healthz stays ok all along (the process and its loop are fine).
"""

from __future__ import annotations

import asyncio
import os
import urllib.error
import urllib.request
from collections.abc import Callable

import pytest
from prometheus_client.parser import text_string_to_metric_families

from localpg.cluster import PostgresCluster, PostgresUnavailable, database_of
from tests.e2e.conftest import E2E, TOKEN, Table
from tests.e2e.test_webhook import free_port

Samples = dict[tuple[str, tuple[tuple[str, str], ...]], float]


def get(port: int, path: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=5) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()
    except OSError as error:
        return 0, str(error)


async def fetch(port: int, path: str) -> tuple[int, str]:
    return await asyncio.to_thread(get, port, path)


def scrape(text: str) -> Samples:
    """Every sample of the exposition, parsed by prometheus_client's own parser."""
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


def total(samples: Samples, name: str, **labels: str) -> float:
    return sum(
        value
        for (sample, found), value in samples.items()
        if sample == name and all((k, v) in found for k, v in labels.items())
    )


async def wait_status(port: int, path: str, status: int, timeout: float = 30.0) -> str:
    deadline = asyncio.get_running_loop().time() + timeout
    last: tuple[int, str] = (0, "")
    while asyncio.get_running_loop().time() < deadline:
        last = await fetch(port, path)
        if last[0] == status:
            return last[1]
        await asyncio.sleep(0.2)
    pytest.fail(f"{path} did not answer {status} within {timeout} s; last: {last}")


async def test_metrics_move_as_a_game_is_played(e2e: E2E) -> None:
    port = free_port()
    group, users = e2e.group_with_players("Metrics", 3)
    await e2e.start_bot(METRICS_ENABLED="true", METRICS_PORT=str(port))
    await wait_status(port, "/healthz", 200)
    await wait_status(port, "/readyz", 200)
    status, text = await fetch(port, "/metrics")
    assert status == 200
    before = scrape(text)
    assert total(before, "ochko_replica_lease") == 1  # one process: it holds every chat

    await e2e.open_private(users)
    table = Table(e2e, group, users, preset="classic36")
    await table.open_and_start()
    await table.play_round()

    status, text = await fetch(port, "/metrics")
    assert status == 200
    after = scrape(text)

    def moved(name: str, **labels: str) -> float:
        return total(after, name, **labels) - total(before, name, **labels)

    assert moved("ochko_updates_total", kind="command") >= 3  # /start ×3, /newgame, …
    assert moved("ochko_updates_total", kind="callback_query") >= 1
    assert moved("ochko_actions_total", outcome="done") >= 4  # new game, joins, start, moves
    assert moved("ochko_actions_total", kind="join", outcome="done") >= 2
    assert moved("ochko_botapi_requests_total", method="sendMessage", result="ok") >= 3
    assert moved("ochko_botapi_requests_total", method="getUpdates", result="ok") >= 1
    assert moved("ochko_press_answer_seconds_count") >= 1
    assert moved("ochko_commit_seconds_count") >= 4
    assert total(after, "ochko_last_update_timestamp_seconds") > 0
    # Bounded labels: nothing names a chat, a person or the token.
    secret_words = {str(group.id), TOKEN, TOKEN.split(":", 1)[1]}
    for user in users:
        secret_words |= {str(user.id), user.first_name}
    values = {value for (_name, labels) in after for _key, value in labels}
    leaked = {value for value in values if any(word in value for word in secret_words)}
    assert not leaked
    await e2e.stop_all()


@pytest.fixture
def cluster() -> PostgresCluster:
    if os.environ.get("OCHKO_TEST_POSTGRES") == "0":
        pytest.skip("OCHKO_TEST_POSTGRES=0: PostgreSQL tests skipped")
    try:
        return PostgresCluster.shared()
    except PostgresUnavailable as error:
        pytest.fail(str(error))


async def test_readyz_fails_while_the_database_is_gone(e2e: E2E, cluster: PostgresCluster) -> None:
    url = cluster.new_database()
    name = database_of(url)
    port = free_port()
    try:
        await e2e.start_bot(DATABASE_URL=url, METRICS_ENABLED="true", METRICS_PORT=str(port))
        await wait_status(port, "/readyz", 200)

        def cut(allow: bool) -> Callable[[], str]:
            sql = f"ALTER DATABASE {name} ALLOW_CONNECTIONS {str(allow).lower()};"
            if not allow:  # and end every session the bot has open
                sql += (
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                    f"WHERE datname = '{name}' AND pid <> pg_backend_pid();"
                )
            return lambda: cluster.psql(sql)

        await asyncio.to_thread(cut(False))
        problem = await wait_status(port, "/readyz", 503)
        assert "database" in problem
        assert (await fetch(port, "/healthz"))[0] == 200  # alive, only not ready
        await asyncio.to_thread(cut(True))
        await wait_status(port, "/readyz", 200)
        assert (await fetch(port, "/healthz"))[0] == 200
    finally:
        await asyncio.to_thread(cluster.psql, f"ALTER DATABASE {name} ALLOW_CONNECTIONS true")
    await e2e.stop_all()
