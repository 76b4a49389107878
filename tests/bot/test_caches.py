"""The bot's in-memory caches are bounded and least-recently-used first out: the service's decoded
games, and delivery's views, whose records of a game leave with its view."""

from __future__ import annotations

from typing import Any

from bot import service as service_module
from bot.game_state import Meta, View, ViewCache
from bot.service import GameService
from rules.game import Game
from rules.variants import preset
from storage import ChatSettings, StoredGame


def stored(game_id: int, version: int = 1) -> StoredGame:
    return StoredGame(
        game_id=game_id,
        chat_id=-100,
        thread_id=0,
        status="lobby",
        state={"engine": Game(preset("classic36")).to_dict(), "meta": Meta(1).to_dict()},
        version=version,
        bank=0,
        deadline=None,
        creator_id=1,
        created_at=0.0,
        updated_at=0.0,
    )


def test_the_service_keeps_the_most_recently_used_games_decoded(monkeypatch: Any) -> None:
    monkeypatch.setattr(service_module, "GAME_CACHE_LIMIT", 3)
    service = GameService(None, starting_balance=1000, turn_timeout=60)  # type: ignore[arg-type]
    games = [stored(game_id) for game_id in range(4)]
    for one in games[:3]:
        service.game(one)
    first = service.game(games[0])  # a read is a use: game 1 is now the least recently used
    service.game(games[3])
    assert service.committed(1) is None
    assert [service.committed(g) is not None for g in (0, 2, 3)] == [True, True, True]
    assert service.game(games[0]) is first  # still kept, not decoded again
    # An older version read late does not replace the newer one.
    newer = stored(0, version=2)
    kept = service.game(newer)
    service.game(games[0])
    assert service.committed(0) == (2, kept)


def test_a_view_leaving_delivery_takes_its_records_along() -> None:
    left: list[int] = []
    views = ViewCache(2, lambda game_id, view: left.append(game_id))
    chat = ChatSettings(chat_id=-100)
    for game_id in range(3):
        one = stored(game_id)
        views[game_id] = View(one, Game.from_dict(one.state["engine"]), Meta(1), chat)
        if game_id == 1:
            assert views.get(0) is not None  # a read is a use: game 1 leaves first
    assert left == [1]
    assert sorted(views) == [0, 2]


async def test_admin_rights_are_asked_once_a_minute(harness: Any) -> None:
    """/settings twice: one getChatMember; the answer is kept for ADMIN_TTL, per person."""
    from bot.handlers import common

    a, b = harness.users[:2]
    before = len(harness.calls("getChatMember"))
    await harness.say(a, "/settings")
    await harness.say(a, "/settings")
    assert len(harness.calls("getChatMember")) == before + 1
    await harness.say(b, "/settings")
    assert len(harness.calls("getChatMember")) == before + 2
    cache = harness.rt.admin_cache
    assert cache.ttl == common.ADMIN_TTL and cache.maxsize == common.ADMIN_CACHE
    assert cache[(harness.group.id, a.id)] is True and cache[(harness.group.id, b.id)] is False
