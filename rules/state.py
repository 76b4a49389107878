"""The state of a game, declared once with its JSON form (:mod:`rules.codec`; the JSON keys come
in declaration order), and the queries and checks that read it and never change it."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Self

from rules.cards import Card
from rules.codec import (
    CARD,
    CARDS,
    LIST,
    Codec,
    copy_values,
    defaults,
    dump,
    enum,
    field_names,
    frozen,
    keyed,
    load_values,
    records,
    stored,
)
from rules.errors import GameOver, NotSeated, NotYourTurn, RulesError, WrongPhase
from rules.events import Event, PlayerResult, RevealedShuffle, RoundSettled
from rules.randomness import RandomSource, SystemRandomSource
from rules.scoring import HandValue, hand_value, is_natural
from rules.table import IN_ROUND, Hand, HandStatus, Phase, Seat
from rules.variants import StakeCap, Variant

SCHEMA_VERSION = 1
MAX_AMOUNT = 10**12  # far above any real balance; keeps arithmetic and JSON sane
ON_THE_CLOCK = (Phase.BANK, *IN_ROUND)  # the phases in which someone's turn runs on a timer


def _copy_shuffles(shuffles: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        {**shuffle, "order": list(shuffle["order"]), "dealt": list(shuffle["dealt"])}
        for shuffle in shuffles
    ]


SHUFFLES = Codec(_copy_shuffles, _copy_shuffles, _copy_shuffles)
# A log entry is never changed once appended (_begin and _shuffle append finished dicts), so a
# copy of the game shares the entries: only the list is new.
LOG = Codec(lambda log: [dict(e) for e in log], lambda log: [dict(e) for e in log], list)
VARIANT = frozen(Variant.to_dict, Variant.from_dict)


@dataclass(init=False, eq=False, repr=False)
class GameState:
    """What a table session holds and stores. Not state: ``source`` (the random source, given to
    each decoded game) and the events of the action under way."""

    variant: Variant = field(metadata=stored(VARIANT))
    phase: Phase = field(default=Phase.LOBBY, metadata=stored(enum(Phase)))
    seats: list[Seat] = field(default_factory=list, metadata=stored(records(Seat)))
    banker: int | None = None
    bank: int = 0
    banker_rounds: int = 0  # rounds the current banker has completed
    declines: int = 0  # consecutive players who declined the bank
    # Who they were, in order (for the end's reason); older states kept only the count.
    decliners: list[int] = field(default_factory=list, metadata=stored(LIST, omit_default=True))
    round_no: int = 0
    # Index 0 is dealt next; the last card is the bottom.
    stock: list[Card] = field(default_factory=list, metadata=stored(CARDS))
    discards: list[Card] = field(default_factory=list, metadata=stored(CARDS))
    bottom: Card | None = field(default=None, metadata=stored(CARD))
    hands: dict[int, Hand] = field(default_factory=dict, metadata=stored(keyed(Hand, "player")))
    # The players of this round in turn order, banker excluded.
    order: list[int] = field(default_factory=list, metadata=stored(LIST))
    turn: int | None = None
    dealt: bool = False
    banker_done: bool = False
    # A fixed house banker (rules.house), seated with ``join(..., house=True)``: it banks every
    # round instead of the lot and the passing of the bank. Games stored before it have none.
    house: int | None = field(default=None, metadata=stored(optional=True))
    # The shuffles of the current round (see rules.fairness): commitment, salt, order, the codes
    # dealt from each so far, recycled. The salt and order stay secret until the round is
    # settled; the bot shows only the commitment before then. Games stored before the fair deck
    # have none: their current round has no commitment, and the next round starts recording.
    shuffles: list[dict[str, Any]] = field(
        default_factory=list, metadata=stored(SHUFFLES, optional=True)
    )
    log: list[dict[str, Any]] = field(default_factory=list, metadata=stored(LOG))
    # How many entries of the session's log come before ``log`` and are kept by the owner (see
    # archive_log): a long session's log would otherwise be carried by every action.
    log_base: int = field(default=0, metadata=stored(omit_default=True))

    def __init__(self, variant: Variant, source: RandomSource | None = None) -> None:
        self._set_up(defaults(GameState) | {"variant": variant}, source)

    def _set_up(self, values: dict[str, Any], source: RandomSource | None) -> None:
        """Every field from ``values``, and what is not state (a decoded or copied game is set
        up once, not first with the defaults)."""
        self.__dict__.update(values)
        self.source: RandomSource = source if source is not None else SystemRandomSource()
        self._events: list[Event] = []

    # ------------------------------------------------------------------ serialization

    def to_dict(self) -> dict[str, Any]:
        return {"schema": SCHEMA_VERSION, **dump(self)}

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False, separators=(",", ":"))

    @classmethod
    def from_dict(cls, data: dict[str, Any], source: RandomSource | None = None) -> Self:
        if data.get("schema") != SCHEMA_VERSION:
            raise RulesError(f"unsupported game schema {data.get('schema')!r}")
        game = cls.__new__(cls)
        game._set_up(load_values(cls, data), source)
        return game

    @classmethod
    def from_json(cls, text: str, source: RandomSource | None = None) -> Self:
        loaded: dict[str, Any] = json.loads(text)
        return cls.from_dict(loaded, source)

    def copy(self, source: RandomSource | None = None) -> Self:
        """An independent game equal to ``Game.from_dict(self.to_dict(), source)``, without the
        round trip through card codes. Cards and the variant are frozen and shared; seats, hands,
        shuffles and every list are new, so acting on either game never changes the other."""
        game = type(self).__new__(type(self))
        game._set_up(dict(zip(field_names(GameState), copy_values(self), strict=True)), source)
        return game

    def archive_log(self, keep: int) -> list[dict[str, Any]]:
        """Hand over the log but for its last ``keep`` entries, for the owner to keep elsewhere;
        the game goes on with those entries and counts the others in ``log_base``.

        The rules read only the current round from the log (the odds look at its shuffles and
        draws), so an owner may archive everything before the round being played: keep = the
        entries since the round's first action. :meth:`revealed_round` and :meth:`replay` need
        the whole log: give them the archived entries back.
        """
        if not 0 <= keep <= len(self.log):
            raise ValueError(f"keep must be within 0..{len(self.log)}, got {keep}")
        cut = len(self.log) - keep
        archived, self.log = self.log[:cut], self.log[cut:]
        self.log_base += cut
        return archived

    def full_log(self, archived: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
        """The session's whole log: the ``archived`` entries (all of them) and the game's own."""
        if len(archived) != self.log_base:
            raise ValueError(
                f"the archived log has {len(archived)} entries, the game counts {self.log_base}"
            )
        return [*archived, *self.log]

    # ------------------------------------------------------------------ queries

    @property
    def players(self) -> list[int]:
        return [seat.player for seat in self.seats]

    def seat(self, player: int) -> Seat:
        for seat in self.seats:
            if seat.player == player:
                return seat
        raise NotSeated(f"player {player} is not at the table", player=player)

    def is_seated(self, player: int) -> bool:
        # A plain loop: every action asks this, and it is faster than any() over a generator.
        for seat in self.seats:  # noqa: SIM110
            if seat.player == player:
                return True
        return False

    def balance(self, player: int) -> int:
        return self.seat(player).balance

    def total_chips(self) -> int:
        """Balances plus the bank: constant over a session (a closed economy)."""
        return sum(seat.balance for seat in self.seats) + self.bank

    def hand_value(self, player: int) -> HandValue:
        return hand_value(self.hands[player].cards, self.variant)

    def whose_turn(self) -> int | None:
        return self.turn

    @property
    def is_over(self) -> bool:
        return self.phase is Phase.ENDED

    @property
    def in_round(self) -> bool:
        return self.phase in IN_ROUND

    def stake_range(self, player: int) -> tuple[int, int]:
        """The allowed stake of ``player`` now: ``(1, maximum)``; maximum 0 means none."""
        affordable = self._affordable(self.seat(player).balance)
        return 1, max(0, min(self._stake_cap(player), affordable))

    def _stake_cap(self, player: int) -> int:
        """What the bank allows ``player`` to stake now, whatever his balance."""
        if self.variant.stake_cap is StakeCap.BANK:
            return self.bank
        staked = sum(h.stake for h in self.hands.values() if h.player != self.banker)
        still_to_stake = sum(
            1 for p in self.order if p != player and self.hands[p].status is HandStatus.WAITING
        )
        # Room is kept for each player still to stake; a stake of 1 is always allowed.
        return max(1, self.bank - staked - still_to_stake) if self.bank > 0 else 0

    def stake_cover(self, player: int) -> int:
        """The largest stake of ``player`` that the bank is sure to pay in full if he wins,
        whatever the others' hands: the bank less what it may owe every other stake still open
        (winners are paid in turn order and 21s at once, so any of them may come first)."""
        # A win pays twice the stake at most, where naturals or a bust banker pay double.
        multiplier = 2 if self.variant.naturals or self.variant.both_bust_quits else 1
        owed = sum(
            multiplier * hand.stake
            for hand in self.hands.values()
            if hand.player not in (player, self.banker) and hand.stake and not hand.settled
        )
        return max(0, self.bank - owed) // multiplier

    def fine_for(self, stake: int) -> int:
        return stake * self.variant.bust_fine_percent // 100

    def _affordable(self, balance: int) -> int:
        """The largest stake whose worst case (stake plus fine) the balance covers."""
        percent = self.variant.bust_fine_percent
        if percent == 0:
            return balance  # no fine: what the search below finds at once
        # s·(100 + percent) <= balance·100 is covered; the fine rounds down, so more may be.
        stake = balance * 100 // (100 + percent)
        while stake + 1 + self.fine_for(stake + 1) <= balance:
            stake += 1
        return stake

    def _bank_maximum(self) -> int:
        if self.banker is None:
            return 0
        maximum = self.seat(self.banker).balance
        if self.variant.bank_limit is not None:
            maximum = min(maximum, self.variant.bank_limit)
        return maximum

    def revealed(self) -> tuple[RevealedShuffle, ...]:
        """The current round's shuffles with their salts and orders: public once it is settled
        (the bot must not show them while the round is being played)."""
        return tuple(
            RevealedShuffle(
                s["commitment"], s["salt"], tuple(s["order"]), tuple(s["dealt"]), s["recycled"]
            )
            for s in self.shuffles
        )

    # ------------------------------------------------------------------ internals: queries

    def _has_opponents(self) -> bool:
        """Someone besides the banker who stays and can afford a stake."""
        return any(
            s.player != self.banker and not s.leaving and self._affordable(s.balance) >= 1
            for s in self.seats
        )

    def _can_bank(self, seat: Seat) -> bool:
        return seat.balance >= 1 and not seat.leaving

    def _next_banker(self, after: int) -> int | None:
        """The first seat to the left of ``after`` who can bank (and, where everyone deals once,
        has not dealt yet)."""
        players = self.players
        start = players.index(after) if after in players else -1
        for offset in range(1, len(players) + 1):
            seat = self.seats[(start + offset) % len(players)]
            dealt = self.variant.end_when_all_dealt and seat.has_dealt
            if seat.player != after and not dealt and self._can_bank(seat):
                return seat.player
        return None

    def _banker_must_play(self) -> bool:
        """The banker draws only if someone is still to be compared with him."""
        banker_hand = self.hands[self.banker] if self.banker is not None else None
        if banker_hand is None or banker_hand.status is not HandStatus.DRAWING:
            return False
        return any(
            self.hands[p].status
            in (HandStatus.STOOD, HandStatus.STAKED, HandStatus.DRAWING, HandStatus.BUST)
            and not self.hands[p].settled
            for p in self.order
        )

    def _round_summary(self, banker_value: HandValue) -> RoundSettled:
        assert self.banker is not None
        results = []
        for p in self.order:
            hand = self.hands[p]
            value = self.hand_value(p)
            outcome = "out" if hand.status is HandStatus.OUT else (hand.outcome or "push")
            results.append(
                PlayerResult(
                    player=p,
                    outcome=outcome,  # type: ignore[arg-type]
                    stake=hand.stake,
                    net=hand.net,
                    total=value.total,
                    cards=hand.codes,
                    bust=value.bust,
                    twenty_one=value.twenty_one and not value.golden,
                    golden=value.golden,
                    natural=is_natural(hand.cards, self.variant),
                    dark=hand.has_dark,
                    due=hand.due,
                    whole_bank=hand.whole_bank,
                    all_in=hand.all_in,
                    broke_bank=hand.broke_bank and self.bank == 0,
                )
            )
        return RoundSettled(
            round_no=self.round_no,
            banker=self.banker,
            banker_cards=self.hands[self.banker].codes,
            banker_total=banker_value.total,
            banker_bust=banker_value.bust,
            results=tuple(results),
            bank=self.bank,
            balances=tuple((s.player, s.balance) for s in self.seats),
            shuffles=self.revealed(),
        )

    # ------------------------------------------------------------------ internals: checks

    def _verify_not_over(self) -> None:
        if self.phase is Phase.ENDED:
            raise GameOver("the game is over")

    def _verify_phase(self, phase: Phase) -> None:
        self._verify_not_over()
        if self.phase is not phase:
            raise WrongPhase(
                f"this needs the {phase.value} phase, not {self.phase.value}",
                phase=self.phase.value,
                expected=phase.value,
            )

    def _verify_turn(self, player: int) -> None:
        if not self.is_seated(player):
            raise NotSeated(f"player {player} is not at the table", player=player)
        if self.turn != player:
            raise NotYourTurn(
                f"it is not player {player}'s turn",
                player=player,
                turn=self.turn,
                phase=self.phase.value,
            )

    def _verify_someone_else(self, player: int) -> None:
        """While someone is on the clock, a move by anybody else is "not your turn" (and whose
        it is), whatever the move: that is what is wrong, not the phase."""
        self._verify_not_over()
        if self.turn is not None and self.phase in ON_THE_CLOCK:
            self._verify_turn(player)

    def _verify_to_act(self, player: int, phase: Phase) -> None:
        """``player`` is on the clock in ``phase``."""
        self._verify_someone_else(player)
        self._verify_phase(phase)
        self._verify_turn(player)

    def _verify_drawing(self, player: int) -> None:
        self._verify_someone_else(player)
        if self.phase not in (Phase.DRAW, Phase.BANKER):
            raise WrongPhase("nobody is drawing now", phase=self.phase.value, expected="draw")
        self._verify_turn(player)
