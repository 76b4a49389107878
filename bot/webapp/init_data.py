"""Who is asking: Telegram's Mini App ``initData``, validated as Telegram documents it.

A Mini App page gets ``initData`` from the Telegram client: a query string whose ``hash`` is the
hex HMAC-SHA256 of the other fields (sorted by key, ``key=value`` joined by newlines), keyed by
HMAC-SHA256 of the bot token under the key ``WebAppData``. Only Telegram and the bot know the
token, so a valid hash proves the fields, the user's id among them, came from Telegram; the
``auth_date`` bounds how long a copied string stays good.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import parse_qsl

from telegram import User

DEFAULT_MAX_AGE = 86_400  # seconds: a page opened today may act until tomorrow
FUTURE_SLACK = 300  # seconds: a client's clock may run a little ahead of the server's
MAX_LENGTH = 4096  # Telegram's initData is well under 1 KB; anything far longer is not it


class InitDataError(Exception):
    """The string does not prove who is asking (malformed, forged, altered or too old); its
    message is the reason, one word."""


@dataclass(frozen=True, slots=True)
class InitData:
    user: User
    start_param: str = ""


def secret_key(token: str) -> bytes:
    """The key of the hash: HMAC-SHA256 of the bot token under the constant ``WebAppData``."""
    return hmac.new(b"WebAppData", token.encode(), hashlib.sha256).digest()


def validate(
    raw: str,
    key: bytes,
    *,
    max_age: float = DEFAULT_MAX_AGE,
    clock: Callable[[], float] = time.time,
) -> InitData:
    """The fields of a genuine, fresh ``initData``; raises :class:`InitDataError` otherwise.
    ``key`` is :func:`secret_key` of the bot's token (worked out once, not per request)."""
    if not raw or len(raw) > MAX_LENGTH:
        raise InitDataError("missing" if not raw else "too_long")
    try:
        pairs = parse_qsl(raw, keep_blank_values=True, strict_parsing=True)
    except ValueError:
        raise InitDataError("malformed") from None
    fields = dict(pairs)
    if len(fields) != len(pairs):
        raise InitDataError("malformed")  # a repeated field: which one was signed?
    received = fields.pop("hash", "")
    check = "\n".join(f"{k}={v}" for k, v in sorted(fields.items()))
    expected = hmac.new(key, check.encode(), hashlib.sha256).hexdigest()
    if not hmac.compare_digest(expected, received.lower()):
        raise InitDataError("bad_hash")
    try:
        auth_date = int(fields["auth_date"])
        user = json.loads(fields["user"])
        person = User(
            id=int(user["id"]),
            first_name=str(user.get("first_name", "")),
            is_bot=False,
            last_name=str(user.get("last_name", "")) or None,
            username=str(user.get("username", "")) or None,
            language_code=str(user.get("language_code", "")) or None,
        )
    except (KeyError, ValueError, TypeError):
        raise InitDataError("malformed") from None
    now = clock()
    if auth_date < now - max_age:
        raise InitDataError("expired")
    if auth_date > now + FUTURE_SLACK:
        raise InitDataError("from_future")
    return InitData(person, fields.get("start_param", ""))
