"""Achievements: recorded once per person and chat with the round that earned it, in the
transaction that records them (rolled back with it), moved with the chat; and the rounds a
person won in a row, read from the statistics' events."""

from __future__ import annotations

import pytest

from storage import Achievement, StatsDelta, Storage
from tests.storage.conftest import FakeClock

CHAT, OTHER = -100, -200
WIN, LOSS = StatsDelta(rounds=1, wins=1, net=10), StatsDelta(rounds=1, losses=1, net=-10)


async def players(storage: Storage, *chats: int) -> None:
    async with storage.transaction() as tx:
        for chat in chats or (CHAT,):
            await tx.ensure_player(chat, 1, "Аня", 1000)
            await tx.ensure_player(chat, 2, "Борис", 1000)


async def test_each_is_recorded_once_with_its_round(storage: Storage, clock: FakeClock) -> None:
    await players(storage, CHAT, OTHER)
    async with storage.transaction() as tx:
        first = await tx.record_achievements(CHAT, 5, 3, [(1, "golden"), (2, "swept")])
    assert first == [(1, "golden"), (2, "swept")]
    earned_at = clock.now
    clock.advance(60)
    async with storage.transaction() as tx:
        again = await tx.record_achievements(CHAT, 5, 4, [(1, "golden"), (1, "streak")])
        # In another chat it is earned anew.
        elsewhere = await tx.record_achievements(OTHER, 6, 1, [(1, "golden")])
    assert again == [(1, "streak")]
    assert elsewhere == [(1, "golden")]
    assert await storage.achievements(CHAT, 1) == [
        Achievement("golden", 5, 3, earned_at),
        Achievement("streak", 5, 4, clock.now),
    ]
    assert await storage.achievements(CHAT, 2) == [Achievement("swept", 5, 3, earned_at)]
    assert await storage.achievements(CHAT, 3) == []


async def test_a_rolled_back_round_records_nothing(storage: Storage) -> None:
    await players(storage)
    with pytest.raises(RuntimeError):
        async with storage.transaction() as tx:
            assert await tx.record_achievements(CHAT, 5, 1, [(1, "va_bank")]) == [(1, "va_bank")]
            raise RuntimeError("the process dies before the commit")
    assert await storage.achievements(CHAT, 1) == []
    async with storage.transaction() as tx:
        assert await tx.record_achievements(CHAT, 5, 1, [(1, "va_bank")]) == [(1, "va_bank")]


async def test_the_rounds_won_in_a_row(storage: Storage) -> None:
    await players(storage)
    assert await storage.win_streak(CHAT, 1, 5) == 0
    async with storage.transaction() as tx:
        for delta in (WIN, LOSS, WIN, WIN, WIN):
            await tx.add_stats(CHAT, 1, delta)
        await tx.add_stats(CHAT, 2, LOSS)  # another person's round breaks nobody's streak
        assert await tx.win_streak(CHAT, 1, 5) == 3
    async with storage.transaction() as tx:
        await tx.add_stats(CHAT, 1, WIN)
        await tx.add_stats(CHAT, 1, WIN)
        assert await tx.win_streak(CHAT, 1, 5) == 5
        await tx.add_stats(CHAT, 1, WIN)
        assert await tx.win_streak(CHAT, 1, 5) == 5  # counted up to the limit
        assert await tx.win_streak(CHAT, 1, 10) == 6
        await tx.add_stats(CHAT, 1, LOSS)
    assert await storage.win_streak(CHAT, 1, 5) == 0
    assert await storage.win_streak(CHAT, 2, 5) == 0


async def test_they_move_with_the_chat(storage: Storage) -> None:
    await players(storage, CHAT, OTHER)
    async with storage.transaction() as tx:
        await tx.record_achievements(CHAT, 5, 1, [(1, "golden"), (2, "swept")])
        await tx.record_achievements(OTHER, 6, 2, [(1, "golden"), (1, "natural")])
        await tx.migrate_chat(CHAT, OTHER)
    # The one earned in both chats keeps the new chat's round.
    assert [(a.code, a.game_id) for a in await storage.achievements(OTHER, 1)] == [
        ("golden", 6),
        ("natural", 6),
    ]
    assert [a.code for a in await storage.achievements(OTHER, 2)] == ["swept"]
    assert await storage.achievements(CHAT, 1) == []
