"""The daily refill: chips issued from the ledger's own 'issue' account, at most once a period,
counted by the conservation check, and never half-written."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from storage import (
    MIGRATIONS,
    Account,
    ChatSettings,
    LedgerCheck,
    Refill,
    SqliteStorage,
    Storage,
    Transfer,
    UnknownAccount,
)
from tests.storage.conftest import FakeClock
from tests.storage.raw import fetch

DAY = 24 * 3600.0
CHAT = -100


async def broke_player(storage: Storage, user: int = 7, other: int = 8) -> None:
    """``user`` has lost his 1000 to ``other``: the chips stay in the chat."""
    async with storage.transaction() as tx:
        await tx.ensure_player(CHAT, user, "A", 1000)
        await tx.ensure_player(CHAT, other, "B", 1000)
        await tx.apply_transfers(
            CHAT, None, None, [Transfer(Account.player(user), Account.player(other), 1000, "lost")]
        )


def ledger_rows(url: str, where: str = "true") -> list[tuple[object, ...]]:
    return fetch(
        url,
        "SELECT source_kind, source_id, target_kind, target_id, amount, reason, target_after "
        f"FROM ledger WHERE {where} ORDER BY entry_id",
    )


async def test_refill_issues_up_to_and_is_counted(storage: Storage, clock: FakeClock) -> None:
    await broke_player(storage)
    async with storage.transaction() as tx:
        refill = await tx.refill(CHAT, 7, 1000, period=DAY)
    assert refill == Refill(1000, 1000, clock.now + DAY)
    assert (await storage.get_player(CHAT, 7)).balance == 1000  # type: ignore[union-attr]
    assert await storage.last_refill(CHAT, 7) == clock.now
    assert await storage.last_refill(CHAT, 8) is None
    # Issued chips are apart from the starting grants, and the books still balance.
    assert await storage.check_ledger(CHAT) == LedgerCheck(CHAT, 2000, 3000, 0, True, 1000)
    # The refill appears in the balance history, as any movement does.
    assert [b for _, b in await storage.balance_history(CHAT, 7)] == [1000, 0, 1000]


async def test_refill_is_once_a_period(storage: Storage, clock: FakeClock) -> None:
    await broke_player(storage)
    first = clock.now
    async with storage.transaction() as tx:
        assert (await tx.refill(CHAT, 7, 1000, period=DAY)).amount == 1000
        # A second call in the same transaction (a double tap handled twice) issues nothing.
        assert await tx.refill(CHAT, 7, 5000, period=DAY) == Refill(0, 1000, first + DAY)
    async with storage.transaction() as tx:
        await tx.apply_transfers(
            CHAT, None, None, [Transfer(Account.player(7), Account.player(8), 990, "lost again")]
        )
    clock.advance(DAY - 1)
    async with storage.transaction() as tx:
        assert await tx.refill(CHAT, 7, 1000, period=DAY) == Refill(0, 10, first + DAY)
    clock.advance(1)
    async with storage.transaction() as tx:
        assert await tx.refill(CHAT, 7, 1000, period=DAY) == Refill(990, 1000, clock.now + DAY)
    check = await storage.check_ledger(CHAT)
    assert (check.issued, check.ok) == (1990, True)


async def test_no_refill_needed_does_not_use_the_period(storage: Storage) -> None:
    async with storage.transaction() as tx:
        await tx.ensure_player(CHAT, 7, "A", 1000)
        assert await tx.refill(CHAT, 7, 1000, period=DAY) == Refill(0, 1000, None)
        assert await tx.refill(CHAT, 7, 600, period=DAY) == Refill(0, 1000, None)
    assert await storage.last_refill(CHAT, 7) is None
    assert (await storage.check_ledger(CHAT)).issued == 0


async def test_refill_rolled_back_with_its_transaction(storage: Storage, database_url: str) -> None:
    await broke_player(storage)
    with pytest.raises(RuntimeError):
        async with storage.transaction() as tx:
            assert (await tx.refill(CHAT, 7, 1000, period=DAY)).amount == 1000
            raise RuntimeError("the seat was refused after the refill")
    assert (await storage.get_player(CHAT, 7)).balance == 0  # type: ignore[union-attr]
    assert await storage.last_refill(CHAT, 7) is None
    assert await storage.check_ledger(CHAT) == LedgerCheck(CHAT, 2000, 2000, 0, True, 0)
    # Not used up either: the next transaction refills.
    async with storage.transaction() as tx:
        assert (await tx.refill(CHAT, 7, 1000, period=DAY)).amount == 1000
    assert ledger_rows(database_url, "source_kind = 'issue'") == [
        ("issue", 0, "player", 7, 1000, "daily refill", 1000)
    ]


async def test_refill_refusals(storage: Storage) -> None:
    async with storage.transaction() as tx:
        with pytest.raises(UnknownAccount):
            await tx.refill(CHAT, 99, 1000, period=DAY)
        await tx.ensure_player(CHAT, 7, "A", 0)
        with pytest.raises(ValueError):
            await tx.refill(CHAT, 7, -1, period=DAY)
        with pytest.raises(ValueError):
            await tx.refill(CHAT, 7, 1000, period=0)
        # Only refill() issues chips: apply_transfers would bypass the once-a-period rule.
        with pytest.raises(ValueError):
            await tx.apply_transfers(
                CHAT, None, None, [Transfer(Account.ISSUE, Account.player(7), 1000, "free")]
            )
    assert (await storage.check_ledger(CHAT)).issued == 0


async def test_issue_account_is_an_outside_account() -> None:
    assert Account("issue", 0) == Account.ISSUE
    assert Account.ISSUE.is_outside and Account.GRANT.is_outside
    assert not Account.player(0).is_outside and not Account.bank(1).is_outside
    with pytest.raises(ValueError):
        Account("issue", 3)


async def test_refills_move_with_a_migrated_chat(storage: Storage, clock: FakeClock) -> None:
    await broke_player(storage)
    async with storage.transaction() as tx:
        await tx.refill(CHAT, 7, 1000, period=DAY)
        await tx.migrate_chat(CHAT, -1009)
    check = await storage.check_ledger(-1009)
    assert (check.granted, check.issued, check.ok) == (2000, 1000, True)
    # The supergroup knows he was refilled today.
    assert await storage.last_refill(-1009, 7) == clock.now
    async with storage.transaction() as tx:
        assert (await tx.refill(-1009, 7, 2000, period=DAY)).amount == 0


async def test_daily_refill_setting_round_trip(storage: Storage) -> None:
    assert (await storage.get_chat(CHAT)).daily_refill  # on by default
    async with storage.transaction() as tx:
        await tx.save_chat_settings(ChatSettings(CHAT, daily_refill=False))
    assert await storage.get_chat(CHAT) == ChatSettings(CHAT, daily_refill=False)
    async with storage.transaction() as tx:
        await tx.migrate_chat(CHAT, -1009)
    assert not (await storage.get_chat(-1009)).daily_refill


async def test_upgrade_keeps_the_ledger_and_turns_refills_on(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite3"
    before = MIGRATIONS.index(next(m for m in MIGRATIONS if "daily refills" in m.description))
    await broke_player_at(path, before)
    conn = sqlite3.connect(path)
    with conn:  # this code's save_chat_settings writes a column the old schema lacks
        conn.execute(
            "INSERT INTO chats (chat_id, language, preset) VALUES (?, 'en', 'home36')", (CHAT,)
        )
    conn.close()
    url = f"sqlite:///{path}"
    rows = ledger_rows(url)
    storage = SqliteStorage(path)
    await storage.start()
    try:
        assert ledger_rows(url) == rows  # every row kept, in order
        chat = await storage.get_chat(CHAT)
        assert (chat.language, chat.preset, chat.daily_refill) == ("en", "home36", True)
        async with storage.transaction() as tx:
            assert (await tx.refill(CHAT, 7, 1000, period=DAY)).amount == 1000
        assert (await storage.check_ledger(CHAT)).ok
    finally:
        await storage.stop()


async def broke_player_at(path: Path, version: int) -> None:
    old = SqliteStorage(path, migrations=MIGRATIONS[:version])
    await old.start()
    try:
        await broke_player(old)
    finally:
        await old.stop()
