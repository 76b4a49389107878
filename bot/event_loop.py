"""The event loop the bot process runs on: uvloop (libuv, in C) where it is installed — a
dependency on every platform but Windows, which it does not support — else asyncio's own.

Most of the bot's work is the loop's: a task per update, a future per Bot API call and per
statement handed to SQLite's thread, a socket read and write per request. With uvloop the
bot's CPU per action at full load fell by about a fifth in benchmarks/bench_e2e.py
(docs/performance.md). Nothing in the bot depends on which loop it is.
"""

from __future__ import annotations

import asyncio
import logging

log = logging.getLogger(__name__)


def install() -> asyncio.AbstractEventLoop:
    """A new event loop, set as the current one, for python-telegram-bot's run_polling and
    run_webhook to run on (they take the current loop); the caller closes it."""
    try:
        import uvloop
    except ImportError:
        loop = asyncio.new_event_loop()
    else:
        loop = uvloop.new_event_loop()
    asyncio.set_event_loop(loop)
    log.debug("event loop: %s", type(loop).__module__)
    return loop
