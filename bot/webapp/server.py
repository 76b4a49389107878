"""The Mini App's web server: the page, the state of a table for the person asking, the live
stream of each committed state, and the actions — in the bot's own process.

Routes (under ``/app/``): the page (``index.html``, with the address of Telegram's
``telegram-web-app.js`` filled in) and its static files; ``api/state`` (the state as JSON);
``api/events`` (Server-Sent Events: the state again at each commit of the table's game, a
comment every :data:`PING_SECONDS`); ``api/act`` (a press: the same service, refusals and turn
clock as the chat's buttons). Every API request carries Telegram's ``initData`` (header
``Authorization: tma <initData>``, or ``auth=`` for the event stream, which cannot set headers):
without a valid and fresh one the answer is 401 and nothing is read or changed.

Which table: ``chat`` (and ``thread``) in the query, else the start parameter of a direct link
(``c<chat id>`` or ``c<chat id>t<thread id>``), else the game the person sits in. Only a person
seated at the table or a member of its group sees it (``getChatMember``, trusted for a minute),
and what is sent is :mod:`bot.webapp.view`'s: nobody else's hidden card before the showdown.

Live: every version this process commits or reads reaches :meth:`MiniApp.seen` (delivery's
followers), which wakes the table's pages; each page then renders the newest state for its
person. With replicas on PostgreSQL a page may be served by another process than the one that
committed: :meth:`MiniApp._watch` reads the games saved since its last look every
:data:`WATCH_SECONDS` (a job of the bot's scheduler) — committed state, never another
process's memory.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from importlib import resources
from typing import Any, Protocol

import orjson
from aiohttp import web
from cachetools import LRUCache, TTLCache
from telegram.constants import ChatMemberStatus
from telegram.error import TelegramError

from bot import deep_links, render
from bot.actions import Actions
from bot.callbacks import ACT_COMMANDS, Act
from bot.delivery import Delivery
from bot.game_state import View, meta_of
from bot.languages import personal
from bot.outcomes import Done, Ignored, Joined, Refusal, Repeated
from bot.replicas import Replica
from bot.scheduler import Scheduler
from bot.screens import end_note
from bot.service import Actor, Command, GameService, news_events
from bot.service_reads import StoredGame
from bot.settings import Settings
from bot.webapp import view as page_view
from bot.webapp.init_data import InitData, InitDataError, secret_key, validate
from rules.events import RoundSettled
from rules.table import Phase

log = logging.getLogger(__name__)
# A person's requests (states, presses, streams opened) in any rolling window: a page makes a
# few a minute, a tapping thumb a few a second; a script past this is answered 429.
REQUESTS_PER_WINDOW = 40
WINDOW_SECONDS = 10.0
STREAMS_PER_PERSON = 6  # pages open at once (phone, desktop, a few reloads still closing)
PING_SECONDS = 15.0  # a comment on an idle stream, so proxies and phones keep it open
WATCH_SECONDS = 0.1  # how often replicas look for games other processes saved
WATCH = ("miniapp_watch",)  # its key on the scheduler
MEMBER_SECONDS = 60.0  # how long Telegram's answer to "is this person in the group" is trusted
MEMBER_CACHE = 20_000
VIEW_CACHE = 4096
NAME_LIMIT = 64
STATIC = frozenset({"app.js", "app.css"})
PAGE_ACTS = frozenset(ACT_COMMANDS) | {Act.ODDS}
MAX_BODY = 4096
MEMBERS = frozenset(
    {ChatMemberStatus.OWNER, ChatMemberStatus.ADMINISTRATOR, ChatMemberStatus.MEMBER}
)


class Backend(Protocol):
    """What the Mini App uses of the bot's runtime (`bot.handlers.common.Runtime` is one): it
    acts through the same :class:`~bot.actions.Actions` as the chat's buttons, and reads what
    delivery knows."""

    settings: Settings
    service: GameService
    delivery: Delivery
    replica: Replica | None
    actions: Actions
    scheduler: Scheduler
    bot_username: str


class Problem(Exception):
    """A request the page cannot be served: the HTTP status and a catalog key of the reason."""

    def __init__(self, status: int, code: str, key: str) -> None:
        super().__init__(code)
        self.status, self.code, self.key = status, code, key


@dataclass(frozen=True, slots=True)
class Asker:
    """Who asks (proven by initData), in which language, about which table."""

    init: InitData
    lang: str
    chat_id: int | None
    thread_id: int


class Page:
    """One open event stream: woken when its table's game may have changed."""

    def __init__(self) -> None:
        self.changed = asyncio.Event()
        self.changed.set()  # the first state goes out at once


def _static(name: str) -> bytes:
    return resources.files("bot.webapp").joinpath("static", name).read_bytes()


class MiniApp:
    def __init__(
        self,
        rt: Backend,
        *,
        token: str,
        max_age: float,
        telegram_js: str,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.rt = rt
        self.key = secret_key(token)
        self.max_age = max_age
        self.clock = clock
        index = _static("index.html").decode()
        self.index = index.replace("{{TELEGRAM_JS}}", _attribute(telegram_js)).encode()
        self.files = {name: _static(name) for name in STATIC}
        self._pages: dict[tuple[int, int], set[Page]] = {}
        self._views: LRUCache[int, View] = LRUCache(VIEW_CACHE)
        self._tables: dict[tuple[int, int], int] = {}  # (chat, thread) -> its newest game
        self._settled: LRUCache[int, RoundSettled] = LRUCache(VIEW_CACHE)
        self._table_states: LRUCache[tuple[int, int, float | None, str, int], dict[str, Any]] = (
            LRUCache(VIEW_CACHE)
        )
        self._members: TTLCache[tuple[int, int], bool] = TTLCache(MEMBER_CACHE, MEMBER_SECONDS)
        self._recent: TTLCache[int, list[float]] = TTLCache(MEMBER_CACHE, WINDOW_SECONDS)
        self._streams_of: dict[int, int] = {}  # person -> event streams open
        self._runner: web.AppRunner | None = None
        self._since = 0.0  # the watch's last look, by the writers' clocks
        self._streams: set[web.StreamResponse] = set()
        self.pushed = 0  # states written to event streams (benchmarks read it)

    # ---------------------------------------------------------------- the web server

    def application(self) -> web.Application:
        app = web.Application(client_max_size=MAX_BODY)
        app.router.add_get("/app", self._redirect)
        app.router.add_get("/app/", self._index)
        app.router.add_get("/app/static/{name}", self._file)
        app.router.add_get("/app/api/state", self._api(self._state))
        app.router.add_get("/app/api/events", self._events)
        app.router.add_post("/app/api/act", self._api(self._act))
        return app

    async def start(self, host: str, port: int) -> None:
        # A page that went away ends its stream's handler at once (not at the next ping).
        self._runner = web.AppRunner(
            self.application(), access_log=None, shutdown_timeout=1.0, handler_cancellation=True
        )
        await self._runner.setup()
        await web.TCPSite(self._runner, host, port).start()
        if self.rt.replica is not None:
            self._since = self.clock() - 1.0
            self.rt.scheduler.every(WATCH, WATCH_SECONDS, self._watch)
        log.info("Mini App served on %s:%d", host, port)

    async def stop(self) -> None:
        self.rt.scheduler.cancel(WATCH)
        for stream in list(self._streams):
            # Ends the stream; the page reconnects (to another replica, or after a restart).
            with contextlib.suppress(Exception):
                await stream.write_eof()
        if self._runner is not None:
            await self._runner.cleanup()

    def open_pages(self) -> int:
        return sum(len(pages) for pages in self._pages.values())

    # ---------------------------------------------------------------- what changed

    def seen(self, view: View) -> None:
        """A committed version (this process's, or read from the database)."""
        if self._keep(view):
            self._wake((view.stored.chat_id, view.stored.thread_id))

    def _keep(self, view: View) -> bool:
        """Remember a committed version (not older than the one known): its table's newest
        game and the round it settled. False when it is older."""
        known = self._views.get(view.game_id)
        if known is not None and known.version > view.version:
            return False
        self._views[view.game_id] = view
        table = (view.stored.chat_id, view.stored.thread_id)
        newest = self._tables.get(table)
        if newest is None or newest <= view.game_id:
            self._tables[table] = view.game_id
        for item in view.meta.outbox:
            if item.get("kind") == "result":
                self._settled[view.game_id] = RoundSettled.from_dict(item["event"])
        return True

    def clock_started(self, game_id: int, version: int, deadline: float) -> None:
        """A turn's clock started when its prompt was delivered: the countdown is exact now."""
        view = self._views.get(game_id)
        if view is None or view.version != version:
            return
        stored = replace(view.stored, deadline=deadline)
        self._views[game_id] = replace(view, stored=stored)
        self._wake((stored.chat_id, stored.thread_id))

    def _wake(self, table: tuple[int, int]) -> None:
        for page in self._pages.get(table, ()):
            page.changed.set()

    async def _watch(self) -> None:
        """Replicas: the games other processes saved, for the tables with open pages here."""
        now = self.clock()
        if not self._pages:
            self._since = now - 1.0
            return
        for game_id, chat_id, version in await self.rt.service.games_updated_since(self._since):
            known = self._views.get(game_id)
            if known is not None and known.version >= version:
                continue
            if not any(chat == chat_id for chat, _ in self._pages):
                continue
            stored = await self.rt.service.stored_game(game_id)
            if stored is not None:
                self.seen(await self._view_of(stored))
        # Writers' clocks differ a little: look a second back (a version seen is skipped).
        self._since = now - 1.0

    async def _view_of(self, stored: StoredGame) -> View:
        chat = await self.rt.service.chat(stored.chat_id)
        return View(stored, self.rt.service.game(stored), meta_of(stored), chat)

    # ---------------------------------------------------------------- who asks

    async def _asker(self, request: web.Request, raw: str | None) -> Asker:
        try:
            init = validate(raw or "", self.key, max_age=self.max_age, clock=self.clock)
        except InitDataError as error:
            log.info("Mini App request refused: %s", error.reason)
            raise Problem(401, "unauthorized", "app-unauthorized") from None
        self._pace(init.user.id)
        chat_id, thread_id = _table_of(request.query, init.start_param)
        known = await self.rt.service.user(init.user.id)
        lang = personal(known, init.user.language_code)
        if lang is None:
            if chat_id is not None:
                lang = (await self.rt.service.chat(chat_id)).language
            else:
                lang = self.rt.settings.default_language
        return Asker(init, lang, chat_id, thread_id)

    def _pace(self, user_id: int) -> None:
        """Refuses a person's request past REQUESTS_PER_WINDOW in the rolling window."""
        now = self.clock()
        times = [t for t in self._recent.get(user_id, ()) if t > now - WINDOW_SECONDS]
        if len(times) >= REQUESTS_PER_WINDOW:
            raise Problem(429, "slow_down", "refusal-slow_down")
        times.append(now)
        self._recent[user_id] = times

    async def _game_for(self, asker: Asker) -> View | None:
        """The newest game of the asker's table (finished ones too: the last result stays)."""
        chat_id, thread_id = asker.chat_id, asker.thread_id
        if chat_id is None:
            seated = await self.rt.service.seated_games(asker.init.user.id)
            if not seated:
                return None
            stored = await self.rt.service.stored_game(seated[-1])
        else:
            game_id = self._tables.get((chat_id, thread_id))
            view = self._views.get(game_id) if game_id is not None else None
            if view is not None and (self.rt.replica is None or view.game.is_over):
                return view
            stored = await self.rt.service.active_game(chat_id, thread_id)
            if stored is None and view is not None:
                return view
        if stored is None:
            return None
        known = self._views.get(stored.game_id)
        if known is not None and known.version >= stored.version:
            return known
        view = await self._view_of(stored)
        self.seen(view)
        return view

    async def _may_see(self, asker: Asker, view: View) -> bool:
        user = asker.init.user.id
        if view.game.is_seated(user) or user in view.game.hands:
            return True
        return await self._member(view.stored.chat_id, user)

    async def _member(self, chat_id: int, user_id: int) -> bool:
        key = (chat_id, user_id)
        found = self._members.get(key)
        if found is None:
            try:
                member = await self.rt.delivery.bot.get_chat_member(chat_id, user_id)
            except TelegramError as error:
                log.info("chat=%s user=%s not a member: %s", chat_id, user_id, error)
                found = False
            else:
                found = member.status in MEMBERS or bool(getattr(member, "is_member", False))
            self._members[key] = found
        return found

    def _state_of(self, asker: Asker, view: View | None) -> dict[str, Any]:
        now = self.clock()
        if view is None:
            return page_view.page_state(asker.lang, now, None)
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
                asker.lang,
                news=news_events(view.meta),
                settled=settled,
                chat_title=view.meta.chat_title,
                end_note=note,
            )
            self._table_states[key] = table
        game = page_view.game_state(snap, asker.init.user.id, asker.lang, table)
        state = page_view.page_state(asker.lang, now, game)
        # When this version was committed (the writer's clock): commit → page is measurable.
        state["saved_at"] = view.stored.updated_at
        return state

    async def _visible(self, asker: Asker) -> View | None:
        view = await self._game_for(asker)
        if view is not None and not await self._may_see(asker, view):
            raise Problem(403, "not_member", "app-not_member")
        return view

    # ---------------------------------------------------------------- handlers

    async def _redirect(self, request: web.Request) -> web.Response:
        raise web.HTTPFound("/app/" + (f"?{request.query_string}" if request.query_string else ""))

    async def _index(self, request: web.Request) -> web.Response:
        return web.Response(
            body=self.index,
            content_type="text/html",
            charset="utf-8",
            headers={"Cache-Control": "no-cache", "X-Content-Type-Options": "nosniff"},
        )

    async def _file(self, request: web.Request) -> web.Response:
        name = request.match_info["name"]
        if name not in self.files:
            raise web.HTTPNotFound()
        kind = "text/css" if name.endswith(".css") else "application/javascript"
        return web.Response(
            body=self.files[name],
            content_type=kind,
            charset="utf-8",
            headers={"Cache-Control": "no-cache", "X-Content-Type-Options": "nosniff"},
        )

    def _api(
        self, body: Callable[[web.Request, Asker], Awaitable[web.Response]]
    ) -> Callable[[web.Request], Awaitable[web.Response]]:
        async def handler(request: web.Request) -> web.Response:
            header = request.headers.get("Authorization", "")
            raw = header[4:] if header.startswith("tma ") else request.query.get("auth")
            lang: str = self.rt.settings.default_language
            try:
                asker = await self._asker(request, raw)
                lang = asker.lang
                return await body(request, asker)
            except Problem as problem:
                return _json(
                    {"ok": False, "error": problem.code, "message": render.text(problem.key, lang)},
                    problem.status,
                )

        return handler

    async def _state(self, request: web.Request, asker: Asker) -> web.Response:
        return _json(self._state_of(asker, await self._visible(asker)))

    async def _events(self, request: web.Request) -> web.StreamResponse:
        raw = request.query.get("auth")
        try:
            asker = await self._asker(request, raw)
            await self._visible(asker)
            if self._streams_of.get(asker.init.user.id, 0) >= STREAMS_PER_PERSON:
                raise Problem(429, "slow_down", "refusal-slow_down")
        except Problem as problem:
            lang = self.rt.settings.default_language
            return _json(
                {"ok": False, "error": problem.code, "message": render.text(problem.key, lang)},
                problem.status,
            )
        stream = web.StreamResponse(
            headers={
                "Content-Type": "text/event-stream",
                "Cache-Control": "no-cache",
                "X-Accel-Buffering": "no",  # nginx and the like: pass each event on at once
            }
        )
        await stream.prepare(request)
        page = Page()
        self._streams.add(stream)
        user_id = asker.init.user.id
        self._streams_of[user_id] = self._streams_of.get(user_id, 0) + 1
        table: tuple[int, int] | None = None
        last: tuple[int, int, float | None] | None = None
        try:
            while True:
                try:
                    await asyncio.wait_for(page.changed.wait(), PING_SECONDS)
                except TimeoutError:
                    await stream.write(b": ping\n\n")
                    continue
                page.changed.clear()
                view = await self._visible(asker)
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
                state = self._state_of(asker, view)
                await stream.write(
                    b"event: state\nid: %d\ndata: " % mark[1] + orjson.dumps(state) + b"\n\n"
                )
                self.pushed += 1
        except (ConnectionResetError, asyncio.CancelledError, Problem):
            pass
        finally:
            self._streams.discard(stream)
            if self._streams_of.get(user_id, 0) <= 1:
                self._streams_of.pop(user_id, None)
            else:
                self._streams_of[user_id] -= 1
            if table is not None:
                pages = self._pages.get(table)
                if pages is not None:
                    pages.discard(page)
                    if not pages:
                        del self._pages[table]
        return stream

    async def _act(self, request: web.Request, asker: Asker) -> web.Response:
        try:
            body = orjson.loads(await request.read())
        except (orjson.JSONDecodeError, ValueError):
            raise Problem(400, "bad_request", "app-bad_request") from None
        press = _press_of(body)
        if press is None:
            raise Problem(400, "bad_request", "app-bad_request")
        game_id, version, act, amount = press
        lang, user = asker.lang, asker.init.user
        stored = await self.rt.service.stored_game(game_id)
        if stored is None or stored.status == "finished":
            return self._refused(asker, Refusal("game_over"), None)
        view = await self._view_of(stored)
        if not await self._may_see(asker, view):
            raise Problem(403, "not_member", "app-not_member")
        asker = Asker(asker.init, lang, stored.chat_id, stored.thread_id)
        if act is Act.ODDS:
            return _json({"ok": True, "toast": render.odds_text(view.game, user.id, lang)})
        actor = Actor(user.id, _display_name(asker.init))
        result = await self.rt.actions.act(
            game_id,
            actor,
            Command(ACT_COMMANDS[act], amount),
            button_version=version,
            # Pressed at the table itself: the page shows only a table its person sees.
            origin=stored.chat_id,
        )
        said = render.toast(
            result,
            lang,
            lambda shown: self.rt.delivery.snapshot(shown, lang),
            bot_username=self.rt.bot_username,
        )
        if isinstance(result, Refusal):
            return self._refused(asker, result, await self._game_for(asker))
        if isinstance(result, Ignored):  # pragma: no cover - the page's presses carry no update id
            return _json({"ok": True, "toast": None})
        if isinstance(result, Repeated):
            state = self._state_of(asker, result.view)
            return _json({"ok": True, "toast": said.text, "state": state})
        assert isinstance(result, Done | Joined)
        fresh = result.outcome.view
        self._keep(fresh)  # (its result, if it settled a round; the pages wake after the answer)
        newest = self._views.get(game_id) or fresh
        answer: dict[str, Any] = {"ok": True, "toast": said.text}
        if said.url is not None:
            answer["link"] = said.url
        answer["state"] = self._state_of(asker, newest)
        # Answered once committed; then shown (timers, delivery, the pages of the table).
        response = _json(answer)
        await response.prepare(request)
        await response.write_eof()
        await self.rt.actions.publish(result.outcome)
        return response

    def _refused(self, asker: Asker, refused: Refusal, view: View | None) -> web.Response:
        message = render.toast(refused, asker.lang, self.rt.delivery.snapshot).text
        answer: dict[str, Any] = {"ok": False, "error": refused.code, "message": message}
        if view is not None:
            answer["state"] = self._state_of(asker, view)
        return _json(answer, 409)


def _json(data: dict[str, Any], status: int = 200) -> web.Response:
    return web.Response(
        body=orjson.dumps(data),
        status=status,
        content_type="application/json",
        headers={"Cache-Control": "no-store"},
    )


def _attribute(value: str) -> str:
    return value.replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;")


def _table_of(query: Any, start_param: str) -> tuple[int | None, int]:
    """The table asked about: the query's ``chat``/``thread``, else the start parameter."""
    chat = query.get("chat")
    if chat:
        try:
            thread = int(query.get("thread") or 0)
            return int(chat), max(0, thread)
        except ValueError:
            raise Problem(400, "bad_request", "app-bad_request") from None
    found = deep_links.app_table(start_param)
    return found if found is not None else (None, 0)


def _press_of(body: Any) -> tuple[int, int, Act, int | None] | None:
    """(game, version, act, amount) of a well-formed press, else None."""
    if not isinstance(body, dict):
        return None
    game, version, act, amount = (body.get(k) for k in ("game", "version", "act", "amount"))
    if type(game) is not int or type(version) is not int or not isinstance(act, str):
        return None  # (a JSON true is no game id: bool is an int to isinstance)
    if game < 1 or version < 1:
        return None
    try:
        pressed = Act(act)
    except ValueError:
        return None
    if pressed not in PAGE_ACTS:
        return None
    if amount is not None and not (type(amount) is int and 1 <= amount <= 10**12):
        return None
    return game, version, pressed, amount


def _display_name(init: InitData) -> str:
    name = " ".join(init.user.full_name.split()) or init.user.username or str(init.user.id)
    cleaned = "".join(ch for ch in name if ch.isprintable())
    return cleaned[:NAME_LIMIT] or str(init.user.id)
