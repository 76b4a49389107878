"""Handler tests: the real Application, real storage in a temporary folder, and an offline bot
whose every request goes in-process to the local Bot API server and is recorded there."""

from __future__ import annotations

import html
import re
import time
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from telegram import Update
from telegram.ext import Application

from bot import render
from bot.app import build_application, post_init, post_shutdown
from bot.callbacks import Act, GameButton, parse_game
from bot.handlers.common import Runtime, on_timer
from bot.settings import Settings
from localbotapi import BotApiServer, Chat, FakeBot, FakeUser, Message
from localbotapi.models import CallbackAnswer, RequestRecord
from localbotapi.offline import OfflineRequest
from storage import Screen, StoredGame
from tests.bot.fake_clock import FakeClock
from tests.rules.helpers import ScriptedSource

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
    settings: Settings | None = None
    # Scripted chance: games listed in ``sources`` deal from their own script, every other game
    # from ``source`` (with no decks left a ScriptedSource deals the canonical order, lot 0).
    source: ScriptedSource = field(default_factory=ScriptedSource)
    sources: dict[int, ScriptedSource] = field(default_factory=dict)

    def install_sources(self) -> None:
        self.rt.service.source_factory = lambda game_id: self.sources.get(game_id, self.source)

    def script(
        self,
        decks: Sequence[Sequence[str]] = (),
        lots: Sequence[int] = (),
        game_id: int | None = None,
    ) -> None:
        """Deal ``decks`` (one per shuffle, top first) and ``lots`` in the next game(s)."""
        scripted = ScriptedSource(decks=decks, lots=lots)
        if game_id is None:
            self.source = scripted
        else:
            self.sources[game_id] = scripted

    @property
    def rt(self) -> Runtime:
        rt: Runtime = self.app.bot_data["runtime"]
        return rt

    async def deliver(self) -> None:
        """Let delivery send everything pending, as a running bot shows it a moment later: the
        games' messages (table edits without their gap) and the replies to commands, pointers
        and stale buttons' removal too (`Delivery.drain`)."""
        await self.rt.delivery.drain(replies=True)

    async def pump(self) -> None:
        """Deliver every pending update to the application, then let delivery finish."""
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
        await self.deliver()

    async def say(
        self,
        user: FakeUser,
        text: str,
        chat: Chat | FakeBot | None = None,
        *,
        thread_id: int | None = None,
    ) -> None:
        await user.send(chat if chat is not None else self.group, text, thread_id=thread_id)
        await self.pump()

    async def press(self, user: FakeUser, message: Message, text: str) -> CallbackAnswer:
        query = await user.press(message, text)
        await self.pump()
        return await query.wait(timeout=5)

    async def press_act(
        self, user: FakeUser, message: Message, act: Act, amount: int | None = None
    ) -> CallbackAnswer:
        """Press the button whose callback data is ``act`` (with ``amount``), not by its label."""
        query = await user.press(message, data=self.data_of(message, act, amount))
        await self.pump()
        return await query.wait(timeout=5)

    async def press_data(self, user: FakeUser, message: Message, data: str) -> CallbackAnswer:
        """Press the button of ``message`` that carries ``data``."""
        query = await user.press(message, data=data)
        await self.pump()
        return await query.wait(timeout=5)

    async def press_raw(self, user: FakeUser, message: Message, data: str) -> CallbackAnswer:
        """A press on ``message`` carrying any callback data (an outdated, foreign or forged
        button), delivered as a raw update; returns the bot's answer."""
        query, _ = self.server.forge_press(self.bot, user, message, data)
        await self.pump()
        return await query.wait(timeout=5)

    async def end_game(self, user: FakeUser, *, thread_id: int | None = None) -> Message:
        """/endgame, and ``user`` confirms it on the question the bot asks in the group;
        returns the question message."""
        await self.say(user, "/endgame", thread_id=thread_id)
        question = self.group.last_with_buttons()
        assert question is not None, "no «end the game?» question"
        yes = [d for _, d in question.flat_buttons if d and d.startswith("e:") and d[-2:] == ":y"]
        assert yes, question.buttons
        answer = await self.press_data(user, question, yes[0])
        assert not answer.show_alert, answer
        return question

    def bot_texts_since(self, count: int, chat: Chat | None = None) -> list[str]:
        """Texts of the bot's messages posted after the first ``count`` messages of the chat."""
        messages = (chat or self.group).all_messages[count:]
        return [m.content for m in messages if m.from_bot]

    @staticmethod
    def data_of(message: Message, act: Act, amount: int | None = None) -> str:
        for _, data in message.flat_buttons:
            button = parse_game(data)
            if button and button.act is act and (amount is None or button.amount == amount):
                return data or ""
        raise AssertionError(f"no {act} button ({amount}) in {message!r}: {message.buttons}")

    @staticmethod
    def acts(message: Message) -> list[GameButton]:
        return [b for _, data in message.flat_buttons if (b := parse_game(data)) is not None]

    async def push(self, update: dict[str, Any]) -> dict[str, Any]:
        """Deliver a raw update through the server (it gets the next update_id)."""
        pushed = self.server.push_update(
            self.bot, {k: v for k, v in update.items() if k != "update_id"}
        )
        await self.pump()
        return pushed

    async def redeliver(self, update: dict[str, Any]) -> None:
        """Deliver an update that was processed already, with its update_id, as Telegram does
        when the bot did not confirm it (the server drops ids below the confirmed offset)."""
        assert update["update_id"] < self.offset
        self.processed.append(update)
        await self.app.process_update(Update.de_json(update, self.app.bot))
        await self.deliver()

    async def stored(self, thread_id: int = 0, chat: Chat | None = None) -> StoredGame:
        """The running game of the group (topic)."""
        found = await self.rt.storage.load_active_game((chat or self.group).id, thread_id)
        assert found is not None, "no running game"
        return found

    async def screen(self, game: int | StoredGame | None = None) -> Screen:
        """What delivery recorded it showed of a game (the group's running game by default)."""
        if game is None:
            game = await self.stored()
        game_id = game if isinstance(game, int) else game.game_id
        return await self.rt.storage.load_screen(game_id)

    async def balance(self, user: FakeUser, chat: Chat | None = None) -> int:
        player = await self.rt.storage.get_player((chat or self.group).id, user.id)
        assert player is not None, f"{user.first_name} has no account"
        return player.balance

    async def fire_timer(self, game_id: int) -> None:
        await on_timer(self.rt, game_id)
        await self.pump()

    def private(self, user: FakeUser) -> Chat:
        return user.private_chat(self.bot)

    def private_texts(self, user: FakeUser) -> list[str]:
        return [
            text
            for message in self.private(user).all_messages
            if message.from_bot
            for text in message.texts
        ]

    def calls(self, method: str, chat_id: int | None = None) -> list[RequestRecord]:
        return [
            r
            for r in self.server.requests
            if r.method == method and (chat_id is None or r.chat_id == chat_id)
        ]

    def table(self) -> Message:
        """The newest bot message in the group that has buttons."""
        message = self.group.last_with_buttons()
        assert message is not None, "no message with buttons in the group"
        return message

    def group_texts(self) -> list[str]:
        """Every text the group ever saw, including earlier versions of edited messages."""
        return [text for message in self.group.all_messages for text in message.texts]

    @property
    def clock(self) -> FakeClock:
        """The bot's one clock (`bot.scheduler`): it stands still until a test moves it."""
        clock = self.app.bot_data["clock"]
        assert isinstance(clock, FakeClock)
        return clock

    async def advance_clock(self, seconds: float) -> None:
        """Let time pass without waiting: what became due by the bot's clock runs (turns time
        out, warnings and sweeps go), and what it shows is delivered."""
        self.clock.advance(seconds)
        await self.rt.scheduler.settle()
        await self.deliver()

    def advance_reply_clock(self, seconds: float) -> None:
        """Let the limits on answers pass without waiting: the once-a-minute group answers,
        the pointer every few minutes (`bot.replies.Replies`) and the cooldowns of costly
        commands (`bot.replies.Cooldowns`) judge time by their clocks."""
        for limits in (self.rt.replies, self.rt.cooldowns):
            base = limits.clock
            limits.clock = lambda base=base: base() + seconds  # type: ignore[misc]

    @staticmethod
    def pointer(user: FakeUser, lang: str = "ru") -> str:
        """The group's short line saying that ``user``'s answer went to the private chat (as
        the chat shows it: the bold name is an entity)."""
        return plain(render.text("reply-pointer", lang, name=user.first_name))

    def private_since(self, user: FakeUser, count: int) -> list[str]:
        """Texts (or captions) of the bot's messages in ``user``'s private chat after its first
        ``count`` messages."""
        return self.bot_texts_since(count, self.private(user))

    def newcomer(self, name: str) -> FakeUser:
        """A new member of the group who has never opened the private chat with the bot: the
        answers to his group commands are posted in the group."""
        user = self.server.create_user(name)
        self.group.add_member(user)
        return user


def plain(text: str) -> str:
    """What a chat shows of an HTML text (tags become entities)."""
    return html.unescape(re.sub(r"<[^>]+>", "", text))


def hand_codes(stored: StoredGame, player: int) -> list[str]:
    """The card codes of ``player``'s hand in the stored engine state."""
    for hand in stored.state["engine"]["hands"]:
        if hand["player"] == player:
            return list(hand["cards"])
    return []


def make_settings(tmp_path: Path, **overrides: Any) -> Settings:
    values: dict[str, Any] = {
        "bot_token": TOKEN,
        "database_url": f"sqlite:///{tmp_path / 'bot.sqlite3'}",
        "bot_api_base_url": "http://127.0.0.1:9/bot",
        "table_edit_gap": 0.0,
        "sqlite_synchronous": "NORMAL",
    }
    values.update(overrides)
    return Settings(_env_file=None, **values)  # type: ignore[call-arg]


async def start_harness(
    server: BotApiServer,
    settings: Settings,
    players: int = 4,
    *,
    opened: int | None = None,
    forum: bool = False,
    clock: FakeClock | None = None,
) -> Harness:
    """A fresh bot, ``players`` users in one group (the first is its admin); the first
    ``opened`` users (all by default) have opened the private chat with /start. Its clock
    reads the real time, unless ``clock`` is given."""
    bot = server.add_bot(TOKEN, username="ochko_test_bot")
    names = ["Аня", "Борис", "Вика", "Гоша", "Дима", "Ева"][:players]
    users = [server.create_user(name) for name in names]
    group = server.create_group("Очко", members=users, admins=users[:1], forum=forum)
    app = await _open_app(server, settings, clock)
    harness = Harness(server, bot, app, group, users, settings=settings)
    harness.install_sources()
    for user in users[: players if opened is None else opened]:
        await harness.say(user, "/start", bot)
    return harness


async def _open_app(
    server: BotApiServer, settings: Settings, clock: FakeClock | None = None
) -> Application[Any, Any, Any, Any, Any, Any]:
    clock = clock if clock is not None else FakeClock()
    app = build_application(
        settings, request=OfflineRequest(server), rate_limiter=False, clock=clock
    )
    await app.initialize()
    await post_init(app)
    return app


async def restart_harness(old: Harness, clock: FakeClock | None = None) -> Harness:
    """A new Application on the same database and the same server (after ``stop_harness(old)``):
    the same bot, users and group, as when the process restarts; its clock reads the real
    time, unless ``clock`` is given."""
    assert old.settings is not None
    app = await _open_app(old.server, old.settings, clock)
    harness = Harness(
        old.server,
        old.bot,
        app,
        old.group,
        old.users,
        offset=old.offset,
        settings=old.settings,
        source=old.source,
        sources=old.sources,
    )
    harness.install_sources()
    return harness


async def stop_harness(harness: Harness) -> None:
    await post_shutdown(harness.app)
    await harness.app.shutdown()


@pytest.fixture
async def harness(tmp_path: Path, request: pytest.FixtureRequest) -> AsyncIterator[Harness]:
    """Four users, all with the private chat opened; parametrized indirectly, the parameter is
    how many of them (the first ones) have opened it."""
    server = BotApiServer(flood_limits=False)
    opened: int | None = getattr(request, "param", None)
    h = await start_harness(server, make_settings(tmp_path), opened=opened)
    try:
        yield h
    finally:
        await stop_harness(h)


def now() -> float:
    return time.time()


@pytest.fixture
async def forum(tmp_path: Path) -> AsyncIterator[Harness]:
    """The harness in a forum group (topics)."""
    server = BotApiServer(flood_limits=False)
    h = await start_harness(server, make_settings(tmp_path), forum=True)
    try:
        yield h
    finally:
        await stop_harness(h)


# /rules is read on a phone: the measure of one screen (tests/bot/test_one_name.py).
PHONE_COLUMNS = 34
"""Characters in one row of a message on a 360 px wide phone (Telegram's 15 px text in a bubble
that leaves ~300 px for it: ~34 Cyrillic letters; emoji and signs take two)."""
PHONE_ROWS = 20
"""Rows one screen shows above the input field with no keyboard open (640 px high, ~27 px a
row, less the chat's header and the input): each part of /rules fits in them (issue #30)."""


def phone_rows(text: str) -> int:
    """The rows ``text`` (plain, its lines) takes in a bubble :data:`PHONE_COLUMNS` wide,
    wrapped at spaces as Telegram does."""
    rows = 0
    for line in text.split("\n"):
        rows += max(1, len(_wrap(line)))
    return rows


def _width(word: str) -> int:
    return sum(2 if ord(ch) >= 0x2190 else 1 for ch in word)  # emoji and signs: two columns


def _wrap(line: str) -> list[str]:
    rows: list[str] = []
    row = ""
    for word in line.split(" "):
        candidate = f"{row} {word}" if row else word
        if row and _width(candidate) > PHONE_COLUMNS:
            rows.append(row)
            row = word
        else:
            row = candidate
        while _width(row) > PHONE_COLUMNS:  # a word longer than a row is broken
            rows.append(row[:PHONE_COLUMNS])
            row = row[PHONE_COLUMNS:]
    return [*rows, row] if row or not rows else rows
