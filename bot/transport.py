"""The bot's HTTP transport to the Bot API: python-telegram-bot's BaseRequest over aiohttp.

PTB's default transport (httpx) cost about four times the CPU per Bot API call, and every
action makes at least two calls (docs/performance.md). JSON goes both ways by orjson. The
message a pressed button sits on comes back with every callback query, text and keyboard
included, and parsing those was the largest part of handling a press: the handlers read only
where that message is, so the rest is left out before PTB parses the update (``_slim_updates``).

Every Bot API call passes :meth:`AiohttpRequest.do_request` once per attempt: there it is
counted by method and by the answer's status (`bot.metrics`, :func:`result_of`).
"""

from __future__ import annotations

import os
from http import HTTPStatus
from typing import Any, cast

import aiohttp
import orjson
from telegram._utils.defaultvalue import DefaultValue
from telegram._utils.types import JSONDict, ODVInput
from telegram.error import NetworkError, TelegramError, TimedOut
from telegram.request import BaseRequest, RequestData

from bot import metrics

DEFAULT_TIMEOUT = 5.0
MEDIA_WRITE_TIMEOUT = 20.0
PROXY_VARIABLES = (
    "HTTPS_PROXY",
    "https_proxy",
    "HTTP_PROXY",
    "http_proxy",
    "ALL_PROXY",
    "all_proxy",
)
JSON_HEADERS = {"Content-Type": "application/json"}
# What a handler reads of the message a pressed button is on (bot/handlers/: the chat, the
# message id for edits, the topic); the date tells an inaccessible message from one.
CALLBACK_MESSAGE_FIELDS = frozenset(
    {"message_id", "date", "chat", "from", "sender_chat", "message_thread_id", "is_topic_message"}
)


class AiohttpRequest(BaseRequest):
    """One aiohttp session with a bounded connection pool, opened by :meth:`initialize`."""

    def __init__(
        self,
        connection_pool_size: int = 256,
        *,
        read_timeout: float | None = DEFAULT_TIMEOUT,
        write_timeout: float | None = DEFAULT_TIMEOUT,
        connect_timeout: float | None = DEFAULT_TIMEOUT,
        pool_timeout: float | None = 1.0,
        media_write_timeout: float | None = MEDIA_WRITE_TIMEOUT,
    ) -> None:
        if connection_pool_size < 1:
            raise ValueError(f"connection_pool_size must be at least 1, got {connection_pool_size}")
        self._pool_size = connection_pool_size
        # What a request's DEFAULT_NONE timeouts stand for.
        self._timeouts = {
            "read": read_timeout,
            "write": write_timeout,
            "connect": connect_timeout,
            "pool": pool_timeout,
            "media_write": media_write_timeout,
        }
        self._session: aiohttp.ClientSession | None = None

    @property
    def read_timeout(self) -> float | None:
        return self._timeouts["read"]

    async def initialize(self) -> None:
        if self._session is None or self._session.closed:
            connector = aiohttp.TCPConnector(limit=self._pool_size)
            # aiohttp's trust_env honours HTTPS_PROXY & co. (as PTB's httpx transport does) but
            # also looks for ~/.netrc credentials on every request, on a thread: 0.8 ms a call.
            # So only where a proxy is configured.
            self._session = aiohttp.ClientSession(connector=connector, trust_env=_proxy_set())

    async def shutdown(self) -> None:
        if self._session is not None:
            await self._session.close()
            self._session = None

    async def do_request(
        self,
        url: str,
        method: str,
        request_data: RequestData | None = None,
        read_timeout: ODVInput[float] = BaseRequest.DEFAULT_NONE,
        write_timeout: ODVInput[float] = BaseRequest.DEFAULT_NONE,
        connect_timeout: ODVInput[float] = BaseRequest.DEFAULT_NONE,
        pool_timeout: ODVInput[float] = BaseRequest.DEFAULT_NONE,
    ) -> tuple[int, bytes]:
        session = self._session
        if session is None or session.closed:
            raise RuntimeError("AiohttpRequest is not initialized")
        files = request_data.multipart_data if request_data is not None else None
        given = {
            "read": read_timeout,
            "media_write" if files else "write": write_timeout,
            "connect": connect_timeout,
            "pool": pool_timeout,
        }
        read, write, connect, pool = (
            self._timeouts[name] if isinstance(value, DefaultValue) else value
            for name, value in given.items()
        )
        # aiohttp has no write timeout of its own: the upload counts against the read one (the
        # answer cannot start before the request is sent).
        sock_read = None if read is None else read + (write or 0.0)
        timeout = aiohttp.ClientTimeout(
            total=None,
            connect=None if pool is None and connect is None else (pool or 0.0) + (connect or 0.0),
            sock_connect=connect,
            sock_read=sock_read,
        )
        body: Any = None
        headers = None
        if files:
            body = _form(request_data.json_parameters if request_data else None, files)
        elif request_data is not None:
            body, headers = orjson.dumps(request_data.parameters), JSON_HEADERS
        # The method's name (a file's download is "file": never its path).
        endpoint = "file" if "/file/" in url else url.rsplit("/", 1)[-1]
        try:
            async with session.request(
                method, url, data=body, headers=headers, timeout=timeout
            ) as response:
                answer = response.status, await response.read()
        except TimeoutError as error:
            metrics.botapi(endpoint, "transient")
            raise TimedOut from error
        except aiohttp.ClientError as error:
            metrics.botapi(endpoint, "transient")
            raise NetworkError(f"aiohttp.{error.__class__.__name__}: {error}") from error
        metrics.botapi(endpoint, result_of(answer[0]))
        return answer

    @staticmethod
    def parse_json_payload(payload: bytes) -> JSONDict:
        try:
            parsed = orjson.loads(payload)
        except orjson.JSONDecodeError as error:
            raise TelegramError("Invalid server response") from error
        if isinstance(parsed, dict) and isinstance(parsed.get("result"), list):
            _slim_updates(parsed["result"])
        return cast(JSONDict, parsed)


def result_of(status: int) -> str:
    """An answer's result for the metrics: "ok", "flood" (429), "refused" (another 4xx: a
    lasting answer to this request), "transient" (5xx)."""
    if status < 400:
        return "ok"
    if status == HTTPStatus.TOO_MANY_REQUESTS:
        return "flood"
    return "refused" if status < 500 else "transient"


def _slim_updates(results: list[Any]) -> None:
    """Leave out of each callback query's message what no handler reads (its text, entities,
    keyboard): the result of getUpdates is the only list of objects with a ``callback_query``."""
    for result in results:
        query = result.get("callback_query") if isinstance(result, dict) else None
        if not isinstance(query, dict) or not isinstance(query.get("message"), dict):
            continue
        message = query["message"]
        query["message"] = {key: message[key] for key in CALLBACK_MESSAGE_FIELDS & message.keys()}


def _proxy_set() -> bool:
    return any(os.environ.get(name) for name in PROXY_VARIABLES)


def _form(fields: dict[str, str] | None, files: dict[str, Any]) -> aiohttp.FormData:
    """A multipart body: the parameters as plain fields, the files as file parts."""
    form = aiohttp.FormData()
    for name, value in (fields or {}).items():
        form.add_field(name, value)
    for name, part in files.items():
        filename, content, mimetype = part
        form.add_field(name, content, filename=filename, content_type=mimetype)
    return form
