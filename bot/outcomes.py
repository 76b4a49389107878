"""What an action on a game came to, typed: the one answer both front ends get from
:class:`bot.actions.Actions`, so that neither works out again what the service already decided.
Pure records: nothing here knows Telegram or the web."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from bot.game_state import Meta, View
from bot.seating import Refilled
from rules.events import Event
from rules.game import Game
from storage import ChatSettings, StoredGame

# The moves whose answer is the presser's own hand as it is after them.
HAND_MOVES = frozenset({"hit", "dark", "stand", "bet", "bank"})


@dataclass(frozen=True, slots=True)
class Outcome:
    """A committed action: the stored game at its new version, its engine, the bot's records
    beside it, the events of the action and the chat's settings."""

    stored: StoredGame
    game: Game
    meta: Meta
    events: list[Event]
    chat: ChatSettings

    @property
    def view(self) -> View:
        return View(self.stored, self.game, self.meta, self.chat)


@dataclass(frozen=True, slots=True)
class Done:
    """The move ``kind`` by ``user`` (None: the bot's own, a timer) was committed."""

    outcome: Outcome
    kind: str
    user: int | None

    @property
    def shows_hand(self) -> bool:
        """Whether the answer is the presser's hand as it is now (a stake, a card, a stand)."""
        return (
            self.kind in HAND_MOVES
            and self.user is not None
            and self.outcome.game.is_seated(self.user)
        )


@dataclass(frozen=True, slots=True)
class Joined:
    """``user`` sat down (committed)."""

    outcome: Outcome
    user: int
    next_round: bool  # a round is being played: he plays from the next one
    refill: Refilled | None  # the daily refill that made the seat possible
    needs_private: bool  # he has not opened the private chat, where his cards would go


@dataclass(frozen=True, slots=True)
class Repeated:
    """The presser's same press was applied already (a double tap, or a press delivered
    twice): nothing changed; ``view`` is the game as it is."""

    view: View
    user: int

    @property
    def seated(self) -> bool:
        return self.view.game.is_seated(self.user)


@dataclass(frozen=True, slots=True)
class Refusal:
    """Not allowed: ``code`` and ``params`` say why, as the engine said it
    (:class:`~rules.errors.RulesError`) or the service."""

    code: str
    params: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Ignored:
    """An update processed already (delivered twice): nothing was done, nothing is said."""


Result = Done | Joined | Repeated | Refusal | Ignored


def joined_mid_round(game: Game, user_id: int) -> bool:
    """``user_id`` is seated while a round is played: he sits in from the next one."""
    return game.in_round and game.is_seated(user_id) and user_id not in game.hands


def refill_of(events: list[Event]) -> Refilled | None:
    """The chips a broke player was given back as he sat down in this action, if any."""
    return next((e for e in events if isinstance(e, Refilled)), None)
