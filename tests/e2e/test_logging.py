"""At LOG_LEVEL=DEBUG python-telegram-bot logs every request and update; the private hand
messages are among them, so a log would show the cards a player has not shown yet. The real
process plays a round at DEBUG with every player's hand in a private chat: no card reaches the
log, the debug lines themselves are there (the level really was DEBUG), and so are the names of
the methods called."""

from __future__ import annotations

import re

from tests.e2e.conftest import E2E, Table

SUITS = re.compile(r"[♠♣♥♦]|\\u266[0-6]|\\N\{BLACK|\\xe2\\x99")


async def test_debug_logging_shows_no_card(e2e: E2E) -> None:
    group, users = e2e.group_with_players("Debug log", 3)
    process = await e2e.start_bot(LOG_LEVEL="DEBUG")
    await e2e.open_private(users)
    table = Table(e2e, group, users, preset="classic36")
    await table.open_and_start()
    await table.play_round()
    await process.terminate()
    log = process.log()
    assert "Calling Bot API endpoint `sendMessage`" in log
    assert "Calling Bot API endpoint `editMessageText`" in log or "editMessageText" in log
    found = SUITS.findall(log)
    assert not found, [line for line in log.splitlines() if SUITS.search(line)][:5]
