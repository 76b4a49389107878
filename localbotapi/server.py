"""A local Telegram Bot API server for tests and the sandbox.

It speaks the real wire protocol (`/bot<token>/<method>`, JSON / form / multipart bodies, the
`{"ok": …}` envelope) and is as strict as Telegram where a bot can go wrong: entity parsing,
length limits, callback data, "message is not modified", 403 for private chats never opened,
flood limits with 429 and retry_after. Tests drive it in-process:

    async with BotApiServer() as server:
        bot = server.add_bot(username="ochko_test_bot")
        alice = server.create_user("Alice", username="alice")
        group = server.create_group("Table 1", members=[alice], admins=[alice])
        # start the bot with base_url=server.base_url, then:
        await alice.send(group, "/start")
        reply = await group.wait_for("Welcome")

Tests also stage what Telegram does to a bot from outside: the bot added to, removed from
(kicked or left) and restricted in a group, each told with a `my_chat_member` update
(`add_bot_to_group`, `remove_bot`, `restrict_bot`, `unrestrict_bot`); a member leaving or
removed (`remove_member`: the service message, and `chat_member` for administrator bots); a
basic group upgraded to a supergroup (`migrate_group`: the old id answers 400 with
`migrate_to_chat_id`); a person deleting
a message (`delete_message`); a forum topic closed (`close_topic`); and transient failures of any
method (`fail_next`). When a bot never set allowed_updates (or set an empty list) it gets every
update type except chat_member, message_reaction and message_reaction_count, as on Telegram.

What is deliberately simpler than Telegram: one server-wide user namespace, bots see every group
message (as with privacy mode off), callback queries never expire, webhooks may be plain http
and so may Mini App URLs (web_app buttons, menu buttons) on loopback hosts only (127.0.0.1,
localhost, [::1]; anything else must be https, as on Telegram), and only the methods listed in
`BotApiServer._METHODS` exist (everything else is 404 as on Telegram). allowed_updates filters
the queue when it is read, so a change applies at once also to updates already queued. A
restricted bot's rights are only can_send_messages and can_send_photos (sendChatAction is not
checked), and only bots can be restricted; a closed topic refuses every bot send,
administrators included (can_manage_topics is not modelled). The service messages of membership
changes carry only new_chat_members / left_chat_member, and a removed bot is not sent the one
about its own removal. `fail_next` answers 5xx with the usual JSON envelope (Telegram's front
end may send an HTML page instead).

Mini Apps (localbotapi/webapp.py): `webapp.init_data` signs the initData a client hands the page
and `webapp.launch_url` gives the address a client opens; the page's telegram-web-app.js is a
stand-in served here at `web_app_js_url`. A `web_app` button is refused outside private chats
(BUTTON_TYPE_INVALID), and setChatMenuButton / getChatMenuButton keep each private chat's menu
button and the bot's default.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import threading
import time
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

from aiohttp import web

from .methods_chats import ChatMethods
from .methods_messages import MessageMethods
from .models import JSON, RequestRecord
from .staging import Staging
from .updates import Updates
from .webapp import web_app_js
from .wire import ApiError, Params, Upload, bad_request, dumps
from .world import ServerEvent

__all__ = ["BotApiServer", "ServerEvent", "ServerThread"]

T = TypeVar("T")


class BotApiServer(Staging, Updates, MessageMethods, ChatMethods):
    """The fake Telegram. Create it, `await start()`, point the bot at `base_url`.

    Its parts: the state and the world (localbotapi/world.py), what tests stage from outside
    (staging.py), updates (updates.py), the message methods (methods_messages.py), the bot and
    chat methods (methods_chats.py); here the method table, the HTTP layer and the request log.
    """

    _METHODS = (
        "getMe",
        "logOut",
        "close",
        "getUpdates",
        "setWebhook",
        "deleteWebhook",
        "getWebhookInfo",
        "setMyCommands",
        "getMyCommands",
        "deleteMyCommands",
        "setMyDescription",
        "getMyDescription",
        "setMyShortDescription",
        "getMyShortDescription",
        "setMyName",
        "getMyName",
        "sendMessage",
        "sendPhoto",
        "editMessageText",
        "editMessageReplyMarkup",
        "deleteMessage",
        "answerCallbackQuery",
        "getChat",
        "getChatMember",
        "getChatAdministrators",
        "getChatMemberCount",
        "sendChatAction",
        "setChatMenuButton",
        "getChatMenuButton",
    )

    # ---------------------------------------------------------------------------- lifecycle

    async def start(self) -> BotApiServer:
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_route("*", "/bot{token}/{method}", self._handle)
        app.router.add_get("/js/telegram-web-app.js", self._web_app_js)
        app.router.add_get("/open/{name}", self._open)
        app.router.add_route("*", "/{tail:.*}", self._not_found)
        self._runner = web.AppRunner(app, access_log=None, shutdown_timeout=1.0)
        await self._runner.setup()
        site = web.TCPSite(self._runner, self.host, self.port)
        await site.start()
        address = self._runner.addresses[0]
        self.port = int(address[1])
        self._closing = False
        return self

    async def stop(self) -> None:
        """Stop serving: long polls return at once, webhook senders stop."""
        self._closing = True
        for bot in self.bots.values():
            bot._notify()
        for task in self._webhook_tasks.values():
            task.cancel()
        for task in list(self._webhook_tasks.values()):
            with contextlib.suppress(asyncio.CancelledError):
                await task
        self._webhook_tasks.clear()
        if self._session is not None:
            await self._session.close()
            self._session = None
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def __aenter__(self) -> BotApiServer:
        return await self.start()

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    @property
    def url(self) -> str:
        """http://127.0.0.1:PORT"""
        return f"http://{self.host}:{self.port}"

    @property
    def base_url(self) -> str:
        """What to pass as PTB's base_url (it appends the token): http://127.0.0.1:PORT/bot"""
        return f"{self.url}/bot"

    @property
    def web_app_js_url(self) -> str:
        """The stand-in of https://telegram.org/js/telegram-web-app.js served here, for the
        Mini App's page (localbotapi/webapp.py)."""
        return f"{self.url}/js/telegram-web-app.js"

    @property
    def flood_limits(self) -> bool:
        return self.flood.enabled

    @flood_limits.setter
    def flood_limits(self, enabled: bool) -> None:
        self.flood.enabled = enabled

    # ----------------------------------------------------------------------------- requests

    def fail_next(
        self,
        method: str,
        *,
        status: int = 502,
        count: int = 1,
        description: str = "Bad Gateway",
        parameters: JSON | None = None,
        chat_id: int | None = None,
    ) -> None:
        """Answer the next `count` calls of `method` (case-insensitive; only those addressed to
        `chat_id` if given) with `{"ok": false, "error_code": status, "description": …}` and
        HTTP status `status`, before the method does anything. For 400s give Telegram's whole
        text, e.g. "Bad Request: chat not found"; `parameters` (e.g. {"retry_after": 3}) goes
        into the answer too. The calls are recorded in `requests` like any other."""
        name = method.lower()
        if name not in self._methods:
            raise ValueError(f"no method {method!r} on this server")
        if status < 400 or count < 1:
            raise ValueError("fail_next needs an error status (≥ 400) and a count ≥ 1")
        queued = self.failures.setdefault(name, [])
        queued.extend((chat_id, ApiError(status, description, parameters)) for _ in range(count))

    def calls(self, method: str) -> list[RequestRecord]:
        """Every request to one method (case-insensitive)."""
        name = method.lower()
        return [r for r in self.requests if r.method.lower() == name]

    @property
    def errors(self) -> list[RequestRecord]:
        """Every request that was answered with ok=false."""
        return [r for r in self.requests if not r.ok]

    @property
    def parse_errors(self) -> list[RequestRecord]:
        return [r for r in self.errors if "can't parse entities" in (r.description or "")]

    # --------------------------------------------------------------------------- HTTP layer

    async def _open(self, request: web.Request) -> web.Response:
        """A short address that opens a person's Mini App (a browser beside the sandbox)."""
        launcher = self.launchers.get(request.match_info["name"])
        if launcher is None:
            raise web.HTTPNotFound()
        # The address as it is: aiohttp's HTTPFound would normalise it (decoding the %26 inside
        # the fragment's tgWebAppData, which splits initData apart).
        return web.Response(status=302, headers={"Location": launcher()})

    async def _web_app_js(self, request: web.Request) -> web.Response:
        return web.Response(
            text=web_app_js(),
            content_type="application/javascript",
            headers={"Cache-Control": "no-cache", "Access-Control-Allow-Origin": "*"},
        )

    async def _not_found(self, request: web.Request) -> web.Response:
        return web.json_response(
            {"ok": False, "error_code": 404, "description": "Not Found"}, status=404
        )

    async def _handle(self, request: web.Request) -> web.Response:
        token = request.match_info["token"]
        method = request.match_info["method"]
        try:
            values, files = await self._read_params(request) if token in self.bots else ({}, {})
        except ApiError as error:
            body: JSON = {"ok": False, "error_code": error.code, "description": error.description}
            return web.json_response(body, status=error.code, dumps=dumps)
        status, body = await self.dispatch(token, method, values, files)
        return web.json_response(body, status=status, dumps=dumps)

    async def dispatch(
        self, token: str, method: str, values: JSON, files: dict[str, Upload] | None = None
    ) -> tuple[int, JSON]:
        """Answer one Bot API call as the HTTP endpoint would: (status, JSON body).

        The in-process entry point: tests can plug it into PTB as a request object so handler
        tests need no socket at all (see localbotapi/offline.py)."""
        files = files or {}
        bot = self.bots.get(token)
        params: JSON = {}
        status = 200
        result: Any = None
        description: str | None = None
        parameters: JSON | None = None
        try:
            if bot is None:
                raise ApiError(401, "Unauthorized")
            params = dict(values)
            for name, upload in files.items():
                params[name] = f"<file {upload.filename!r}, {len(upload.data)} bytes>"
            handler = self._methods.get(method.lower())
            if handler is None:
                raise ApiError(404, "Not Found")
            self._injected_failure(method.lower(), values)
            result = await handler(bot, Params(values, files))
        except ApiError as error:
            status = error.code
            description = error.description
            parameters = error.parameters
        body: JSON
        if status == 200:
            body = {"ok": True, "result": result}
        else:
            body = {"ok": False, "error_code": status, "description": description}
            if parameters:
                body["parameters"] = parameters
        chat_id: int | str | None = params.get("chat_id")
        if isinstance(chat_id, str):
            with contextlib.suppress(ValueError):
                chat_id = int(chat_id)
        self.requests.append(
            RequestRecord(
                bot=bot,
                method=method,
                params=params,
                status=status,
                ok=status == 200,
                description=description,
                result=result,
                time=time.monotonic(),
                chat_id=chat_id,
                retry_after=(parameters or {}).get("retry_after"),
            )
        )
        self._touch()
        return status, body

    def _injected_failure(self, name: str, values: JSON) -> None:
        """Raise the first `fail_next` error queued for this call, if any."""
        queued = self.failures.get(name)
        if not queued:
            return
        chat_id = values.get("chat_id")
        for index, (wanted, error) in enumerate(queued):
            if wanted is None or str(wanted) == str(chat_id):
                del queued[index]
                raise error

    async def _read_params(self, request: web.Request) -> tuple[JSON, dict[str, Upload]]:
        values: JSON = dict(request.query)
        files: dict[str, Upload] = {}
        if request.method not in ("POST", "PUT"):
            return values, files
        content_type = request.content_type
        if content_type == "application/json":
            raw = await request.read()
            if raw.strip():
                try:
                    body = json.loads(raw)
                except ValueError:
                    raise bad_request("can't parse JSON request body") from None
                if not isinstance(body, dict):
                    raise bad_request("JSON request body must be an object")
                values.update(body)
        elif content_type in ("application/x-www-form-urlencoded", "multipart/form-data"):
            form = await request.post()
            for name, value in form.items():
                if isinstance(value, web.FileField):
                    files[name] = Upload(value.filename, value.content_type, value.file.read())
                else:
                    values[name] = value
        return values, files


class ServerThread:
    """A BotApiServer on its own event loop in a daemon thread, for synchronous callers
    (the sandbox's terminal loop). Use `call()` to run anything that touches the server."""

    def __init__(self, server_factory: Callable[[], BotApiServer] = BotApiServer) -> None:
        self._factory = server_factory
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True, name="botapi")
        self._server: BotApiServer | None = None

    @property
    def server(self) -> BotApiServer:
        if self._server is None:
            raise RuntimeError("ServerThread is not started")
        return self._server

    def start(self) -> BotApiServer:
        self._thread.start()

        async def create() -> BotApiServer:
            # Created on the server's loop so its asyncio objects belong there.
            return await self._factory().start()

        self._server = self.call(create())
        return self._server

    def call(self, coroutine: Coroutine[Any, Any, T], timeout: float | None = 30.0) -> T:
        """Run a coroutine on the server's loop and return its result."""
        return asyncio.run_coroutine_threadsafe(coroutine, self._loop).result(timeout)

    def run(self, function: Callable[[], T], timeout: float | None = 30.0) -> T:
        """Run a plain function on the server's loop (for non-thread-safe reads and writes)."""

        async def wrapper() -> T:
            return function()

        return self.call(wrapper(), timeout)

    def stop(self) -> None:
        if self._server is not None:
            self.call(self._server.stop())
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=5)
        self._loop.close()

    def __enter__(self) -> BotApiServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
