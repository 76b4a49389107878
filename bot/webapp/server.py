"""The Mini App's web server, in the bot's own process: the page, the state of a table for the
person asking, the live stream (:mod:`bot.webapp.live`), and the presses — through the same
service, refusals and turn clock as the chat's buttons.
"""

from __future__ import annotations

import html
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import replace
from importlib import resources
from typing import Any

import orjson
from aiohttp import web

from bot import deep_links, render
from bot.actions import actor_of
from bot.callbacks import ACT_COMMANDS, Act
from bot.game_state import View
from bot.outcomes import Done, Ignored, Joined, Refusal, Repeated
from bot.service import Command, Refused, Request
from bot.webapp.asking import (
    Asker,
    Askers,
    Backend,
    Problem,
    json_response,
    press_of,
    replay_of_query,
)
from bot.webapp.live import Live
from bot.webapp.replay import replay_page, replay_state
from bot.webapp.view import plain

log = logging.getLogger(__name__)
STATIC = {
    "app.js": "application/javascript",
    "app.css": "text/css",
    "replay.js": "application/javascript",
    "replay.css": "text/css",
}
MAX_BODY = 4096


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
        self.askers = Askers(rt, token=token, max_age=max_age, clock=clock)
        self.live = Live(rt, self.askers, clock=clock)  # delivery's follower
        script = html.escape(telegram_js)
        self.index = _static("index.html").decode().replace("{{TELEGRAM_JS}}", script).encode()
        self.replay = _static("replay.html").decode().replace("{{TELEGRAM_JS}}", script).encode()
        self.files = {name: _static(name) for name in STATIC}
        self._runner: web.AppRunner | None = None
        # More routes on the same site (`bot.monitor`: /healthz, /readyz, /metrics).
        self.mounts: list[Callable[[web.Application], None]] = []

    # ---------------------------------------------------------------- the web server

    def application(self) -> web.Application:
        app = web.Application(client_max_size=MAX_BODY)
        app.router.add_get("/app", self._redirect)
        app.router.add_get("/app/", self._index)
        app.router.add_get("/app/replay", self._replay_page)
        app.router.add_get("/app/static/{name}", self._file)
        app.router.add_get("/app/api/state", self._api(self._state))
        app.router.add_get("/app/api/events", self.live.events)
        app.router.add_post("/app/api/act", self._api(self._act))
        app.router.add_get("/app/api/replay", self._api(self._replay))
        for mount in self.mounts:
            mount(app)
        return app

    async def start(self, host: str, port: int) -> None:
        # A page that went away ends its stream's handler at once (not at the next ping).
        self._runner = web.AppRunner(
            self.application(), access_log=None, shutdown_timeout=1.0, handler_cancellation=True
        )
        await self._runner.setup()
        await web.TCPSite(self._runner, host, port).start()
        self.live.start()
        log.info("Mini App served on %s:%d", host, port)

    async def stop(self) -> None:
        await self.live.stop()
        if self._runner is not None:
            await self._runner.cleanup()

    # ---------------------------------------------------------------- handlers

    async def _redirect(self, request: web.Request) -> web.Response:
        raise web.HTTPFound("/app/" + (f"?{request.query_string}" if request.query_string else ""))

    async def _index(self, request: web.Request) -> web.Response:
        # A round's replay opens the same address as the table (a direct link's start
        # parameter, or the private button's ``replay=``): the replay page answers it.
        asked = request.query.get("replay") or request.query.get("tgWebAppStartParam") or ""
        if deep_links.replay_of(asked) is not None:
            return _asset(self.replay, "text/html")
        return _asset(self.index, "text/html")

    async def _replay_page(self, request: web.Request) -> web.Response:
        return _asset(self.replay, "text/html")

    async def _file(self, request: web.Request) -> web.Response:
        name = request.match_info["name"]
        if name not in self.files:
            raise web.HTTPNotFound()
        return _asset(self.files[name], STATIC[name])

    def _api(
        self, body: Callable[[web.Request, Asker], Awaitable[web.Response]]
    ) -> Callable[[web.Request], Awaitable[web.Response]]:
        async def handler(request: web.Request) -> web.Response:
            header = request.headers.get("Authorization", "")
            raw = header[4:] if header.startswith("tma ") else request.query.get("auth")
            lang: str = self.rt.settings.default_language
            try:
                asker = await self.askers.asker(request, raw)
                lang = asker.lang
                return await body(request, asker)
            except Problem as problem:
                return problem.answer(lang)

        return handler

    async def _state(self, request: web.Request, asker: Asker) -> web.Response:
        return json_response(await self.live.state_of(asker, await self.live.visible(asker)))

    async def _act(self, request: web.Request, asker: Asker) -> web.Response:
        try:
            body = orjson.loads(await request.read())
        except (orjson.JSONDecodeError, ValueError):
            raise Problem(400, "bad_request", "app-bad_request") from None
        press = press_of(body)
        if press is None:
            raise Problem(400, "bad_request", "app-bad_request")
        game_id, version, act, amount = press
        lang, user = asker.lang, asker.init.user
        stored = await self.rt.service.stored_game(game_id)
        if stored is None or stored.status == "finished":
            return await self._refused(asker, Refusal("game_over"), None)
        view = await self.live.view_of(stored)
        if not await self.askers.may_see(asker, view):
            raise Problem(403, "not_member", "app-not_member")
        asker = replace(asker, chat_id=stored.chat_id, thread_id=stored.thread_id)
        if act is Act.ODDS:
            return json_response({"ok": True, "toast": render.odds_text(view.game, user.id, lang)})
        # Pressed at the table itself (origin): the page shows only a table its person sees.
        command = Command(ACT_COMMANDS[act], amount)
        result = await self.rt.actions.act(
            Request(game_id, actor_of(user), command, button_version=version, origin=stored.chat_id)
        )
        said = render.toast(
            result,
            lang,
            lambda shown: self.rt.delivery.snapshot(shown, lang),
            bot_username=self.rt.bot_username,
        )
        if isinstance(result, Refusal):
            return await self._refused(asker, result, await self.live.game_for(asker))
        if isinstance(result, Ignored):  # pragma: no cover - the page's presses carry no update id
            return json_response({"ok": True, "toast": None})
        if isinstance(result, Repeated):
            state = await self.live.state_of(asker, result.view)
            return json_response({"ok": True, "toast": said.text, "state": state})
        assert isinstance(result, Done | Joined)
        fresh = result.outcome.view
        # (Its result, if it settled a round; the pages wake after the answer.)
        self.live.keep(fresh)
        newest = self.live.views.get(game_id) or fresh
        answer: dict[str, Any] = {"ok": True, "toast": said.text}
        if said.url is not None:
            answer["link"] = said.url
        answer["state"] = await self.live.state_of(asker, newest)
        # Answered once committed; then shown (timers, delivery, the pages of the table).
        response = json_response(answer)
        await response.prepare(request)
        await response.write_eof()
        await self.rt.actions.publish(result.outcome)
        return response

    async def _replay(self, request: web.Request, asker: Asker) -> web.Response:
        """A settled round of a game, for its replay page (which checks its proof itself): to
        a member of the game's group (or someone seated there), as the table is shown; a round
        still being played is refused as /verify refuses it."""
        asked = replay_of_query(request.query, asker.init.start_param)
        if asked is None:
            raise Problem(400, "bad_request", "app-bad_request")
        game_id, round_no = asked
        stored = await self.rt.service.stored_game(game_id)
        if stored is None:
            raise Problem(404, "not_found", "app-replay-not_found")
        if asker.chat_id is not None and asker.chat_id != stored.chat_id:
            raise Problem(403, "other_chat", "app-replay-other_chat")
        view = await self.live.view_of(stored)
        if not await self.askers.may_see(asker, view):
            raise Problem(403, "not_member", "app-not_member")
        try:
            record = await self.rt.service.round_record(stored, round_no)
        except Refused as refused:
            message = plain(render.refusal(refused.code, refused.params, asker.lang))
            return json_response({"ok": False, "error": refused.code, "message": message}, 409)
        snap = self.rt.delivery.snapshot(view, asker.lang)
        return json_response(replay_page(asker.lang, replay_state(snap, record)))

    async def _refused(self, asker: Asker, refused: Refusal, view: View | None) -> web.Response:
        message = render.toast(refused, asker.lang, self.rt.delivery.snapshot).text
        answer: dict[str, Any] = {"ok": False, "error": refused.code, "message": message}
        if view is not None:
            answer["state"] = await self.live.state_of(asker, view)
        return json_response(answer, 409)


def _asset(body: bytes, kind: str) -> web.Response:
    headers = {"Cache-Control": "no-cache", "X-Content-Type-Options": "nosniff"}
    return web.Response(body=body, content_type=kind, charset="utf-8", headers=headers)
