"""The archive of a game's log: the entries of its earlier rounds, appended round by round and
read back in order, atomically with the transaction that archives them."""

from __future__ import annotations

import pytest

from storage import GameNotFound, Storage, StorageError

STATE = {"engine": {}, "meta": {}}
ROUND_1 = [{"a": "join", "p": 1, "b": 100}, {"a": "start"}, {"a": "shuffle", "order": ["6♠"]}]
ROUND_2 = [{"a": "next"}, {"a": "hit", "p": 1, "note": "Дима"}]


async def test_entries_come_back_in_order_across_rounds(storage: Storage) -> None:
    async with storage.transaction() as tx:
        game = await tx.create_game(-100, 0, 1, STATE)
        other = await tx.create_game(-200, 0, 2, STATE)
    assert await storage.archived_log(game.game_id) == []
    async with storage.transaction() as tx:
        await tx.archive_log(game.game_id, 0, ROUND_1)
        await tx.archive_log(other.game_id, 0, ROUND_2[:1])
        await tx.archive_log(game.game_id, 0, [])  # nothing to archive: nothing happens
    async with storage.transaction() as tx:
        await tx.archive_log(game.game_id, len(ROUND_1), ROUND_2)
        # Inside the transaction, its own writes are seen.
        assert await tx.archived_log(game.game_id) == ROUND_1 + ROUND_2
    assert await storage.archived_log(game.game_id) == ROUND_1 + ROUND_2
    assert await storage.archived_log(other.game_id) == ROUND_2[:1]


async def test_a_gap_or_an_overlap_is_refused_and_writes_nothing(storage: Storage) -> None:
    async with storage.transaction() as tx:
        game = await tx.create_game(-100, 0, 1, STATE)
        await tx.archive_log(game.game_id, 0, ROUND_1)
    for start in (0, 2, len(ROUND_1) + 1):
        with pytest.raises(StorageError, match="holds 3 entries"):
            async with storage.transaction() as tx:
                await tx.archive_log(game.game_id, start, ROUND_2)
    assert await storage.archived_log(game.game_id) == ROUND_1


async def test_a_rolled_back_archive_leaves_nothing(storage: Storage) -> None:
    async with storage.transaction() as tx:
        game = await tx.create_game(-100, 0, 1, STATE)
    with pytest.raises(RuntimeError, match="boom"):
        async with storage.transaction() as tx:
            await tx.archive_log(game.game_id, 0, ROUND_1)
            raise RuntimeError("boom")
    assert await storage.archived_log(game.game_id) == []


async def test_an_unknown_game_has_no_archive(storage: Storage) -> None:
    with pytest.raises(GameNotFound):
        async with storage.transaction() as tx:
            await tx.archive_log(999, 0, ROUND_1)
    assert await storage.archived_log(999) == []
