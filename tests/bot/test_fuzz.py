"""Fuzz: at least 10,000 random updates through the real Application, then every invariant.

Random commands with random arguments, legal and illegal moves by buttons and commands, random
and malformed callback data, presses of real buttons by people in and outside the game (and
outside the group), unicode and very long names, several groups and forum topics, private
chats, duplicate updates, expired turns and swept lobbies. Afterwards: nothing unhandled was
logged, the server saw no unparsable text and no 5xx, every stored game loads, round-trips and
keeps the engine's invariants, and chips are conserved in every chat.

The run is seeded: ``OCHKO_FUZZ_SEED=<n>`` replays a failure (the seed is printed);
``OCHKO_FUZZ_UPDATES=<n>`` changes the number of updates.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import random
import time
from collections import Counter
from pathlib import Path
from typing import Any

from telegram import Update

from bot.app import sweep_stale
from bot.callbacks import Act, GameButton, parse_game
from bot.commands import COMMANDS as COMMAND_TABLE
from bot.game_state import game_of
from bot.handlers.common import on_timer
from bot.render import refusal
from bot.settings_options import CLOSE, CLOSE_VALUE, OPTIONS
from localbotapi import BotApiServer, Chat, FakeUser, Message
from localbotapi.entities import detect_entities
from localbotapi.models import CallbackQuery
from rules.game import Game
from rules.randomness import RandomSource, RecordedSource, seeded
from rules.table import Phase
from rules.variants import PRESETS
from storage import StoredGame
from tests.bot.conftest import Harness, make_settings, start_harness, stop_harness
from tests.rules.test_properties import chips_brought

UPDATES = int(os.environ.get("OCHKO_FUZZ_UPDATES", "10000"))
BATCH = 40
# /chart and /verify are costly, /odds private: each has tests of its own.
EVERY_NAME = {name for command in COMMAND_TABLE for name in command.names()}
COMMANDS = sorted(EVERY_NAME - {"chart", "verify", "odds"})
ACTS = [a.value for a in Act]
SETTING_VALUES = {o.key: o.values for o in OPTIONS} | {CLOSE: (CLOSE_VALUE,)}
WEIRD_AMOUNTS = [
    "0", "-5", "1", "+7", "1.5", "1e3", "0x10", "abc", "∞", "NaN", "٣", "١٠", "１０",
    "99999999999999999999", "999999999999999", "2147483648", "00001", " ", "5 5", "1_000",
    "<b>5</b>", "&amp;", "🃏",
]  # fmt: skip
STRANGE_TEXT = [
    "", "<b>&amp;</b>", "<a href='tg://user?id=1'>x</a>", "</code>", "&lt;", "*_`[", "\u202e",
    "🂡" * 40,
    "ля" * 300, "\x00", "\u200b", "@ochko_test_bot", "/", "//", "/@", "g:1:1:join",
]  # fmt: skip


def weird_name(rng: random.Random) -> str:
    kind = rng.randrange(8)
    if kind == 0:
        return "".join(rng.choice("абвгдеёжзAbCdEf ") for _ in range(rng.randint(64, 256)))
    if kind == 1:
        return "مرحبا بالعالم " * rng.randint(1, 12) + "\u200f"
    if kind == 2:
        return "👨‍👩‍👧‍👦🃏🂡" * rng.randint(1, 30)
    if kind == 3:
        return "<b>&amp;</b>" * rng.randint(1, 20)
    if kind == 4:
        return "\u202eevil\u202c <i>x</i> &lt;" + "Z\u0336\u0337" * rng.randint(1, 40)
    if kind == 5:
        return " \u200b\u2028 " + "\t".join("x" for _ in range(rng.randint(1, 64)))
    if kind == 6:
        return "<script>alert(1)</script> " + "א" * rng.randint(60, 200)
    return "".join(chr(rng.randint(0x20, 0x2FFF)) for _ in range(rng.randint(64, 256)))


class Fuzzer:
    def __init__(self, h: Harness, rng: random.Random) -> None:
        self.h = h
        self.rng = rng
        self.kinds: Counter[str] = Counter()
        self.server = h.server
        self.bot = h.bot
        server = h.server
        self.strangers = [server.create_user(weird_name(rng), language_code=None) for _ in range(8)]
        self.outsiders = [server.create_user(weird_name(rng)) for _ in range(3)]
        everyone = [*h.users, *self.strangers]
        self.users: list[FakeUser] = [*everyone, *self.outsiders]
        # Several groups (the harness's, two more, a forum with topics); users join some of them.
        group2 = server.create_group(weird_name(rng), members=everyone, admins=self.strangers[:1])
        group3 = server.create_group("Пусто", members=everyone[:3] + self.strangers[-2:])
        forum = server.create_group("Форум", members=everyone, admins=everyone[1:2], forum=True)
        self.topics = {forum.id: [forum.create_topic("Стол 1"), forum.create_topic("<b>2</b>")]}
        h.group.add_member(self.strangers[0])
        h.group.add_member(self.strangers[1])
        self.groups: list[Chat] = [h.group, group2, group3, forum]
        self.seen: list[dict[str, Any]] = []
        self._active: list[StoredGame] | None = None

    # ------------------------------------------------------------------ delivery

    async def pump(self, concurrent: bool) -> None:
        """Deliver pending updates (all at once, as the real bot's 256 concurrent updates do,
        or one by one), then let the publisher finish."""
        h = self.h
        self._active = None
        while True:
            _, body = await self.server.dispatch(
                self.bot.token, "getUpdates", {"offset": h.offset, "timeout": 0}
            )
            updates = body["result"]
            if not updates:
                break
            h.offset = updates[-1]["update_id"] + 1
            self.seen.extend(updates)
            parsed = [Update.de_json(data, h.app.bot) for data in updates]
            if concurrent:
                await asyncio.gather(*(h.app.process_update(u) for u in parsed))
            else:
                for update in parsed:
                    await h.app.process_update(update)
        await h.rt.delivery.drain()

    # ------------------------------------------------------------------ picking things

    def member_chat(self, user: FakeUser) -> tuple[Chat, int | None] | None:
        chats = [g for g in self.groups if user.id in g.members]
        if not chats:
            return None
        chat = self.rng.choice(chats)
        return chat, self.thread(chat)

    def thread(self, chat: Chat) -> int | None:
        topics = self.topics.get(chat.id)
        if not topics:
            return None
        return self.rng.choice([None, *topics])

    def bot_messages(self) -> list[Message]:
        chats = [*self.groups, *(u.private_chat(self.bot) for u in self.users)]
        return [m for c in chats for m in c.messages[-15:] if m.from_bot]

    async def active_games(self) -> list[StoredGame]:
        """The running games, read once per batch (updates only take effect when pumped)."""
        if self._active is None:
            self._active = await self._load_active()
        return self._active

    async def _load_active(self) -> list[StoredGame]:
        games = []
        for chat in self.groups:
            for thread in [0, *self.topics.get(chat.id, [])]:
                stored = await self.h.rt.storage.load_active_game(chat.id, thread)
                if stored is not None:
                    games.append(stored)
        return games

    def amount(self, low: int = 1, high: int = 1000) -> str:
        rng = self.rng
        roll = rng.random()
        if roll < 0.5:
            return str(rng.randint(max(low, 1), max(high, 1)))
        if roll < 0.8:
            return rng.choice(WEIRD_AMOUNTS)
        return str(rng.randint(-(10**6), 10**7))

    def args(self, command: str) -> str:
        rng = self.rng
        if rng.random() < 0.3:
            return ""
        if command in ("bet", "bank"):
            return self.amount()
        if command in ("newgame", "rules"):
            names = [*PRESETS, "CLASSIC36", "blackjack", "", "x" * 200, "<b>home36</b>"]
            return rng.choice(names)
        if command == "lang":
            return rng.choice(["ru", "en", "EN", "xx", "de", "ру", "en ru", "<i>"])
        if command == "start":
            return rng.choice(["g1", f"g{rng.randint(1, 60)}", "g0", "gg", "g" + "9" * 30, "x"])
        if command == "top":
            return rng.choice(["month", "месяц", "all", "year"])
        return rng.choice([self.amount(), rng.choice(STRANGE_TEXT), "a b c d"])

    # ------------------------------------------------------------------ update kinds

    async def send(self, user: FakeUser, chat: Chat, text: str, thread: int | None) -> None:
        if not text.strip() or (chat.is_group and user.id not in chat.members):
            self.raw_message(user, chat, text, thread)
            return
        await user.send(chat, text, thread_id=thread)

    def raw_message(self, user: FakeUser, chat: Chat, text: str, thread: int | None) -> None:
        """A message the server would not let this user write (empty, or not a member)."""
        message: dict[str, Any] = {
            "message_id": chat._allocate_id(),
            "from": user.to_dict(),
            "chat": chat.to_dict(),
            "date": int(time.time()),
            "text": text,
            "entities": detect_entities(text),
        }
        if thread is not None:
            message |= {"message_thread_id": thread, "is_topic_message": True}
        self.server.push_update(self.bot, {"message": message})

    async def random_command(self) -> None:
        rng = self.rng
        user = rng.choice(self.users)
        command = rng.choice([*COMMANDS, "foo", "bet@ochko_test_bot", "bet@other_bot", "BET"])
        text = f"/{command} {self.args(command.split('@')[0])}".strip()
        if rng.random() < 0.25:
            self.kinds["command_private"] += 1
            await self.send(user, user.private_chat(self.bot), text, None)
            return
        where = self.member_chat(user)
        if where is None or rng.random() < 0.05:
            self.kinds["command_outsider"] += 1
            chat = rng.choice(self.groups)
            self.raw_message(user, chat, text, self.thread(chat))
            return
        self.kinds["command_group"] += 1
        await self.send(user, where[0], text, where[1])

    async def random_text(self) -> None:
        user = self.rng.choice(self.users)
        text = self.rng.choice(STRANGE_TEXT)
        if self.rng.random() < 0.5:
            self.kinds["text_private"] += 1
            await self.send(user, user.private_chat(self.bot), text, None)
        elif (where := self.member_chat(user)) is not None:
            self.kinds["text_group"] += 1
            await self.send(user, where[0], text, where[1])

    def random_data(self, games: list[StoredGame]) -> str:
        rng = self.rng
        roll = rng.random()
        if roll < 0.45:
            game = rng.choice(games).game_id if games and rng.random() < 0.8 else None
            gid = game if game is not None else rng.choice([0, 1, 2, 99, 10**12, -1])
            version = rng.choice([rng.randint(0, 60), 10**10, -1, 0])
            act = rng.choice([*ACTS, *ACTS, "JOIN", "foo", "", "joinx"])
            data = f"g:{gid}:{version}:{act}"
            if rng.random() < 0.5:
                data += ":" + self.amount()
            return data
        if roll < 0.7:
            chat = rng.choice([*self.groups, None])
            chat_id = chat.id if chat is not None else rng.choice([0, 1, -1, 10**17])
            key = rng.choice([*SETTING_VALUES, "house_banker", "../", ""])
            options = SETTING_VALUES.get(key, ("on",))
            value = rng.choice([*options, "maybe", "", "ru" * 20])
            return f"s:{chat_id}:{key}:{value}"
        if roll < 0.8:
            return ""
        if roll < 0.87:
            return "g:" + "1" * rng.randint(62, 200)
        if roll < 0.93:
            return rng.choice(["g:1:1:join🃏", "g:١:١:join", "s:-1٠:lang:ru", "💥" * 16, "\x00"])
        return "".join(chr(rng.randint(1, 0xFFFF)) for _ in range(rng.randint(1, 70)))

    def raw_press(self, user: FakeUser, message: Message | None, data: str) -> None:
        """A press delivered as a raw update: any data, any user, even an inline message."""
        query = CallbackQuery(str(next(self.server._query_ids)), user, message, self.bot, data)  # type: ignore[arg-type]
        self.server._queries[query.id] = query
        body: dict[str, Any] = {
            "id": query.id,
            "from": user.to_dict(),
            "chat_instance": str(self.rng.randint(1, 10**9)),
        }
        if data or self.rng.random() < 0.5:
            body["data"] = data
        if message is not None:
            body["message"] = message.to_dict()
        else:
            body["inline_message_id"] = "AAAA" + str(self.rng.randint(1, 99))
        self.server.push_update(self.bot, {"callback_query": body})

    async def random_press(self) -> None:
        """Malformed or forged data on some bot message."""
        rng = self.rng
        messages = self.bot_messages()
        message = rng.choice(messages) if messages and rng.random() < 0.95 else None
        self.kinds["press_forged"] += 1
        self.raw_press(rng.choice(self.users), message, self.random_data(await self.active_games()))

    async def real_press(self) -> None:
        """A real button of a real message, pressed by anyone (member or not)."""
        rng = self.rng
        messages = [m for m in self.bot_messages() if m.inline_keyboard]
        if not messages:
            return
        message = rng.choice(messages)
        data = rng.choice(callback_data(message) or [""])
        user = rng.choice(self.users)
        chat = message.chat
        allowed = user.id in chat.members if chat.is_group else chat.user is user
        if allowed and data:
            self.kinds["press_real"] += 1
            await user.press(message, data=data)
        else:
            self.kinds["press_real_outsider"] += 1
            self.raw_press(user, message, data)

    async def smart_move(self) -> None:
        """A move the game wants now (or nearly), by button or command: games get played."""
        rng = self.rng
        games = await self.active_games()
        if not games or rng.random() < 0.08:
            chat = rng.choice(self.groups)
            thread = self.thread(chat)
            members = list(chat.members.values())
            self.kinds["smart_newgame"] += 1
            preset = rng.choice(["", *PRESETS])
            await self.send(rng.choice(members), chat, f"/newgame {preset}".strip(), thread)
            return
        stored = rng.choice(games)
        chat = self.server.groups[stored.chat_id]
        thread = stored.thread_id or None
        game = game_of(stored)
        legal = game.legal_actions()
        members = list(chat.members.values())
        seated = [u for u in members if game.is_seated(u.id)]
        actor = next((u for u in self.users if u.id == legal.actor), None)
        if actor is None or rng.random() < 0.15:
            actor = rng.choice(seated or members)
        options = sorted(legal.actions - {"end", "timeout"}) or ["join"]
        action = rng.choice(options)
        if game.phase is Phase.LOBBY and len(game.players) < 3 and rng.random() < 0.6:
            action = "join"
            actor = rng.choice(members)
        low, high = legal.minimum, legal.maximum
        amount = rng.randint(low, max(low, high)) if high >= 1 else 1
        if rng.random() < 0.1:
            amount = rng.choice([high + 1, 0, high * 10 + 1])
        act, command = {
            "join": (Act.JOIN, "/join"),
            "leave": (Act.LEAVE, "/leave"),
            "start": (Act.START, "/deal"),
            "set_bank": (Act.BANK, f"/bank {amount}"),
            "pass_bank": (Act.PASS, "/pass"),
            "stake": (Act.BET, f"/bet {amount}"),
            "hit": (Act.HIT, "/hit"),
            "stand": (Act.STAND, "/stand"),
            "dark": (Act.DARK, "/dark"),
            "next_round": (Act.NEXT, "/next"),
        }[action]
        table_id = (await self.h.rt.storage.load_screen(stored.game_id)).table_message_id
        table = chat.message(table_id) if table_id else None
        if table is not None and rng.random() < 0.6:
            buttons = [
                (b, d)
                for d in callback_data(table)
                if (b := parse_game(d)) is not None and b.act is act
            ]
            if buttons:
                button, data = rng.choice(buttons)
                if rng.random() < 0.2:  # a forged amount on a real button
                    data = GameButton(button.game_id, button.version, act, int(amount)).encode()
                self.kinds["smart_button"] += 1
                if actor.id in chat.members and data in callback_data(table):
                    await actor.press(table, data=data)
                else:
                    self.raw_press(actor, table, data)
                return
        self.kinds["smart_command"] += 1
        if rng.random() < 0.1 and actor.id != chat.id:
            await self.send(actor, actor.private_chat(self.bot), command, None)
        else:
            await self.send(actor, chat, command, thread)

    async def duplicate(self) -> None:
        """An update delivered again with its update id, as Telegram does when unconfirmed."""
        if not self.seen:
            return
        self.kinds["duplicate"] += 1
        data = self.rng.choice(self.seen[-300:])
        self._active = None
        await self.h.app.process_update(Update.de_json(data, self.h.app.bot))

    async def timeout(self) -> None:
        """A turn deadline passes (the bot's clock moves on; a stale timer fires as well)."""
        games = await self.active_games()
        if not games:
            return
        self.kinds["timeout"] += 1
        await self.h.advance_clock(self.rng.choice([5, 61, 121, 400]))
        await on_timer(self.h.rt, self.rng.choice(games).game_id)
        self._active = None

    async def sweep(self) -> None:
        """Every idle lobby and game expires (LOBBY_TIMEOUT reached)."""
        self.kinds["sweep"] += 1
        rt = self.h.rt
        real = rt.settings
        rt.settings = real.model_copy(update={"lobby_timeout": -1})
        try:
            await sweep_stale(rt)
        finally:
            rt.settings = real
            self._active = None

    async def one(self) -> None:
        roll = self.rng.random()
        if roll < 0.40:
            await self.smart_move()
        elif roll < 0.62:
            await self.random_command()
        elif roll < 0.72:
            await self.real_press()
        elif roll < 0.87:
            await self.random_press()
        elif roll < 0.92:
            await self.random_text()
        elif roll < 0.975:
            await self.duplicate()
        elif roll < 0.999:
            await self.timeout()
        else:
            await self.sweep()


def callback_data(message: Message) -> list[str]:
    return [
        b["callback_data"] for row in message.inline_keyboard for b in row if "callback_data" in b
    ]


class Errors(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


def check_game(stored: StoredGame, archived: list[dict[str, Any]]) -> None:
    """The stored engine state loads, round-trips and keeps the invariants; replaying its log
    (the archived rounds and its own) action by action, the chips at the table always equal what
    the players brought."""
    engine = stored.state["engine"]
    game = Game.from_dict(engine)
    assert game.to_dict() == engine, stored.game_id
    assert json.loads(game.to_json()) == json.loads(json.dumps(engine)), stored.game_id
    assert game.bank >= 0 and all(s.balance >= 0 for s in game.seats), engine
    assert stored.bank == game.bank, (stored.bank, game.bank)
    if game.phase is Phase.ENDED:
        assert game.bank == 0 and stored.status == "finished"
    brought = 0
    entries = game.full_log(archived)
    replayed = Game.replay(game.variant, entries)
    replayed.archive_log(len(game.log))  # as the bot stored it: the earlier rounds elsewhere
    assert replayed.to_dict() == engine, f"game {stored.game_id}: the log does not replay"
    # Step by step: chips enter only by joining and leave only with a leaving seat.
    shuffles = [e["order"] for e in entries if e["a"] == "shuffle"]
    lots = [e["i"] for e in entries if e["a"] == "lot"]
    step = Game(game.variant, RecordedSource(shuffles, lots))
    for entry in entries:
        before = {seat.player: seat.balance for seat in step.seats}
        brought += chips_brought(before, step.apply(entry))
        assert step.total_chips() == brought, (stored.game_id, entry)
    assert game.total_chips() == brought


async def test_fuzz_ten_thousand_updates(tmp_path: Path) -> None:
    seed = int(os.environ.get("OCHKO_FUZZ_SEED", str(random.randrange(2**32))))
    print(f"fuzz seed {seed} (OCHKO_FUZZ_SEED={seed} reproduces it)")
    rng = random.Random(seed)
    server = BotApiServer(flood_limits=False)
    settings = make_settings(tmp_path, table_edit_gap=0.0, max_games_per_user=3)
    errors = Errors()
    logging.getLogger().addHandler(errors)
    h = await start_harness(server, settings, players=4, opened=2)
    started = time.monotonic()
    try:
        fuzz = Fuzzer(h, rng)
        # Seeded deals, one random stream per game (the harness would deal a fixed order).
        decks: dict[int, RandomSource] = {}
        h.rt.service.source_factory = lambda gid: decks.setdefault(gid, seeded(seed + gid))
        for user in fuzz.strangers[: len(fuzz.strangers) // 2]:
            await h.say(user, "/start", h.bot)
        count = 0
        while count < UPDATES:
            for _ in range(BATCH):
                before = fuzz.bot.next_update_id
                await fuzz.one()
                count += fuzz.bot.next_update_id - before
            await fuzz.pump(concurrent=rng.random() < 0.3)
            if errors.records:
                break
        # Let any timer task the run started finish, then publish what is left.
        await asyncio.sleep(0)
        await h.rt.delivery.drain()
        took = time.monotonic() - started
        print(f"{count} updates ({len(fuzz.seen)} delivered) in {took:.1f}s: {dict(fuzz.kinds)}")

        problems = [
            f"{r.name}: {r.getMessage()}\n{logging.Formatter().formatException(r.exc_info)}"
            if r.exc_info
            else f"{r.name}: {r.getMessage()}"
            for r in errors.records
        ]
        assert not problems, f"seed {seed}:\n" + "\n".join(problems[:3])
        assert count >= 10_000 or UPDATES < 10_000
        assert server.parse_errors == [], server.parse_errors[:5]
        assert [r for r in server.requests if r.status >= 500] == []
        failures = Counter(f"{r.method}: {r.description}" for r in server.errors)
        print("refused requests:", dict(failures))

        storage = h.rt.storage
        rows = await storage._rows("SELECT game_id FROM games ORDER BY game_id")  # type: ignore[attr-defined]
        assert rows, "no game was ever played"
        phases: Counter[str] = Counter()
        rounds = 0
        for (game_id,) in rows:
            stored = await storage.load_game(game_id)
            assert stored is not None
            check_game(stored, await storage.archived_log(game_id))
            phases[stored.state["engine"]["phase"]] += 1
            rounds += stored.state["engine"]["round_no"]
            if stored.status != "finished":
                # A seated player's chips at the table are their account's balance.
                for seat in game_of(stored).seats:
                    player = await storage.get_player(stored.chat_id, seat.player)
                    assert player is not None and player.balance == seat.balance, (
                        f"seed {seed}: game {game_id}: {seat} vs {player}"
                    )
        print(f"{len(rows)} games, {rounds} rounds; last phases: {dict(phases)}")
        for chat in fuzz.groups:
            check = await storage.check_ledger(chat.id)
            assert check.ok, f"seed {seed}: {check}"
    finally:
        logging.getLogger().removeHandler(errors)
        await stop_harness(h)


async def test_one_seat_per_chat_across_forum_topics(tmp_path: Path) -> None:
    """Found by the fuzzer: a player seated in two topics' games of one forum spent the same
    chat balance twice, and the second game's chips then failed the ledger (InsufficientFunds
    as an unhandled error). A second seat in the same chat is refused."""
    server = BotApiServer(flood_limits=False)
    h = await start_harness(server, make_settings(tmp_path), players=3, forum=True)
    try:
        a, b, c = h.users
        first, second = h.group.create_topic("Стол 1"), h.group.create_topic("Стол 2")
        await a.send(h.group, "/newgame", thread_id=first)
        await b.send(h.group, "/join", thread_id=first)
        await c.send(h.group, "/newgame", thread_id=second)
        await h.pump()
        count = len(h.group.all_messages)
        seen_a, seen_b = len(h.private(a).all_messages), len(h.private(b).all_messages)
        await b.send(h.group, "/join", thread_id=second)
        await a.send(h.group, "/newgame")  # the General topic
        await h.pump()
        # Each refusal goes to the asker's private chat; the group gets a pointer to it where
        # the command was typed.
        replies = [h.private_since(b, seen_b), h.private_since(a, seen_a)]
        assert replies == [[refusal("seated_in_chat", {}, "ru")]] * 2, replies
        pointers = [(m.content, m.thread_id) for m in h.group.all_messages[count:] if m.from_bot]
        assert pointers == [(h.pointer(b), second), (h.pointer(a), None)], pointers
        one = await h.stored(first)
        two = await h.stored(second)
        assert game_of(one).players == [a.id, b.id]
        assert game_of(two).players == [c.id]
        assert await h.rt.storage.load_active_game(h.group.id, 0) is None
    finally:
        await stop_harness(h)
