"""The Mini App with two replicas on one PostgreSQL (webhook mode, behind a round-robin
balancer): a page served by one replica shows, within a second, what a press through the other
committed — read from the database, not from either process's memory."""

from __future__ import annotations

import asyncio
import json
import secrets
import time
from typing import Any

import aiohttp

from localbotapi.balancer import RoundRobin
from localbotapi.models import FakeUser
from localbotapi.webapp import init_data
from tests.e2e.conftest import E2E, START_TIMEOUT, TOKEN, BotProcess
from tests.e2e.postgres_db import PostgresDatabase
from tests.e2e.test_replicas import balancer, listening, postgres_url
from tests.e2e.test_webhook import free_port

__all__ = ["balancer", "postgres_url"]  # the fixtures, shared with test_replicas
SEEN_WITHIN = 1.0


def replica(
    e2e: E2E, url: str, proxy: RoundRobin, index: int, secret: str, app_port: int
) -> BotProcess:
    env = e2e.bot_env(
        DATABASE_URL=url,
        WEBHOOK_URL=f"http://127.0.0.1:{proxy.port}/telegram",
        WEBHOOK_SECRET=secret,
        WEBHOOK_LISTEN="127.0.0.1",
        WEBHOOK_PORT=str(proxy.backends[index]),
        WEBAPP_URL=f"http://127.0.0.1:{app_port}/app/",
        WEBAPP_PORT=str(app_port),
        WEBAPP_TELEGRAM_JS=e2e.server.web_app_js_url,
    )
    process = BotProcess(env, e2e.tmp_path / f"replica{index}.log", e2e.tmp_path)
    process.spawn()
    e2e.processes.append(process)
    return process


async def next_state(response: aiohttp.ClientResponse, above: int, timeout: float) -> Any:
    """The first pushed state whose game version is above ``above``."""
    async with asyncio.timeout(timeout):
        async for line in response.content:
            if line.startswith(b"data: "):
                state = json.loads(line[6:])
                if state["game"] is not None and state["game"]["version"] > above:
                    return state
    raise EOFError


async def act(
    session: aiohttp.ClientSession, port: int, user: FakeUser, chat_id: int, state: Any
) -> int:
    """The person on turn presses the first thing their state offers, through ``port``."""
    action = state["game"]["actions"][0]
    body = {
        "game": state["game"]["id"],
        "version": action["version"],
        "act": action["act"],
        "amount": action["amount"],
    }
    headers = {"Authorization": f"tma {init_data(TOKEN, user, start_param=f'c{chat_id}')}"}
    async with session.post(
        f"http://127.0.0.1:{port}/app/api/act", json=body, headers=headers
    ) as response:
        assert response.status == 200, await response.text()
        answer = await response.json()
    assert answer["ok"], answer
    version: int = answer["state"]["game"]["version"]
    return version


async def test_a_page_on_one_replica_follows_presses_through_the_other(
    e2e: E2E, postgres_url: str, balancer: RoundRobin
) -> None:
    e2e.db = PostgresDatabase(postgres_url)
    secret = secrets.token_urlsafe(24)[:32]
    ports = [free_port(), free_port()]
    processes = [replica(e2e, postgres_url, balancer, i, secret, ports[i]) for i in (0, 1)]
    for index, process in enumerate(processes):
        await listening(process, balancer.backends[index])
    await e2e.wait_until(lambda: e2e.bot.webhook is not None, "the webhook", START_TIMEOUT)
    group, users = e2e.group_with_players("Реплики", 3, names=("Аня", "Борис", "Вика"))
    await e2e.open_private(users)
    await users[0].send(group, "/newgame classic36")
    await e2e.wait_until(lambda: e2e.db.game(group.id), "the lobby")
    for user in users[1:]:
        await user.send(group, "/join")
    await e2e.wait_until(lambda: len(e2e.db.game(group.id).engine["seats"]) == 3, "3 seated")
    await users[0].send(group, "/deal")
    await e2e.wait_until(lambda: e2e.db.game(group.id).phase.value == "bank", "the bank")

    delays: list[float] = []
    async with aiohttp.ClientSession() as session:
        streams = []
        for index, user in enumerate(users):
            # Each person's page on the replica their index picks: both serve pages.
            port = ports[index % 2]
            raw = init_data(TOKEN, user, start_param=f"c{group.id}")
            stream = await session.get(
                f"http://127.0.0.1:{port}/app/api/events", params={"auth": raw}
            )
            assert stream.status == 200
            streams.append((user, port, stream, await next_state(stream, 0, 5)))
        try:
            for _ in range(8):
                row = e2e.db.game(group.id)
                if row.phase.value in ("round_over", "ended"):
                    break
                # The person on turn acts through the OTHER replica than the one serving
                # their page, so every other page (on both replicas) must read the commit.
                actor = next(s for s in streams if s[3]["game"]["actions"])
                user, port, _, state = actor
                other_port = ports[1] if port == ports[0] else ports[0]
                started = time.monotonic()
                version = await act(session, other_port, user, group.id, state)
                refreshed = []
                for who, page_port, stream, _ in streams:
                    fresh = await next_state(stream, version - 1, 5)
                    delays.append(time.monotonic() - started)
                    refreshed.append((who, page_port, stream, fresh))
                streams = refreshed
        finally:
            for _, _, stream, _ in streams:
                stream.close()
    assert len(delays) >= 6, delays
    assert max(delays) < SEEN_WITHIN, delays
    e2e.assert_within_limits()
