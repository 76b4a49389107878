"""A call to play in storage: subscriptions per chat, and notices claimed once per table and
person, at most a chat's notices_per_hour per person in an hour, on both backends."""

from __future__ import annotations

from storage import ChatSettings, Storage
from tests.storage.conftest import FakeClock, StorageFactory

CHAT = -100
OTHER = -200
OPENER, ANYA, BORIS, VIKA = 1, 2, 3, 4
HOUR = 3600.0


async def people(storage: Storage, *, closed: tuple[int, ...] = ()) -> None:
    """Everyone has a record; those in ``closed`` never opened the private chat."""
    async with storage.transaction() as tx:
        for user in (OPENER, ANYA, BORIS, VIKA):
            await tx.upsert_user(user, f"u{user}", private_opened=user not in closed)


async def claim(storage: Storage, game_id: int, clock: FakeClock, per_hour: int = 3) -> list[int]:
    async with storage.transaction() as tx:
        return await tx.claim_notices(CHAT, game_id, OPENER, per_hour, clock())


async def test_subscribing_is_per_chat_and_said_once(storage: Storage) -> None:
    async with storage.transaction() as tx:
        assert await tx.subscribe(CHAT, ANYA)
        assert not await tx.subscribe(CHAT, ANYA)  # asked already
        assert await tx.subscribe(OTHER, ANYA)
        assert await tx.subscribe(CHAT, BORIS)
    assert await storage.is_subscribed(CHAT, ANYA)
    assert not await storage.is_subscribed(CHAT, VIKA)
    assert await storage.subscribers(CHAT) == [ANYA, BORIS]
    async with storage.transaction() as tx:
        assert await tx.unsubscribe(CHAT, ANYA)
        assert not await tx.unsubscribe(CHAT, ANYA)
    assert await storage.subscribers(CHAT) == [BORIS]
    assert await storage.is_subscribed(OTHER, ANYA)  # another chat's list is its own
    async with storage.transaction() as tx:
        assert await tx.unsubscribe_everywhere(ANYA) == 1
    assert not await storage.is_subscribed(OTHER, ANYA)


async def test_a_table_is_announced_to_subscribers_with_an_open_private_chat_but_the_opener(
    storage: Storage, clock: FakeClock
) -> None:
    await people(storage, closed=(VIKA,))
    async with storage.transaction() as tx:
        for user in (OPENER, ANYA, BORIS, VIKA):
            await tx.subscribe(CHAT, user)
    assert await claim(storage, 11, clock) == [ANYA, BORIS]
    # The same table again (an update handled twice, another replica): nothing more.
    assert await claim(storage, 11, clock) == []
    assert await storage.notice_sent(11, ANYA)
    assert not await storage.notice_sent(11, VIKA)
    assert not await storage.notice_sent(11, OPENER)


async def test_at_most_the_chats_cap_an_hour_per_person(storage: Storage, clock: FakeClock) -> None:
    await people(storage)
    async with storage.transaction() as tx:
        await tx.subscribe(CHAT, ANYA)
    for game_id in (1, 2):
        assert await claim(storage, game_id, clock, per_hour=2) == [ANYA]
        clock.advance(600)
    assert await claim(storage, 3, clock, per_hour=2) == []  # two in the last hour
    async with storage.transaction() as tx:
        await tx.subscribe(CHAT, BORIS)  # a newcomer to the list has his own count
    assert await claim(storage, 4, clock, per_hour=2) == [BORIS]
    clock.advance(HOUR - 1100)  # the first one leaves the hour
    assert await claim(storage, 5, clock, per_hour=2) == [ANYA, BORIS]
    assert await claim(storage, 6, clock, per_hour=0) == []  # off


async def test_claims_outlive_a_reopened_storage(
    make_storage: StorageFactory, clock: FakeClock
) -> None:
    storage = await make_storage()
    await people(storage)
    async with storage.transaction() as tx:
        await tx.subscribe(CHAT, ANYA)
    assert await claim(storage, 7, clock) == [ANYA]
    await storage.stop()
    again = await make_storage()
    assert await claim(again, 7, clock) == []
    assert await again.is_subscribed(CHAT, ANYA)


async def test_the_cap_is_a_chat_setting(storage: Storage) -> None:
    assert (await storage.get_chat(CHAT)).notices_per_hour == 3  # the default
    async with storage.transaction() as tx:
        await tx.save_chat_settings(ChatSettings(CHAT, notices_per_hour=0))
    assert await storage.get_chat(CHAT) == ChatSettings(CHAT, notices_per_hour=0)


async def test_a_supergroup_keeps_its_subscribers(storage: Storage, clock: FakeClock) -> None:
    await people(storage)
    async with storage.transaction() as tx:
        await tx.subscribe(CHAT, ANYA)
        await tx.subscribe(OTHER, BORIS)  # the new id has one already
        await tx.save_chat_settings(ChatSettings(CHAT, notices_per_hour=1))
    assert await claim(storage, 9, clock) == [ANYA]
    async with storage.transaction() as tx:
        await tx.migrate_chat(CHAT, OTHER)
    assert await storage.subscribers(OTHER) == [ANYA, BORIS]
    assert await storage.subscribers(CHAT) == []
    assert (await storage.get_chat(OTHER)).notices_per_hour == 1
    async with storage.transaction() as tx:
        # Аня's notice of the old id counts in the new one: the cap of 1 is reached.
        assert await tx.claim_notices(OTHER, 10, OPENER, 1, clock()) == [BORIS]
