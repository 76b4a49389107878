"""The wire protocol's pieces: request parameters with Telegram's coercions, uploaded files,
the error answer and the JSON encoding of answers and webhook bodies."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from .models import JSON, FakeBot


class ApiError(Exception):
    """An error answer: HTTP status = error_code, as Telegram does."""

    def __init__(self, code: int, description: str, parameters: JSON | None = None) -> None:
        super().__init__(description)
        self.code = code
        self.description = description
        self.parameters = parameters


def bad_request(text: str) -> ApiError:
    return ApiError(400, f"Bad Request: {text}")


@dataclass
class Upload:
    """A file sent in a multipart body."""

    filename: str | None
    content_type: str | None
    data: bytes


class Params:
    """Request parameters with Telegram's coercions: form values arrive as strings (PTB sends
    numbers as "42", booleans as "true" and objects as JSON text), JSON bodies arrive typed."""

    def __init__(self, values: JSON, files: dict[str, Upload]) -> None:
        self.values = values
        self.files = files

    def raw(self, name: str) -> Any:
        value = self.values.get(name)
        return None if value == "" else value

    def string(self, name: str) -> str | None:
        value = self.raw(name)
        if value is None:
            return None
        return value if isinstance(value, str) else json.dumps(value)

    def integer(self, name: str) -> int | None:
        value = self.raw(name)
        if value is None:
            return None
        if isinstance(value, bool):
            return int(value)
        try:
            return int(value)
        except (TypeError, ValueError):
            raise bad_request(f"invalid {name} specified") from None

    def number(self, name: str) -> float | None:
        value = self.raw(name)
        if value is None:
            return None
        try:
            return float(value)
        except (TypeError, ValueError):
            raise bad_request(f"invalid {name} specified") from None

    def flag(self, name: str) -> bool:
        value = self.raw(name)
        if isinstance(value, str):
            return value.strip().lower() in ("true", "1", "yes")
        return bool(value)

    def obj(self, name: str, what: str | None = None) -> Any:
        value = self.raw(name)
        if isinstance(value, str):
            try:
                return json.loads(value)
            except ValueError:
                raise bad_request(f"can't parse {what or name} JSON object") from None
        return value


Handler = Callable[[FakeBot, Params], Awaitable[Any]]


def dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)
