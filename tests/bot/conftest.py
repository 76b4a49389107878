"""Handler tests: the real Application, real storage in a temporary folder, and an offline bot
whose every request goes in-process to the local Bot API server and is recorded there."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from telegram import Update
from telegram.ext import Application

from bot.app import build_application, post_init, post_shutdown
from bot.handlers import Runtime
from bot.settings import Settings
from tests.botapi import BotApiServer, Chat, FakeBot, FakeUser, Message
from tests.botapi.models import CallbackAnswer
from tests.botapi.offline import OfflineRequest

TOKEN = "123456:TESTTOKEN_abcdefghijklmnopqrstuv"


@dataclass
class Harness:
    server: BotApiServer
    bot: FakeBot
    app: Application[Any, Any, Any, Any, Any, Any]
    group: Chat
    users: list[FakeUser]
    offset: int = 0
    processed: list[dict[str, Any]] = field(default_factory=list)

    @property
    def rt(self) -> Runtime:
        rt: Runtime = self.app.bot_data["runtime"]
        return rt

    async def pump(self) -> None:
        """Deliver every pending update to the application, then let the publisher finish."""
        while True:
            _, body = await self.server.dispatch(
                self.bot.token, "getUpdates", {"offset": self.offset, "timeout": 0}
            )
            updates = body["result"]
            if not updates:
                break
            for data in updates:
                self.offset = data["update_id"] + 1
                self.processed.append(data)
                await self.app.process_update(Update.de_json(data, self.app.bot))
        await self.rt.publisher.drain()

    async def say(self, user: FakeUser, text: str, chat: Chat | FakeBot | None = None) -> None:
        await user.send(chat if chat is not None else self.group, text)
        await self.pump()

    async def press(self, user: FakeUser, message: Message, text: str) -> CallbackAnswer:
        query = await user.press(message, text)
        await self.pump()
        return await query.wait(timeout=5)

    def table(self) -> Message:
        """The newest bot message in the group that has buttons."""
        message = self.group.last_with_buttons()
        assert message is not None, "no message with buttons in the group"
        return message

    def group_texts(self) -> list[str]:
        """Every text the group ever saw, including earlier versions of edited messages."""
        return [text for message in self.group.all_messages for text in message.texts]

    async def advance_clock(self, seconds: float) -> None:
        """Let turn deadlines pass without waiting: the service judges time by its clock."""
        base = self.rt.service.clock
        self.rt.service.clock = lambda: base() + seconds


def make_settings(tmp_path: Path, **overrides: Any) -> Settings:
    values: dict[str, Any] = {
        "bot_token": TOKEN,
        "database_url": f"sqlite:///{tmp_path / 'bot.sqlite3'}",
        "bot_api_base_url": "http://127.0.0.1:9/bot",
        "coalesce_seconds": 0.0,
        "sqlite_synchronous": "NORMAL",
    }
    values.update(overrides)
    return Settings(_env_file=None, **values)  # type: ignore[call-arg]


async def start_harness(server: BotApiServer, settings: Settings, players: int = 4) -> Harness:
    bot = server.add_bot(TOKEN, username="ochko_test_bot")
    names = ["Аня", "Борис", "Вика", "Гоша", "Дима", "Ева"][:players]
    users = [server.create_user(name) for name in names]
    group = server.create_group("Очко", members=users, admins=users[:1])
    app = build_application(settings, request=OfflineRequest(server), rate_limiter=False)
    await app.initialize()
    await post_init(app)
    harness = Harness(server, bot, app, group, users)
    for user in users:
        await harness.say(user, "/start", bot)
    return harness


async def stop_harness(harness: Harness) -> None:
    await post_shutdown(harness.app)
    await harness.app.shutdown()


@pytest.fixture
async def harness(tmp_path: Path) -> AsyncIterator[Harness]:
    server = BotApiServer(flood_limits=False)
    h = await start_harness(server, make_settings(tmp_path))
    try:
        yield h
    finally:
        await stop_harness(h)


def now() -> float:
    return time.time()
