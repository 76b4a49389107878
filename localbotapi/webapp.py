"""Telegram's side of Mini Apps (Web Apps), for tests and the sandbox.

A Telegram client opens a bot's Mini App by loading the page with its launch parameters in the
address's fragment: `#tgWebAppData=<initData>&tgWebAppVersion=…&tgWebAppPlatform=…&
tgWebAppThemeParams=<JSON>`, where `initData` is a query string signed with the bot's token
(the hash is HMAC-SHA256 of the sorted fields under HMAC-SHA256(key="WebAppData", msg=token)).
The start parameter of a direct link (`https://t.me/<bot>/<app>?startapp=<param>`) is also in
`start_param` of initData and in the `tgWebAppStartParam` parameter of the page's query (not
its fragment). The page's `telegram-web-app.js` reads all that from `location.hash`; the
stand-in next to this module (`telegram-web-app.js`, served by `BotApiServer` at
`/js/telegram-web-app.js`) does the same, and records what a test needs to see
(`window.__tgHaptics`, `window.__tgAlerts`, `window.__tgLinks`, `window.__tgClosed`).

Standard library only.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
import time
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import quote, urlencode, urlsplit, urlunsplit

if TYPE_CHECKING:
    from .models import FakeUser

__all__ = [
    "DARK_THEME",
    "LIGHT_THEME",
    "SCRIPT_PATH",
    "init_data",
    "launch_url",
    "parse_direct_link",
    "secret_key",
    "valid_web_app_url",
    "web_app_js",
]

LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost", "::1"})
SCRIPT_PATH = Path(__file__).with_name("telegram-web-app.js")

# Telegram Web A's default themes (what the web client passes as tgWebAppThemeParams).
LIGHT_THEME: dict[str, str] = {
    "bg_color": "#ffffff",
    "text_color": "#000000",
    "hint_color": "#707579",
    "link_color": "#3390ec",
    "button_color": "#3390ec",
    "button_text_color": "#ffffff",
    "secondary_bg_color": "#f4f4f5",
    "header_bg_color": "#ffffff",
    "accent_text_color": "#3390ec",
    "section_bg_color": "#ffffff",
    "section_header_text_color": "#3390ec",
    "subtitle_text_color": "#707579",
    "destructive_text_color": "#e53935",
    "bottom_bar_bg_color": "#ffffff",
}
DARK_THEME: dict[str, str] = {
    "bg_color": "#212121",
    "text_color": "#ffffff",
    "hint_color": "#aaaaaa",
    "link_color": "#8774e1",
    "button_color": "#8774e1",
    "button_text_color": "#ffffff",
    "secondary_bg_color": "#0f0f0f",
    "header_bg_color": "#212121",
    "accent_text_color": "#8774e1",
    "section_bg_color": "#212121",
    "section_header_text_color": "#aaaaaa",
    "subtitle_text_color": "#aaaaaa",
    "destructive_text_color": "#ff595a",
    "bottom_bar_bg_color": "#212121",
}

# t.me/<bot>/<app>[?startapp=<param>]: a bot's username is 5–32 characters ending in "bot",
# an app's short name 3–30 (not all digits: t.me/<channel>/<number> is a post); the parameter
# is [A-Za-z0-9_-]{0,512}.
_DIRECT_LINK = re.compile(
    r"(?:https?://)?(?:www\.)?(?:t\.me|telegram\.me)/(?P<bot>[A-Za-z]\w{1,28}bot)"
    r"/(?P<app>(?!\d+(?:[/?#]|$))\w{3,30})/?(?:\?(?P<query>[^#\s]*))?",
    re.IGNORECASE | re.ASCII,
)
_START_PARAM = re.compile(r"[\w-]{0,512}", re.ASCII)


def secret_key(token: str) -> bytes:
    """The key of initData's hash: HMAC-SHA256 of the bot token under the key "WebAppData"."""
    return hmac.new(b"WebAppData", token.encode(), hashlib.sha256).digest()


def init_data(
    token: str,
    user: FakeUser,
    *,
    start_param: str | None = None,
    chat_type: str | None = None,
    chat_instance: str | None = None,
    auth_date: int | None = None,
    query_id: str | None = None,
) -> str:
    """The `initData` a Telegram client hands the Mini App of the bot with this token, opened by
    `user`: a URL-encoded query string whose `hash` is signed as Telegram signs it."""
    # A WebAppUser: the User object without is_bot (that is for a bot receiver only).
    person = {key: value for key, value in user.to_dict().items() if key != "is_bot"}
    person["allows_write_to_pm"] = True
    fields: dict[str, str] = {}
    if query_id is not None:
        fields["query_id"] = query_id
    fields["user"] = json.dumps(person, ensure_ascii=False, separators=(",", ":"))
    if chat_instance is not None:
        fields["chat_instance"] = chat_instance
    if chat_type is not None:
        fields["chat_type"] = chat_type
    if start_param is not None:
        fields["start_param"] = start_param
    fields["auth_date"] = str(int(time.time()) if auth_date is None else auth_date)
    check = "\n".join(f"{key}={value}" for key, value in sorted(fields.items()))
    fields["hash"] = hmac.new(secret_key(token), check.encode(), hashlib.sha256).hexdigest()
    return urlencode(fields, quote_via=quote)


def launch_url(
    page_url: str,
    init_data: str,
    *,
    theme: Mapping[str, str] = LIGHT_THEME,
    platform: str = "weba",
    version: str = "8.0",
    start_param: str | None = None,
) -> str:
    """The address a Telegram client loads to open a Mini App at `page_url`: the launch
    parameters in the fragment (which replaces any the page's address had), and a direct link's
    start parameter also as `tgWebAppStartParam` in the query, as Telegram does."""
    scheme, netloc, path, query, _ = urlsplit(page_url)
    if start_param is not None:
        extra = urlencode({"tgWebAppStartParam": start_param}, quote_via=quote)
        query = f"{query}&{extra}" if query else extra
    fragment = urlencode(
        {
            "tgWebAppData": init_data,
            "tgWebAppVersion": version,
            "tgWebAppPlatform": platform,
            "tgWebAppThemeParams": json.dumps(dict(theme), separators=(",", ":")),
        },
        quote_via=quote,
    )
    return urlunsplit((scheme, netloc, path, query, fragment))


def parse_direct_link(link: str) -> tuple[str, str, str | None] | None:
    """(bot username, app short name, start parameter or None) of a Mini App direct link
    `https://t.me/<bot>/<app>?startapp=<param>`; None for any other link (a bot's deep link
    `t.me/<bot>?start=…` included)."""
    found = _DIRECT_LINK.fullmatch(link.strip())
    if found is None:
        return None
    start: str | None = None
    for part in (found.group("query") or "").split("&"):
        name, _, value = part.partition("=")
        if name == "startapp":
            start = value
    if start is not None and not _START_PARAM.fullmatch(start):
        return None
    return found.group("bot"), found.group("app"), start


def valid_web_app_url(url: object) -> bool:
    """Whether Telegram takes `url` for a Mini App: HTTPS with a host. Plain http is allowed
    for loopback hosts only (127.0.0.1, localhost, [::1]), as this server's webhooks may be
    plain http; Telegram refuses it."""
    if not isinstance(url, str) or not url or any(c.isspace() for c in url):
        return False
    try:
        parts = urlsplit(url)
        host = parts.hostname
    except ValueError:
        return False
    if not host:
        return False
    if parts.scheme == "https":
        return True
    return parts.scheme == "http" and host.lower() in LOOPBACK_HOSTS


@cache
def web_app_js() -> str:
    """The stand-in of Telegram's telegram-web-app.js."""
    return SCRIPT_PATH.read_text(encoding="utf-8")
