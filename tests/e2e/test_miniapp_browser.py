"""The Mini App in a real browser, against the real bot process and the local Bot API server
(flood limits on): people open their pages as Telegram opens them, act only on what their page
shows, and see each other's moves within a second; no page's DOM and no answer holds another
person's hidden card before the showdown; forged, altered or expired initData is refused and
changes nothing; a page whose connection dropped (the bot restarted) picks up the latest state.
Screenshots of the table in both themes go to ``OCHKO_SCREENSHOTS`` (else the test's folder).
"""

from __future__ import annotations

import asyncio
import os
import socket
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from bot.webapp.view import labels
from localbotapi.models import FakeUser
from localbotapi.webapp import DARK_THEME, LIGHT_THEME, init_data, launch_url
from tests.e2e.browser import Browser, OpenPage
from tests.e2e.browser import browser as open_browser
from tests.e2e.conftest import E2E, TOKEN, card_symbol

pytestmark = pytest.mark.slow
SEEN_WITHIN = 1.0  # seconds from one page's tap to the others showing it
MAX_STEPS = 40


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@pytest.fixture
async def browser() -> AsyncIterator[Browser]:
    async for opened in open_browser():
        yield opened


class MiniAppWorld:
    def __init__(self, e2e: E2E, port: int) -> None:
        self.e2e = e2e
        self.port = port
        self.page_url = f"http://127.0.0.1:{port}/app/"

    def env(self) -> dict[str, str]:
        return {
            "WEBAPP_URL": self.page_url,
            "WEBAPP_SHORT_NAME": "table",
            "WEBAPP_PORT": str(self.port),
            "WEBAPP_TELEGRAM_JS": self.e2e.server.web_app_js_url,
        }

    def address(
        self, user: FakeUser, chat_id: int, *, theme: dict[str, str] = LIGHT_THEME, raw: str = ""
    ) -> str:
        data = raw or init_data(
            TOKEN, user, start_param=f"c{chat_id}", chat_type="supergroup", chat_instance="e2e"
        )
        return launch_url(self.page_url, data, theme=theme, start_param=f"c{chat_id}")


class Streams:
    """Each person's event stream, read as the page reads it, every event kept (to check that
    no hidden card of another person was ever pushed to them)."""

    def __init__(self, world: MiniAppWorld, session: aiohttp.ClientSession) -> None:
        self.world = world
        self.session = session
        self.events: dict[int, list[str]] = {}
        self.tasks: list[asyncio.Task[None]] = []

    def follow(self, user: FakeUser, chat_id: int) -> None:
        raw = init_data(TOKEN, user, start_param=f"c{chat_id}")
        self.events[user.id] = []
        self.tasks.append(asyncio.create_task(self._read(user.id, raw)))

    async def _read(self, user_id: int, raw: str) -> None:
        url = self.world.page_url + "api/events"
        while True:
            try:
                async with self.session.get(url, params={"auth": raw}) as response:
                    async for line in response.content:
                        if line.startswith(b"data: "):
                            self.events[user_id].append(line[6:].decode())
            except (aiohttp.ClientError, ConnectionError):
                pass
            await asyncio.sleep(0.2)  # the bot restarted: reconnect, as the page does

    async def close(self) -> None:
        for task in self.tasks:
            task.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)


def hidden_of(e2e: E2E, chat_id: int) -> dict[int, set[str]]:
    """Each player's cards nobody else may see now (from the bot's database: the checker's
    knowledge, never the players')."""
    row = e2e.db.game(chat_id)
    assert row is not None
    hidden: dict[int, set[str]] = {}
    for hand in row.engine["hands"]:
        if hand.get("revealed"):
            continue
        codes = {c for c, up in zip(hand["cards"], hand["face_up"], strict=True) if not up}
        hidden[hand["player"]] = codes
    return hidden


async def assert_no_foreign_card(
    e2e: E2E, chat_id: int, pages: dict[int, OpenPage], streams: Streams
) -> None:
    hidden = hidden_of(e2e, chat_id)
    for owner, page in pages.items():
        foreign = set().union(*(codes for p, codes in hidden.items() if p != owner))
        dom = await page.page.content()
        texts = [*page.answers, *streams.events.get(owner, [])]
        for code in foreign:
            assert f'data-code="{code}"' not in dom, (page.name, code)
            for body in texts:
                assert f'"{code}"' not in body, (page.name, code, body[:200])
        # The page shows its own hidden cards (face up for their owner), as cards.
        mine = {c for c in hidden.get(owner, set())}
        for code in mine - foreign:
            shown = await page.page.locator(f'#my-cards .card[data-code="{code}"]').count()
            dark = await page.page.locator("#my-cards .card.dark").count()
            assert shown or dark, (page.name, code, card_symbol(code))


async def choose(page: OpenPage, hits: dict[str, int]) -> tuple[str, Any] | None:
    """What a person does seeing only their page: bank or stake the smallest amount offered,
    draw once, then stand; after the round, nothing. None when the page offers nothing."""
    buttons = page.page.locator("#actions button:not([disabled])")
    acts: list[tuple[str, str | None]] = []
    for index in range(await buttons.count()):
        button = buttons.nth(index)
        act = await button.get_attribute("data-act") or ""
        acts.append((act, await button.get_attribute("data-amount")))
    names = [a for a, _ in acts]
    for wanted in ("bank", "bet"):
        amounts = [int(m) for a, m in acts if a == wanted and m]
        if amounts:
            return wanted, min(amounts)
    if "hit" in names and hits.get(page.name, 0) == 0:
        hits[page.name] = 1
        return "hit", None
    if "stand" in names:
        hits[page.name] = 0
        return "stand", None
    if "hit" in names:
        return "hit", None
    return None


async def press(page: OpenPage, act: str, amount: Any) -> None:
    selector = f'#actions button[data-act="{act}"]'
    if amount is not None:
        selector += f'[data-amount="{amount}"]'
    await page.page.locator(selector).first.click()


async def wait_version(page: OpenPage, above: int, timeout: float) -> float:
    """Seconds until the page shows a version above ``above``."""
    started = time.monotonic()
    await page.page.wait_for_function(
        f"Number(document.body.dataset.version || 0) > {above}", timeout=timeout * 1000
    )
    return time.monotonic() - started


async def shoot_both_themes(page: OpenPage, shots: Path) -> None:
    for name, theme in (("light", LIGHT_THEME), ("dark", DARK_THEME)):
        await page.page.evaluate("(t) => Telegram.WebApp.__setTheme(t)", theme)
        await page.page.wait_for_function(
            f"document.documentElement.dataset.scheme === '{name}'", timeout=2000
        )
        await asyncio.sleep(0.4)  # the page's colour transitions (0.2 s) have run
        await page.page.screenshot(path=str(shots / f"miniapp-turn-{name}.png"))
    scheme = "dark" if page.name == "Борис" else "light"
    await page.page.evaluate(
        "(t) => Telegram.WebApp.__setTheme(t)", DARK_THEME if scheme == "dark" else LIGHT_THEME
    )


async def test_two_players_play_a_round_in_the_mini_app(
    e2e: E2E, browser: Browser, tmp_path: Path
) -> None:
    world = MiniAppWorld(e2e, free_port())
    group, users = e2e.group_with_players("Мини", 3, names=("Аня", "Борис", "Вика"))
    await e2e.start_bot(**world.env())
    await e2e.open_private(users)
    # Вика reads English; the others Russian.
    await users[2].send_private(e2e.bot, "/lang en")
    await users[0].send(group, "/newgame classic36")
    await e2e.wait_until(lambda: e2e.db.game(group.id), "the lobby")
    pages: dict[int, OpenPage] = {}
    for user in users:
        theme = DARK_THEME if user is users[1] else LIGHT_THEME
        scheme = "dark" if user is users[1] else "light"
        pages[user.id] = await browser.open(
            user.first_name, world.address(user, group.id, theme=theme), scheme=scheme
        )
    for page in pages.values():
        await page.page.wait_for_function("document.body.dataset.conn === 'live'", timeout=10_000)
    # The lobby from the page: the others sit down by its button, Аня starts.
    for user in users[1:]:
        page = pages[user.id]
        await page.page.locator('#actions button[data-act="join"]').click()
        await e2e.wait_until(
            lambda u=user: u.id in [s["player"] for s in e2e.db.game(group.id).engine["seats"]],
            f"{user.first_name} seated",
            timeout=10,
        )
    row = e2e.db.game(group.id)
    start = pages[users[0].id]
    await start.page.wait_for_selector('#actions button[data-act="start"]')
    await start.page.locator('#actions button[data-act="start"]').click()
    await e2e.wait_until(
        lambda: e2e.db.game(group.id).phase.value != "lobby", "the game started", timeout=10
    )
    english = pages[users[2].id]
    assert await english.page.evaluate("document.documentElement.lang") == "en"
    assert "Players" in await english.page.evaluate("document.body.textContent")
    assert "Игроки" in await start.page.evaluate("document.body.textContent")

    shots = Path(os.environ.get("OCHKO_SCREENSHOTS") or tmp_path)
    shots.mkdir(parents=True, exist_ok=True)  # noqa: ASYNC240 - once, before the shots
    dark = pages[users[1].id]
    taken: set[str] = set()
    async with aiohttp.ClientSession() as session:
        streams = Streams(world, session)
        for user in users:
            streams.follow(user, group.id)
        delays: list[float] = []
        hits: dict[str, int] = {}
        haptic_seen = False
        try:
            for _ in range(MAX_STEPS):
                row = e2e.db.game(group.id)
                if row.phase.value in ("round_over", "ended"):
                    break
                await assert_no_foreign_card(e2e, group.id, pages, streams)
                actor = None
                for page in pages.values():
                    if await page.page.locator("#actions button:not([disabled])").count():
                        found = await choose(page, hits)
                        if found is not None:
                            actor = (page, found)
                            break
                if actor is None:
                    await asyncio.sleep(0.1)  # the turn passes; the pages catch up
                    continue
                page, (act, amount) = actor
                others = [p for p in pages.values() if p is not page]
                before = {p.name: await p.version() for p in others}
                if act in ("hit", "dark", "stand"):
                    flags = await page.page.evaluate("window.__tgHaptics || []")
                    haptic_seen = haptic_seen or "notification:warning" in flags
                    if not taken:
                        # The table on a person's turn, their cards and buttons, in both
                        # themes: the client switches it as Telegram does (themeChanged).
                        taken.add(page.name)
                        await shoot_both_themes(page, shots)
                await press(page, act, amount)
                for other in others:
                    delays.append(await wait_version(other, before[other.name], SEEN_WITHIN * 5))
            row = e2e.db.game(group.id)
            assert row.phase.value in ("round_over", "ended"), row.phase
            # Shown down: the result is on every page.
            for page in pages.values():
                await page.page.wait_for_selector("#result", state="visible", timeout=5000)
            light = next(p for p in pages.values() if p is not dark)
            await light.page.screenshot(path=str(shots / "miniapp-result-light.png"))
            await dark.page.screenshot(path=str(shots / "miniapp-result-dark.png"))
            # The next round from the page, seen on the others.
            if row.phase.value == "round_over":
                before = {p.name: await p.version() for p in pages.values()}
                await light.page.locator('#actions button[data-act="next"]').click()
                for page in pages.values():
                    delays.append(await wait_version(page, before[page.name], SEEN_WITHIN * 5))
                await e2e.wait_until(
                    lambda: e2e.db.game(group.id).phase.value != "round_over", "round 2", 5
                )
        finally:
            await streams.close()
    assert delays, "nobody acted from the page"
    for name in ("turn-light", "turn-dark", "result-light", "result-dark"):
        assert (shots / f"miniapp-{name}.png").stat().st_size > 10_000, name
    assert max(delays) < SEEN_WITHIN, delays
    assert haptic_seen, "no haptic notice on a person's turn"
    for page in pages.values():
        assert page.console_errors == [], (page.name, page.console_errors)
    # No page ever showed a word of the page in the language its reader does not read, not
    # even before its first state (the words come with it, in the reader's language).
    for user in users:
        other = labels("ru" if user is users[2] else "en")
        shown = await pages[user.id].shown()
        assert len(shown) > 20, shown  # the page's texts were seen
        foreign = [w for w in other.values() if len(w) > 2 and any(w in text for text in shown)]
        assert foreign == [], (user.first_name, foreign)
    e2e.assert_within_limits()


async def test_forged_init_data_is_refused_and_a_dropped_page_recovers(
    e2e: E2E, browser: Browser
) -> None:
    world = MiniAppWorld(e2e, free_port())
    group, users = e2e.group_with_players("Мини", 2, names=("Аня", "Борис"))
    await e2e.start_bot(**world.env())
    await e2e.open_private(users)
    await users[0].send(group, "/newgame classic36")
    await e2e.wait_until(lambda: e2e.db.game(group.id), "the lobby")
    genuine = init_data(TOKEN, users[1], start_param=f"c{group.id}")
    forged = {
        "altered": genuine.replace(f"%22id%22%3A{users[1].id}", f"%22id%22%3A{users[0].id}"),
        "expired": init_data(
            TOKEN, users[1], start_param=f"c{group.id}", auth_date=int(time.time()) - 90_000
        ),
        "another bot's": init_data("42:" + "z" * 35, users[1], start_param=f"c{group.id}"),
    }
    version = e2e.db.game(group.id).version
    for name, raw in forged.items():
        page = await browser.open(name, world.address(users[1], group.id, raw=raw))
        notice = page.page.locator("#notice")
        await notice.wait_for(state="visible", timeout=5000)
        assert "Telegram" in (await notice.inner_text()), name
        status = await page.page.evaluate(
            """async (game) => (await fetch('api/act', {method: 'POST',
                 headers: {'Authorization': 'tma ' + Telegram.WebApp.initData,
                           'Content-Type': 'application/json'},
                 body: JSON.stringify({game, version: 1, act: 'join'})})).status""",
            e2e.db.game(group.id).game_id,
        )
        assert status == 401, name
        assert await page.page.locator("[data-code]").count() == 0
    assert e2e.db.game(group.id).version == version
    seats = [s["player"] for s in e2e.db.game(group.id).engine["seats"]]
    assert users[1].id not in seats

    # A genuine page; the bot restarts under it (a deploy): the page reconnects by itself and
    # shows what happened meanwhile.
    page = await browser.open("Борис", world.address(users[1], group.id))
    await page.page.wait_for_function("document.body.dataset.conn === 'live'", timeout=10_000)
    shown = await page.version()
    for process in e2e.processes:
        await process.terminate()
    await page.page.wait_for_function("document.body.dataset.conn !== 'live'", timeout=10_000)
    await e2e.start_bot(**world.env())
    await users[1].send(group, "/join")
    await e2e.wait_until(
        lambda: users[1].id in [s["player"] for s in e2e.db.game(group.id).engine["seats"]],
        "Борис seated",
    )
    newest = e2e.db.game(group.id).version
    await wait_version(page, shown, 10)
    await page.page.wait_for_function(
        f"Number(document.body.dataset.version) === {newest}", timeout=10_000
    )
    assert await page.conn() == "live"
    seat = page.page.locator(f'.seat[data-player="{users[1].id}"]')
    assert await seat.count() == 1
    # Only the reconnection attempts while the bot was down failed.
    assert all("ERR_CONNECTION_REFUSED" in e for e in page.console_errors), page.console_errors
    e2e.assert_within_limits()
