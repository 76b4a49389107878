"""Several bot processes on one PostgreSQL database (replicas behind a webhook): who does what.

The database is the one truth (a game saved from a stale copy is refused and judged again).
A chat's delivery belongs to the holder of its lease (``chat:<id>``), so that the chat's flood
budget is spent by one process and nothing is shown twice: a process that commits in a chat
takes the lease if it is free, else the holder shows the new version as it polls the games
saved lately. The holder renews its leases, gives up a quiet chat, and notes the chat's recent
sends for the next holder's budget. A dead process's leases run out; then whoever commits
there, or finds the chat behind, takes over, counting the sends it may have made since its last
note. Turn deadlines are claimed from the database (`bot.timers`); periodic jobs run in the
process holding the job's lease (``job:<name>``). Its loops are jobs of the one scheduler; with
SQLite (one process) no `Replica` is made.
"""

from __future__ import annotations

import json
import logging
import math
import os
import secrets
import socket
import time
from collections.abc import Awaitable, Callable
from dataclasses import KW_ONLY, dataclass, field
from typing import Final, Protocol

from bot import metrics
from bot.scheduler import Scheduler
from storage import Storage
from storage.models import Lease

log = logging.getLogger(__name__)

LEASE_SECONDS: Final = 20.0
RENEW_SECONDS: Final = 5.0
IDLE_SECONDS: Final = 120.0
POLL_SECONDS: Final = 0.25
# Often: until a process learns of one that started, both send at the share of fewer; a
# quarter of a second of that stays within the bot's ~30 messages in any second.
HEARTBEAT_SECONDS: Final = 0.25
ORPHAN_SECONDS: Final = 5.0  # how often chats left behind by a dead process are looked for
# How long a process trusts what it read of another's lease: a commit in a chat another process
# delivers then costs no database read (a holder that stops gives its chats up at once).
OTHERS_SECONDS: Final = 2.0
# A lease this close to running out is renewed before it is relied on.
MARGIN_SECONDS: Final = 5.0
# Sends a dead holder may have made after its last note: one per second (the group pacing's
# minimum spacing) for the time between two renewals.
UNNOTED_SENDS: Final = int(RENEW_SECONDS) + 1


class Budget(Protocol):
    """What the leases need of the send path (`bot.lanes.Lanes`): each chat's recent writes,
    and the bot's rate shared among the processes alive (the lanes hand the share on to the
    rate limiter, `bot.ratelimit.PacedRateLimiter`)."""

    def sent_lately(self, chat_id: int) -> list[float]: ...

    def count_sent(self, chat_id: int, times: list[float]) -> None: ...

    def share_overall(self, processes: int) -> None: ...


def replica_name() -> str:
    """This process among the replicas: host, pid and a random tag (a pid may come again)."""
    return f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(3)}"


def chat_lease(chat_id: int) -> str:
    return f"chat:{chat_id}"


REPLICA_PREFIX: Final = "replica:"
REPLICA_JOB: Final = "replica"  # the scheduler's keys of the loops: ("replica", "poll") …


@dataclass(eq=False)
class Replica:
    storage: Storage
    budget: Budget | None
    _: KW_ONLY
    name: str = field(default_factory=replica_name)
    clock: Callable[[], float] = time.time
    on_changed: Callable[[int], Awaitable[None]] | None = None
    on_lost: Callable[[int], None] | None = None
    known_version: Callable[[int], int | None] = lambda game_id: None
    alive: int = 0  # processes alive at the last heartbeat
    _held: dict[int, float] = field(init=False, default_factory=dict)  # chat -> lease until
    _active: dict[int, float] = field(init=False, default_factory=dict)  # chat -> last activity
    # chat -> until when another holds it, as read
    _others: dict[int, float] = field(init=False, default_factory=dict)
    _scheduler: Scheduler | None = field(init=False, default=None)
    _seen: dict[int, int] = field(init=False, default_factory=dict)  # game -> version polled
    _chat_of: dict[int, int] = field(init=False, default_factory=dict)  # game -> its chat
    _since: float = field(init=False, default=0.0)

    # ---------------------------------------------------------------- chats

    def holds(self, chat_id: int) -> bool:
        return self._held.get(chat_id, -math.inf) - self.clock() > MARGIN_SECONDS

    def held(self) -> list[int]:
        return sorted(self._held)

    async def take(self, chat_id: int) -> bool:
        """Whether this process delivers the chat now (taking its lease if it is free)."""
        now = self.clock()
        if self.holds(chat_id):
            self._active[chat_id] = now
            return True
        if self._others.get(chat_id, 0.0) > now:
            return False  # another process delivers it, as read a moment ago
        name = chat_lease(chat_id)
        previous = None if chat_id in self._held else await self.storage.lease(name)
        elsewhere = (
            previous is not None and previous.owner != self.name and previous.expires_at >= now
        )
        if elsewhere or not await self.storage.acquire_lease(
            name, self.name, LEASE_SECONDS, self._note(chat_id)
        ):
            # Trusted for a moment only: a holder that stops gives the chat up at once.
            until = previous.expires_at if previous is not None else now
            self._others[chat_id] = min(until, now + OTHERS_SECONDS)
            if chat_id in self._held:
                metrics.lease_changed("lost")
            self._lose(chat_id)
            return False
        self._active[chat_id] = now
        self._others.pop(chat_id, None)
        if previous is not None and previous.owner != self.name:
            self._inherit(chat_id, previous)
            log.info("chat=%s delivery taken over from %s", chat_id, previous.owner)
        if chat_id not in self._held:
            metrics.lease_changed("acquired")
        self._held[chat_id] = now + LEASE_SECONDS
        return True

    def _note(self, chat_id: int, *, final: bool = False) -> str:
        lately = self.budget.sent_lately(chat_id) if self.budget is not None else []
        sent = [round(at, 3) for at in lately]
        return json.dumps({"sent": sent, "final": final}, separators=(",", ":"))

    def _inherit(self, chat_id: int, previous: Lease) -> None:
        """Count what the previous holder sent into the chat lately against its budget."""
        try:
            note = json.loads(previous.note) if previous.note else {}
            sent = [float(at) for at in note.get("sent", [])]
            final = bool(note.get("final", False))
        except (ValueError, TypeError, AttributeError):
            sent, final = [], False
        if not final:
            # It died: after its last note it may have gone on sending at full pace.
            sent += [previous.renewed_at + n + 1 for n in range(UNNOTED_SENDS)]
        if self.budget is not None:
            self.budget.count_sent(chat_id, sent)

    def _lose(self, chat_id: int) -> None:
        if self._held.pop(chat_id, None) is not None and self.on_lost is not None:
            self.on_lost(chat_id)

    async def heartbeat(self) -> None:
        """Say this process is alive; share the bot's overall flood budget with the others
        alive (Telegram's ~30 messages a second are for the bot, not for each process)."""
        try:
            held = await self.storage.acquire_lease(
                REPLICA_PREFIX + self.name, self.name, LEASE_SECONDS
            )
        except Exception:
            metrics.replica_lease(False)
            raise
        metrics.replica_lease(held)
        alive = len(await self.storage.live_leases(REPLICA_PREFIX))
        if alive != self.alive:
            log.info("replicas alive: %d", alive)
            self.alive = alive
        if self.budget is not None:
            self.budget.share_overall(max(1, alive))

    async def renew(self) -> None:
        """Renew the leases of the chats in use, give up the quiet ones (one transaction)."""
        if not self._held:
            return
        now = self.clock()
        lost: list[int] = []
        dropped: list[int] = []
        async with self.storage.transaction() as tx:
            for chat_id in sorted(self._held):
                name = chat_lease(chat_id)
                if now - self._active.get(chat_id, 0.0) > IDLE_SECONDS:
                    await tx.drop_lease(name, self.name, self._note(chat_id, final=True))
                    dropped.append(chat_id)
                elif await tx.hold_lease(name, self.name, LEASE_SECONDS, self._note(chat_id)):
                    self._held[chat_id] = now + LEASE_SECONDS
                else:
                    lost.append(chat_id)
        for chat_id in dropped + lost:
            self._active.pop(chat_id, None)
            self._lose(chat_id)
        for _ in lost:  # (a quiet chat given up is not a change the metrics count)
            metrics.lease_changed("lost")
        if lost:
            log.warning("chat leases lost to other replicas: %s", lost)

    async def release_all(self) -> None:
        """Shutting down: give every chat up now, with its last sends, for the others."""
        held, self._held = sorted(self._held), {}
        metrics.replica_lease(False)
        async with self.storage.transaction() as tx:
            await tx.drop_lease(REPLICA_PREFIX + self.name, self.name)
            for chat_id in held:
                await tx.drop_lease(chat_lease(chat_id), self.name, self._note(chat_id, final=True))

    # ---------------------------------------------------------------- jobs

    async def job_turn(self, job: str, every: float) -> bool:
        """Whether this process runs the periodic job now (one of the replicas does)."""
        return await self.storage.acquire_lease(f"job:{job}", self.name, every * 0.9)

    async def first_to(self, task: str, ttl: float) -> bool:
        """Whether this process does a one-off ``task`` (the first replica to ask, within
        ``ttl`` seconds, does it: e.g. closing a question whose press and timer came to two)."""
        return await self.storage.acquire_lease(task, self.name, ttl)

    # ---------------------------------------------------------------- polling

    def start(self, scheduler: Scheduler) -> None:
        self._since = self.clock() - 1.0
        self._scheduler = scheduler
        scheduler.every((REPLICA_JOB, "poll"), POLL_SECONDS, self.poll)
        scheduler.every((REPLICA_JOB, "renew"), RENEW_SECONDS, self.renew)
        scheduler.every((REPLICA_JOB, "beat"), HEARTBEAT_SECONDS, self.heartbeat)
        scheduler.every((REPLICA_JOB, "adopt"), ORPHAN_SECONDS, self.adopt)

    def stop(self) -> None:
        if self._scheduler is not None:
            for key in self._scheduler.keys(REPLICA_JOB):
                self._scheduler.cancel(key)
            self._scheduler = None

    async def poll(self) -> None:
        """Show the versions other processes committed in the chats this one delivers."""
        now = self.clock()
        # Writers' clocks may differ a little, and a transaction commits after it stamps.
        since, self._since = self._since, now - 2.0
        for game_id, chat_id, version in await self.storage.games_updated_since(since):
            if self._seen.get(game_id) == version:
                continue
            self._seen[game_id] = version
            self._chat_of[game_id] = chat_id
            if chat_id not in self._held:
                continue
            known = self.known_version(game_id)
            if (known is None or known < version) and self.on_changed is not None:
                await self.on_changed(game_id)
        if len(self._seen) > 50_000:
            self._seen.clear()
            self._chat_of.clear()

    async def adopt(self) -> None:
        """Chats whose table is behind their state while nobody delivers them (the process
        that did died): take them over."""
        free: dict[int, bool] = {}
        for game_id in await self.storage.stale_views():
            chat_id = self._chat_of.get(game_id)
            if chat_id is None:
                stored = await self.storage.load_game(game_id)
                if stored is None:
                    continue
                chat_id = self._chat_of[game_id] = stored.chat_id
            if chat_id in self._held:
                continue
            if chat_id not in free:
                lease = await self.storage.lease(chat_lease(chat_id))
                free[chat_id] = lease is None or lease.expires_at < self.clock()
            if free[chat_id] and self.on_changed is not None:
                await self.on_changed(game_id)
