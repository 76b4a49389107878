"""A chat's lane outlives a request that fails with something other than a Telegram error."""

from __future__ import annotations

import asyncio
from collections.abc import Hashable

from bot.lanes import Lanes, Step
from bot.telegram_errors import Verdict


class NoGames:
    def next_step(self, key: Hashable, chat_id: int, *, edits_now: bool = True) -> Step | None:
        return None

    async def chat_lost(self, chat_id: int, verdict: Verdict) -> None:
        return None

    async def chat_migrated(self, old_chat_id: int, new_chat_id: int) -> None:
        return None


async def test_a_request_that_raises_is_dropped_and_the_next_one_goes_out() -> None:
    lanes = Lanes(NoGames(), None)
    sent: list[str] = []

    async def broken() -> object:
        raise TypeError("unexpected keyword argument 'rate_limit_args'")

    async def fine() -> object:
        sent.append("reply")
        return None

    assert lanes.post(-100, broken, "settings edit")
    assert lanes.post(-100, fine, "reply")
    for _ in range(50):
        if sent:
            break
        await asyncio.sleep(0.01)
    assert sent == ["reply"]
    assert lanes.pending() == 0
    await lanes.stop()
