"""Headless Chromium (Debian's package) driven by Playwright, for the Mini App's tests: each
person's page opened as a Telegram client opens it (the launch parameters in the address), the
API answers each page received, kept to check what left the server, and every text the page ever
showed (to check that none was in a language its reader does not read, even for a moment).

`OCHKO_TEST_BROWSER=0` skips the browser tests; otherwise a missing browser fails them with the
package to install (`python3 -m tests` installs it when it may: tests/system_packages.py).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import pytest

BROWSER_OFF = os.environ.get("OCHKO_TEST_BROWSER", "").strip() == "0"
CANDIDATES = ("chromium", "chromium-browser", "google-chrome")
INSTALL_HINT = (
    "headless Chromium was not found: install Debian's `chromium` package "
    "(apt-get install chromium), or set OCHKO_TEST_BROWSER=0 to skip the browser tests"
)
# Runs in each page before its own scripts: keeps every text put into the document (text, a
# title or an ARIA label), however briefly it stayed.
SHOWN = """
(() => {
  const shown = (window.__shown = []);
  const keep = (text) => { if (text && text.trim()) shown.push(text); };
  new MutationObserver((records) => {
    for (const r of records) {
      if (r.type === "characterData") keep(r.target.data);
      else if (r.type === "attributes") keep(r.target.getAttribute(r.attributeName));
      else for (const node of r.addedNodes) keep(node.textContent);
    }
  }).observe(document, {
    subtree: true, childList: true, characterData: true,
    attributes: true, attributeFilter: ["title", "aria-label"],
  });
})();
"""


def chromium_path() -> str | None:
    for name in CANDIDATES:
        found = shutil.which(name)
        if found:
            return found
    return None


@dataclass
class OpenPage:
    """One person's Mini App in its own browser context."""

    name: str
    page: Any  # playwright.async_api.Page
    answers: list[str] = field(default_factory=list)  # bodies of the API's JSON answers
    console_errors: list[str] = field(default_factory=list)

    async def version(self) -> int:
        value = await self.page.evaluate("document.body.dataset.version || '0'")
        return int(value)

    async def conn(self) -> str:
        value: str = await self.page.evaluate("document.body.dataset.conn || ''")
        return value

    async def shown(self) -> list[str]:
        """Every text the page has shown since it opened (see :data:`SHOWN`)."""
        texts: list[str] = await self.page.evaluate("window.__shown || []")
        return texts


class Browser:
    def __init__(self, browser: Any) -> None:
        self.browser = browser
        self.pages: list[OpenPage] = []

    async def open(
        self, name: str, url: str, *, width: int = 360, height: int = 740, scheme: str = "light"
    ) -> OpenPage:
        context = await self.browser.new_context(
            viewport={"width": width, "height": height},
            color_scheme=scheme,
            device_scale_factor=2,
        )
        await context.add_init_script(SHOWN)
        page = await context.new_page()
        opened = OpenPage(name, page)

        async def keep(response: Any) -> None:
            if "/api/" in response.url and "/api/events" not in response.url:
                try:
                    opened.answers.append(await response.text())
                except Exception:  # a page closed meanwhile
                    return

        page.on("response", keep)

        def console(message: Any) -> None:
            if message.type == "error":
                opened.console_errors.append(message.text)

        page.on("console", console)
        page.on("pageerror", lambda error: opened.console_errors.append(str(error)))
        await page.goto(url)
        self.pages.append(opened)
        return opened


async def browser() -> AsyncIterator[Browser]:
    if BROWSER_OFF:
        pytest.skip("OCHKO_TEST_BROWSER=0: the browser tests are switched off")
    path = chromium_path()
    if path is None:
        pytest.fail(INSTALL_HINT)
    from playwright.async_api import async_playwright

    async with async_playwright() as playwright:
        launched = await playwright.chromium.launch(
            executable_path=path, args=["--no-sandbox", "--disable-gpu"]
        )
        try:
            yield Browser(launched)
        finally:
            await launched.close()
