"""An in-process transport for python-telegram-bot: requests go straight to the fake server's
dispatcher, no socket involved, and every call is recorded by the server as usual."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from telegram.request import BaseRequest, RequestData

from localbotapi.wire import Upload

if TYPE_CHECKING:
    from localbotapi.server import BotApiServer


class OfflineRequest(BaseRequest):
    def __init__(self, server: BotApiServer) -> None:
        self.server = server

    async def initialize(self) -> None:
        return None

    async def shutdown(self) -> None:
        return None

    @property
    def read_timeout(self) -> float | None:
        return None

    async def do_request(
        self,
        url: str,
        method: str,
        request_data: RequestData | None = None,
        read_timeout: Any = BaseRequest.DEFAULT_NONE,
        write_timeout: Any = BaseRequest.DEFAULT_NONE,
        connect_timeout: Any = BaseRequest.DEFAULT_NONE,
        pool_timeout: Any = BaseRequest.DEFAULT_NONE,
    ) -> tuple[int, bytes]:
        # url is <base>/bot<token>/<method>
        token_part, api_method = url.rsplit("/", 2)[-2:]
        token = token_part.removeprefix("bot")
        values: dict[str, Any] = {}
        files: dict[str, Upload] = {}
        if request_data is not None:
            values = dict(request_data.json_parameters)
            for name, field in (request_data.multipart_data or {}).items():
                # PTB sends (filename, content, mime type); content is bytes or an open file.
                filename, content, mime = field[0], field[1], field[2] if len(field) > 2 else None
                data = content if isinstance(content, bytes) else content.read()
                files[name] = Upload(filename, mime, data)
        status, body = await self.server.dispatch(token, api_method, values, files)
        return status, json.dumps(body).encode()
