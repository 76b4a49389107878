"""The mutable pieces of a table: seats, hands, phases (stored as declared: rules.codec)."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from rules.cards import Card
from rules.codec import CARDS, LIST, enum, stored


class Phase(StrEnum):
    LOBBY = "lobby"  # seating; nothing dealt yet
    BANK = "bank"  # the banker names the bank
    STAKE = "stake"  # ``turn`` names a stake
    DRAW = "draw"  # ``turn`` draws
    BANKER = "banker"  # the banker draws
    ROUND_OVER = "round_over"  # results are in; next round, leaving, joining, passing the bank
    ENDED = "ended"


# The moves of a round: the refusal of one of them says what the game waits for now.
IN_ROUND = (Phase.STAKE, Phase.DRAW, Phase.BANKER)


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


@dataclass(slots=True)
class Hand:
    player: int
    cards: list[Card] = field(default_factory=list, metadata=stored(CARDS))
    # Seen by everyone; ``dark``: seen by nobody until the showdown.
    face_up: list[bool] = field(default_factory=list, metadata=stored(LIST))
    dark: list[bool] = field(default_factory=list, metadata=stored(LIST))
    stake: int = 0
    status: HandStatus = field(default=HandStatus.WAITING, metadata=stored(enum(HandStatus)))
    revealed: bool = False  # the whole hand is shown to everyone (bust, 21, showdown)
    settled: bool = False  # its chips have moved
    net: int = 0
    outcome: str = ""
    # What a win was owed in full (stake, or twice it); a bank that ran dry paid less (``net``).
    # Left out while 0 (hands stored before it was kept have none).
    due: int = field(default=0, metadata=stored(omit_default=True))
    # How the stake was named and what the hand did to the bank, for the achievements
    # (rules.achievements): the stake was the whole bank (ва-банк), or all the chips its player
    # could put at risk; a win of this hand left the bank empty. Left out while False.
    whole_bank: bool = field(default=False, metadata=stored(omit_default=True))
    all_in: bool = field(default=False, metadata=stored(omit_default=True))
    broke_bank: bool = field(default=False, metadata=stored(omit_default=True))

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


@dataclass(frozen=True, slots=True)
class Legal:
    """What may happen right now: who acts, which actions, and the amount range where one is
    asked for (a stake or a bank)."""

    phase: Phase
    actor: int | None
    actions: frozenset[str]
    minimum: int = 0
    maximum: int = 0
