"""A round's replay in headless Chromium (issue 31): the page steps through a settled round card
by card and checks its fairness proof itself, with WebCrypto — an honest round holds; a round
whose salt, order or a dealt card was changed on its way to the page (a server that lies) is
called out as failing, with what failed; a round still being played is refused. The bot runs in
this process (tests/bot/conftest.py's harness, on the local Bot API server) with a fixed deck;
the page needs no internet (Telegram's script is served by the stand-in, or missing)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from bot import deep_links
from localbotapi import FakeUser
from localbotapi.webapp import init_data, launch_url, web_app_js
from tests.bot.conftest import TOKEN, Harness, stop_harness
from tests.bot.test_replay import app_harness
from tests.bot.test_rounds import PLANS, play_round
from tests.e2e.browser import Browser
from tests.e2e.browser import browser as open_browser

pytestmark = pytest.mark.slow
TELEGRAM_JS = "http://telegram.invalid/js/telegram-web-app.js"
Tamper = Callable[[dict[str, Any]], None]


@pytest.fixture
async def browser() -> AsyncIterator[Browser]:
    async for opened in open_browser():
        yield opened


@pytest.fixture
async def harness(tmp_path: Path) -> AsyncIterator[Harness]:
    h, _ = await app_harness(tmp_path, webapp_telegram_js=TELEGRAM_JS)
    try:
        yield h
    finally:
        await stop_harness(h)


class ReplayPage:
    def __init__(self, page: Any, errors: list[str]) -> None:
        self.page = page
        self.errors = errors

    async def proof(self) -> str:
        await self.page.wait_for_function(
            "['holds', 'fails', 'none', 'refused'].includes(document.body.dataset.proof)",
            timeout=10_000,
        )
        state: str = await self.page.evaluate("document.body.dataset.proof")
        return state

    async def checks(self) -> list[tuple[str, str, str]]:
        found: list[tuple[str, str, str]] = await self.page.evaluate(
            """[...document.querySelectorAll('#proof-lines li')]
                 .map((li) => [li.dataset.check, li.dataset.ok, li.textContent])"""
        )
        return found

    async def text(self, selector: str) -> str:
        found = await self.page.locator(selector).text_content()
        return found or ""


async def open_replay(
    browser: Browser,
    h: Harness,
    user: FakeUser,
    game_id: int,
    round_no: int,
    *,
    tamper: Tamper | None = None,
    telegram: bool = True,
) -> ReplayPage:
    """The replay as Telegram opens a direct link's Mini App (the start parameter names the
    round); ``tamper`` changes the server's answer on its way (the page must not trust it)."""
    assert h.settings is not None and h.settings.webapp_url is not None
    param = deep_links.replay_param(game_id, round_no)
    raw = init_data(TOKEN, user, start_param=param, chat_type="supergroup", chat_instance="x")
    url = launch_url(h.settings.webapp_url, raw, start_param=param)
    context = await browser.browser.new_context(viewport={"width": 360, "height": 740})
    page = await context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))

    async def script(route: Any) -> None:
        if telegram:
            await route.fulfill(body=web_app_js(), content_type="application/javascript")
        else:
            await route.abort()  # no Telegram script at all: the page reads the launch itself

    await page.route(TELEGRAM_JS, script)
    if tamper is not None:

        async def lie(route: Any) -> None:
            response = await route.fetch()
            body = await response.json()
            tamper(body["replay"])
            await route.fulfill(response=response, body=json.dumps(body))

        await page.route("**/api/replay*", lie)
    await page.goto(url)
    return ReplayPage(page, errors)


async def test_the_page_replays_an_honest_round_and_its_proof_holds(
    harness: Harness, browser: Browser
) -> None:
    h = harness
    await play_round(h, "classic36", buttons=False)  # round 1 settled, round 2 being played
    stored = await h.stored()
    game_id = stored.game_id
    _, shuffles = await h.rt.service.revealed_round(stored, 1)
    gosha = h.users[3]  # in the group, at no table
    page = await open_replay(browser, h, gosha, game_id, 1)
    assert await page.proof() == "holds"
    assert await page.text("#verdict") == "✅ Колода честная: хеш совпал, карты шли по порядку"
    checks = await page.checks()
    assert [(c, ok) for c, ok, _ in checks] == [("hash", "1"), ("deal", "1")], checks
    assert checks[1][2] == "✅ Колода 1: каждая сданная карта — точно по порядку"
    # The whole hash, the salt and the order, as revealed.
    decks = await page.text("#decks")
    assert shuffles[0].commitment in decks and shuffles[0].salt in decks
    assert " ".join(shuffles[0].order) in decks
    # Card by card: nothing shown at first; each ▶ one more event, the cards to their seats.
    frames = await page.page.evaluate("document.body.dataset.frame")
    assert frames == "0" and await page.page.locator("#seats .card").count() == 0
    dealt: list[str] = []
    while await page.page.locator("#next:not([disabled])").count():
        await page.page.locator("#next").click()
        dealt = await page.page.evaluate(
            "[...document.querySelectorAll('#seats .card')].map((c) => c.dataset.code)"
        )
    assert sorted(dealt) == sorted(PLANS["classic36"].deck)
    vika = page.page.locator(f'#seats li[data-player="{h.users[2].id}"] .card')
    assert await vika.count() == 2
    assert await page.page.locator("#seats .card.dark-mark").count() == 1  # Вика's dark 8♦
    assert await page.page.locator("#result").is_visible()
    assert "Раунд 1" in await page.text("#result")
    assert "🏁 Вскрываемся" in await page.text("#log")
    await page.page.locator("#first").click()
    assert await page.page.locator("#seats .card").count() == 0
    assert page.errors == []


@pytest.mark.parametrize("what", ["salt", "order", "dealt card"])
async def test_a_tampered_round_is_called_out_as_failing(
    harness: Harness, browser: Browser, what: str
) -> None:
    h = harness
    await play_round(h, "classic36", buttons=False)
    game_id = (await h.stored()).game_id

    def tamper(replay: dict[str, Any]) -> None:
        shuffle = replay["shuffles"][0]
        if what == "salt":
            salt = shuffle["salt"]
            shuffle["salt"] = ("1" if salt[0] != "1" else "2") + salt[1:]
        elif what == "order":
            order = shuffle["order"]
            order[1], order[2] = order[2], order[1]  # 9♠ and 7♥ swapped
        else:
            # The server says Борис drew the 9♠ where the order (and the hash) has the A♠.
            card = next(f for f in replay["frames"] if f.get("card", {}).get("code") == "AS")
            card["card"] = {"code": "QS", "text": "Q♠", "red": False}

    page = await open_replay(browser, h, h.users[1], game_id, 1, tamper=tamper, telegram=False)
    assert await page.proof() == "fails"
    assert await page.text("#verdict") == "❌ Проверка не прошла"
    checks = {check: (ok, text) for check, ok, text in await page.checks()}
    if what == "dealt card":
        # The hash still holds (the salt and order are the true ones), the deal does not.
        assert checks["hash"][0] == "1"
        assert checks["deal"] == ("0", "❌ Колода 1: 4-й сдана Q♠, а по порядку — A♠")
    else:
        assert checks["hash"][0] == "0", checks
        assert "SHA-256 соли и порядка" in checks["hash"][1]
        if what == "order":
            # The cards dealt no longer follow the order either.
            assert checks["deal"] == ("0", "❌ Колода 1: 2-й сдана 9♠, а по порядку — 7♥")
    assert page.errors == []


async def test_the_round_being_played_is_refused_in_the_page(
    harness: Harness, browser: Browser
) -> None:
    h = harness
    await play_round(h, "classic36", buttons=False)
    game_id = (await h.stored()).game_id
    page = await open_replay(browser, h, h.users[0], game_id, 2)
    assert await page.proof() == "refused"
    notice = await page.text("#notice")
    assert "Колоду раунда 2 можно проверить после вскрытия" in notice
    assert await page.page.locator("#game").is_hidden()
