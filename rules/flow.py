"""The steps the engine takes by itself: the bookkeeping of an action, the banker's comings and
goings, and the round from the deal to the showdown and the end of the session.

One class on purpose: these steps call one another in a cycle (opening a round deals, dealing
advances the turn, the last turn settles the round, the end of a round passes the bank and opens
the next one), so they cannot be split into layers that import each other one way.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rules.cards import Card, DeckKind, build_deck
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
    NaturalsSettled,
    Party,
    PlayerLeft,
    RoundStarted,
    SatOut,
    SessionEnded,
    Stood,
    Transfer,
    TwentyOne,
)
from rules.fairness import commitment
from rules.scoring import is_natural
from rules.state import GameState
from rules.table import Hand, HandStatus, Phase
from rules.variants import BankMode, BankPassing, StakeTiming, TurnOrder

# Each deck in canonical order, built once (cards are frozen values; every round shuffles a copy).
_DECKS: dict[DeckKind, tuple[Card, ...]] = {kind: tuple(build_deck(kind)) for kind in DeckKind}
_TO_DRAW = (HandStatus.STAKED, HandStatus.DRAWING)  # the hands that are given the turn to draw


class RoundFlow(GameState):
    """The engine's own steps on a game's state (no verification: the actions verify first)."""

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
        if not self._has_opponents():
            self._end_session("no_players")
            return
        if self.bank > 0:
            self._deal_round()
        elif self.variant.bank_mode is BankMode.ALL_IN:
            self._fund_bank(self._bank_maximum())
            self._deal_round()
        else:
            self.phase, self.turn = Phase.BANK, self.banker

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

    def _first_deal(self) -> None:
        assert self.banker is not None
        self.dealt = True
        receivers = [p for p in self.order if self.hands[p].status is not HandStatus.OUT]
        receivers.append(self.banker)
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
        self.stock = self._shuffle(self.discards, recycled=True)
        self.discards = []
        self.bottom = None  # the shown bottom card has been dealt; the new stock shows none

    def _shuffle(self, cards: Sequence[Card], *, recycled: bool) -> list[Card]:
        """Shuffle ``cards`` and commit to the order: the log keeps the order, its salt and the
        commitment (a replay reproduces all three); the event carries only the commitment."""
        deck = self.source.shuffled(cards)
        order = [card.rank + card.suit for card in deck]  # Card.code, inlined: a whole deck
        salt = self.source.salt()
        committed = commitment(order, salt)
        self.log.append({"a": "shuffle", "order": order, "salt": salt, "commitment": committed})
        shuffle = {"commitment": committed, "salt": salt, "order": list(order), "dealt": []}
        self.shuffles.append(shuffle | {"recycled": recycled})
        self._emit(DeckShuffled(len(deck), recycled=recycled, commitment=committed))
        return deck

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
                self.discards.extend(hand.cards)
        elif value.twenty_one:
            if self.variant.instant_21:
                hand.status = HandStatus.WON
                hand.revealed = True
                paid = self._settle_win(hand, hand.stake, "twenty_one")
                self._emit(TwentyOne(player, value.golden, paid, hand.codes, hand.stake))
                self.discards.extend(hand.cards)
            else:
                self._stand(hand, "twenty_one")
        elif len(hand.cards) >= self.variant.max_cards:
            self._stand(hand, "max_cards")

    def _stand(self, hand: Hand, reason: str) -> None:
        hand.status = HandStatus.STOOD
        self._emit(Stood(hand.player, reason))

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
        if paid > 0 and self.bank == 0:
            # This win emptied the bank (a later loss may fill it again, and a later win
            # empty it: the last one counts).
            for other in self.hands.values():
                other.broke_bank = False
            hand.broke_bank = True
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
            self._stand(hand, reason)

    def _offer_stake(self, p: int, hand: Hand) -> bool:
        """A waiting hand gets the turn to stake (True), or sits the round out when it cannot
        stake or is leaving."""
        leaving = self.seat(p).leaving
        if self.stake_range(p)[1] < 1 or leaving:
            hand.status = HandStatus.OUT
            reason = "bank_empty" if self.bank < 1 else "cannot_afford"
            self._emit(SatOut(p, "leaving" if leaving else reason))
            return False
        self.phase, self.turn = Phase.STAKE, p
        return True

    def _advance(self) -> None:
        """Move the turn to whoever acts next, performing the non-player steps on the way."""
        assert self.banker is not None
        # Per turn, a player draws before the next one stakes; else everyone stakes first.
        per_turn = self.variant.stake_timing is StakeTiming.PER_TURN
        for p in self.order:
            hand = self.hands[p]
            if hand.status is HandStatus.WAITING:
                if self._offer_stake(p, hand):
                    return
            elif per_turn and hand.status in _TO_DRAW and self._offer_draw(p, hand):
                return
        if not per_turn:
            if not self.dealt:
                self._first_deal()
            if self.variant.banker_first and not self.banker_done and self._banker_must_play():
                self._banker_turn()
                return
            for p in self.order:
                hand = self.hands[p]
                if hand.status in _TO_DRAW and self._offer_draw(p, hand):
                    return
        if not self.banker_done and self._banker_must_play():
            self._banker_turn()
            return
        self._settle_round()

    def _offer_draw(self, p: int, hand: Hand) -> bool:
        """A staked (or drawing) hand gets the turn to draw (True); it stands instead when its
        player announced leaving."""
        if self._stands_for_leaving(hand):
            return False
        hand.status = HandStatus.DRAWING
        self.phase, self.turn = Phase.DRAW, p
        return True

    def _stands_for_leaving(self, hand: Hand) -> bool:
        """A player who announced leaving stands when his turn to draw comes."""
        if not self.seat(hand.player).leaving:
            return False
        self._stand(hand, "leaving")
        return True

    def _banker_turn(self) -> None:
        assert self.banker is not None
        if self._stands_for_leaving(self.hands[self.banker]):
            self._advance()
            return
        if self.turn != self.banker or self.phase is not Phase.BANKER:
            self._emit(BankerTurn(self.banker))
        self.phase, self.turn = Phase.BANKER, self.banker

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
        if player == self.house:
            self.house = None  # the house left the lobby: the banker is drawn by lot again
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
        if not self._has_opponents():
            self._end_session("no_players")
        elif self.phase is Phase.BANK:
            self.phase = Phase.ROUND_OVER
            self._open_round()

    def _end_session(self, reason: str) -> None:
        self._return_bank()
        for hand in self.hands.values():
            if not hand.settled and hand.player != self.banker:
                hand.outcome = hand.outcome or "void"
        self.phase, self.turn = Phase.ENDED, None
        self._emit(
            SessionEnded(
                reason,
                tuple((s.player, s.balance) for s in self.seats),
                declined=tuple(p for p in self.decliners if self.is_seated(p)),
                broke=tuple(s.player for s in self.seats if s.balance < 1),
                dealt=tuple(s.player for s in self.seats if s.has_dealt),
            )
        )
