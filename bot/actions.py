"""Acting on a game: the one way in for both front ends, the chat's handlers and the Mini App.
The front end answers with the typed result at once and only then hands the version on
(:meth:`Actions.publish`), so nothing slow stands between the commit and the answer."""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field
from typing import Protocol

from cachetools import LRUCache
from telegram import User

from bot import logs, metrics
from bot.errors import AlreadyDone, Duplicate, Refused
from bot.game_state import View, meta_of
from bot.locks import KeyedLocks
from bot.outcomes import (
    Done,
    Ignored,
    Joined,
    Outcome,
    Refusal,
    Repeated,
    Result,
    joined_mid_round,
    refill_of,
)
from bot.permissions import AdminCheck
from bot.service import Actor, GameService, Request

log = logging.getLogger(__name__)
# An action is logged at INFO when it changes the course of the game (seats, bank, rounds);
# cards, stakes and stands only at DEBUG: a busy bot acts hundreds of times a second.
ROUND_EVENTS = frozenset(
    {
        "seated",
        "left",
        "banker_chosen",
        "bank_set",
        "round_started",
        "round_settled",
        "bank_broken",
        "bank_passed",
        "session_ended",
    }
)
PUBLISHED_KEEP = 4096  # games whose newest published version is remembered
NAME_LIMIT = 64


def display_name(user: User) -> str:
    """A person's name as the games show it, whichever front end he came through."""
    name = " ".join(user.full_name.split()) or (user.username or str(user.id))
    cleaned = "".join(ch for ch in name if ch.isprintable())
    return cleaned[:NAME_LIMIT] or str(user.id)


def actor_of(user: User, admin: AdminCheck | None = None) -> Actor:
    return Actor(user.id, display_name(user), admin)


class Clocks(Protocol):
    """The turn timers (`bot.timers`): the latest deadline armed for a game wins."""

    def arm(self, game_id: int, deadline: float | None) -> None: ...


class Shows(Protocol):
    """Delivery (`bot.delivery.Delivery`): shows a committed version where it belongs."""

    async def committed(self, view: View) -> None: ...


@dataclass(eq=False)
class Actions:
    service: GameService
    locks: KeyedLocks
    clocks: Clocks
    shows: Shows
    # game -> the newest version handed on. Answering first lets two actions on one game
    # reach publish() out of order (the first one's answer took longer): an older
    # version must not re-arm the timer over a newer one's deadline.
    _published: LRUCache[int, int] = field(
        init=False, default_factory=lambda: LRUCache(PUBLISHED_KEEP)
    )

    async def commit(self, request: Request) -> Outcome:
        """Run one command under the game's lock and commit it; raises the service's refusals
        (:class:`~bot.errors.Refused`, :class:`~bot.errors.Duplicate`,
        :class:`~bot.errors.AlreadyDone`). Nothing is shown yet: see :meth:`publish`.
        Every action, a person's or the bot's own, passes here once: counted by kind and
        outcome (`bot.metrics`), its transaction timed."""
        kind = request.command.kind
        logs.bind(game=request.game_id)
        async with self.locks.hold(request.game_id):
            started = time.perf_counter()
            try:
                outcome = await self.service.act(request)
            except Refused as refused:
                metrics.action(kind, "refused", refused.code)
                raise
            except Duplicate:
                metrics.action(kind, "ignored")
                raise
            except AlreadyDone:
                metrics.action(kind, "repeated")
                raise
            metrics.committed(time.perf_counter() - started)
            metrics.action(kind, "done")
            return outcome

    async def perform(self, request: Request) -> Outcome:
        """Commit and hand on at once — for the bot's own actions and those answered only
        after they are shown; a person's press answers first (:meth:`act`)."""
        outcome = await self.commit(request)
        await self.publish(outcome)
        return outcome

    async def act(self, request: Request) -> Result:
        """A person's command, committed or refused, as a typed result. A committed one
        (:class:`~bot.outcomes.Done`, :class:`~bot.outcomes.Joined`) still has to be handed
        to :meth:`publish` once it is answered."""
        actor = request.actor
        assert actor is not None
        try:
            outcome = await self.commit(request)
        except Refused as refused:
            return Refusal(refused.code, refused.params)
        except Duplicate:
            return Ignored()
        except AlreadyDone as done:
            chat = await self.service.chat(done.stored.chat_id)
            view = View(done.stored, done.game, meta_of(done.stored), chat)
            return Repeated(view, actor.user_id)
        kind, user = request.command.kind, actor.user_id
        if kind != "join":
            return Done(outcome, kind, user)
        known = await self.service.user(user)
        return Joined(
            outcome,
            user,
            next_round=joined_mid_round(outcome.game, user),
            refill=refill_of(outcome.events),
            needs_private=known is None or not known.private_opened,
        )

    async def publish(self, outcome: Outcome) -> None:
        """Hand a committed version on: the turn timer, then delivery (and the pages)."""
        game_id, version = outcome.stored.game_id, outcome.stored.version
        newest = self._published.get(game_id)
        if newest is None or newest < version:
            self._published[game_id] = version
            self.clocks.arm(game_id, outcome.stored.deadline)
        await self.shows.committed(outcome.view)  # (delivery keeps the newest version itself)
        kinds = [event.kind for event in outcome.events]
        level = logging.INFO if ROUND_EVENTS.intersection(kinds) else logging.DEBUG
        if kinds and log.isEnabledFor(level):
            log.log(
                level, "game=%s chat=%s events=%s", game_id, outcome.stored.chat_id, ",".join(kinds)
            )
