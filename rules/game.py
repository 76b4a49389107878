"""The Ochko table: one object for a whole session, from seating to the end.

Every action comes as a triad, as in pokerkit: ``verify_x`` raises a :class:`RulesError` saying
exactly why ``x`` is illegal, ``can_x`` answers yes or no, and ``x`` verifies, changes the state
and returns the frozen events of what happened. An illegal action never changes the state.

The engine performs the non-player steps itself (the lot, shuffling, dealing, paying out) and
writes every random outcome to the log, so a game is its variant plus its log.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import Any

from rules.cards import Card, DeckKind, build_deck
from rules.errors import (
    AlreadySeated,
    AmountOutOfRange,
    CannotAfford,
    CannotCoverStake,
    CannotPassBank,
    DeckExhausted,
    GameOver,
    IllegalAction,
    NotEnoughPlayers,
    NotSeated,
    NotYourTurn,
    OptionDisabled,
    RulesError,
    TableFull,
    TooManyCards,
    WrongPhase,
)
from rules.events import (
    BANK,
    BankBroken,
    BankerChosen,
    BankerTurn,
    BankPassed,
    BankSet,
    BottomCardShown,
    Busted,
    CardDealt,
    ChipsMoved,
    DeckShuffled,
    Event,
    LeaveScheduled,
    NaturalsSettled,
    Party,
    PlayerLeft,
    PlayerResult,
    PlayerSeated,
    RevealedShuffle,
    RoundSettled,
    RoundStarted,
    SatOut,
    SessionEnded,
    StakePlaced,
    Stood,
    Transfer,
    TwentyOne,
)
from rules.fairness import commitment, new_salt
from rules.randomness import RandomSource, RecordedSource, SystemRandomSource
from rules.scoring import HandValue, hand_value, is_natural
from rules.table import Hand, HandStatus, Legal, Phase, Seat
from rules.variants import BankMode, BankPassing, StakeCap, StakeTiming, TurnOrder, Variant

SCHEMA_VERSION = 1
END_REASONS = ("ended", "expired", "unreachable")  # why end() was called
MAX_AMOUNT = 10**12  # far above any real balance; keeps arithmetic and JSON sane
# Each deck in canonical order, built once (cards are frozen values; every round shuffles a copy).
_DECKS: dict[DeckKind, tuple[Card, ...]] = {kind: tuple(build_deck(kind)) for kind in DeckKind}


class Game:
    """A table session of one variant."""

    def __init__(self, variant: Variant, source: RandomSource | None = None) -> None:
        self.variant = variant
        self.source: RandomSource = source if source is not None else SystemRandomSource()
        self.phase = Phase.LOBBY
        self.seats: list[Seat] = []
        self.banker: int | None = None
        self.bank = 0
        self.banker_rounds = 0  # rounds the current banker has completed
        self.declines = 0  # consecutive players who declined the bank
        self.decliners: list[int] = []  # who they were, in order (for the end's reason)
        self.round_no = 0
        self.stock: list[Card] = []  # index 0 is dealt next; the last card is the bottom
        self.discards: list[Card] = []
        self.bottom: Card | None = None
        self.hands: dict[int, Hand] = {}
        self.order: list[int] = []  # the players of this round in turn order, banker excluded
        self.turn: int | None = None
        self.dealt = False
        self.banker_done = False
        # A fixed house banker (rules.house), seated with ``join(..., house=True)``: it banks
        # every round instead of the lot and the passing of the bank.
        self.house: int | None = None
        self.log: list[dict[str, Any]] = []
        # How many entries of the session's log come before ``log`` and are kept by the owner
        # (see archive_log): a long session's log would otherwise be carried by every action.
        self.log_base = 0
        # The shuffles of the current round (see rules.fairness): commitment, salt, order,
        # the codes dealt from each so far, recycled. The salt and order stay secret until the
        # round is settled; the bot shows only the commitment before then.
        self.shuffles: list[dict[str, Any]] = []
        self._events: list[Event] = []

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
        return self.phase in (Phase.STAKE, Phase.DRAW, Phase.BANKER)

    def legal_actions(self) -> Legal:
        """Who may act now and how; the bot draws its buttons from this."""
        actions: set[str] = set()
        low = high = 0
        if self.phase is Phase.LOBBY:
            actions = {"join", "leave"} | ({"start"} if self.can_start() else set())
        elif self.phase is Phase.BANK:
            actions = {"set_bank", "pass_bank", "timeout"}
            low, high = 1, self._bank_maximum()
        elif self.phase is Phase.STAKE and self.turn is not None:
            actions = {"stake", "timeout"}
            low, high = self.stake_range(self.turn)
        elif self.phase in (Phase.DRAW, Phase.BANKER) and self.turn is not None:
            actions = {"stand", "timeout"}
            if self.can_hit(self.turn):
                actions.add("hit")
            if self.can_dark(self.turn):
                actions.add("dark")
        elif self.phase is Phase.ROUND_OVER:
            actions = {"next_round", "join", "leave"}
            if self.banker is not None and self.can_pass_bank(self.banker):
                actions.add("pass_bank")
        if self.phase is not Phase.ENDED:
            actions.add("end")
        return Legal(self.phase, self.turn, frozenset(actions), low, high)

    def stake_range(self, player: int) -> tuple[int, int]:
        """The allowed stake of ``player`` now: ``(1, maximum)``; maximum 0 means none."""
        affordable = self._affordable(self.seat(player).balance)
        maximum = min(self._stake_cap(player), affordable)
        return (1, maximum) if maximum >= 1 else (1, 0)

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
        multiplier = self._win_multiplier()
        owed = sum(
            multiplier * hand.stake
            for hand in self.hands.values()
            if hand.player not in (player, self.banker) and hand.stake and not hand.settled
        )
        return max(0, self.bank - owed) // multiplier

    def _win_multiplier(self) -> int:
        """The most a win pays per chip staked: twice for a natural or a bust banker where
        those rules are played."""
        return 2 if self.variant.naturals or self.variant.both_bust_quits else 1

    def fine_for(self, stake: int) -> int:
        return stake * self.variant.bust_fine_percent // 100

    # ------------------------------------------------------------------ seating

    def verify_join(self, player: int, balance: int, *, house: bool = False) -> None:
        self._verify_not_over()
        if house and (self.phase is not Phase.LOBBY or self.house is not None):
            raise IllegalAction("the house banker is seated once, in the lobby", player=player)
        # During a round a newcomer is seated at once and plays from the next round (the
        # hands of this one are dealt: see table-waiting_next).
        if self.is_seated(player):
            raise AlreadySeated(f"player {player} is already seated", player=player)
        if len(self.seats) >= self.variant.max_seats:
            raise TableFull(
                f"the table is full ({self.variant.max_seats} seats)",
                seats=self.variant.max_seats,
            )
        if not _is_whole(balance) or not 0 <= balance <= MAX_AMOUNT:
            raise AmountOutOfRange(
                "a balance must be between 0 and the limit", minimum=0, maximum=MAX_AMOUNT
            )

    def verify_covers_seat(self, balance: int) -> None:
        """Refuse a newcomer whose balance does not cover the smallest stake with its worst
        case (the fine): he would sit out every round in a seat a friend could have.

        A policy of whoever seats people, apart from ``verify_join``: the engine itself seats
        any balance (a seat that runs dry in a session stays, sitting out, and a replayed log
        must seat whoever it seated).
        """
        if self._affordable(balance) < 1:
            raise CannotCoverStake(
                f"a balance of {balance} does not cover the smallest stake",
                balance=balance,
                minimum=self.seat_minimum(),
            )

    def covers_seat(self, balance: int) -> bool:
        return self._can(self.verify_covers_seat, balance)

    def seat_minimum(self) -> int:
        """The smallest balance that covers the smallest stake (1) plus its fine."""
        return 1 + self.fine_for(1)

    def can_join(self, player: int, balance: int) -> bool:
        return self._can(self.verify_join, player, balance)

    def join(self, player: int, balance: int, *, house: bool = False) -> list[Event]:
        """Seat ``player``; ``house=True`` seats the house banker, who banks every round."""
        self.verify_join(player, balance, house=house)
        entry: dict[str, Any] = {"a": "join", "p": player, "balance": balance}
        if house:
            entry["house"] = True
        self._begin(entry)
        if house:
            self.house = player
        self.seats.append(Seat(player, balance))
        self._emit(PlayerSeated(player, balance))
        return self._finish()

    def verify_leave(self, player: int) -> None:
        self._verify_not_over()
        seat = self.seat(player)
        if seat.leaving:
            raise IllegalAction("already leaving at the end of this round", player=player)

    def can_leave(self, player: int) -> bool:
        return self._can(self.verify_leave, player)

    def leave(self, player: int) -> list[Event]:
        """Leave now between rounds; during a round, stand (or sit out) and leave when it ends."""
        self.verify_leave(player)
        self._begin({"a": "leave", "p": player})
        naming_bank = self.phase is Phase.BANK
        if self.phase in (Phase.LOBBY, Phase.ROUND_OVER, Phase.BANK):
            self._remove_seat(player, reason="leaving")
            self._after_seating_change()
            if naming_bank and self.phase is Phase.ROUND_OVER:
                # The banker left before naming the bank: no round was played, so the next
                # banker names it now (not "round over" on a round that never was).
                self._open_round()
        elif player not in self.hands:
            # Seated during this round, so not playing in it: nothing to wait for.
            self._remove_seat(player, reason="leaving")
        else:
            self.seat(player).leaving = True
            self._emit(LeaveScheduled(player))
            if self.turn == player:
                self._default_move(player, reason="leaving")
                self._advance()
        return self._finish()

    # ------------------------------------------------------------------ start and bank

    def verify_start(self) -> None:
        self._verify_not_over()
        if self.phase is not Phase.LOBBY:
            raise WrongPhase("the game has already started", phase=self.phase.value)
        able = [s for s in self.seats if s.balance >= 1]
        if len(self.seats) < self.variant.min_seats or len(able) < 2:
            raise NotEnoughPlayers(
                f"at least {self.variant.min_seats} players with chips are needed",
                minimum=self.variant.min_seats,
            )

    def can_start(self) -> bool:
        return self._can(self.verify_start)

    def start(self) -> list[Event]:
        """Choose the first banker by lot and open the first round."""
        self.verify_start()
        self._begin({"a": "start"})
        if self.house is not None and self.seat(self.house).balance >= 1:
            self._make_banker(self.house, by_lot=False)  # the house banks; no lot is drawn
        else:
            eligible = [s.player for s in self.seats if s.balance >= 1]
            index = self.source.below(len(eligible))
            self.log.append({"a": "lot", "i": index})
            self._make_banker(eligible[index], by_lot=True)
        self._open_round()
        return self._finish()

    def verify_set_bank(self, player: int, amount: int) -> None:
        self._verify_someone_else(player)
        self._verify_phase(Phase.BANK)
        self._verify_turn(player)
        maximum = self._bank_maximum()
        if not _is_whole(amount) or not 1 <= amount <= maximum:
            raise AmountOutOfRange(
                f"the bank must be between 1 and {maximum}",
                minimum=1,
                maximum=maximum,
                what="bank",
            )

    def can_set_bank(self, player: int, amount: int) -> bool:
        return self._can(self.verify_set_bank, player, amount)

    def set_bank(self, player: int, amount: int) -> list[Event]:
        self.verify_set_bank(player, amount)
        self._begin({"a": "set_bank", "p": player, "amount": amount})
        self._fund_bank(amount)
        self._deal_round()
        return self._finish()

    def verify_pass_bank(self, player: int) -> None:
        self._verify_not_over()
        if self.banker != player:
            raise CannotPassBank(
                "only the banker can hand the bank on",
                player=player,
                banker=self.banker,
                why="not_banker",
            )
        if self.phase is Phase.BANK:
            return  # declining the bank is always allowed
        if self.phase is not Phase.ROUND_OVER:
            raise WrongPhase("the bank is handed on between rounds", phase=self.phase.value)
        rounds = self.variant.voluntary_pass_after
        if rounds is None:
            raise CannotPassBank(
                "this variant does not let the banker hand the bank on", why="never"
            )
        if self.banker_rounds < rounds:
            raise CannotPassBank(
                f"the bank can be handed on after {rounds} rounds",
                rounds=rounds,
                played=self.banker_rounds,
                why="rounds",
            )

    def can_pass_bank(self, player: int) -> bool:
        return self._can(self.verify_pass_bank, player)

    def pass_bank(self, player: int) -> list[Event]:
        self.verify_pass_bank(player)
        self._begin({"a": "pass_bank", "p": player})
        if self.phase is Phase.BANK:
            self._decline_bank()
        else:
            self._pass_bank("voluntary")
        return self._finish()

    # ------------------------------------------------------------------ stakes

    def verify_stake(self, player: int, amount: int) -> None:
        self._verify_someone_else(player)
        self._verify_phase(Phase.STAKE)
        self._verify_turn(player)
        low, high = self.stake_range(player)
        if not _is_whole(amount):
            raise AmountOutOfRange(
                f"the stake must be a whole number between {low} and {high}",
                minimum=low,
                maximum=high,
                what="stake",
            )
        if not low <= amount <= high:
            seat = self.seat(player)
            # "Cannot afford" only where the bank would take the stake but the balance cannot
            # cover its worst case; anything above the bank's limit is simply out of range.
            if high < amount <= self._stake_cap(player):
                raise CannotAfford(
                    f"a stake of {amount} is not covered by the balance of {seat.balance}",
                    minimum=low,
                    maximum=high,
                    balance=seat.balance,
                )
            raise AmountOutOfRange(
                f"the stake must be between {low} and {high}",
                minimum=low,
                maximum=high,
                what="stake",
            )

    def can_stake(self, player: int, amount: int) -> bool:
        return self._can(self.verify_stake, player, amount)

    def stake(self, player: int, amount: int) -> list[Event]:
        self.verify_stake(player, amount)
        self._begin({"a": "stake", "p": player, "amount": amount})
        hand = self.hands[player]
        hand.stake = amount
        hand.status = HandStatus.STAKED
        self._emit(StakePlaced(player, amount))
        self._advance()
        return self._finish()

    # ------------------------------------------------------------------ drawing

    def verify_hit(self, player: int) -> None:
        self._verify_drawing(player)
        hand = self.hands[player]
        if len(hand.cards) >= self.variant.max_cards:
            raise TooManyCards(
                f"a hand holds at most {self.variant.max_cards} cards",
                maximum=self.variant.max_cards,
            )
        if not self.stock and not self.discards:
            raise DeckExhausted("no cards are left to deal")

    def can_hit(self, player: int) -> bool:
        return self._can(self.verify_hit, player)

    def hit(self, player: int) -> list[Event]:
        self.verify_hit(player)
        self._begin({"a": "hit", "p": player})
        self._take_card(player, dark=False)
        self._after_card(player)
        self._advance()
        return self._finish()

    def verify_dark(self, player: int) -> None:
        if not self.variant.dark_draw:
            raise OptionDisabled("dark draw is off in this game", option="dark_draw")
        self._verify_drawing(player)
        if player == self.banker:
            raise OptionDisabled("the banker does not draw dark", option="dark_draw")
        self.verify_hit(player)

    def can_dark(self, player: int) -> bool:
        return self._can(self.verify_dark, player)

    def dark(self, player: int) -> list[Event]:
        """Take one card unseen; it ends the player's drawing and shows at the showdown."""
        self.verify_dark(player)
        self._begin({"a": "dark", "p": player})
        self._take_card(player, dark=True)
        self.hands[player].status = HandStatus.STOOD
        self._emit(Stood(player, "dark"))
        self._advance()
        return self._finish()

    def verify_stand(self, player: int) -> None:
        self._verify_drawing(player)

    def can_stand(self, player: int) -> bool:
        return self._can(self.verify_stand, player)

    def stand(self, player: int) -> list[Event]:
        self.verify_stand(player)
        self._begin({"a": "stand", "p": player})
        self.hands[player].status = HandStatus.STOOD
        self._emit(Stood(player, "choice"))
        self._advance()
        return self._finish()

    # ------------------------------------------------------------------ timers and the end

    def verify_timeout(self) -> None:
        self._verify_not_over()
        if self.phase not in (Phase.BANK, Phase.STAKE, Phase.DRAW, Phase.BANKER):
            raise WrongPhase("nobody is on the clock now", phase=self.phase.value)

    def can_timeout(self) -> bool:
        return self._can(self.verify_timeout)

    def timeout(self) -> list[Event]:
        """The player on the clock was idle: a banker declines the bank, a staker sits the round
        out, a drawer stands."""
        self.verify_timeout()
        self._begin({"a": "timeout"})
        if self.phase is Phase.BANK:
            self._decline_bank()
        else:
            assert self.turn is not None
            self._default_move(self.turn, reason="timeout")
            self._advance()
        return self._finish()

    def verify_next_round(self) -> None:
        self._verify_phase(Phase.ROUND_OVER)

    def can_next_round(self) -> bool:
        return self._can(self.verify_next_round)

    def next_round(self) -> list[Event]:
        self.verify_next_round()
        self._begin({"a": "next_round"})
        self._open_round()
        return self._finish()

    def verify_end(self) -> None:
        self._verify_not_over()

    def can_end(self) -> bool:
        return self._can(self.verify_end)

    def end(self, reason: str = "ended") -> list[Event]:
        """End the session now. Stakes of an unfinished round are void (they never moved); what is
        in the bank goes back to the banker. ``reason``: "ended" (someone ended it), "expired"
        (nobody played for too long), "unreachable" (the table can no longer be shown)."""
        self.verify_end()
        if reason not in END_REASONS:
            raise IllegalAction(f"unknown reason to end: {reason!r}", reason=reason)
        self._begin({"a": "end"} | ({"reason": reason} if reason != "ended" else {}))
        self._end_session(reason)
        return self._finish()

    # ------------------------------------------------------------------ serialization

    def to_dict(self) -> dict[str, Any]:
        return {
            "schema": SCHEMA_VERSION,
            "variant": self.variant.to_dict(),
            "phase": self.phase.value,
            "seats": [seat.to_dict() for seat in self.seats],
            "banker": self.banker,
            "bank": self.bank,
            "banker_rounds": self.banker_rounds,
            "declines": self.declines,
            **({"decliners": list(self.decliners)} if self.decliners else {}),
            "round_no": self.round_no,
            "stock": [card.code for card in self.stock],
            "discards": [card.code for card in self.discards],
            "bottom": self.bottom.code if self.bottom else None,
            "hands": [hand.to_dict() for hand in self.hands.values()],
            "order": list(self.order),
            "turn": self.turn,
            "dealt": self.dealt,
            "banker_done": self.banker_done,
            "house": self.house,
            "shuffles": [
                {**shuffle, "order": list(shuffle["order"]), "dealt": list(shuffle["dealt"])}
                for shuffle in self.shuffles
            ],
            "log": [dict(entry) for entry in self.log],
        } | ({"log_base": self.log_base} if self.log_base else {})

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False, separators=(",", ":"))

    @classmethod
    def from_dict(cls, data: dict[str, Any], source: RandomSource | None = None) -> Game:
        if data.get("schema") != SCHEMA_VERSION:
            raise RulesError(f"unsupported game schema {data.get('schema')!r}")
        game = cls(Variant.from_dict(data["variant"]), source)
        game.phase = Phase(data["phase"])
        game.seats = [Seat.from_dict(seat) for seat in data["seats"]]
        game.banker = data["banker"]
        game.bank = data["bank"]
        game.banker_rounds = data["banker_rounds"]
        game.declines = data["declines"]
        game.decliners = list(data.get("decliners", ()))  # older states kept only the count
        game.round_no = data["round_no"]
        game.stock = [Card.parse(code) for code in data["stock"]]
        game.discards = [Card.parse(code) for code in data["discards"]]
        game.bottom = Card.parse(data["bottom"]) if data["bottom"] else None
        game.hands = {h["player"]: Hand.from_dict(h) for h in data["hands"]}
        game.order = list(data["order"])
        game.turn = data["turn"]
        game.dealt = data["dealt"]
        game.banker_done = data["banker_done"]
        game.house = data.get("house")  # games stored before the house banker have none
        # Games stored before the fair deck have no shuffles: their current round has no
        # commitment, and the next round starts recording.
        game.shuffles = [
            {**shuffle, "order": list(shuffle["order"]), "dealt": list(shuffle["dealt"])}
            for shuffle in data.get("shuffles", ())
        ]
        game.log = [dict(entry) for entry in data["log"]]
        game.log_base = data.get("log_base", 0)
        return game

    @classmethod
    def from_json(cls, text: str, source: RandomSource | None = None) -> Game:
        loaded: dict[str, Any] = json.loads(text)
        return cls.from_dict(loaded, source)

    def copy(self, source: RandomSource | None = None) -> Game:
        """An independent game equal to ``Game.from_dict(self.to_dict(), source)``, without the
        round trip through card codes. Cards and the variant are frozen and shared; seats, hands,
        shuffles and every list are new, so acting on either game never changes the other."""
        game = type(self)(self.variant, source)
        game.phase = self.phase
        game.seats = [Seat(s.player, s.balance, s.leaving, s.has_dealt) for s in self.seats]
        game.banker = self.banker
        game.bank = self.bank
        game.banker_rounds = self.banker_rounds
        game.declines = self.declines
        game.decliners = list(self.decliners)
        game.round_no = self.round_no
        game.stock = list(self.stock)
        game.discards = list(self.discards)
        game.bottom = self.bottom
        game.hands = {
            player: Hand(
                h.player,
                list(h.cards),
                list(h.face_up),
                list(h.dark),
                h.stake,
                h.status,
                h.revealed,
                h.settled,
                h.net,
                h.outcome,
                h.due,
            )
            for player, h in self.hands.items()
        }
        game.order = list(self.order)
        game.turn = self.turn
        game.dealt = self.dealt
        game.banker_done = self.banker_done
        game.house = self.house
        game.shuffles = [
            {**shuffle, "order": list(shuffle["order"]), "dealt": list(shuffle["dealt"])}
            for shuffle in self.shuffles
        ]
        # A log entry is never changed once appended (_begin and _shuffle append finished
        # dicts), so the entries are shared: only the list is new.
        game.log = list(self.log)
        game.log_base = self.log_base
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

    @classmethod
    def replay(cls, variant: Variant, log: Iterable[dict[str, Any]]) -> Game:
        """Rebuild a game from its variant and action log; random outcomes come from the log."""
        entries = list(log)
        shuffles = [entry["order"] for entry in entries if entry["a"] == "shuffle"]
        salts = [entry.get("salt", "") for entry in entries if entry["a"] == "shuffle"]
        lots = [entry["i"] for entry in entries if entry["a"] == "lot"]
        game = cls(variant, RecordedSource(shuffles, lots, salts))
        for entry in entries:
            game.apply(entry)
        return game

    def apply(self, entry: dict[str, Any]) -> list[Event]:
        """Perform one logged action (random outcomes are skipped: the actions draw them)."""
        kind = entry["a"]
        if kind in ("shuffle", "lot"):
            return []
        player = entry.get("p")
        if kind == "join":
            return self.join(entry["p"], entry["balance"], house=entry.get("house", False))
        if kind == "start":
            return self.start()
        if kind == "set_bank":
            return self.set_bank(entry["p"], entry["amount"])
        if kind == "stake":
            return self.stake(entry["p"], entry["amount"])
        simple = {
            "leave": self.leave,
            "pass_bank": self.pass_bank,
            "hit": self.hit,
            "dark": self.dark,
            "stand": self.stand,
        }
        if kind in simple and isinstance(player, int):
            return simple[kind](player)
        if kind == "end":
            return self.end(entry.get("reason", "ended"))
        nullary = {"timeout": self.timeout, "next_round": self.next_round}
        if kind in nullary:
            return nullary[kind]()
        raise RulesError(f"unknown logged action {entry!r}")

    # ------------------------------------------------------------------ internals: checks

    def _can(self, verify: Any, *args: Any) -> bool:
        try:
            verify(*args)
        except RulesError:
            return False
        return True

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
        if self.turn is None or self.phase not in (
            Phase.BANK,
            Phase.STAKE,
            Phase.DRAW,
            Phase.BANKER,
        ):
            return
        if not self.is_seated(player):
            raise NotSeated(f"player {player} is not at the table", player=player)
        if player != self.turn:
            raise NotYourTurn(
                f"it is not player {player}'s turn",
                player=player,
                turn=self.turn,
                phase=self.phase.value,
            )

    def _verify_drawing(self, player: int) -> None:
        self._verify_someone_else(player)
        if self.phase not in (Phase.DRAW, Phase.BANKER):
            raise WrongPhase("nobody is drawing now", phase=self.phase.value, expected="draw")
        self._verify_turn(player)

    # ------------------------------------------------------------------ internals: bookkeeping

    def _begin(self, entry: dict[str, Any]) -> None:
        self.log.append(entry)
        self._events = []

    def _emit(self, event: Event) -> None:
        self._events.append(event)

    def _finish(self) -> list[Event]:
        events, self._events = self._events, []
        return events

    def _move(self, source: Party, target: Party, amount: int, reason: str) -> None:
        if amount <= 0:
            return
        if source == BANK:
            assert self.bank >= amount, "the bank cannot go below zero"
            self.bank -= amount
        else:
            seat = self.seat(source)
            assert seat.balance >= amount, "a balance cannot go below zero"
            seat.balance -= amount
        if target == BANK:
            self.bank += amount
        else:
            self.seat(target).balance += amount
        self._emit(ChipsMoved(Transfer(source, target, amount, reason)))

    def _affordable(self, balance: int) -> int:
        """The largest stake whose worst case (stake plus fine) the balance covers."""
        percent = self.variant.bust_fine_percent
        if percent == 0:
            return balance  # no fine: what the search below finds at once
        stake = balance * 100 // (100 + percent)
        while stake > 0 and stake + self.fine_for(stake) > balance:
            stake -= 1
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

    # ------------------------------------------------------------------ internals: the banker

    def _make_banker(self, player: int, *, by_lot: bool) -> None:
        self.banker = player
        self.banker_rounds = 0
        self._emit(BankerChosen(player, by_lot))

    def _fund_bank(self, amount: int) -> None:
        assert self.banker is not None
        self._move(self.banker, BANK, amount, "bank_funded")
        self.declines = 0
        self.decliners = []
        self._emit(BankSet(self.banker, amount))

    def _return_bank(self) -> int:
        returned = self.bank
        if self.banker is not None and returned > 0:
            self._move(BANK, self.banker, returned, "bank_returned")
        return returned

    def _can_bank(self, seat: Seat) -> bool:
        return seat.balance >= 1 and not seat.leaving

    def _next_banker(self, after: int) -> int | None:
        """The first seat to the left of ``after`` who can bank (and, where everyone deals once,
        has not dealt yet)."""
        players = self.players
        start = players.index(after) if after in players else -1
        for offset in range(1, len(players) + 1):
            seat = self.seats[(start + offset) % len(players)]
            if seat.player == after:
                continue
            if self.variant.end_when_all_dealt and seat.has_dealt:
                continue
            if self._can_bank(seat):
                return seat.player
        return None

    def _pass_bank(self, reason: str, *, declined: bool = False) -> None:
        old = self.banker
        assert old is not None
        if old == self.house and reason in ("broken", "every_round"):
            # The house keeps banking: the bank goes back to its balance and it names (or puts
            # up) a new one next round; with no chips left it cannot, and the session ends.
            self._return_bank()
            if self.seat(old).balance < 1:
                self.banker = None
                self._end_session("no_banker")
            return
        returned = self._return_bank()
        self.seat(old).has_dealt = not declined or self.seat(old).has_dealt
        self.declines = self.declines + 1 if declined else 0
        self.decliners = [*self.decliners, old] if declined else []
        new = self._next_banker(old)
        eligible = sum(1 for s in self.seats if self._can_bank(s))
        self._emit(BankPassed(old, new, returned, reason))
        if new is None:
            self.banker = None
            # "Everyone has dealt" only when it is so: not when the one left to deal turned
            # the bank down, or the others have no chips.
            all_dealt = self.variant.end_when_all_dealt and not self.decliners
            self._end_session("all_dealt" if all_dealt else "no_banker")
        elif declined and self.declines >= eligible:
            self._end_session("no_banker")
        else:
            self._make_banker(new, by_lot=False)
            self.phase = Phase.ROUND_OVER

    def _decline_bank(self) -> None:
        self._pass_bank("declined", declined=True)
        if not self.is_over:
            self._open_round()

    # ------------------------------------------------------------------ internals: the round

    def _open_round(self) -> None:
        """Between rounds: make sure there is a banker with a bank, then deal."""
        assert self.banker is not None
        opponents = [
            s
            for s in self.seats
            if s.player != self.banker and not s.leaving and self._affordable(s.balance) >= 1
        ]
        if not opponents:
            self._end_session("no_players")
            return
        if self.bank > 0:
            self._deal_round()
        elif self.variant.bank_mode is BankMode.ALL_IN:
            self._fund_bank(self._bank_maximum())
            self._deal_round()
        else:
            self.phase = Phase.BANK
            self.turn = self.banker

    def _deal_round(self) -> None:
        assert self.banker is not None
        self.round_no += 1
        self.dealt = False
        self.banker_done = False
        self.discards = []
        self.bottom = None
        players = self.players
        banker_index = players.index(self.banker)
        order = players[banker_index + 1 :] + players[:banker_index]
        if self.variant.turn_order is TurnOrder.COUNTERCLOCKWISE:
            order.reverse()
        self.order = order
        self.hands = {p: Hand(p) for p in self.order}
        self.hands[self.banker] = Hand(self.banker, status=HandStatus.DRAWING)
        for p in self.order:
            seat = self.seat(p)
            if seat.leaving or self._affordable(seat.balance) < 1:
                self.hands[p].status = HandStatus.OUT
                self._emit(SatOut(p, "leaving" if seat.leaving else "cannot_afford"))
        self._emit(RoundStarted(self.round_no, self.banker, self.bank))
        self.shuffles = []
        self.stock = self._shuffle(list(_DECKS[self.variant.deck]), recycled=False)
        if self.variant.show_bottom:
            self.bottom = self.stock[-1]
            self._emit(BottomCardShown(self.bottom.code))
        if self.variant.stake_timing is not StakeTiming.BEFORE_DEAL:
            self._first_deal()
        self._advance()

    def _in_round(self, player: int) -> bool:
        return self.hands[player].status is not HandStatus.OUT

    def _first_deal(self) -> None:
        assert self.banker is not None
        self.dealt = True
        receivers = [p for p in self.order if self._in_round(p)] + [self.banker]
        for index in range(self.variant.first_deal):
            for p in receivers:
                up = p == self.banker and self.variant.banker_card_up and index == 0
                self._take_card(p, dark=False, face_up=up)
        if self.variant.naturals:
            self._settle_naturals()

    def _take_card(self, player: int, *, dark: bool, face_up: bool = False) -> None:
        if not self.stock:
            self._recycle()
        card = self.stock.pop(0)
        if self.shuffles:
            self.shuffles[-1]["dealt"].append(card.rank + card.suit)
        hand = self.hands[player]
        hand.cards.append(card)
        hand.face_up.append(face_up)
        hand.dark.append(dark)
        self._emit(CardDealt(player, card.code, face_up, dark))

    def _recycle(self) -> None:
        """The stock ran out: the cards already played are shuffled and dealt again."""
        deck = self._shuffle(self.discards, recycled=True)
        self.stock = deck
        self.discards = []
        self.bottom = None  # the shown bottom card has been dealt; the new stock shows none

    def _shuffle(self, cards: Sequence[Card], *, recycled: bool) -> list[Card]:
        """Shuffle ``cards`` and commit to the order: the log keeps the order, its salt and the
        commitment (a replay reproduces all three); the event carries only the commitment."""
        deck = self.source.shuffled(cards)
        order = _codes(deck)
        salt = new_salt(self.source)
        committed = commitment(order, salt)
        self.log.append({"a": "shuffle", "order": order, "salt": salt, "commitment": committed})
        self.shuffles.append(
            {
                "commitment": committed,
                "salt": salt,
                "order": list(order),
                "dealt": [],
                "recycled": recycled,
            }
        )
        self._emit(DeckShuffled(len(deck), recycled=recycled, commitment=committed))
        return deck

    def _discard(self, hand: Hand) -> None:
        self.discards.extend(hand.cards)

    def _after_card(self, player: int) -> None:
        """A drawn card may end the hand: 21 and the golden point pay at once where the variant
        says so, a bust is revealed at once, the last allowed card stands."""
        hand = self.hands[player]
        value = self.hand_value(player)
        if player == self.banker:
            if value.bust or value.twenty_one or len(hand.cards) >= self.variant.max_cards:
                hand.status = HandStatus.BUST if value.bust else HandStatus.STOOD
                if value.bust and not self.variant.banker_first:
                    hand.revealed = True
                    self._emit(Busted(player, value.total, hand.codes))
                elif not value.bust:
                    self._emit(Stood(player, "twenty_one" if value.twenty_one else "max_cards"))
            return
        if value.bust:
            hand.status = HandStatus.BUST
            hand.revealed = True
            self._emit(Busted(player, value.total, hand.codes))
            if not self.variant.both_bust_quits:
                self._settle_loss(hand, fine=True)
                self._discard(hand)
        elif value.twenty_one:
            if self.variant.instant_21:
                hand.status = HandStatus.WON
                hand.revealed = True
                paid = self._settle_win(hand, hand.stake, "twenty_one")
                self._emit(TwentyOne(player, value.golden, paid, hand.codes, hand.stake))
                self._discard(hand)
            else:
                hand.status = HandStatus.STOOD
                self._emit(Stood(player, "twenty_one"))
        elif len(hand.cards) >= self.variant.max_cards:
            hand.status = HandStatus.STOOD
            self._emit(Stood(player, "max_cards"))

    def _settle_loss(self, hand: Hand, *, fine: bool) -> None:
        penalty = self.fine_for(hand.stake) if fine else 0
        self._move(hand.player, BANK, hand.stake, "stake_lost")
        self._move(hand.player, BANK, penalty, "bust_fine")
        hand.settled = True
        hand.net = -(hand.stake + penalty)
        hand.outcome = "lose"

    def _settle_win(self, hand: Hand, due: int, reason: str) -> int:
        """Pay from the bank as far as it goes; whoever it cannot pay takes the stake back."""
        paid = min(due, self.bank)
        self._move(BANK, hand.player, paid, reason)
        hand.settled = True
        hand.due = due
        hand.net = paid
        hand.outcome = "win" if paid > 0 else "push"
        return paid

    def _settle_naturals(self) -> None:
        assert self.banker is not None
        staked = [self.hands[p] for p in self.order if self.hands[p].status is HandStatus.STAKED]
        if is_natural(self.hands[self.banker].cards, self.variant):
            for hand in staked:
                self._settle_loss(hand, fine=False)
                hand.status = HandStatus.LOST
            banker_hand = self.hands[self.banker]
            banker_hand.revealed = True
            banker_hand.status = HandStatus.STOOD
            self.banker_done = True
            self._emit(NaturalsSettled(True, ()))
            return
        paid: list[int] = []
        for hand in staked:
            if is_natural(hand.cards, self.variant):
                hand.status = HandStatus.WON
                hand.revealed = True
                self._settle_win(hand, 2 * hand.stake, "natural")
                paid.append(hand.player)
        if paid:
            self._emit(NaturalsSettled(False, tuple(paid)))

    def _default_move(self, player: int, *, reason: str) -> None:
        hand = self.hands[player]
        if self.phase is Phase.STAKE:
            hand.status = HandStatus.OUT
            self._emit(SatOut(player, reason))
        else:
            hand.status = HandStatus.STOOD
            self._emit(Stood(player, reason))

    def _advance(self) -> None:
        """Move the turn to whoever acts next, performing the non-player steps on the way."""
        assert self.banker is not None
        timing = self.variant.stake_timing
        if timing is StakeTiming.PER_TURN:
            for p in self.order:
                hand = self.hands[p]
                if hand.status is HandStatus.WAITING:
                    if self.stake_range(p)[1] < 1 or self.seat(p).leaving:
                        hand.status = HandStatus.OUT
                        self._emit(SatOut(p, self._sat_out_reason(p)))
                        continue
                    self._set_turn(Phase.STAKE, p)
                    return
                if hand.status in (HandStatus.STAKED, HandStatus.DRAWING):
                    if self._stands_for_leaving(hand):
                        continue
                    hand.status = HandStatus.DRAWING
                    self._set_turn(Phase.DRAW, p)
                    return
        else:
            for p in self.order:
                hand = self.hands[p]
                if hand.status is HandStatus.WAITING:
                    if self.stake_range(p)[1] < 1 or self.seat(p).leaving:
                        hand.status = HandStatus.OUT
                        self._emit(SatOut(p, self._sat_out_reason(p)))
                        continue
                    self._set_turn(Phase.STAKE, p)
                    return
            if not self.dealt:
                self._first_deal()
            if self.variant.banker_first and not self.banker_done and self._banker_must_play():
                self._banker_turn()
                return
            for p in self.order:
                hand = self.hands[p]
                if hand.status in (HandStatus.STAKED, HandStatus.DRAWING):
                    if self._stands_for_leaving(hand):
                        continue
                    hand.status = HandStatus.DRAWING
                    self._set_turn(Phase.DRAW, p)
                    return
        if not self.banker_done and self._banker_must_play():
            self._banker_turn()
            return
        self._settle_round()

    def _stands_for_leaving(self, hand: Hand) -> bool:
        """A player who announced leaving stands when his turn to draw comes."""
        if not self.seat(hand.player).leaving:
            return False
        hand.status = HandStatus.STOOD
        self._emit(Stood(hand.player, "leaving"))
        return True

    def _sat_out_reason(self, player: int) -> str:
        if self.seat(player).leaving:
            return "leaving"
        return "bank_empty" if self.bank < 1 else "cannot_afford"

    def _set_turn(self, phase: Phase, player: int) -> None:
        self.phase = phase
        self.turn = player

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

    def _banker_turn(self) -> None:
        assert self.banker is not None
        if self._stands_for_leaving(self.hands[self.banker]):
            self._advance()
            return
        if self.turn != self.banker or self.phase is not Phase.BANKER:
            self._emit(BankerTurn(self.banker))
        self._set_turn(Phase.BANKER, self.banker)

    def _settle_round(self) -> None:
        """The showdown: every hand is shown; losses go into the bank first, then winners are
        paid in turn order as far as the bank goes."""
        assert self.banker is not None
        self.turn = None
        banker_hand = self.hands[self.banker]
        banker_hand.revealed = True
        self.banker_done = True
        banker_value = self.hand_value(self.banker)
        winners: list[tuple[Hand, int, str]] = []
        for p in self.order:
            hand = self.hands[p]
            if hand.settled or hand.status is HandStatus.OUT:
                continue
            hand.revealed = True
            value = self.hand_value(p)
            if value.bust:
                if self.variant.both_bust_quits and banker_value.bust:
                    hand.settled, hand.outcome = True, "push"
                else:
                    self._settle_loss(hand, fine=False)
            elif banker_value.bust:
                multiplier = 2 if self.variant.both_bust_quits else 1
                winners.append((hand, multiplier * hand.stake, "banker_bust"))
            elif value.rank > banker_value.rank:
                winners.append((hand, hand.stake, "win"))
            elif value.rank < banker_value.rank:
                self._settle_loss(hand, fine=False)
            else:
                hand.settled, hand.outcome = True, "push"
        for hand, due, reason in winners:
            self._settle_win(hand, due, reason)
        self.banker_rounds += 1
        self._emit(self._round_summary(banker_value))
        self.phase = Phase.ROUND_OVER
        self._end_of_round()

    def revealed(self) -> tuple[RevealedShuffle, ...]:
        """The current round's shuffles with their salts and orders: public once it is settled
        (the bot must not show them while the round is being played)."""
        return tuple(
            RevealedShuffle(
                commitment=shuffle["commitment"],
                salt=shuffle["salt"],
                order=tuple(shuffle["order"]),
                dealt=tuple(shuffle["dealt"]),
                recycled=shuffle["recycled"],
            )
            for shuffle in self.shuffles
        )

    def revealed_round(
        self, round_no: int, archived: Sequence[dict[str, Any]] = ()
    ) -> tuple[RevealedShuffle, ...] | None:
        """The shuffles of a settled round of this game, rebuilt from the log, with the
        commitments as they were logged (and published) when each shuffle was made; None when
        that round was not settled (still being played, voided, or never dealt). A round dealt
        before commitments were logged comes back as an empty tuple. ``archived``: the entries
        :meth:`archive_log` handed over (all of them)."""
        log = self.full_log(archived)
        entries = [entry for entry in log if entry["a"] == "shuffle"]
        lots = [entry["i"] for entry in log if entry["a"] == "lot"]
        source = RecordedSource(
            [entry["order"] for entry in entries],
            lots,
            [entry.get("salt", "") for entry in entries],
        )
        replay = Game(self.variant, source)
        for entry in log:
            for event in replay.apply(entry):
                if isinstance(event, RoundSettled) and event.round_no == round_no:
                    done = sum(1 for e in replay.log if e["a"] == "shuffle")
                    logged = entries[done - len(event.shuffles) : done]
                    if any("commitment" not in e for e in logged):
                        return ()
                    return tuple(
                        replace(shuffle, commitment=e["commitment"])
                        for shuffle, e in zip(event.shuffles, logged, strict=True)
                    )
        return None

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

    def _end_of_round(self) -> None:
        assert self.banker is not None
        banker = self.seat(self.banker)
        if self.bank == 0:
            self._emit(BankBroken(self.banker))
            self._pass_bank("broken")
        elif self.variant.bank_passing is BankPassing.EVERY_ROUND:
            self._pass_bank("every_round")
        elif banker.leaving:
            self._pass_bank("leaving")
        if self.phase is Phase.ENDED:
            return
        for seat in list(self.seats):
            if seat.leaving:
                self._remove_seat(seat.player, reason="leaving")
        self._after_seating_change()

    def _remove_seat(self, player: int, *, reason: str) -> None:
        if player == self.banker and self.phase is not Phase.LOBBY:
            self._pass_bank(reason)
        self.seats = [s for s in self.seats if s.player != player]
        self.hands.pop(player, None)
        if player in self.order:
            self.order.remove(player)
        self._emit(PlayerLeft(player))

    def _after_seating_change(self) -> None:
        """After leaving or passing the bank: end the session when nobody is left to play."""
        if self.phase in (Phase.LOBBY, Phase.ENDED):
            return
        if self.banker is None or not self.is_seated(self.banker):
            self._end_session("no_banker")
            return
        opponents = [
            s
            for s in self.seats
            if s.player != self.banker and self._affordable(s.balance) >= 1 and not s.leaving
        ]
        if not opponents:
            self._end_session("no_players")
        elif self.phase is Phase.BANK:
            self.phase = Phase.ROUND_OVER
            self._open_round()

    def _end_session(self, reason: str) -> None:
        self._return_bank()
        for hand in self.hands.values():
            if not hand.settled and hand.player != self.banker:
                hand.outcome = hand.outcome or "void"
        self.phase = Phase.ENDED
        self.turn = None
        self._emit(
            SessionEnded(
                reason,
                tuple((s.player, s.balance) for s in self.seats),
                declined=tuple(p for p in self.decliners if self.is_seated(p)),
                broke=tuple(s.player for s in self.seats if s.balance < 1),
                dealt=tuple(s.player for s in self.seats if s.has_dealt),
            )
        )


def _codes(cards: Iterable[Card]) -> list[str]:
    """The codes of ``cards`` (``Card.code``, inlined: a shuffle logs a whole deck)."""
    return [card.rank + card.suit for card in cards]


def new_game(variant: Variant, players: Sequence[tuple[int, int]] = (), **kwargs: Any) -> Game:
    """A table with ``players`` (id, balance) already seated, in that order."""
    game = Game(variant, **kwargs)
    for player, balance in players:
        game.join(player, balance)
    return game


def _is_whole(amount: object) -> bool:
    """Chips are whole numbers: floats and booleans are refused, never rounded."""
    return isinstance(amount, int) and not isinstance(amount, bool)
