"""Frozen records of what an action did. Actions return them; the bot renders them and storage
writes the chip movements (:class:`ChipsMoved`) to the ledger. Each is declared once with its kind
(``@event("stood")``), and its JSON form comes back by that kind, for the events the bot stores
to show later (a round's result, the table's news).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, fields, is_dataclass
from typing import (
    Any,
    ClassVar,
    Literal,
    Self,
    TypeVar,
    dataclass_transform,
    get_args,
    get_origin,
    get_type_hints,
)

BANK: Literal["bank"] = "bank"
Party = int | Literal["bank"]  # a player's id, or the bank of the game


@dataclass(frozen=True, slots=True)
class Transfer:
    source: Party
    target: Party
    amount: int
    reason: str


@dataclass(frozen=True, slots=True)
class Event:
    kind: ClassVar[str] = "event"

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["kind"] = self.kind
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Self:
        """The event :meth:`to_dict` gave; a field missing from an event stored before it existed
        gets its default. ``Event.from_dict`` decodes any kind, ``RoundSettled.from_dict`` only
        its own."""
        kind = data.get("kind")
        target = EVENT_TYPES.get(kind or "") if cls is Event else cls
        if target is None or (kind is not None and kind != target.kind):
            raise ValueError(f"not a {cls.__name__} event: kind {kind!r}")
        event = _decode_record(target, data)
        assert isinstance(event, cls)
        return event


EVENT_TYPES: dict[str, type[Event]] = {}  # every kind of event, for Event.from_dict

E = TypeVar("E", bound=Event)


@dataclass_transform(frozen_default=True)
def event(kind: str) -> Callable[[type[E]], type[E]]:
    """Declare an event of ``kind``: a frozen record that :meth:`Event.from_dict` decodes."""

    def declare(cls: type[E]) -> type[E]:
        declared = dataclass(frozen=True, slots=True)(cls)
        declared.kind = kind
        EVENT_TYPES[kind] = declared
        return declared

    return declare


@event("seated")
class PlayerSeated(Event):
    player: int
    balance: int


@event("left")
class PlayerLeft(Event):
    player: int


@event("leave_scheduled")
class LeaveScheduled(Event):
    """The player leaves when the round ends (nobody walks out mid-round)."""

    player: int


@event("banker_chosen")
class BankerChosen(Event):
    player: int
    by_lot: bool


@event("bank_set")
class BankSet(Event):
    banker: int
    amount: int


@event("round_started")
class RoundStarted(Event):
    round_no: int
    banker: int
    bank: int


@event("shuffled")
class DeckShuffled(Event):
    cards: int
    recycled: bool  # discards shuffled back in when the stock ran out
    # SHA-256 commitment to the order (rules.fairness); the salt and order stay secret.
    commitment: str = ""


@event("bottom_shown")
class BottomCardShown(Event):
    card: str


@event("card_dealt")
class CardDealt(Event):
    """``card`` is the code; whether others may see it is ``face_up``; a ``dark`` card is seen by
    nobody, its owner included, until the showdown."""

    player: int
    card: str
    face_up: bool
    dark: bool


@event("stake")
class StakePlaced(Event):
    player: int
    amount: int


@event("sat_out")
class SatOut(Event):
    player: int
    reason: str  # "cannot_afford", "bank_empty", "timeout", "leaving"


@event("stood")
class Stood(Event):
    player: int
    reason: str  # "choice", "max_cards", "twenty_one", "dark", "timeout", "leaving"


@event("bust")
class Busted(Event):
    player: int
    total: int
    cards: tuple[str, ...]


@event("twenty_one")
class TwentyOne(Event):
    """21 (or the golden point) reached while drawing, paid at once from the bank."""

    player: int
    golden: bool
    paid: int
    cards: tuple[str, ...]
    due: int = 0  # what the bank owed; ``paid`` is less when it ran dry


@event("naturals")
class NaturalsSettled(Event):
    banker_natural: bool
    players: tuple[int, ...]  # players paid for a natural 21


@event("banker_turn")
class BankerTurn(Event):
    banker: int


@event("chips")
class ChipsMoved(Event):
    transfer: Transfer


@dataclass(frozen=True, slots=True)
class RevealedShuffle:
    """A shuffle of a settled round, revealed (see :mod:`rules.fairness`): the commitment shown
    before its first card, the salt, the whole order (index 0 dealt first) and the cards dealt
    from it in dealing order."""

    commitment: str
    salt: str
    order: tuple[str, ...]
    dealt: tuple[str, ...] = ()  # none in results stored before the dealt cards were kept
    recycled: bool = False


@dataclass(frozen=True, slots=True)
class PlayerResult:
    player: int
    outcome: Literal["win", "lose", "push", "out"]
    stake: int
    net: int
    total: int
    cards: tuple[str, ...]
    bust: bool
    twenty_one: bool
    golden: bool
    natural: bool
    dark: bool
    # A win's full due (stake, or twice it); ``net`` below it means the bank ran dry. 0: not a
    # win, or a result recorded before dues were kept.
    due: int = 0
    # The stake was the whole bank (ва-банк); all the chips the player could put at risk; this
    # hand's win emptied the bank. False in results recorded before they were kept.
    whole_bank: bool = False
    all_in: bool = False
    broke_bank: bool = False


@event("round_settled")
class RoundSettled(Event):
    round_no: int
    banker: int
    banker_cards: tuple[str, ...]
    banker_total: int
    banker_bust: bool
    results: tuple[PlayerResult, ...]
    bank: int
    balances: tuple[tuple[int, int], ...]
    # The round's shuffles, revealed at the showdown (a round played before the fair deck: none).
    shuffles: tuple[RevealedShuffle, ...] = ()
    # The achievements first earned in this round, (player, code): the engine leaves it empty
    # (rules.achievements says what a round earns; only the owner's records know whether it
    # is the first time) and the owner fills it in when it records them.
    earned: tuple[tuple[int, str], ...] = ()


@dataclass(frozen=True, slots=True)
class RoundStep:
    """One logged action of a round (``action`` as logged: "stake", "hit", "timeout", …; its
    player and amount when it has them) and the events it caused, in order."""

    action: str
    player: int | None
    amount: int | None
    events: tuple[Event, ...]


@dataclass(frozen=True, slots=True)
class RoundRecord:
    """A settled round as it happened (:meth:`rules.game.Game.round_record`): its shuffles
    revealed (the commitments as published before their first card), every action from the one
    that dealt it to the one that settled it with the events of each (who got which card, the
    dark and the bottom ones, the stakes, the chips to and from the bank), and the result."""

    round_no: int
    shuffles: tuple[RevealedShuffle, ...]
    steps: tuple[RoundStep, ...]
    settled: RoundSettled


@event("bank_broken")
class BankBroken(Event):
    banker: int


@event("bank_passed")
class BankPassed(Event):
    old_banker: int
    new_banker: int | None
    returned: int
    reason: str  # "broken", "every_round", "voluntary", "declined", "leaving"


@event("session_ended")
class SessionEnded(Event):
    # "ended" (by a person), "all_dealt" (everyone who could has held the bank), "no_players"
    # (nobody left with chips to play the banker), "no_banker" (nobody left to take the bank:
    # see ``declined`` and ``broke``).
    reason: str
    balances: tuple[tuple[int, int], ...]
    declined: tuple[int, ...] = ()  # players who turned the bank down in a row just before
    broke: tuple[int, ...] = ()  # players who could not bank: no chips
    dealt: tuple[int, ...] = ()  # players who held the bank this session (end_when_all_dealt)


def _same(value: Any) -> Any:
    return value


def _decoder(hint: Any) -> Callable[[Any], Any]:
    """What turns the JSON form of a value of type ``hint`` back into that value. JSON keeps
    ints, strings, booleans and None as they were (a union or a Literal of those too); tuples
    came back as lists, records as dicts."""
    if get_origin(hint) is tuple:
        args = get_args(hint)
        if len(args) == 2 and args[1] is Ellipsis:
            item = _decoder(args[0])
            return lambda value: tuple(item(x) for x in value)
        items = tuple(_decoder(arg) for arg in args)
        return lambda value: tuple(f(x) for f, x in zip(items, value, strict=True))
    if isinstance(hint, type) and is_dataclass(hint):
        return lambda value: _decode_record(hint, value)
    return _same


_RECORD_DECODERS: dict[type[Any], tuple[tuple[str, Callable[[Any], Any]], ...]] = {}


def _decode_record(cls: type[Any], data: Mapping[str, Any]) -> Any:
    decoders = _RECORD_DECODERS.get(cls)
    if decoders is None:
        hints = get_type_hints(cls)
        decoders = tuple((item.name, _decoder(hints[item.name])) for item in fields(cls))
        _RECORD_DECODERS[cls] = decoders
    return cls(**{name: decode(data[name]) for name, decode in decoders if name in data})
