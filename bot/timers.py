"""Turn timers on the one scheduler (`bot.scheduler`): a job per game with a deadline, under the
key ``("turn", game)`` (ten thousand games cost ten thousand heap entries, not sleeping tasks).
The deadlines are the service's, stored with the game; a restart arms them again from there.

With replicas the due deadlines are claimed from the database (`Storage.claim_due`) instead,
so whichever process is alive fires them: `arm` only tells when to look next, and every
``poll`` seconds the due games are claimed for ``hold`` seconds and fired; a fire that fails
is tried again once its claim runs out.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import KW_ONLY, dataclass, field
from functools import partial

from bot.scheduler import Job, Scheduler, coalesced
from storage import Storage

log = logging.getLogger(__name__)

Fire = Callable[[int], Awaitable[None]]  # called with the game id when its deadline passes
TURN = "turn"  # the scheduler's keys: ("turn", game) a deadline (a hint, with claims)
FIRE = "turn_fire"  # ("turn_fire", game): a claimed deadline being fired
CLAIM = ("turn_claims",)


@dataclass(eq=False)
class TurnTimers:
    """``storage`` and ``owner``: claim the due deadlines from the shared database."""

    scheduler: Scheduler
    fire: Fire
    _: KW_ONLY
    storage: Storage | None = None
    owner: str = ""
    poll: float = 1.0
    hold: float = 10.0
    _firing: set[int] = field(init=False, default_factory=set)
    # Hints due together make one claim (and one more, for those that came while it ran),
    # not a transaction each.
    _claim: Job = field(init=False)

    def __post_init__(self) -> None:
        self._claim = coalesced(self._claim_once)

    def start(self) -> None:
        if self.storage is not None:
            self.scheduler.every(CLAIM, self.poll, self._claim, first=0.0)

    def arm(self, game_id: int, deadline: float | None) -> None:
        """Set (or, with no deadline, clear) the game's timer; the latest call wins."""
        job = self._claim if self.storage is not None else partial(self._run, game_id)
        self.scheduler.at((TURN, game_id), deadline, job)

    def pending(self) -> int:
        return self.scheduler.pending(TURN)

    async def _claim_once(self) -> None:
        assert self.storage is not None
        now = self.scheduler.clock()
        try:
            due = await self.storage.claim_due(now, self.owner, self.hold)
        except Exception:
            log.exception("could not claim due turn deadlines")
            return
        for game_id, _deadline in due:
            self.scheduler.cancel((TURN, game_id))
            if game_id not in self._firing:
                self._firing.add(game_id)
                self.scheduler.at((FIRE, game_id), now, partial(self._run, game_id))

    async def _run(self, game_id: int) -> None:
        try:
            await self.fire(game_id)
        except Exception:
            log.exception("turn timer failed game=%s", game_id)
        finally:
            self._firing.discard(game_id)
