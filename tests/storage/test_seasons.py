"""Seasons on every backend: the season settings saved with the chat's, a season stored once
with its podium (of two processes ending it, one gets it: in one process or, on PostgreSQL, in
two), its champion read with the settings, and the net won within a season's bounds."""

from __future__ import annotations

import asyncio
from dataclasses import replace

from bot.seasons import bounds
from bot.service import GameService
from storage import ChatSettings, StatsDelta, Storage
from tests.storage.conftest import FakeClock, StorageFactory

CHAT = -1001
DAY = 86_400.0


async def played(storage: Storage, user_id: int, name: str, net: int) -> None:
    async with storage.transaction() as tx:
        await tx.ensure_player(CHAT, user_id, name, 1000)
        await tx.add_stats(CHAT, user_id, StatsDelta(rounds=1, wins=int(net > 0), net=net))


async def test_the_season_settings_are_saved_with_the_chats(storage: Storage) -> None:
    default = await storage.get_chat(CHAT)
    assert (default.season, default.utc_offset, default.champion) == ("month", 0, None)
    async with storage.transaction() as tx:
        await tx.save_chat_settings(ChatSettings(CHAT, season="week", utc_offset=3))
    saved = await storage.get_chat(CHAT)
    assert (saved.season, saved.utc_offset) == ("week", 3)
    async with storage.transaction() as tx:
        await tx.save_chat_settings(replace(saved, season="off"))
    assert (await storage.get_chat(CHAT)).season == "off"


async def test_a_season_is_stored_once_and_its_champion_read_with_the_settings(
    make_storage: StorageFactory, database_url: str
) -> None:
    first = await make_storage()
    # SQLite belongs to one process (its storage caches); PostgreSQL is shared by replicas.
    second = first if database_url.startswith("sqlite") else await make_storage()
    assert (await first.get_chat(CHAT)).champion is None  # read (and cached) before
    podium = [(2, "Борис", 120), (1, "Аня", 30), (3, "Вика", -150)]

    async def close(storage: Storage) -> object:
        async with storage.transaction() as tx:
            return await tx.close_season(CHAT, 1000.0, 2000.0, podium, 3000.0)

    results = await asyncio.gather(close(first), close(second))
    stored = [result for result in results if result is not None]
    assert len(stored) == 1 and results.count(None) == 1
    for storage in (first, second):
        chat = await storage.get_chat(CHAT)  # a chat that never saved its settings
        assert (chat.champion, chat.champion_until, chat.season) == (2, 3000.0, "month")
        last = await storage.last_season(CHAT)
        assert last is not None and last == stored[0]
        assert (last.number, last.podium) == (1, tuple(podium))
    async with first.transaction() as tx:
        again = await tx.close_season(CHAT, 2000.0, 3000.0, [(1, "Аня", 10)], 4000.0)
    assert again is not None and again.number == 2
    assert (await second.get_chat(CHAT)).champion == 1  # the newest season's
    assert await first.seasons_before(CHAT, 2000.0) == 1
    assert await first.seasons_before(CHAT, 5000.0) == 2


async def test_a_seasons_leaderboard_counts_what_was_won_within_it(
    storage: Storage, clock: FakeClock
) -> None:
    start = clock.now
    await played(storage, 1, "Аня", 40)
    clock.advance(DAY)
    await played(storage, 2, "Борис", 70)
    await played(storage, 1, "Аня", 10)
    clock.advance(DAY)  # the next season starts here
    await played(storage, 2, "Борис", -200)
    season = await storage.leaderboard(CHAT, since=start, until=start + 2 * DAY)
    assert [(row.name, row.net, row.rounds) for row in season] == [
        ("Борис", 70, 1),
        ("Аня", 50, 2),
    ]
    since = await storage.leaderboard(CHAT, since=start)  # until now
    assert [(row.name, row.net) for row in since] == [("Аня", 50), ("Борис", -130)]


async def test_a_season_ends_once_with_two_services_and_an_empty_one_stores_nothing(
    make_storage: StorageFactory, database_url: str, clock: FakeClock
) -> None:
    first = await make_storage()
    second = first if database_url.startswith("sqlite") else await make_storage()
    services = [
        GameService(s, starting_balance=1000, turn_timeout=60, clock=clock) for s in (first, second)
    ]
    start, end = bounds("month", 0, clock.now)
    assert await services[0].end_season(CHAT) is None  # nothing stored before the first
    await played(first, 1, "Аня", 25)
    await played(first, 2, "Борис", -25)
    clock.now = end + 5  # the month is over
    ended = await asyncio.gather(*(service.end_season(CHAT) for service in services))
    seasons = [season for season in ended if season is not None]
    assert len(seasons) == 1
    season = seasons[0]
    assert (season.starts_at, season.ends_at, season.number) == (start, end, 1)
    assert season.podium == ((1, "Аня", 25), (2, "Борис", -25))
    assert season.champion_until == bounds("month", 0, end)[1]
    clock.now = bounds("month", 0, end)[1] + 5  # a month nobody played in
    assert await services[0].end_season(CHAT) is None
    assert await first.seasons_before(CHAT, clock.now) == 1
