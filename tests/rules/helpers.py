"""Shared helpers for the rules tests: scripted tables and chip bookkeeping."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from rules.cards import Card
from rules.events import ChipsMoved, Event, PlayerLeft, PlayerSeated
from rules.game import Game, new_game
from rules.randomness import SALT_BITS, derived_salts
from rules.variants import PRESETS, Variant

Move = tuple[Any, Any, int, str]


class ScriptedSource:
    """Deals prepared decks: each shuffle puts the scripted cards on top, in the given order,
    and the rest of the deck after them in canonical order. Lots come from ``lots``."""

    def __init__(self, decks: Iterable[Sequence[str]] = (), lots: Iterable[int] = ()) -> None:
        self._decks: Iterator[Sequence[str]] = iter(list(decks))
        self._lots: Iterator[int] = iter(list(lots))
        self._salts = derived_salts("scripted")

    def shuffled(self, cards: Sequence[Card]) -> list[Card]:
        top = [Card.parse(code) for code in next(self._decks, ())]
        rest = list(cards)
        for card in top:
            try:
                rest.remove(card)
            except ValueError:
                raise ValueError(f"scripted card {card.code} is not in the deck") from None
        return top + rest

    def below(self, n: int) -> int:
        value = next(self._lots, 0)
        if not 0 <= value < n:
            raise ValueError(f"scripted lot {value} is outside range({n})")
        return value

    def salt(self) -> str:
        return f"{self._salts.getrandbits(SALT_BITS):032x}"


def table(
    variant: str | Variant,
    players: Sequence[tuple[int, int]],
    decks: Iterable[Sequence[str]] = (),
    lots: Iterable[int] = (0,),
) -> Game:
    """A seated table with scripted decks (one per shuffle) and lots."""
    v = PRESETS[variant] if isinstance(variant, str) else variant
    return new_game(v, list(players), source=ScriptedSource(decks=decks, lots=lots))


def moves(events: Iterable[Event]) -> list[Move]:
    """Every chip movement in ``events``, as (source, target, amount, reason)."""
    return [
        (e.transfer.source, e.transfer.target, e.transfer.amount, e.transfer.reason)
        for e in events
        if isinstance(e, ChipsMoved)
    ]


def kinds(events: Iterable[Event]) -> list[str]:
    return [e.kind for e in events]


def of(events: Iterable[Event], cls: type[Any]) -> list[Any]:
    return [e for e in events if isinstance(e, cls)]


def balances(game: Game) -> dict[int, int]:
    return {seat.player: seat.balance for seat in game.seats}


def chips(game: Game) -> tuple[dict[int, int], int]:
    """Every chip at the table: each balance and the bank."""
    return balances(game), game.bank


class Recorder:
    """Runs actions on a game and keeps every event, so a test can check all transfers."""

    def __init__(self, game: Game) -> None:
        self.game = game
        self.events: list[Event] = []
        self.total = game.total_chips()

    def __call__(self, action: str, *args: Any) -> list[Event]:
        before = balances(self.game)
        events: list[Event] = getattr(self.game, action)(*args)
        self.events.extend(events)
        # Chips enter with a joining player and leave with a leaving one; nothing else moves them.
        for event in events:
            if isinstance(event, PlayerSeated):
                self.total += event.balance
            elif isinstance(event, PlayerLeft):
                carried = before.get(event.player, 0)
                for source, target, amount, _ in moves(events):
                    carried += amount if target == event.player else 0
                    carried -= amount if source == event.player else 0
                self.total -= carried
        assert self.game.total_chips() == self.total
        assert self.game.bank >= 0
        assert all(seat.balance >= 0 for seat in self.game.seats)
        return events

    def take(self) -> list[Event]:
        """The events so far, clearing the record."""
        events, self.events = self.events, []
        return events
