"""Telegram's side of Mini Apps: signed initData, the launch address, direct links, web_app
buttons and menu buttons as strict as Telegram, and the served telegram-web-app.js (also run in
a real browser when one is at hand)."""

from __future__ import annotations

import hashlib
import hmac
import json
import shutil
import time
from collections.abc import AsyncIterator
from typing import Any
from urllib.parse import parse_qsl, unquote, urlsplit

import httpx
import pytest
import telegram
from aiohttp import web
from telegram import MenuButtonCommands, MenuButtonDefault, MenuButtonWebApp, WebAppInfo
from telegram.error import BadRequest

from localbotapi.models import FakeBot, FakeUser
from localbotapi.server import BotApiServer
from localbotapi.webapp import (
    DARK_THEME,
    LIGHT_THEME,
    init_data,
    launch_url,
    parse_direct_link,
    valid_web_app_url,
    web_app_js,
)
from tests.botapi.conftest import World

THEME_KEYS = {
    "bg_color",
    "text_color",
    "hint_color",
    "link_color",
    "button_color",
    "button_text_color",
    "secondary_bg_color",
    "header_bg_color",
    "accent_text_color",
    "section_bg_color",
    "section_header_text_color",
    "subtitle_text_color",
    "destructive_text_color",
    "bottom_bar_bg_color",
}


def telegram_check(raw: str, token: str) -> dict[str, str] | None:
    """Telegram's documented validation, written independently of localbotapi/webapp.py:
    data-check-string = every field but hash, sorted, "key=value" joined by line feeds;
    secret_key = HMAC_SHA256(<bot_token>, "WebAppData"); hash = hex(HMAC_SHA256(dcs, key))."""
    pairs = dict(parse_qsl(raw, keep_blank_values=True, strict_parsing=True))
    received = pairs.pop("hash")
    data_check_string = "\n".join(f"{k}={pairs[k]}" for k in sorted(pairs))
    secret = hmac.new(key=b"WebAppData", msg=token.encode(), digestmod=hashlib.sha256).digest()
    computed = hmac.new(secret, data_check_string.encode(), hashlib.sha256).hexdigest()
    return pairs if hmac.compare_digest(computed, received) else None


@pytest.fixture
def people(server: BotApiServer) -> tuple[FakeBot, FakeUser, FakeUser]:
    bot = server.add_bot(username="ochko_test_bot")
    anya = server.create_user("Аня", last_name="Смирнова", username="anya", language_code="ru")
    bob = server.create_user("Bob", language_code=None)
    return bot, anya, bob


# --------------------------------------------------------------------------------- initData


def test_init_data_is_signed_as_telegram_signs_it(
    people: tuple[FakeBot, FakeUser, FakeUser],
) -> None:
    bot, anya, bob = people
    raw = init_data(
        bot.token,
        anya,
        start_param="c-1001234",
        chat_type="group",
        chat_instance="-8123",
        auth_date=1_700_000_000,
        query_id="AAH42",
    )
    fields = telegram_check(raw, bot.token)
    assert fields is not None
    assert fields["auth_date"] == "1700000000"
    assert fields["start_param"] == "c-1001234"
    assert fields["chat_type"] == "group" and fields["chat_instance"] == "-8123"
    assert fields["query_id"] == "AAH42"
    assert json.loads(fields["user"]) == {
        "id": anya.id,
        "first_name": "Аня",
        "last_name": "Смирнова",
        "username": "anya",
        "language_code": "ru",
        "allows_write_to_pm": True,
    }
    assert " " not in fields["user"]  # compact JSON, as Telegram sends it
    # Only what is given: no last name, username or language for Bob, no optional fields.
    before = int(time.time())
    plain = init_data(bot.token, bob)
    fields = telegram_check(plain, bot.token)
    assert fields is not None
    assert set(fields) == {"user", "auth_date"}
    assert json.loads(fields["user"]) == {
        "id": bob.id,
        "first_name": "Bob",
        "allows_write_to_pm": True,
    }
    assert before <= int(fields["auth_date"]) <= int(time.time())
    # URL-encoded: the JSON's quotes, braces and colons are escaped; the raw string parses back.
    assert "%7B%22id%22%3A" in plain and "{" not in plain
    # Another token, or any edited field, no longer verifies.
    assert telegram_check(raw, "1:" + "x" * 35) is None
    assert telegram_check(raw.replace("c-1001234", "c-1009999"), bot.token) is None


# ------------------------------------------------------------------------------ launch URL


def test_launch_url_carries_the_launch_parameters_like_a_client() -> None:
    data = "user=%7B%22id%22%3A1%7D&auth_date=1&hash=ab"
    url = launch_url(
        "http://127.0.0.1:8080/app/?chat=-100", data, theme=DARK_THEME, start_param="c-100"
    )
    parts = urlsplit(url)
    assert (parts.scheme, parts.netloc, parts.path) == ("http", "127.0.0.1:8080", "/app/")
    # A direct link's start parameter is a GET parameter (and in initData), not in the hash.
    assert dict(parse_qsl(parts.query)) == {"chat": "-100", "tgWebAppStartParam": "c-100"}
    launch = dict(parse_qsl(parts.fragment, strict_parsing=True))
    assert launch == {
        "tgWebAppData": data,
        "tgWebAppVersion": "8.0",
        "tgWebAppPlatform": "weba",
        "tgWebAppThemeParams": json.dumps(DARK_THEME, separators=(",", ":")),
    }
    assert json.loads(launch["tgWebAppThemeParams"]) == DARK_THEME
    # initData is encoded once more inside the fragment, as Telegram does.
    assert parts.fragment.startswith("tgWebAppData=user%3D%257B%2522id%2522")
    assert unquote(parts.fragment.split("&")[0].split("=", 1)[1]) == data

    light = urlsplit(launch_url("https://example.org/app", data, platform="ios", version="7.10"))
    assert light.query == ""
    launch = dict(parse_qsl(light.fragment))
    assert launch["tgWebAppPlatform"] == "ios" and launch["tgWebAppVersion"] == "7.10"
    assert json.loads(launch["tgWebAppThemeParams"]) == LIGHT_THEME


def test_the_themes_have_every_parameter() -> None:
    assert set(LIGHT_THEME) == THEME_KEYS and set(DARK_THEME) == THEME_KEYS
    for theme in (LIGHT_THEME, DARK_THEME):
        assert all(len(v) == 7 and v.startswith("#") for v in theme.values())
    assert LIGHT_THEME["bg_color"] == "#ffffff" and DARK_THEME["bg_color"] == "#212121"


# ---------------------------------------------------------------------------- direct links


@pytest.mark.parametrize(
    ("link", "expected"),
    [
        ("https://t.me/ochko_bot/table?startapp=c-1001234", ("ochko_bot", "table", "c-1001234")),
        ("t.me/ochko_bot/table?startapp=c-1", ("ochko_bot", "table", "c-1")),
        ("http://t.me/ochko_bot/table", ("ochko_bot", "table", None)),
        ("https://t.me/OchkoBot/table/", ("OchkoBot", "table", None)),
        ("https://t.me/ochko_bot/table?startapp=x&mode=compact", ("ochko_bot", "table", "x")),
        ("https://t.me/ochko_bot/table?startapp=", ("ochko_bot", "table", "")),
        ("https://t.me/ochko_bot?start=g1", None),  # a deep link to the chat, not a Mini App
        ("https://t.me/ochko_bot?startapp=g1", None),  # the main Mini App: no app name here
        ("https://t.me/durov/123", None),  # a channel's post
        ("https://t.me/ochko_bot/table?startapp=bad%20param", None),
        ("https://example.org/ochko_bot/table?startapp=x", None),
        ("tg://resolve?domain=ochko_bot&start=g1", None),
        ("hello", None),
    ],
)
def test_parse_direct_link(link: str, expected: tuple[str, str, str | None] | None) -> None:
    assert parse_direct_link(link) == expected


def test_web_app_urls() -> None:
    assert valid_web_app_url("https://example.org/app/")
    for loopback in ("http://127.0.0.1:8080/app/", "http://localhost/x", "http://[::1]:9/"):
        assert valid_web_app_url(loopback), loopback
    for bad in ("http://example.org/app", "http://10.0.0.1/", "ftp://x/", "https://", "app", 7):
        assert not valid_web_app_url(bad), bad


# ----------------------------------------------------------------------- web_app buttons


def web_app_markup(url: str) -> dict[str, Any]:
    return {"inline_keyboard": [[{"text": "🃏 Стол", "web_app": {"url": url}}]]}


async def call(server: BotApiServer, bot: FakeBot, method: str, **params: Any) -> httpx.Response:
    async with httpx.AsyncClient() as client:
        return await client.post(f"{server.base_url}{bot.token}/{method}", json=params)


async def test_a_web_app_button_only_in_a_private_chat(
    server: BotApiServer, people: tuple[FakeBot, FakeUser, FakeUser]
) -> None:
    bot, anya, _ = people
    group = server.create_group("Table 1", members=[anya], admins=[anya], chat_type="group")
    await anya.send_private(bot, "/start")
    page = "https://example.org/app/?chat=1"
    for chat in (group, server.create_group("Super", members=[anya])):
        reply = await call(
            server,
            bot,
            "sendMessage",
            chat_id=chat.id,
            text="x",
            reply_markup=web_app_markup(page),
        )
        assert reply.status_code == 400
        assert reply.json()["description"] == "Bad Request: BUTTON_TYPE_INVALID"
    # A url button (a t.me direct link) is fine in the group.
    link = {"inline_keyboard": [[{"text": "🃏", "url": "https://t.me/ochko_test_bot/table"}]]}
    reply = await call(server, bot, "sendMessage", chat_id=group.id, text="x", reply_markup=link)
    assert reply.json()["ok"] is True
    # An edit to a web_app button in the group is refused the same way.
    message_id = reply.json()["result"]["message_id"]
    reply = await call(
        server,
        bot,
        "editMessageReplyMarkup",
        chat_id=group.id,
        message_id=message_id,
        reply_markup=web_app_markup(page),
    )
    assert reply.json()["description"] == "Bad Request: BUTTON_TYPE_INVALID"
    # In the private chat it is sent, and kept as given.
    reply = await call(
        server, bot, "sendMessage", chat_id=anya.id, text="x", reply_markup=web_app_markup(page)
    )
    assert reply.json()["ok"] is True, reply.json()
    assert reply.json()["result"]["reply_markup"] == web_app_markup(page)
    loopback = web_app_markup("http://127.0.0.1:8080/app/")
    reply = await call(server, bot, "sendMessage", chat_id=anya.id, text="y", reply_markup=loopback)
    assert reply.json()["ok"] is True, reply.json()
    # A reply keyboard's web_app button too: private chats only.
    keyboard = {"keyboard": [[{"text": "🃏", "web_app": {"url": page}}]]}
    reply = await call(
        server, bot, "sendMessage", chat_id=group.id, text="z", reply_markup=keyboard
    )
    assert reply.json()["description"] == "Bad Request: BUTTON_TYPE_INVALID"
    reply = await call(server, bot, "sendMessage", chat_id=anya.id, text="z", reply_markup=keyboard)
    assert reply.json()["ok"] is True


async def test_a_web_app_button_needs_an_https_url(
    server: BotApiServer, people: tuple[FakeBot, FakeUser, FakeUser]
) -> None:
    bot, anya, _ = people
    await anya.send_private(bot, "/start")
    for url in ("http://example.org/app/", "ftp://example.org/", "example.org", ""):
        reply = await call(
            server, bot, "sendMessage", chat_id=anya.id, text="x", reply_markup=web_app_markup(url)
        )
        assert reply.status_code == 400, url
        assert reply.json()["description"] == "Bad Request: BUTTON_URL_INVALID", url
    for web_app in ("https://example.org/", {"link": "https://example.org/"}, {"url": 5}):
        markup = {"inline_keyboard": [[{"text": "🃏", "web_app": web_app}]]}
        reply = await call(
            server, bot, "sendMessage", chat_id=anya.id, text="x", reply_markup=markup
        )
        assert reply.status_code == 400, web_app
        assert reply.json()["description"].startswith(
            "Bad Request: can't parse inline keyboard button"
        )


async def test_ptb_sends_a_web_app_button(world: World) -> None:
    await world.alice.send_private(world.bot, "/start")
    markup = telegram.InlineKeyboardMarkup(
        [[telegram.InlineKeyboardButton("🃏", web_app=WebAppInfo("https://example.org/app/"))]]
    )
    sent = await world.ptb.send_message(world.alice.id, "table", reply_markup=markup)
    assert sent.reply_markup == markup
    with pytest.raises(BadRequest, match="Button_type_invalid"):
        await world.ptb.send_message(world.group.id, "table", reply_markup=markup)


# -------------------------------------------------------------------------- menu buttons


async def test_chat_menu_buttons(world: World) -> None:
    ptb, server, bot = world.ptb, world.server, world.bot
    assert await ptb.get_chat_menu_button() == MenuButtonCommands()
    assert await ptb.get_chat_menu_button(world.alice.id) == MenuButtonCommands()
    app = MenuButtonWebApp("🃏 Стол", WebAppInfo("https://example.org/app/"))
    assert await ptb.set_chat_menu_button(menu_button=app)  # the bot's default
    assert await ptb.get_chat_menu_button(world.alice.id) == app
    assert await ptb.set_chat_menu_button(world.bob.id, MenuButtonCommands())
    assert await ptb.get_chat_menu_button(world.bob.id) == MenuButtonCommands()
    assert server.menu_button(bot, world.bob.id) == {"type": "commands"}
    assert server.menu_button(bot, world.alice.id)["web_app"] == {"url": "https://example.org/app/"}
    # "default" drops the chat's own button: back to the bot's default.
    assert await ptb.set_chat_menu_button(world.bob.id, MenuButtonDefault())
    assert await ptb.get_chat_menu_button(world.bob.id) == app
    assert await ptb.set_chat_menu_button()  # no menu_button: the default
    assert await ptb.get_chat_menu_button(world.bob.id) == MenuButtonCommands()
    # Refused as on Telegram: a URL that is not https, an empty text, no such chat.
    bad = MenuButtonWebApp("🃏", WebAppInfo("http://example.org/app/"))
    with pytest.raises(BadRequest, match="Button_url_invalid"):
        await ptb.set_chat_menu_button(world.alice.id, bad)
    with pytest.raises(BadRequest, match="Button_text_empty"):
        await ptb.set_chat_menu_button(
            menu_button=MenuButtonWebApp(" ", WebAppInfo("https://example.org/"))
        )
    with pytest.raises(BadRequest, match="Chat not found"):
        await ptb.set_chat_menu_button(world.group.id, app)
    with pytest.raises(BadRequest, match="Chat not found"):
        await ptb.get_chat_menu_button(987654321)
    loopback = MenuButtonWebApp("🃏", WebAppInfo("http://localhost:8080/app/"))
    assert await ptb.set_chat_menu_button(world.alice.id, loopback)
    assert await ptb.get_chat_menu_button(world.alice.id) == loopback


async def test_menu_button_json_errors(
    server: BotApiServer, people: tuple[FakeBot, FakeUser, FakeUser]
) -> None:
    bot, anya, _ = people
    for button in ({"type": "nope"}, "[]", {"type": "web_app", "text": "x"}):
        reply = await call(server, bot, "setChatMenuButton", chat_id=anya.id, menu_button=button)
        assert reply.status_code == 400, button
        assert "menu button" in reply.json()["description"], button


# -------------------------------------------------------------------- telegram-web-app.js


async def test_the_server_serves_telegram_web_app_js(server: BotApiServer) -> None:
    assert server.web_app_js_url == f"{server.url}/js/telegram-web-app.js"
    async with httpx.AsyncClient() as client:
        reply = await client.get(server.web_app_js_url)
    assert reply.status_code == 200
    assert reply.headers["content-type"].startswith("application/javascript")
    assert reply.text == web_app_js()
    for part in ("Telegram", "WebApp", "location.hash", "__tgHaptics", "--tg-theme-", "__setTheme"):
        assert part in reply.text, part


PAGE = """<!doctype html>
<html><head><meta charset="utf-8"><script src="{js}"></script></head>
<body><p id="out">waiting</p>
<script>
  const app = window.Telegram.WebApp;
  window.__themeEvents = 0;
  app.onEvent("themeChanged", () => {{ window.__themeEvents += 1; }});
  app.ready();
  app.expand();
  document.getElementById("out").textContent = app.initDataUnsafe.user.first_name;
</script></body></html>
"""


@pytest.fixture
async def browser() -> AsyncIterator[Any]:
    """A headless Chromium through Playwright, or a skip when neither is installed."""
    playwright_api = pytest.importorskip("playwright.async_api")
    async with playwright_api.async_playwright() as playwright:
        try:
            launched = await playwright.chromium.launch()
        except Exception:
            executable = shutil.which("chromium") or shutil.which("chromium-browser")
            if executable is None:
                pytest.skip("no browser for Playwright")
            launched = await playwright.chromium.launch(executable_path=executable)
        try:
            yield launched
        finally:
            await launched.close()


async def test_the_script_in_a_browser(
    server: BotApiServer, people: tuple[FakeBot, FakeUser, FakeUser], browser: Any
) -> None:
    bot, anya, _ = people

    async def page(request: web.Request) -> web.Response:
        return web.Response(text=PAGE.format(js=server.web_app_js_url), content_type="text/html")

    app = web.Application()
    app.router.add_get("/app/", page)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = runner.addresses[0][1]
    try:
        data = init_data(bot.token, anya, start_param="c-42", chat_type="group", chat_instance="7")
        url = launch_url(f"http://127.0.0.1:{port}/app/?chat=-42", data, start_param="c-42")
        tab = await browser.new_page()
        await tab.goto(url)
        assert await tab.text_content("#out") == "Аня"
        state = await tab.evaluate(
            """() => {
              const app = Telegram.WebApp;
              app.HapticFeedback.impactOccurred("light");
              app.HapticFeedback.notificationOccurred("warning");
              app.HapticFeedback.selectionChanged();
              const css = getComputedStyle(document.documentElement);
              return {
                initData: app.initData, unsafe: app.initDataUnsafe, version: app.version,
                platform: app.platform, scheme: app.colorScheme, theme: app.themeParams,
                bg: css.getPropertyValue("--tg-theme-bg-color").trim(),
                sectionHeader: css.getPropertyValue("--tg-theme-section-header-text-color").trim(),
                cssScheme: css.getPropertyValue("--tg-color-scheme").trim(),
                height: css.getPropertyValue("--tg-viewport-height").trim(),
                stable: css.getPropertyValue("--tg-viewport-stable-height").trim(),
                expanded: app.isExpanded, viewport: app.viewportHeight,
                haptics: window.__tgHaptics, ready: window.__tgReady,
              };
            }"""
        )
        assert state["initData"] == data
        unsafe = state["unsafe"]
        assert unsafe["user"]["id"] == anya.id and unsafe["user"]["username"] == "anya"
        assert unsafe["start_param"] == "c-42" and unsafe["chat_type"] == "group"
        assert unsafe["chat_instance"] == "7" and isinstance(unsafe["auth_date"], int)
        assert len(unsafe["hash"]) == 64
        assert (state["version"], state["platform"]) == ("8.0", "weba")
        assert state["theme"] == LIGHT_THEME and state["scheme"] == "light"
        assert state["bg"] == "#ffffff" and state["cssScheme"] == "light"
        assert state["sectionHeader"] == LIGHT_THEME["section_header_text_color"]
        assert state["height"] == f"{state['viewport']}px" == state["stable"]
        assert state["expanded"] is True and state["ready"] is True
        assert state["haptics"] == ["impact:light", "notification:warning", "selection"]
        # The person switches to the dark theme: variables, scheme and the event follow.
        await tab.evaluate(f"() => Telegram.WebApp.__setTheme({json.dumps(DARK_THEME)})")
        after = await tab.evaluate(
            """() => ({
              scheme: Telegram.WebApp.colorScheme, events: window.__themeEvents,
              bg: getComputedStyle(document.documentElement)
                .getPropertyValue("--tg-theme-bg-color").trim(),
            })"""
        )
        assert after == {"scheme": "dark", "events": 1, "bg": DARK_THEME["bg_color"]}
        # A reload without the hash still knows its launch parameters (sessionStorage).
        await tab.goto(f"http://127.0.0.1:{port}/app/?chat=-42")
        assert await tab.evaluate("() => Telegram.WebApp.initData") == data
        alerts = await tab.evaluate(
            """() => new Promise((done) => Telegram.WebApp.showAlert("hi", () =>
                 done(window.__tgAlerts)))"""
        )
        assert alerts == ["hi"]
    finally:
        await runner.cleanup()
