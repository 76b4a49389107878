"""What the group and the players see: the live table message, the round results, the private
hands — coalesced and paced under Telegram's flood limits.

Handlers only mark a game dirty. One flush task per game waits a short window (so a burst of
moves becomes one edit), waits for the chat's send slot, then renders the *freshest* committed
state: a slow chat therefore gets fewer, newer edits instead of a queue of stale ones. Results
wait in the game's stored outbox until they are posted, so a crash cannot drop them.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import time
from collections import OrderedDict
from collections.abc import Iterable
from contextlib import suppress
from dataclasses import dataclass, field
from typing import Any

from telegram import Bot, LinkPreviewOptions, Message
from telegram.constants import ParseMode
from telegram.error import BadRequest, Forbidden, NetworkError, RetryAfter

from bot import render
from bot.locks import KeyedLocks
from bot.service import (
    GameService,
    Meta,
    meta_of,
    news_events,
    round_settled_from_dict,
    seated_names,
    session_ended_from_dict,
)
from rules.table import Phase
from storage import GameNotFound, Storage, StoredGame, User

log = logging.getLogger(__name__)
NO_PREVIEW = LinkPreviewOptions(is_disabled=True)
RETRY_DELAY = 5.0
SHOWN_LIMIT = 20_000
USER_CACHE_SECONDS = 60.0
USER_CACHE_LIMIT = 50_000
# How often the shown versions (what start-up refreshes compare against) are written: one
# transaction for all tables instead of a commit per edit. A crash loses at most this much of
# them, which costs only a few redundant refreshes at the next start.
SHOWN_WRITE_SECONDS = 2.0


@dataclass(slots=True)
class _Dirty:
    table: bool = False
    players: set[int] = field(default_factory=set)
    all_players: bool = False


class Publisher:
    def __init__(
        self,
        bot: Bot,
        storage: Storage,
        service: GameService,
        locks: KeyedLocks,
        *,
        bot_username: str,
        coalesce_seconds: float,
        default_language: str,
        limiter: Any = None,
    ) -> None:
        self.bot = bot
        self.storage = storage
        self.service = service
        self.locks = locks
        self.bot_username = bot_username
        self.coalesce = coalesce_seconds
        self.default_language = default_language
        self.limiter = limiter  # bot.ratelimit.PacedRateLimiter when pacing is on
        self._dirty: dict[int, _Dirty] = {}
        self._tasks: dict[int, asyncio.Task[None]] = {}
        # (chat, message) -> digest of what it shows, to skip identical edits; bounded LRU.
        self._shown: OrderedDict[tuple[int, int], str] = OrderedDict()
        self._tables: dict[int, int] = {}  # game -> the table message last shown
        self._users: dict[int, tuple[User | None, float]] = {}  # user -> (record, expiry)
        self._results: dict[int, int] = {}  # game -> its last result message with buttons
        self._shown_versions: dict[int, int] = {}  # game -> version shown, not yet written
        self._shown_writer: asyncio.Task[None] | None = None

    # ---------------------------------------------------------------- public

    def touch(
        self, game_id: int, *, table: bool = True, players: Iterable[int] | None = None
    ) -> None:
        """Something changed in the game: refresh the table and these players' hands (all of
        them when ``players`` is None) soon."""
        dirty = self._dirty.setdefault(game_id, _Dirty())
        dirty.table = dirty.table or table
        if players is None:
            dirty.all_players = True
        else:
            dirty.players.update(players)
        if game_id not in self._tasks:
            self._tasks[game_id] = asyncio.create_task(self._run(game_id), name=f"flush-{game_id}")

    async def drain(self, timeout: float = 10.0) -> None:
        """Wait until everything pending has been sent (shutdown and tests)."""
        deadline = time.monotonic() + timeout
        while self._tasks and time.monotonic() < deadline:
            await asyncio.wait(list(self._tasks.values()), timeout=deadline - time.monotonic())
        await self.write_shown()

    async def stop(self) -> None:
        for task in list(self._tasks.values()):
            task.cancel()
        await asyncio.gather(*self._tasks.values(), return_exceptions=True)
        self._tasks.clear()
        if self._shown_writer is not None:
            self._shown_writer.cancel()
            await asyncio.gather(self._shown_writer, return_exceptions=True)
            self._shown_writer = None
        await self.write_shown()

    async def write_shown(self) -> None:
        """Record the versions the tables show, all in one transaction."""
        pending, self._shown_versions = self._shown_versions, {}
        if not pending:
            return
        try:
            async with self.storage.transaction() as tx:
                for game_id, version in pending.items():
                    with suppress(GameNotFound):  # pruned meanwhile: nothing to record
                        await tx.set_messages(game_id, shown_version=version)
        except Exception:
            log.exception("could not record the shown versions of %s games", len(pending))

    def _mark_shown(self, game_id: int, version: int) -> None:
        self._shown_versions[game_id] = version
        if self._shown_writer is None:
            self._schedule_shown()

    def _schedule_shown(self) -> None:
        self._shown_writer = asyncio.create_task(self._write_shown_later(), name="shown")

    async def _write_shown_later(self) -> None:
        try:
            await asyncio.sleep(SHOWN_WRITE_SECONDS)
            await self.write_shown()
        finally:
            self._shown_writer = None
        if self._shown_versions:  # tables shown while this write was under way
            self._schedule_shown()

    # ---------------------------------------------------------------- the flush loop

    async def _run(self, game_id: int) -> None:
        try:
            while game_id in self._dirty:
                if self.coalesce:
                    await asyncio.sleep(self.coalesce)
                dirty = self._dirty.pop(game_id)
                try:
                    await self._flush(game_id, dirty)
                except (NetworkError, RetryAfter) as error:
                    log.warning("publish failed game=%s: %s; retrying", game_id, error)
                    merged = self._dirty.setdefault(game_id, _Dirty())
                    merged.table = merged.table or dirty.table
                    merged.all_players = merged.all_players or dirty.all_players
                    merged.players |= dirty.players
                    await asyncio.sleep(RETRY_DELAY)
                except Exception:
                    log.exception("publish failed game=%s", game_id)
        finally:
            self._tasks.pop(game_id, None)

    async def _flush(self, game_id: int, dirty: _Dirty) -> None:
        stored = await self.storage.load_game(game_id)
        if stored is None:
            return
        if stored.state["meta"]["outbox"]:
            await self._post_outbox(stored)
        snap = None
        if dirty.table:
            shown = await self._refresh_table(game_id, stored.chat_id)
            if shown is not None:
                stored, snap = shown
        game = self.service.game(stored)
        players = set(game.players) if dirty.all_players else dirty.players & set(game.players)
        if players:
            # The hands show the state the table just showed: one load and one snapshot.
            await self._refresh_hands(stored, snap or await self.snapshot(stored), players)

    async def _wait_turn(self, chat_id: int) -> None:
        if self.limiter is not None:
            await self.limiter.wait_turn(chat_id)

    def _send_args(self) -> dict[str, Any]:
        return {"rate_limit_args": {"reserved": True}} if self.limiter is not None else {}

    async def snapshot(self, stored: StoredGame, lang: str | None = None) -> render.Snapshot:
        game = self.service.game(stored)
        meta = meta_of(stored)
        chat = await self.storage.get_chat(stored.chat_id)
        users = await self.users(game.players)
        private_ok = {p for p, user in users.items() if user is not None and user.private_opened}
        return render.Snapshot(
            game_id=stored.game_id,
            version=stored.version,
            game=game,
            names=dict(meta.names) | seated_names(game, meta),
            creator_id=meta.creator_id,
            lang=lang or chat.language,
            deadline=stored.deadline,
            private_ok=frozenset(private_ok),
            bot_username=self.bot_username,
            now=time.time(),
        )

    async def _post_outbox(self, stored: StoredGame) -> None:
        items = list(stored.state["meta"]["outbox"])
        snap = await self.snapshot(stored)
        meta = meta_of(stored)
        for item in items:
            if item["kind"] == "result":
                rendered = render.result(snap, round_settled_from_dict(item["event"]))
            elif snap.game.round_no == 0:
                continue  # a lobby that never dealt: its own message says it is closed
            else:
                ended = render.session_end(snap, session_ended_from_dict(item["event"]))
                rendered = render.Rendered(_end_note(snap, meta) + ended.text, None)
            await self._wait_turn(stored.chat_id)
            try:
                sent = await self._send(stored.chat_id, stored.thread_id, rendered)
                if item["kind"] == "result" and rendered.markup is not None:
                    self._results[stored.game_id] = sent.message_id
            except (BadRequest, Forbidden) as error:
                # The chat is gone or refuses us; keeping the item would retry forever.
                log.warning(
                    "result not posted chat=%s game=%s: %s", stored.chat_id, stored.game_id, error
                )
        async with self.locks.hold(stored.game_id):
            await self.service.drop_outbox(stored.game_id, len(items))

    async def _refresh_table(
        self, game_id: int, chat_id: int
    ) -> tuple[StoredGame, render.Snapshot] | None:
        """Show the freshest state on the table; returns what it showed."""
        await self._wait_turn(chat_id)
        async with self.locks.hold(game_id):
            stored = await self.storage.load_game(game_id)
            if stored is None:
                return None
            snap = await self.snapshot(stored)
            if snap.game.phase is Phase.ENDED and snap.game.round_no == 0:
                note = _end_note(snap, meta_of(stored)) or render.text("game.cancelled", snap.lang)
                rendered = render.Rendered(note.strip(), None)
            elif snap.game.phase is Phase.LOBBY:
                rendered = render.lobby(snap)
            else:
                news = render.announce(snap, news_events(meta_of(stored)))
                rendered = render.table(snap, news)
            if snap.game.is_over and rendered.markup is not None:
                # A game that ended before its first deal (a cancelled lobby, or ended while
                # the bank was being named) shows its lobby picture, but no live buttons.
                rendered = render.Rendered(rendered.text, None)
            message_id = await self._show(
                stored.chat_id, stored.thread_id, stored.table_message_id, rendered
            )
            if message_id != stored.table_message_id:
                # A new message must be known at once: a restart edits it, not another one.
                async with self.storage.transaction() as tx:
                    await tx.set_messages(
                        game_id, table_message_id=message_id, shown_version=stored.version
                    )
                self._shown_versions.pop(game_id, None)
            else:
                self._mark_shown(game_id, stored.version)
        previous = self._tables.pop(game_id, None)
        if not snap.game.is_over:
            self._tables[game_id] = message_id
        if previous is not None and previous != message_id:
            await self._strip_buttons(stored.chat_id, previous)
        if snap.game.phase is not Phase.ROUND_OVER:
            # The game moved past the last result: its "next round" buttons are stale now.
            result = self._results.pop(game_id, None)
            if result is not None:
                await self._strip_buttons(stored.chat_id, result)
        return stored, snap

    async def users(self, players: Iterable[int]) -> dict[int, User | None]:
        """The players' user records (language, private chat opened), cached briefly: every
        flush needs them, and they change only on /start, /lang or a refused send, which call
        :meth:`forget_user`."""
        now = time.monotonic()
        found: dict[int, User | None] = {}
        for player in players:
            cached = self._users.get(player)
            if cached is None or cached[1] < now:
                cached = (await self.storage.get_user(player), now + USER_CACHE_SECONDS)
                self._users[player] = cached
            found[player] = cached[0]
        if len(self._users) > USER_CACHE_LIMIT:
            self._users.clear()
        return found

    def forget_user(self, user_id: int) -> None:
        self._users.pop(user_id, None)

    async def _refresh_hands(
        self, stored: StoredGame, snap: render.Snapshot, players: set[int]
    ) -> None:
        """Every private hand from one snapshot; an unchanged hand costs no request at all."""
        game_id = stored.game_id
        users = await self.users(players)
        targets = sorted(
            p for p in players if snap.game.is_seated(p) and p in snap.private_ok and users[p]
        )
        shown = await asyncio.gather(
            *(self._refresh_hand(stored, snap, p, users[p]) for p in targets)
        )
        new = {p: m for p, m in zip(targets, shown, strict=True) if m is not None}
        new = {p: m for p, m in new.items() if stored.hand_messages.get(p) != m}
        if new:
            async with self.locks.hold(game_id), self.storage.transaction() as tx:
                fresh = await tx.load_game(game_id)
                if fresh is not None:
                    await tx.set_messages(game_id, hand_messages=dict(fresh.hand_messages) | new)

    async def _refresh_hand(
        self, stored: StoredGame, snap: render.Snapshot, player: int, user: User | None
    ) -> int | None:
        lang = (user.language if user else None) or snap.lang
        rendered = render.hand(snap, player, lang)
        current = stored.hand_messages.get(player)
        if current is not None and self._shown.get((player, current)) == _digest(rendered):
            return current
        await self._wait_turn(player)
        try:
            return await self._show(player, 0, current, rendered)
        except Forbidden:
            # Blocked, or never really opened: fall back to the "👁 my cards" alert.
            async with self.storage.transaction() as tx:
                await tx.upsert_user(
                    player, user.name if user else str(player), private_opened=False
                )
            self.forget_user(player)
            return None

    # ---------------------------------------------------------------- sending

    async def _strip_buttons(self, chat_id: int, message_id: int) -> None:
        """The last round's table keeps its final picture but loses its stale buttons."""
        await self._wait_turn(chat_id)
        try:
            await self.bot.edit_message_reply_markup(
                chat_id=chat_id, message_id=message_id, reply_markup=None, **self._send_args()
            )
        except BadRequest as error:
            log.info("could not strip buttons chat=%s message=%s: %s", chat_id, message_id, error)

    async def _show(
        self, chat_id: int, thread_id: int, message_id: int | None, rendered: render.Rendered
    ) -> int:
        """Edit the message to show ``rendered`` (skipping identical edits), or post it anew."""
        digest = _digest(rendered)
        if message_id is not None:
            if self._shown.get((chat_id, message_id)) == digest:
                return message_id
            try:
                await self.bot.edit_message_text(
                    rendered.text,
                    chat_id=chat_id,
                    message_id=message_id,
                    parse_mode=ParseMode.HTML,
                    reply_markup=rendered.markup,
                    link_preview_options=NO_PREVIEW,
                    **self._send_args(),
                )
                _remember(self._shown, (chat_id, message_id), digest)
                return message_id
            except BadRequest as error:
                text = str(error).lower()
                if "not modified" in text:
                    _remember(self._shown, (chat_id, message_id), digest)
                    return message_id
                if "not found" not in text:
                    raise
                log.info("message %s in chat %s is gone; posting anew", message_id, chat_id)
                await self._wait_turn(chat_id)
        message = await self._send(chat_id, thread_id, rendered)
        _remember(self._shown, (chat_id, message.message_id), digest)
        return message.message_id

    async def _send(self, chat_id: int, thread_id: int, rendered: render.Rendered) -> Message:
        return await self.bot.send_message(
            chat_id,
            rendered.text,
            parse_mode=ParseMode.HTML,
            reply_markup=rendered.markup,
            message_thread_id=thread_id or None,
            link_preview_options=NO_PREVIEW,
            **self._send_args(),
        )


def _end_note(snap: render.Snapshot, meta: Meta) -> str:
    """Who closed the game, or that it expired, as a first line (empty when the rules ended it)."""
    lobby = snap.game.round_no == 0
    if meta.expired:
        return render.text("lobby.expired" if lobby else "game.expired", snap.lang) + "\n"
    if meta.ended_by is not None:
        key = "game.cancelled_by" if lobby else "game.ended_by"
        return render.text(key, snap.lang, name=snap.names.get(meta.ended_by, "?")) + "\n"
    return ""


def _remember(shown: OrderedDict[tuple[int, int], str], key: tuple[int, int], digest: str) -> None:
    shown[key] = digest
    shown.move_to_end(key)
    while len(shown) > SHOWN_LIMIT:
        shown.popitem(last=False)


def _digest(rendered: render.Rendered) -> str:
    markup = rendered.markup.to_json() if rendered.markup is not None else ""
    return hashlib.blake2b((rendered.text + "\0" + markup).encode(), digest_size=16).hexdigest()
