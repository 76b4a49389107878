"""Frozen records of what an action did. Actions return them; the bot renders them and storage
writes the chip movements (:class:`ChipsMoved`) to the ledger.

``Event.to_dict()`` gives an event's JSON form (with its ``kind``) and ``Event.from_dict()``
takes it back, by kind (:data:`EVENT_TYPES`): the bot stores the events it shows later (a
round's result, the table's news) and decodes them here, where they are declared.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, fields, is_dataclass
from typing import Any, ClassVar, Literal, Self, get_args, get_origin, get_type_hints

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
        """The event :meth:`to_dict` gave, back from its JSON form: lists back to tuples, nested
        records (a transfer, results, shuffles) back to their classes, and a field missing from
        an event stored before it existed set to its default. ``Event.from_dict`` decodes any
        kind; ``RoundSettled.from_dict`` refuses any other kind."""
        kind = data.get("kind")
        target = EVENT_TYPES.get(kind or "") if cls is Event else cls
        if target is None or (kind is not None and kind != target.kind):
            raise ValueError(f"not a {cls.__name__} event: kind {kind!r}")
        event = _decode_record(target, data)
        assert isinstance(event, cls)
        return event


@dataclass(frozen=True, slots=True)
class PlayerSeated(Event):
    kind: ClassVar[str] = "seated"
    player: int
    balance: int


@dataclass(frozen=True, slots=True)
class PlayerLeft(Event):
    kind: ClassVar[str] = "left"
    player: int


@dataclass(frozen=True, slots=True)
class LeaveScheduled(Event):
    """The player leaves when the round ends (nobody walks out mid-round)."""

    kind: ClassVar[str] = "leave_scheduled"
    player: int


@dataclass(frozen=True, slots=True)
class BankerChosen(Event):
    kind: ClassVar[str] = "banker_chosen"
    player: int
    by_lot: bool


@dataclass(frozen=True, slots=True)
class BankSet(Event):
    kind: ClassVar[str] = "bank_set"
    banker: int
    amount: int


@dataclass(frozen=True, slots=True)
class RoundStarted(Event):
    kind: ClassVar[str] = "round_started"
    round_no: int
    banker: int
    bank: int


@dataclass(frozen=True, slots=True)
class DeckShuffled(Event):
    kind: ClassVar[str] = "shuffled"
    cards: int
    recycled: bool  # discards shuffled back in when the stock ran out
    # SHA-256 commitment to the order (rules.fairness); the salt and order stay secret.
    commitment: str = ""


@dataclass(frozen=True, slots=True)
class BottomCardShown(Event):
    kind: ClassVar[str] = "bottom_shown"
    card: str


@dataclass(frozen=True, slots=True)
class CardDealt(Event):
    """``card`` is the code; whether others may see it is ``face_up``; a ``dark`` card is seen by
    nobody, its owner included, until the showdown."""

    kind: ClassVar[str] = "card_dealt"
    player: int
    card: str
    face_up: bool
    dark: bool


@dataclass(frozen=True, slots=True)
class StakePlaced(Event):
    kind: ClassVar[str] = "stake"
    player: int
    amount: int


@dataclass(frozen=True, slots=True)
class SatOut(Event):
    kind: ClassVar[str] = "sat_out"
    player: int
    reason: str  # "cannot_afford", "bank_empty", "timeout", "leaving"


@dataclass(frozen=True, slots=True)
class Stood(Event):
    kind: ClassVar[str] = "stood"
    player: int
    reason: str  # "choice", "max_cards", "twenty_one", "dark", "timeout", "leaving"


@dataclass(frozen=True, slots=True)
class Busted(Event):
    kind: ClassVar[str] = "bust"
    player: int
    total: int
    cards: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class TwentyOne(Event):
    """21 (or the golden point) reached while drawing, paid at once from the bank."""

    kind: ClassVar[str] = "twenty_one"
    player: int
    golden: bool
    paid: int
    cards: tuple[str, ...]
    due: int = 0  # what the bank owed; ``paid`` is less when it ran dry


@dataclass(frozen=True, slots=True)
class NaturalsSettled(Event):
    kind: ClassVar[str] = "naturals"
    banker_natural: bool
    players: tuple[int, ...]  # players paid for a natural 21


@dataclass(frozen=True, slots=True)
class BankerTurn(Event):
    kind: ClassVar[str] = "banker_turn"
    banker: int


@dataclass(frozen=True, slots=True)
class ChipsMoved(Event):
    kind: ClassVar[str] = "chips"
    transfer: Transfer


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
class RoundSettled(Event):
    kind: ClassVar[str] = "round_settled"
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


@dataclass(frozen=True, slots=True)
class BankBroken(Event):
    kind: ClassVar[str] = "bank_broken"
    banker: int


@dataclass(frozen=True, slots=True)
class BankPassed(Event):
    kind: ClassVar[str] = "bank_passed"
    old_banker: int
    new_banker: int | None
    returned: int
    reason: str  # "broken", "every_round", "voluntary", "declined", "leaving"


@dataclass(frozen=True, slots=True)
class SessionEnded(Event):
    kind: ClassVar[str] = "session_ended"
    # "ended" (by a person), "all_dealt" (everyone who could has held the bank), "no_players"
    # (nobody left with chips to play the banker), "no_banker" (nobody left to take the bank:
    # see ``declined`` and ``broke``).
    reason: str
    balances: tuple[tuple[int, int], ...]
    declined: tuple[int, ...] = ()  # players who turned the bank down in a row just before
    broke: tuple[int, ...] = ()  # players who could not bank: no chips
    dealt: tuple[int, ...] = ()  # players who held the bank this session (end_when_all_dealt)


# Every kind of event, for Event.from_dict.
EVENT_TYPES: dict[str, type[Event]] = {
    cls.kind: cls
    for cls in (
        PlayerSeated,
        PlayerLeft,
        LeaveScheduled,
        BankerChosen,
        BankSet,
        RoundStarted,
        DeckShuffled,
        BottomCardShown,
        CardDealt,
        StakePlaced,
        SatOut,
        Stood,
        Busted,
        TwentyOne,
        NaturalsSettled,
        BankerTurn,
        ChipsMoved,
        RoundSettled,
        BankBroken,
        BankPassed,
        SessionEnded,
    )
}


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
