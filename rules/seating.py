"""The actions of seating and of the bank: join, leave, start (the lot), naming the bank and
handing it on — each as ``verify_x``, ``can_x`` and ``x`` (see rules.game)."""

from __future__ import annotations

from rules.errors import (
    AlreadySeated,
    AmountOutOfRange,
    CannotCoverStake,
    CannotPassBank,
    IllegalAction,
    NotEnoughPlayers,
    TableFull,
    WrongPhase,
)
from rules.events import Event, LeaveScheduled, PlayerSeated
from rules.flow import RoundFlow
from rules.refusals import judged, out_of_range, permits, too_early_to_pass
from rules.state import MAX_AMOUNT
from rules.table import Phase, Seat
from rules.variants import is_whole


class SeatingActions(RoundFlow):
    """Who sits at the table, who banks, and with how much."""

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
        if not is_whole(balance) or not 0 <= balance <= MAX_AMOUNT:
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

    covers_seat = permits(verify_covers_seat)

    def seat_minimum(self) -> int:
        """The smallest balance that covers the smallest stake (1) plus its fine."""
        return 1 + self.fine_for(1)

    can_join = permits(verify_join)

    def join(self, player: int, balance: int, *, house: bool = False) -> list[Event]:
        """Seat ``player``; ``house=True`` seats the house banker, who banks every round."""
        self.verify_join(player, balance, house=house)
        self._begin(
            {"a": "join", "p": player, "balance": balance} | ({"house": True} if house else {})
        )
        if house:
            self.house = player
        self.seats.append(Seat(player, balance))
        self._emit(PlayerSeated(player, balance))
        return self._finish()

    def _check_leave(self, player: int) -> None:
        self._verify_not_over()
        seat = self.seat(player)
        if seat.leaving:
            raise IllegalAction("already leaving at the end of this round", player=player)

    verify_leave = judged("leave", _check_leave)
    can_leave = permits(_check_leave)

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

    def _check_start(self, _asker: int | None = None) -> None:
        """``_asker``: who asks (his refusal says what to do instead), None for nobody's."""
        self._verify_not_over()
        if self.phase is not Phase.LOBBY:
            raise WrongPhase("the game has already started", phase=self.phase.value)
        able = [s for s in self.seats if s.balance >= 1]
        if len(self.seats) < self.variant.min_seats or len(able) < 2:
            # ``missing``: how many more players with chips must sit down (the way forward).
            missing = max(self.variant.min_seats - len(self.seats), 2 - len(able))
            raise NotEnoughPlayers(
                f"at least {self.variant.min_seats} players with chips are needed",
                minimum=self.variant.min_seats,
                missing=missing,
            )

    verify_start = judged("start", _check_start)
    can_start = permits(_check_start)

    def start(self, player: int | None = None) -> list[Event]:
        """Choose the first banker by lot and open the first round (``player``: who asked)."""
        self.verify_start(player)
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

    def _check_set_bank(self, player: int, amount: int) -> None:
        self._verify_to_act(player, Phase.BANK)
        maximum = self._bank_maximum()
        if not is_whole(amount) or not 1 <= amount <= maximum:
            raise out_of_range("bank", 1, maximum)

    verify_set_bank = judged("set_bank", _check_set_bank)
    can_set_bank = permits(_check_set_bank)

    def set_bank(self, player: int, amount: int) -> list[Event]:
        self.verify_set_bank(player, amount)
        self._begin({"a": "set_bank", "p": player, "amount": amount})
        self._fund_bank(amount)
        self._deal_round()
        return self._finish()

    def _check_pass_bank(self, player: int) -> None:
        self._verify_not_over()
        if self.banker != player:
            raise CannotPassBank(
                "only the banker can pass the bank",
                player=player,
                banker=self.banker,
                why="not_banker",
            )
        if self.phase is Phase.BANK:
            return  # declining the bank is always allowed
        if self.phase is not Phase.ROUND_OVER:
            raise WrongPhase("the bank is passed between rounds", phase=self.phase.value)
        early = too_early_to_pass(self, self.banker_rounds)
        if early is not None:
            raise early

    verify_pass_bank = judged("pass_bank", _check_pass_bank)
    can_pass_bank = permits(_check_pass_bank)

    def pass_bank(self, player: int) -> list[Event]:
        self.verify_pass_bank(player)
        self._begin({"a": "pass_bank", "p": player})
        if self.phase is Phase.BANK:
            self._decline_bank()
        else:
            self._pass_bank("voluntary")
        return self._finish()
