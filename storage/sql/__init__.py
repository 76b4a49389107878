"""`Storage` and `Transaction`, the classes bot/ codes against: the mixins of the table modules
(one per group of tables, over storage/sql/base.py) assembled once, and subclassed by each
backend with the connection the statements run on. A new table module is added here once.

One bot action = one transaction: the game state, its ledger rows, statistics and the
processed update id commit together or not at all.
"""

from __future__ import annotations

import asyncio
from abc import abstractmethod
from contextlib import AbstractAsyncContextManager, nullcontext
from typing import Any

from storage.errors import StorageError
from storage.sql.achievements import AchievementReads, AchievementWrites
from storage.sql.chat_migration import ChatMigration
from storage.sql.chats import ChatReads, ChatWrites
from storage.sql.claims import LeaseReads, LeaseWrites
from storage.sql.deadlines import DeadlineReads, DeadlineWrites
from storage.sql.delivery import DeliveryReads, DeliveryWrites
from storage.sql.games import GameQueries, GameReads, GameWrites
from storage.sql.ledger import LedgerQueries, LedgerReads, LedgerWrites
from storage.sql.notices import NoticeReads, NoticeWrites
from storage.sql.screens import ScreenQueries, ScreenReads, ScreenWrites
from storage.sql.seasons import SeasonReads, SeasonWrites
from storage.sql.stats import StatsQueries, StatsWrites


class Transaction(
    ChatWrites,
    GameWrites,
    LedgerWrites,
    StatsWrites,
    DeliveryWrites,
    ScreenWrites,
    ChatMigration,
    LeaseWrites,
    DeadlineWrites,
    NoticeWrites,
    SeasonWrites,
    AchievementWrites,
    ChatReads,
    GameReads,
    LedgerReads,
    DeliveryReads,
    ScreenReads,
    LeaseReads,
    DeadlineReads,
    NoticeReads,
    SeasonReads,
    AchievementReads,
):
    """One atomic unit of work; valid only inside `async with storage.transaction()`. Its
    backend provides `_rows`, `_execute` and `_executemany`."""


class Storage(
    ChatReads,
    GameReads,
    GameQueries,
    LedgerReads,
    LedgerQueries,
    StatsQueries,
    DeliveryReads,
    ScreenReads,
    ScreenQueries,
    LeaseReads,
    DeadlineReads,
    NoticeReads,
    SeasonReads,
    AchievementReads,
):
    """Owns the connection; its reads run outside transactions, over its backend's `_rows`.
    Writes happen only through `transaction()`."""

    # The tasks inside one of this object's transactions (see _check_not_owner).
    _owners: set[asyncio.Task[Any]]

    def _check_not_owner(self) -> asyncio.Task[Any] | None:
        """The current task. A task inside its own transaction must not use the storage object
        directly: it would not see its transaction's writes, and waiting for what the
        transaction holds (SQLite's one connection, PostgreSQL's row locks) would never end
        (PostgreSQL sees no deadlock: the transaction only waits for its client)."""
        task = asyncio.current_task()
        if task is not None and task in self._owners:
            raise StorageError(
                "storage used directly inside its own open transaction (it would not see the "
                "transaction's writes, and waiting for what it holds would deadlock); "
                "use the Transaction object's methods"
            )
        return task

    @abstractmethod
    async def start(self) -> None: ...

    @abstractmethod
    async def stop(self) -> None: ...

    @abstractmethod
    def transaction(self) -> AbstractAsyncContextManager[Transaction]:
        """`async with storage.transaction() as tx:` commits on exit, rolls back on error."""

    def _alone(self) -> AbstractAsyncContextManager[Storage | Transaction]:
        """Where a write of one statement runs by itself: on PostgreSQL the storage object (a
        pooled connection, a transaction of its own); on SQLite a transaction block (the
        storage object's own statements are reads)."""
        return nullcontext(self) if self._dialect.concurrent else self.transaction()

    async def claim_due(
        self, now: float, owner: str, hold: float, limit: int = 50
    ) -> list[tuple[int, float]]:
        async with self._alone() as db:
            return await db._claim_due(now, owner, hold, limit)

    async def claim_deadlines(
        self, kind: str, now: float, owner: str, hold: float, limit: int = 50
    ) -> list[tuple[str, float]]:
        async with self._alone() as db:
            return await db._claim_deadlines(kind, now, owner, hold, limit)

    async def acquire_lease(self, name: str, owner: str, ttl: float, note: str = "") -> bool:
        """`Transaction.hold_lease` in a transaction of its own."""
        async with self.transaction() as tx:
            return await tx.hold_lease(name, owner, ttl, note)
