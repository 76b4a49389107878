"""The actions of a round and of its end (stakes, drawing, the clock, the next round, ending the
session), each as ``verify_x``, ``can_x`` and ``x`` (see rules.game)."""

from __future__ import annotations

from rules.errors import (
    CannotAfford,
    DeckExhausted,
    IllegalAction,
    OptionDisabled,
    TooManyCards,
    WrongPhase,
)
from rules.events import Event, StakePlaced
from rules.flow import RoundFlow
from rules.refusals import judged, out_of_range, permits
from rules.state import ON_THE_CLOCK
from rules.table import HandStatus, Phase
from rules.variants import is_whole

END_REASONS = ("ended", "expired", "unreachable")  # why end() was called


class PlayActions(RoundFlow):
    """What the players do during a round, and what ends it or the session."""

    def _check_stake(self, player: int, amount: int) -> None:
        self._verify_to_act(player, Phase.STAKE)
        low, high = self.stake_range(player)
        if not is_whole(amount):
            raise out_of_range("stake", low, high, "a whole number ")
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
            raise out_of_range("stake", low, high)

    verify_stake = judged("stake", _check_stake)
    can_stake = permits(_check_stake)

    def stake(self, player: int, amount: int) -> list[Event]:
        self.verify_stake(player, amount)
        self._begin({"a": "stake", "p": player, "amount": amount})
        hand = self.hands[player]
        hand.stake = amount
        hand.whole_bank = amount == self.bank
        hand.all_in = amount == self._affordable(self.seat(player).balance)
        hand.status = HandStatus.STAKED
        self._emit(StakePlaced(player, amount))
        self._advance()
        return self._finish()

    def _check_hit(self, player: int) -> None:
        self._verify_drawing(player)
        hand = self.hands[player]
        if len(hand.cards) >= self.variant.max_cards:
            raise TooManyCards(
                f"a hand holds at most {self.variant.max_cards} cards",
                maximum=self.variant.max_cards,
            )
        if not self.stock and not self.discards:
            raise DeckExhausted("no cards are left to deal")

    verify_hit = judged("hit", _check_hit)
    can_hit = permits(_check_hit)

    def hit(self, player: int) -> list[Event]:
        self.verify_hit(player)
        return self._draw(player, dark=False)

    def _check_dark(self, player: int) -> None:
        if not self.variant.dark_draw:
            raise OptionDisabled("dark draw is off in this game", option="dark_draw")
        self._verify_drawing(player)
        if player == self.banker:
            raise OptionDisabled("the banker does not draw dark", option="dark_draw")
        self._check_hit(player)

    verify_dark = judged("dark", _check_dark)
    can_dark = permits(_check_dark)

    def dark(self, player: int) -> list[Event]:
        """Take one card unseen; it ends the player's drawing and shows at the showdown."""
        self.verify_dark(player)
        return self._draw(player, dark=True)

    def _draw(self, player: int, *, dark: bool) -> list[Event]:
        self._begin({"a": "dark" if dark else "hit", "p": player})
        self._take_card(player, dark=dark)
        if dark:
            self._stand(self.hands[player], "dark")
        else:
            self._after_card(player)
        self._advance()
        return self._finish()

    verify_stand = judged("stand", RoundFlow._verify_drawing)
    can_stand = permits(RoundFlow._verify_drawing)

    def stand(self, player: int) -> list[Event]:
        self.verify_stand(player)
        self._begin({"a": "stand", "p": player})
        self._stand(self.hands[player], "choice")
        self._advance()
        return self._finish()

    def verify_timeout(self) -> None:
        self._verify_not_over()
        if self.phase not in ON_THE_CLOCK:
            raise WrongPhase("nobody is on the clock now", phase=self.phase.value)

    can_timeout = permits(verify_timeout)

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

    def _check_next_round(self, _asker: int | None = None) -> None:
        """``_asker``: who asks (his refusal says what to do instead), None for nobody's."""
        self._verify_phase(Phase.ROUND_OVER)

    verify_next_round = judged("next_round", _check_next_round)
    can_next_round = permits(_check_next_round)

    def next_round(self, player: int | None = None) -> list[Event]:
        self.verify_next_round(player)
        self._begin({"a": "next_round"})
        self._open_round()
        return self._finish()

    verify_end = RoundFlow._verify_not_over
    can_end = permits(verify_end)

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
