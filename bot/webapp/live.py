"""The Mini App's live part: the committed versions it knows, the pages open on each table and
their event streams (Server-Sent Events: the state again at each commit of the table's game, a
comment every :data:`PING_SECONDS`). With replicas on PostgreSQL a page may be served by another
process than the one that committed: :meth:`Live._watch` reads the games saved since its last
look — committed state, never another process's memory.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import orjson
from aiohttp import web
from cachetools import LRUCache

from bot.game_state import View, meta_of, news_events
from bot.screens import end_note
from bot.service_reads import StoredGame
from bot.webapp import view as page_view
from bot.webapp.asking import Asker, Askers, Backend, Problem
from rules.events import RoundSettled
from rules.table import Phase

STREAMS_PER_PERSON = 6  # pages open at once (phone, desktop, a few reloads still closing)
PING_SECONDS = 15.0  # a comment on an idle stream, so proxies and phones keep it open
WATCH_SECONDS = 0.1  # how often replicas look for games other processes saved
WATCH = ("miniapp_watch",)  # its key on the scheduler
VIEW_CACHE = 4096
_StateKey = tuple[int, int, float | None, str, int]
# A person's achievements in a chat are read again only when a round of the table was settled
# since: (game, round, settled) of the view they were read with.
_EarnedMark = tuple[int, int, bool]


class Live:
    """The newest committed version of each table's game, the state each person sees of it, and
    the pages that follow it."""

    def __init__(
        self, rt: Backend, askers: Askers, *, clock: Callable[[], float] = time.time
    ) -> None:
        self.rt = rt
        self.askers = askers
        self.clock = clock
        # (chat, thread) -> an event per open stream, set when the table's game may have changed
        self._pages: dict[tuple[int, int], set[asyncio.Event]] = {}
        self.views: LRUCache[int, View] = LRUCache(VIEW_CACHE)
        self._tables: dict[tuple[int, int], int] = {}  # (chat, thread) -> its newest game
        self._settled: LRUCache[int, RoundSettled] = LRUCache(VIEW_CACHE)
        # (game, version, deadline, language, second) -> what everyone at that table sees
        self._table_states: LRUCache[_StateKey, dict[str, Any]] = LRUCache(VIEW_CACHE)
        # (chat, person) -> (the mark they were read at, (code, round) of each achievement)
        self._earned: LRUCache[tuple[int, int], tuple[_EarnedMark, list[tuple[str, int]]]] = (
            LRUCache(VIEW_CACHE)
        )
        self._streams_of: Counter[int] = Counter()  # person -> event streams open
        self._since = 0.0  # the watch's last look, by the writers' clocks
        self._streams: set[web.StreamResponse] = set()
        self.pushed = 0  # states written to event streams (benchmarks read it)

    def start(self) -> None:
        if self.rt.replica is not None:
            self._since = self.clock() - 1.0
            self.rt.scheduler.every(WATCH, WATCH_SECONDS, self._watch)

    async def stop(self) -> None:
        self.rt.scheduler.cancel(WATCH)
        for stream in list(self._streams):
            # Ends the stream; the page reconnects (to another replica, or after a restart).
            with contextlib.suppress(Exception):
                await stream.write_eof()

    def open_pages(self) -> int:
        return sum(len(pages) for pages in self._pages.values())

    # ---------------------------------------------------------------- what changed

    def seen(self, view: View) -> None:
        """A committed version (this process's, or read from the database)."""
        if self.keep(view):
            self._wake((view.stored.chat_id, view.stored.thread_id))

    def keep(self, view: View) -> bool:
        """Remember a committed version (not older than the one known): its table's newest
        game and the round it settled. False when it is older."""
        known = self.views.get(view.game_id)
        if known is not None and known.version > view.version:
            return False
        self.views[view.game_id] = view
        table = (view.stored.chat_id, view.stored.thread_id)
        self._tables[table] = max(self._tables.get(table, 0), view.game_id)
        for item in view.meta.outbox:
            if item.get("kind") == "result":
                self._settled[view.game_id] = RoundSettled.from_dict(item["event"])
        return True

    def clock_started(self, game_id: int, version: int, deadline: float) -> None:
        """A turn's clock started when its prompt was delivered: the countdown is exact now."""
        view = self.views.get(game_id)
        if view is None or view.version != version:
            return
        stored = replace(view.stored, deadline=deadline)
        self.views[game_id] = replace(view, stored=stored)
        self._wake((stored.chat_id, stored.thread_id))

    def _wake(self, table: tuple[int, int]) -> None:
        for page in self._pages.get(table, ()):
            page.set()

    async def _watch(self) -> None:
        """Replicas: the games other processes saved, for the tables with open pages here."""
        now = self.clock()
        if not self._pages:
            self._since = now - 1.0
            return
        for game_id, chat_id, version in await self.rt.service.games_updated_since(self._since):
            known = self.views.get(game_id)
            if known is not None and known.version >= version:
                continue
            if not any(chat == chat_id for chat, _ in self._pages):
                continue
            stored = await self.rt.service.stored_game(game_id)
            if stored is not None:
                self.seen(await self.view_of(stored))
        # Writers' clocks differ a little: look a second back (a version seen is skipped).
        self._since = now - 1.0

    async def view_of(self, stored: StoredGame) -> View:
        chat = await self.rt.service.chat(stored.chat_id)
        return View(stored, self.rt.service.game(stored), meta_of(stored), chat)

    # ---------------------------------------------------------------- what a person sees

    async def game_for(self, asker: Asker) -> View | None:
        """The newest game of the asker's table (finished ones too: the last result stays)."""
        chat_id, thread_id = asker.chat_id, asker.thread_id
        if chat_id is None:
            seated = await self.rt.service.seated_games(asker.init.user.id)
            if not seated:
                return None
            stored = await self.rt.service.stored_game(seated[-1])
        else:
            game_id = self._tables.get((chat_id, thread_id))
            view = self.views.get(game_id) if game_id is not None else None
            if view is not None and (self.rt.replica is None or view.game.is_over):
                return view
            stored = await self.rt.service.active_game(chat_id, thread_id)
            if stored is None and view is not None:
                return view
        if stored is None:
            return None
        known = self.views.get(stored.game_id)
        if known is not None and known.version >= stored.version:
            return known
        view = await self.view_of(stored)
        self.seen(view)
        return view

    async def earned(self, asker: Asker, view: View | None) -> list[tuple[str, int]]:
        """The asker's achievements in the chat of the table shown, (code, round), read once a
        round (a settled round may have earned one)."""
        chat_id = view.stored.chat_id if view is not None else asker.chat_id
        if chat_id is None:
            return []
        mark: _EarnedMark = (0, 0, False)
        if view is not None:
            over = view.game.phase in (Phase.ROUND_OVER, Phase.ENDED)
            mark = (view.game_id, view.game.round_no, over)
        key = (chat_id, asker.init.user.id)
        known = self._earned.get(key)
        if known is None or known[0] != mark:
            read = await self.rt.service.achievements(*key)
            known = self._earned[key] = (mark, [(a.code, a.round_no) for a in read])
        return known[1]

    async def state_of(self, asker: Asker, view: View | None) -> dict[str, Any]:
        earned = await self.earned(asker, view)
        now = self.clock()
        if view is None:
            return page_view.page_state(asker.lang, now, None, earned)
        snap = self.rt.delivery.snapshot(view, asker.lang)
        # The table's part is the same for every page of a version and language: worked out
        # once (per second: a prompt may count the seconds to the next round).
        key = (view.game_id, view.version, view.stored.deadline, asker.lang, int(now))
        table = self._table_states.get(key)
        if table is None:
            settled = self._settled.get(view.game_id)
            if settled is not None and settled.round_no != view.game.round_no:
                settled = None
            note = end_note(snap, view.meta) if view.game.phase is Phase.ENDED else ""
            table = page_view.table_state(
                snap,
                news=news_events(view.meta),
                settled=settled,
                chat_title=view.meta.chat_title,
                end_note=note,
            )
            self._table_states[key] = table
        game = page_view.game_state(snap, asker.init.user.id, table)
        state = page_view.page_state(asker.lang, now, game, earned)
        # When this version was committed (the writer's clock): commit → page is measurable.
        state["saved_at"] = view.stored.updated_at
        return state

    async def visible(self, asker: Asker) -> View | None:
        view = await self.game_for(asker)
        if view is not None and not await self.askers.may_see(asker, view):
            raise Problem(403, "not_member", "app-not_member")
        return view

    # ---------------------------------------------------------------- the event stream

    async def events(self, request: web.Request) -> web.StreamResponse:
        try:
            asker = await self.askers.asker(request, request.query.get("auth"))
            await self.visible(asker)
            if self._streams_of[asker.init.user.id] >= STREAMS_PER_PERSON:
                raise Problem(429, "slow_down", "refusal-slow_down")
        except Problem as problem:
            return problem.answer(self.rt.settings.default_language)
        stream = web.StreamResponse(
            headers={
                "Content-Type": "text/event-stream",
                "Cache-Control": "no-cache",
                "X-Accel-Buffering": "no",  # nginx and the like: pass each event on at once
            }
        )
        await stream.prepare(request)
        page = asyncio.Event()
        page.set()  # the first state goes out at once
        self._streams.add(stream)
        user_id = asker.init.user.id
        self._streams_of[user_id] += 1
        table: tuple[int, int] | None = None
        last: tuple[int, int, float | None] | None = None
        try:
            while True:
                try:
                    await asyncio.wait_for(page.wait(), PING_SECONDS)
                except TimeoutError:
                    await stream.write(b": ping\n\n")
                    continue
                page.clear()
                view = await self.visible(asker)
                if view is not None and table is None:
                    # Follow this table from now on (the asker's chat, or the game he sits in).
                    table = (view.stored.chat_id, view.stored.thread_id)
                    self._pages.setdefault(table, set()).add(page)
                    asker = Asker(asker.init, asker.lang, table[0], table[1])
                elif table is None and asker.chat_id is not None:
                    table = (asker.chat_id, asker.thread_id)
                    self._pages.setdefault(table, set()).add(page)
                mark = (
                    (0, 0, None)
                    if view is None
                    else (view.game_id, view.version, view.stored.deadline)
                )
                if mark == last:
                    continue
                last = mark
                state = await self.state_of(asker, view)
                await stream.write(
                    b"event: state\nid: %d\ndata: " % mark[1] + orjson.dumps(state) + b"\n\n"
                )
                self.pushed += 1
        except (ConnectionResetError, asyncio.CancelledError, Problem):
            pass
        finally:
            self._streams.discard(stream)
            self._streams_of[user_id] -= 1
            if not self._streams_of[user_id]:
                del self._streams_of[user_id]
            if table is not None:
                pages = self._pages[table]  # (this page is in it: nobody else removed it)
                pages.discard(page)
                if not pages:
                    del self._pages[table]
        return stream
