"""The bot process's event loop: uvloop when it is installed, asyncio's otherwise; either is
the current loop python-telegram-bot's run_polling then runs on."""

from __future__ import annotations

import asyncio
import sys

import pytest

from bot import event_loop


def _run_on(loop: asyncio.AbstractEventLoop) -> str:
    async def where() -> str:
        await asyncio.sleep(0)
        return type(asyncio.get_running_loop()).__module__

    return loop.run_until_complete(where())


def test_uvloop_when_installed() -> None:
    uvloop = pytest.importorskip("uvloop")
    loop = event_loop.install()
    try:
        assert isinstance(loop, uvloop.Loop)
        assert asyncio.get_event_loop() is loop  # what run_polling takes
        assert _run_on(loop).startswith("uvloop")
    finally:
        loop.close()
        asyncio.set_event_loop(None)


def test_asyncio_loop_without_uvloop(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "uvloop", None)  # import uvloop raises ImportError
    loop = event_loop.install()
    try:
        assert type(loop).__module__.startswith("asyncio")
        assert _run_on(loop).startswith("asyncio")
    finally:
        loop.close()
        asyncio.set_event_loop(None)
