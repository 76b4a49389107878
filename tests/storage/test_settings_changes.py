"""The service's changes of a chat's settings, on every backend: each reads the settings in the
transaction that writes them, so two admins changing two things at once — in one process or,
on PostgreSQL, in two — both keep their change (`bot.service_settings`)."""

from __future__ import annotations

import asyncio

import pytest

from bot.permissions import AdminCheck
from bot.service import GameService, Refused
from tests.storage.conftest import StorageFactory

CHAT = -1001


async def admin() -> bool:
    return True


async def test_two_changes_at_once_both_stay(
    make_storage: StorageFactory, database_url: str
) -> None:
    first = await make_storage()
    # SQLite belongs to one process (its storage caches); PostgreSQL is shared by replicas.
    second = first if database_url.startswith("sqlite") else await make_storage()
    services = [GameService(s, starting_balance=1000, turn_timeout=60) for s in (first, second)]
    for attempt in range(5):  # the race is the scheduler's: give it several chances to bite
        fine, house = ("50", "on") if attempt % 2 == 0 else ("100", "off")
        await asyncio.gather(
            services[0].change_setting(CHAT, "fine", fine, admin),
            services[1].change_setting(CHAT, "house", house, admin),
        )
        settings = await first.get_chat(CHAT)
        assert settings.overrides == {"bust_fine_percent": int(fine)}
        assert settings.house_banker is (house == "on")
        assert await second.get_chat(CHAT) == settings


async def not_admin() -> bool:
    return False


@pytest.mark.parametrize(
    ("key", "value", "check", "refusal"),
    [
        ("fine", "0", not_admin, ("admins_only", {})),
        # twodecks104 counts aces 1 or 11 always: that rule cannot be switched off.
        ("acelow", "off", admin, ("invalid_variant", {"key": "acelow"})),
    ],
)
async def test_a_refused_change_writes_nothing(
    make_storage: StorageFactory,
    key: str,
    value: str,
    check: AdminCheck,
    refusal: tuple[str, dict[str, str]],
) -> None:
    storage = await make_storage()
    service = GameService(storage, starting_balance=1000, turn_timeout=60)
    await service.change_setting(CHAT, "preset", "twodecks104", admin)
    before = await storage.get_chat(CHAT)
    with pytest.raises(Refused) as refused:
        await service.change_setting(CHAT, key, value, check)
    assert (refused.value.code, refused.value.params) == refusal
    assert await storage.get_chat(CHAT) == before
