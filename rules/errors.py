"""Typed refusals. Each carries a stable ``code`` and its parameters, so the bot can say exactly
why a move is illegal in the player's language; ``str(error)`` is the English text for logs."""

from __future__ import annotations

from typing import Any


class RulesError(Exception):
    code = "rules_error"

    def __init__(self, message: str, **params: Any) -> None:
        super().__init__(message)
        self.params = params


class InvalidVariant(RulesError):
    code = "invalid_variant"


class IllegalAction(RulesError):
    code = "illegal_action"


class WrongPhase(IllegalAction):
    code = "wrong_phase"


class NotYourTurn(IllegalAction):
    code = "not_your_turn"


class NotSeated(IllegalAction):
    code = "not_seated"


class AlreadySeated(IllegalAction):
    code = "already_seated"


class TableFull(IllegalAction):
    code = "table_full"


class NotEnoughPlayers(IllegalAction):
    code = "not_enough_players"


class AmountOutOfRange(IllegalAction):
    """A stake or a bank outside the allowed range; ``minimum``/``maximum`` say the range."""

    code = "amount_out_of_range"


class CannotAfford(IllegalAction):
    code = "cannot_afford"


class TooManyCards(IllegalAction):
    code = "too_many_cards"


class DeckExhausted(IllegalAction):
    code = "deck_exhausted"


class OptionDisabled(IllegalAction):
    code = "option_disabled"


class CannotPassBank(IllegalAction):
    code = "cannot_pass_bank"


class GameOver(IllegalAction):
    code = "game_over"


class CannotCoverStake(IllegalAction):
    """A seat refused: the balance does not cover the smallest stake with its worst case (the
    fine). Such a seat would sit out every round and keep a friend from the table;
    ``minimum`` is the balance a seat needs, ``balance`` the one offered."""

    code = "cannot_cover_stake"


# The refusals said as the real reason, with the way forward (:mod:`rules.refusals`): what the
# game waits for now and from whom. Each keeps the class of the plain refusal it refines.


class StakeFirst(WrongPhase):
    """A card asked for (or a stand) on one's own stake turn: ``minimum``..``maximum``."""

    code = "stake_first"


class BankFirst(WrongPhase):
    """Anything but naming the bank by the banker whose turn that is."""

    code = "bank_first"


class YourDraw(WrongPhase):
    """A move of another stage by the one who is drawing now; ``action`` says which."""

    code = "your_draw"


class RoundOn(WrongPhase):
    """A move between rounds tried while a round is played; ``action`` and ``turn``."""

    code = "round_on"


class BankerNamesBank(NotYourTurn):
    """Naming the bank by someone who is not the banker (``banker``)."""

    code = "bank_by_banker"


class NoBankToName(WrongPhase):
    """Naming the bank where the rules do not: the banker puts up all his chips."""

    code = "bank_all_in"


class BankNamed(WrongPhase):
    """Naming the bank again once the round is on (``bank`` in it)."""

    code = "bank_named"


class BankerDoesNotStake(IllegalAction):
    code = "banker_no_stake"


class DarkDrawOff(OptionDisabled):
    code = "no_dark"


class BankerNoDark(OptionDisabled):
    code = "banker_no_dark"


class AlreadyLeaving(IllegalAction):
    code = "leaving_already"
