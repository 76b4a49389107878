"""A stored game as the bot reads it: its state is ``{"engine": <rules JSON>, "meta": <the
bot's bookkeeping>}``; :class:`Meta` is that bookkeeping, :class:`View` one committed version
decoded once. Data only: `bot.service` writes it, delivery and the handlers read it."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Protocol

from cachetools import LRUCache

from bot.house import HOUSE_ID
from rules import codec
from rules import events as events_module
from rules.events import Event
from rules.game import Game
from rules.table import Phase
from storage import ChatSettings, GameStatus, StoredGame

NEWS_KEEP = 3  # notable events of the current turn kept for the table's news lines
# The notable events kept for the table's news line.
NEWS_KINDS = frozenset(
    cls.kind
    for cls in (
        events_module.TwentyOne,
        events_module.Busted,
        events_module.BankBroken,
        events_module.BankPassed,
        events_module.BankerChosen,
        events_module.PlayerSeated,
        events_module.PlayerLeft,
        events_module.NaturalsSettled,
        events_module.SatOut,
        events_module.Stood,
    )
)
# The phases in which a person's turn clock runs.
TIMED = (Phase.BANK, Phase.STAKE, Phase.DRAW, Phase.BANKER)


def _str_keys(items: dict[int, Any]) -> dict[str, Any]:
    return {str(k): v for k, v in items.items()}


# Dicts by player id, stored with the ids as JSON's string keys.
NAMES = codec.Codec(_str_keys, lambda items: {int(k): v for k, v in items.items()}, dict)
ACTED = codec.Codec(
    _str_keys,
    lambda items: {int(k): list(v) for k, v in items.items()},
    lambda items: {k: list(v) for k, v in items.items()},
)


@dataclass(slots=True)
class Meta:
    """The bot's bookkeeping of a game, declared once: each field says here how it is stored
    (:mod:`rules.codec`, as :class:`rules.state.GameState` does), and ``to_dict`` and
    ``from_dict`` are derived from these declarations. A key the declaration no longer names (a
    field moved elsewhere) is ignored when read, so stored games decode after a field is removed.

    Every field is the game's, written by the service's commit; what a chat was shown is
    delivery's record, in its own table (`storage.Screen`: the table and hand messages, the
    results posted, the turn mentioned). The stamps below say what the game *wants* shown
    (a new table from this version on, a turn that began at this version): delivery cannot
    work them out itself, since it sees only the newest version, and a `/table` that was
    acknowledged must survive a crash. The outbox stays here for the same reason: a round's
    result is produced by the commit that settles it, and is kept until delivery records it
    posted (the service reads `Screen.posted_seq` to drop those)."""

    creator_id: int
    names: dict[int, str] = field(default_factory=dict, metadata=codec.stored(NAMES))
    turn_since: int = 1  # the state version at which the current decision began
    # [round, phase, turn]
    decision: list[Any] = field(default_factory=list, metadata=codec.stored(codec.LIST))
    # results not yet posted (delivery records how far it posted: Screen.posted_seq)
    outbox: list[dict[str, Any]] = field(default_factory=list, metadata=codec.stored(codec.LIST))
    # recent notable events
    news: list[dict[str, Any]] = field(default_factory=list, metadata=codec.stored(codec.LIST))
    # no person acted in the current round (only timers)
    idle_round: bool = field(default=True, metadata=codec.stored(optional=True))
    # who ended the game (None: expired or ended by the rules)
    ended_by: int | None = field(default=None, metadata=codec.stored(optional=True))
    expired: bool = field(default=False, metadata=codec.stored(optional=True))
    # The version at which the current table message was wanted (a new round, /table): the
    # round's table goes on in one message until this changes (delivery records which one its
    # message shows: Screen.table_since).
    table_since: int = field(default=1, metadata=codec.stored(optional=True))
    # The version at which the person now on turn got it (a turn notice is sent once per turn,
    # however many decisions it has: stake, then draw; delivery records the turn it mentioned,
    # Screen.mentioned_since, and the one a hand message announced, in its digest).
    actor_since: int = field(default=0, metadata=codec.stored(optional=True))
    # player -> [state version the press was drawn at, action]: the same button pressed again
    # from the same keyboard changes nothing.
    acted: dict[int, list[Any]] = field(
        default_factory=dict, metadata=codec.stored(ACTED, optional=True)
    )
    # numbers the outbox items; delivery records how many it posted
    outbox_seq: int = field(default=0, metadata=codec.stored(optional=True))
    # Nobody played since the round began on its own: instead of playing it out on timers
    # (everyone sitting out), the table waits, its clock stopped, until someone acts.
    paused: bool = field(default=False, metadata=codec.stored(omit_default=True))
    # the group's title (raw) when the lobby opened: names the private hands
    chat_title: str = field(default="", metadata=codec.stored(omit_default=True))

    def to_dict(self) -> dict[str, Any]:
        return codec.dump(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Meta:
        values = codec.load_values(cls, data)
        # Results stored before outbox items were numbered get numbers now (delivery has
        # posted none of them: it recorded nothing for them), so none is lost in an upgrade.
        seq: int = values["outbox_seq"]
        outbox = []
        for item in values["outbox"]:
            if "seq" not in item:
                seq += 1
                item = {**item, "seq": seq}
            outbox.append(item)
        values["outbox"], values["outbox_seq"] = outbox, seq
        return cls(**values)


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


def news_events(meta: Meta) -> list[Event]:
    """The stored notable events as event objects again."""
    return [Event.from_dict(item) for item in meta.news if item.get("kind") in NEWS_KINDS]
