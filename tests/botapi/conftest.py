"""Fixtures: a running server, a bot account, two users and a group, and PTB's Bot on it."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import pytest
import telegram

from bot.transport import AiohttpRequest
from localbotapi.flood import FloodLimits
from localbotapi.models import Chat, FakeBot, FakeUser
from localbotapi.server import BotApiServer


@dataclass
class World:
    server: BotApiServer
    bot: FakeBot
    alice: FakeUser
    bob: FakeUser
    group: Chat
    ptb: telegram.Bot


@pytest.fixture
async def server() -> AsyncIterator[BotApiServer]:
    # A short group window keeps the flood tests fast; the counts are Telegram's.
    async with BotApiServer(flood_limits=FloodLimits(group_window=2.0)) as running:
        yield running


@pytest.fixture(params=["httpx", "aiohttp"])
async def world(server: BotApiServer, request: pytest.FixtureRequest) -> AsyncIterator[World]:
    """PTB's Bot on both transports: its default (httpx) and the bot's own (aiohttp)."""
    bot = server.add_bot(username="ochko_test_bot")
    alice = server.create_user("Alice", username="alice")
    bob = server.create_user("Bob", username="bob")
    group = server.create_group("Table 1", members=[alice, bob], admins=[alice])
    transports: dict[str, Any] = {}
    if request.param == "aiohttp":
        transports = {"request": AiohttpRequest(8), "get_updates_request": AiohttpRequest(2)}
    async with telegram.Bot(bot.token, base_url=server.base_url, **transports) as ptb:
        yield World(server, bot, alice, bob, group, ptb)
