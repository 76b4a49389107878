"""Two bot replicas on one PostgreSQL behind a round-robin balancer, in webhook mode: twenty
groups play while one replica is killed with SIGKILL mid-round and started again later.

The local Bot API server posts every update to the balancer, which hands them to the replicas
in turn (skipping one that refuses the connection, as a proxy's passive health check does).
What must hold: every round is played to its result and every session ends; no press is
applied twice and none that was answered is lost (a press that the dead replica took with it
goes unanswered, and its player presses again, as a person would); chips are conserved in
every chat; no result is posted twice; no 429, nothing inside a retry_after window.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import secrets
import time
from collections import Counter
from collections.abc import AsyncIterator

import pytest

from bot.callbacks import parse_end
from localbotapi.balancer import RoundRobin
from localbotapi.models import Chat, FakeUser, Message
from localpg.cluster import PostgresCluster, PostgresUnavailable
from tests.e2e.conftest import E2E, START_TIMEOUT, BotProcess, Table
from tests.e2e.postgres_db import PostgresDatabase
from tests.e2e.test_webhook import _listening, free_port

GROUPS = 20
PLAYERS = 3
ROUNDS = 3
SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"


@pytest.fixture
def postgres_url() -> str:
    if os.environ.get("OCHKO_TEST_POSTGRES") == "0":
        pytest.skip("OCHKO_TEST_POSTGRES=0: PostgreSQL tests skipped")
    try:
        cluster = PostgresCluster.shared()
    except PostgresUnavailable as error:
        pytest.fail(str(error))
    return cluster.new_database()


@pytest.fixture
async def balancer() -> AsyncIterator[RoundRobin]:
    proxy = RoundRobin([free_port(), free_port()], port=free_port())
    await proxy.start()
    yield proxy
    await proxy.stop()


def replica(e2e: E2E, url: str, proxy: RoundRobin, index: int, secret: str) -> BotProcess:
    env = e2e.bot_env(
        DATABASE_URL=url,
        WEBHOOK_URL=f"http://127.0.0.1:{proxy.port}/telegram",
        WEBHOOK_SECRET=secret,
        WEBHOOK_LISTEN="127.0.0.1",
        WEBHOOK_PORT=str(proxy.backends[index]),
    )
    process = BotProcess(env, e2e.tmp_path / f"replica{index}.log", e2e.tmp_path)
    e2e.started.append(time.monotonic())
    process.spawn()
    e2e.processes.append(process)
    return process


async def listening(process: BotProcess, port: int) -> None:
    deadline = time.monotonic() + START_TIMEOUT
    while not _listening(port):
        if not process.running:
            pytest.fail(f"a replica exited at start-up:\n{process.log()[-3000:]}")
        if time.monotonic() > deadline:
            pytest.fail(f"a replica did not listen within {START_TIMEOUT}s")
        await asyncio.sleep(0.05)


def end_question(chats: list[Chat], game_id: int) -> tuple[Message, str] | None:
    for chat in chats:
        for message in reversed(chat.messages):
            for _, data in message.flat_buttons:
                end = parse_end(data)
                if end is not None and end.game_id == game_id and data and data.endswith(":y"):
                    return message, data
    return None


async def end_session(e2e: E2E, table: Table) -> None:
    """/endgame by the lobby's creator, confirmed on the question where it is shown."""
    creator: FakeUser = table.users[0]
    await creator.send(table.group, "/endgame")
    chats = [table.group, creator.private_chat(e2e.bot)]
    message, data = await e2e.server.wait_for(
        lambda: end_question(chats, table.game_id), 70, description="the /endgame question"
    )
    query = await creator.press(message, data=data)
    answer = await query.wait(70)
    assert not answer.show_alert, answer
    await e2e.wait_until(
        lambda: (row := e2e.db.game(table.group.id)) is not None and row.status == "finished",
        f"{table.group.title}: the session to end",
    )


async def test_two_replicas_one_killed_mid_round(
    e2e: E2E, postgres_url: str, balancer: RoundRobin
) -> None:
    e2e.db = PostgresDatabase(postgres_url)
    secret = secrets.token_urlsafe(24)[:32]
    first = replica(e2e, postgres_url, balancer, 0, secret)
    second = replica(e2e, postgres_url, balancer, 1, secret)
    await listening(first, balancer.backends[0])
    await listening(second, balancer.backends[1])
    await e2e.wait_until(lambda: e2e.bot.webhook is not None, "the webhook", START_TIMEOUT)

    seated = [e2e.group_with_players(f"Replicas {n}", PLAYERS) for n in range(GROUPS)]
    await e2e.open_private([user for _, users in seated for user in users])
    tables = [
        Table(
            e2e,
            group,
            users,
            preset="classic36",
            by_buttons={u.id for u in users},
            pace=0.5,
            presses=4,
            answer_timeout=8.0,
        )
        for group, users in seated
    ]
    killed = asyncio.Event()

    async def play(table: Table) -> None:
        await table.open_and_start()
        for index in range(ROUNDS):
            await table.play_round()
            if index < ROUNDS - 1:
                await table.next_round(table.users[index % PLAYERS])
        await end_session(e2e, table)

    async def kill_mid_round() -> None:
        # Once most tables are inside their second round: rounds are being played everywhere.
        await e2e.wait_until(
            lambda: sum(len(t.rounds) >= 1 for t in tables) >= GROUPS // 2,
            "half the tables to finish a round",
            timeout=300,
        )
        first.kill()
        # Its presses answered but not confirmed to the webhook come again to the other.
        e2e.started.append(time.monotonic())
        killed.set()
        await asyncio.sleep(25)
        restarted = replica(e2e, postgres_url, balancer, 0, secret)
        await listening(restarted, balancer.backends[0])

    killer = asyncio.create_task(kill_mid_round())
    try:
        await asyncio.wait_for(asyncio.gather(*(play(t) for t in tables)), timeout=900)
    finally:
        if not killer.done():
            killer.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await killer
    assert killed.is_set(), "the replica was never killed: the test proved nothing"

    for table, (group, users) in zip(tables, seated, strict=True):
        row = e2e.db.game(group.id)
        assert row is not None
        assert row.status == "finished", (group.title, row.status)
        assert len(table.rounds) == ROUNDS, (group.title, len(table.rounds))
        e2e.assert_chips_conserved(group.id, len(users))
        # No result twice: a result posted again would be a second message with its text.
        texts = Counter(m.content for m in group.all_messages if m.from_bot)
        for log in table.rounds:
            assert log.result is not None
            assert texts[log.result.content] == 1, (group.title, log.result.content)
    e2e.assert_within_limits()
    assert balancer.served[balancer.backends[1]] > 0
    assert balancer.served[balancer.backends[0]] > 0
    unanswered = sum(t.unanswered for t in tables)
    print(
        f"replicas: {GROUPS} groups x {ROUNDS} rounds; served {dict(balancer.served)}, "
        f"skipped {balancer.skipped}; presses pressed again after the kill: {unanswered}"
    )
    e2e.db.close()  # type: ignore[attr-defined]
