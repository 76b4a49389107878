"""Webhook mode end to end: the real bot process behind its own HTTP listener, the local Bot API
server delivering updates by POST with the secret token header."""

from __future__ import annotations

import asyncio
import secrets
import socket
import time
from typing import Any

import aiohttp
import pytest

from bot.callbacks import Act, parse_game
from rules.table import Phase
from tests.e2e.conftest import E2E, START_TIMEOUT, TOKEN, BotProcess

SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def webhook_env(port: int, secret: str | None) -> dict[str, str | None]:
    return {
        "WEBHOOK_URL": f"http://127.0.0.1:{port}/telegram",
        "WEBHOOK_SECRET": secret,
        "WEBHOOK_LISTEN": "127.0.0.1",
        "WEBHOOK_PORT": str(port),
    }


async def start_webhook_bot(e2e: E2E, port: int, secret: str) -> BotProcess:
    """Spawn the bot in webhook mode; return once it registered the webhook and listens."""
    process = e2e.spawn(**webhook_env(port, secret))
    deadline = time.monotonic() + START_TIMEOUT
    while e2e.bot.webhook is None or not _listening(port):
        if not process.running:
            pytest.fail(f"the bot exited at start-up:\n{process.log()[-3000:]}")
        if time.monotonic() > deadline:
            pytest.fail(f"no webhook within {START_TIMEOUT}s:\n{process.log()[-3000:]}")
        await asyncio.sleep(0.05)
    return process


def _listening(port: int) -> bool:
    with socket.socket() as sock:
        sock.settimeout(0.2)
        return sock.connect_ex(("127.0.0.1", port)) == 0


async def test_webhook_mode_end_to_end(e2e: E2E) -> None:
    port = free_port()
    secret = secrets.token_urlsafe(24)[:32]
    group, users = e2e.group_with_players("Webhook", 2)
    other, _ = e2e.group_with_players("Forged", 1)
    process = await start_webhook_bot(e2e, port, secret)

    # Registered with the secret, at the configured URL; no long polling happened.
    hook = e2e.bot.webhook
    assert hook is not None
    assert hook.url == f"http://127.0.0.1:{port}/telegram"
    assert hook.secret_token == secret
    assert e2e.server.calls("getUpdates") == []
    assert secret not in process.log()

    # A lobby, a join and the deal by buttons, every update delivered by webhook.
    a, b = users
    await e2e.open_private(users)
    await a.send(group, "/newgame classic36")
    lobby = await group.wait_for(lambda m: bool(m.inline_keyboard), timeout=20)
    join = next(d for _, d in lobby.flat_buttons if (g := parse_game(d)) and g.act is Act.JOIN)
    await b.press(lobby, data=join)
    await e2e.wait_until(
        lambda: (row := e2e.db.game(group.id)) is not None and len(row.game.players) == 2,
        "the join",
        timeout=20,
    )

    def start_button() -> str | None:
        message = group.last_with_buttons()
        for _, data in message.flat_buttons if message else []:
            button = parse_game(data)
            if button is not None and button.act is Act.START:
                return data
        return None

    data = await e2e.server.wait_for(start_button, timeout=20, description="the deal button")
    table = group.last_with_buttons()
    assert table is not None
    await a.press(table, data=data)
    row = await e2e.wait_until(
        lambda: (r := e2e.db.game(group.id)) is not None and r.phase is not Phase.LOBBY and r,
        "the deal",
        timeout=20,
    )
    assert row.game.players == [a.id, b.id]
    assert hook.delivered >= 4  # two /start, /newgame, the join and the deal
    assert hook.last_error_message is None, hook.last_error_message

    # A forged POST to the bot's own port, without or with a wrong secret: refused, no effect.
    forged: dict[str, Any] = {
        "update_id": 10**9,
        "message": {
            "message_id": 1,
            "date": int(time.time()),
            "chat": {"id": other.id, "type": "supergroup", "title": "Forged"},
            "from": {"id": 42, "is_bot": False, "first_name": "Mallory"},
            "text": "/newgame",
            "entities": [{"type": "bot_command", "offset": 0, "length": 8}],
        },
    }
    requests_before = len(e2e.server.requests)
    version_before = e2e.db.version(group.id)
    url = f"http://127.0.0.1:{port}/telegram"
    async with aiohttp.ClientSession() as session:
        for headers in ({}, {SECRET_HEADER: "wrong-" + secret[6:]}, {SECRET_HEADER: ""}):
            async with session.post(url, json=forged, headers=headers) as reply:
                assert reply.status == 403, (headers, reply.status, await reply.text())
    await asyncio.sleep(1.0)
    assert e2e.db.game(other.id) is None
    assert e2e.db.version(group.id) == version_before
    assert [r for r in e2e.server.requests[requests_before:] if r.chat_id == other.id] == []
    assert process.running

    # SIGTERM: a clean stop within seconds.
    code, took = await process.terminate(timeout=5.0)
    assert code == 0, process.log()[-2000:]
    assert took < 5.0
    assert "stopped cleanly" in process.log()
    log = process.log()
    assert TOKEN not in log and TOKEN.split(":", 1)[1] not in log
    assert secret not in log
    e2e.assert_within_limits()


async def test_webhook_url_without_secret_is_one_clear_line(e2e: E2E) -> None:
    port = free_port()
    for name, secret in (("missing", None), ("empty", ""), ("short", "abc")):
        process = BotProcess(
            e2e.bot_env(**webhook_env(port, secret)),
            e2e.tmp_path / f"{name}.log",
            e2e.tmp_path,
        )
        process.spawn()
        code = await process.wait_exit(20)
        if code is None:
            process.kill()
            pytest.fail(f"{name}: the bot kept running:\n{process.log()}")
        lines = [line for line in process.log().splitlines() if line.strip()]
        assert code != 0, (name, process.log())
        assert len(lines) == 1, f"{name}: expected one line, got:\n{process.log()}"
        assert "WEBHOOK_SECRET" in lines[0], lines[0]
        assert "Traceback" not in process.log()
        assert not _listening(port)
    assert e2e.server.requests == []
    assert e2e.bot.webhook is None
