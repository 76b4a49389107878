"""A stored game as the bot reads it, and the records it is read into.

A stored game's state is ``{"engine": <rules JSON>, "meta": <the bot's bookkeeping>}``:
:class:`Meta` is that bookkeeping (names, when the current decision began, the results not yet
posted, the table's news, which press was applied), :class:`View` one committed version decoded
once, and the functions decode the stored pieces (the engine, the meta; the outbox's events are
decoded by ``rules.events.Event.from_dict``) and read what the bookkeeping needs of the engine.
Data only: `bot.service` writes it, delivery and the handlers read it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Protocol

from cachetools import LRUCache

from bot.house import HOUSE_ID
from rules.game import Game
from rules.table import Phase
from storage import ChatSettings, GameStatus, StoredGame

# The phases in which a person's turn clock runs.
TIMED = (Phase.BANK, Phase.STAKE, Phase.DRAW, Phase.BANKER)


@dataclass(slots=True)
class Meta:
    creator_id: int
    names: dict[int, str] = field(default_factory=dict)
    turn_since: int = 1  # the state version at which the current decision began
    decision: list[Any] = field(default_factory=list)  # [round, phase, turn]
    outbox: list[dict[str, Any]] = field(default_factory=list)  # results not yet posted
    news: list[dict[str, Any]] = field(default_factory=list)  # recent notable events
    idle_round: bool = True  # no person acted in the current round (only timers)
    ended_by: int | None = None  # who ended the game (None: expired or ended by the rules)
    expired: bool = False
    # The version at which the current table message was wanted (a new round, /table): the
    # round's table goes on in one message until this changes.
    table_since: int = 1
    # The version at which the person now on turn got it (a turn notice is sent once per turn,
    # however many decisions it has: stake, then draw).
    actor_since: int = 0
    # player -> [state version the press was drawn at, action]: the same button pressed again
    # from the same keyboard changes nothing.
    acted: dict[int, list[Any]] = field(default_factory=dict)
    outbox_seq: int = 0  # numbers the outbox items; delivery records how many it posted
    # Nobody played since the round began on its own: instead of playing it out on timers
    # (everyone sitting out), the table waits, its clock stopped, until someone acts.
    paused: bool = False
    chat_title: str = ""  # the group's title (raw) when the lobby opened: names the private hands

    def to_dict(self) -> dict[str, Any]:
        return (
            {
                "creator_id": self.creator_id,
                "names": {str(k): v for k, v in self.names.items()},
                "turn_since": self.turn_since,
                "decision": list(self.decision),
                "outbox": list(self.outbox),
                "news": list(self.news),
                "idle_round": self.idle_round,
                "ended_by": self.ended_by,
                "expired": self.expired,
                "table_since": self.table_since,
                "actor_since": self.actor_since,
                "acted": {str(k): v for k, v in self.acted.items()},
                "outbox_seq": self.outbox_seq,
            }
            | ({"paused": True} if self.paused else {})
            | ({"chat_title": self.chat_title} if self.chat_title else {})
        )

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Meta:
        # Results stored before outbox items were numbered get numbers now (delivery has
        # posted none of them: it recorded nothing for them), so none is lost in an upgrade.
        seq = data.get("outbox_seq", 0)
        outbox = []
        for item in data["outbox"]:
            if "seq" not in item:
                seq += 1
                item = {**item, "seq": seq}
            outbox.append(item)
        return cls(
            creator_id=data["creator_id"],
            names={int(k): v for k, v in data["names"].items()},
            turn_since=data["turn_since"],
            decision=list(data["decision"]),
            outbox=outbox,
            news=list(data["news"]),
            idle_round=data.get("idle_round", True),
            ended_by=data.get("ended_by"),
            expired=data.get("expired", False),
            table_since=data.get("table_since", 1),
            actor_since=data.get("actor_since", 0),
            acted={int(k): list(v) for k, v in data.get("acted", {}).items()},
            outbox_seq=seq,
            paused=data.get("paused", False),
            chat_title=data.get("chat_title", ""),
        )


@dataclass(frozen=True)
class View:
    """One committed version of a game, decoded once."""

    stored: StoredGame
    game: Game
    meta: Meta
    chat: ChatSettings

    @property
    def game_id(self) -> int:
        return self.stored.game_id

    @property
    def version(self) -> int:
        return self.stored.version

    @cached_property
    def actor(self) -> int | None:
        """The person (not the house) whose move the game waits for (on a paused table nobody's
        clock runs: nobody is waited for)."""
        legal = self.game.legal_actions()
        if self.meta.paused or legal.actor in (None, HOUSE_ID) or legal.phase not in TIMED:
            return None
        return legal.actor


class Follower(Protocol):
    """Something besides the chats that shows every committed version (the Mini App's live
    pages): delivery hands it each view it is given or reads, and each turn clock it starts."""

    def seen(self, view: View) -> None: ...

    def clock_started(self, game_id: int, version: int, deadline: float) -> None: ...


def game_of(stored: StoredGame) -> Game:
    return Game.from_dict(stored.state["engine"])


def meta_of(stored: StoredGame) -> Meta:
    return Meta.from_dict(stored.state["meta"])


def status_of(game: Game) -> GameStatus:
    if game.phase is Phase.LOBBY:
        return "lobby"
    return "finished" if game.phase is Phase.ENDED else "active"


def decision_of(game: Game) -> list[Any]:
    return [game.round_no, game.phase.value, game.turn]


def seated_names(game: Game, meta: Meta) -> dict[int, str]:
    return {p: meta.names.get(p, str(p)) for p in game.players}


class ViewCache(LRUCache[int, View]):
    """The newest view of each game, the least recently used leaving first (finished games,
    which nothing asks for any more); the game's records leave with it (``on_evict``)."""

    def __init__(self, maxsize: int, on_evict: Callable[[int, View], None]) -> None:
        super().__init__(maxsize)
        self._on_evict = on_evict

    def popitem(self) -> tuple[int, View]:
        game_id, view = super().popitem()
        self._on_evict(game_id, view)
        return game_id, view
