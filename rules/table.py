"""The mutable pieces of a table: seats, hands, phases, and their JSON forms."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from rules.cards import Card


class Phase(StrEnum):
    LOBBY = "lobby"  # seating; nothing dealt yet
    BANK = "bank"  # the banker names the bank
    STAKE = "stake"  # ``turn`` names a stake
    DRAW = "draw"  # ``turn`` draws
    BANKER = "banker"  # the banker draws
    ROUND_OVER = "round_over"  # results are in; next round, leaving, joining, passing the bank
    ENDED = "ended"


class HandStatus(StrEnum):
    WAITING = "waiting"  # in the round, no stake yet
    STAKED = "staked"  # stake named, has not drawn yet
    DRAWING = "drawing"
    STOOD = "stood"
    BUST = "bust"
    WON = "won"  # paid during the round (21, golden point, natural)
    LOST = "lost"  # lost during the round (the banker's natural)
    OUT = "out"  # sits this round out


@dataclass(slots=True)
class Seat:
    player: int
    balance: int
    leaving: bool = False
    has_dealt: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {
            "player": self.player,
            "balance": self.balance,
            "leaving": self.leaving,
            "has_dealt": self.has_dealt,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Seat:
        return cls(data["player"], data["balance"], data["leaving"], data["has_dealt"])


@dataclass(slots=True)
class Hand:
    player: int
    cards: list[Card] = field(default_factory=list)
    face_up: list[bool] = field(default_factory=list)  # seen by everyone
    dark: list[bool] = field(default_factory=list)  # seen by nobody until the showdown
    stake: int = 0
    status: HandStatus = HandStatus.WAITING
    revealed: bool = False  # the whole hand is shown to everyone (bust, 21, showdown)
    settled: bool = False  # its chips have moved
    net: int = 0
    outcome: str = ""
    # What a win was owed in full (stake, or twice it); a bank that ran dry paid less (``net``).
    due: int = 0

    @property
    def codes(self) -> tuple[str, ...]:
        return tuple(card.code for card in self.cards)

    @property
    def has_dark(self) -> bool:
        return any(self.dark)

    def visible_to_owner(self) -> list[Card | None]:
        """The owner's view: dark cards are unknown (None) until revealed."""
        if self.revealed:
            return list(self.cards)
        return [None if dark else card for card, dark in zip(self.cards, self.dark, strict=True)]

    def visible_to_others(self) -> list[Card | None]:
        if self.revealed:
            return list(self.cards)
        return [card if up else None for card, up in zip(self.cards, self.face_up, strict=True)]

    def to_dict(self) -> dict[str, Any]:
        return {
            "player": self.player,
            "cards": [card.code for card in self.cards],
            "face_up": list(self.face_up),
            "dark": list(self.dark),
            "stake": self.stake,
            "status": self.status.value,
            "revealed": self.revealed,
            "settled": self.settled,
            "net": self.net,
            "outcome": self.outcome,
        } | ({"due": self.due} if self.due else {})

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Hand:
        return cls(
            player=data["player"],
            cards=[Card.parse(code) for code in data["cards"]],
            face_up=list(data["face_up"]),
            dark=list(data["dark"]),
            stake=data["stake"],
            status=HandStatus(data["status"]),
            revealed=data["revealed"],
            settled=data["settled"],
            net=data["net"],
            outcome=data["outcome"],
            due=data.get("due", 0),  # hands stored before it was kept: none
        )


@dataclass(frozen=True, slots=True)
class Legal:
    """What may happen right now: who acts, which actions, and the amount range where one is
    asked for (a stake or a bank)."""

    phase: Phase
    actor: int | None
    actions: frozenset[str]
    minimum: int = 0
    maximum: int = 0
