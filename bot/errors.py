"""How the service says no: :class:`Refused` (a code and its parameters, rendered per
language), :class:`Duplicate` (an update processed already) and :class:`AlreadyDone` (the same
press applied already). Importable from :mod:`bot.service`, whose answers they are."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rules.errors import RulesError
from rules.game import Game
from rules.table import Phase
from rules.variants import BankMode
from storage import StoredGame


class Refused(Exception):
    """The action is not allowed; ``code`` and ``params`` say why (rendered per language)."""

    def __init__(self, code: str, **params: Any) -> None:
        super().__init__(code)
        self.code = code
        self.params = params

    @classmethod
    def from_rules(cls, error: RulesError, names: Mapping[int, str] | None = None) -> Refused:
        """The engine's refusal by its code; the players it names (whose turn it is, who the
        banker is) get their display names, so the answer can say who."""
        params = dict(error.params)
        for key in ("turn", "banker"):
            player = params.get(key)
            if names is not None and isinstance(player, int) and player in names:
                params[f"{key}_name"] = names[player]
        return cls(error.code, **params)


# The moves of a round: the refusal of one of them says what the game waits for now.
_IN_ROUND = (Phase.STAKE, Phase.DRAW, Phase.BANKER)


def explained(
    refused: Refused, game: Game, user: int, kind: str, names: Mapping[int, str]
) -> Refused:
    """The engine's refusal of ``user``'s ``kind`` (a command of `bot.service`), said as the
    real reason with the way forward: what the game waits for now and from whom.

    The engine judges a move by the phase it needs (``expected``) and whose turn it is; only
    the bot knows the command typed and that the one refused is the one to act, so a /hit on
    one's own stake turn reads «stake first: /bet …», not «the round is on», and a /bank by
    someone else names the banker."""
    code, phase, turn, banker = refused.code, game.phase, game.turn, game.banker
    banker_name = names.get(banker) if banker is not None else None
    turn_name = names.get(turn) if turn is not None else None
    if code == "game_over" or phase is Phase.ENDED:
        return refused
    if kind == "bank" and code in ("wrong_phase", "not_your_turn"):
        if game.variant.bank_mode is BankMode.ALL_IN:
            return Refused("bank_all_in")
        if banker is not None and user != banker and banker_name is not None:
            return Refused("bank_by_banker", banker_name=banker_name)
        if user == banker and phase in (Phase.STAKE, Phase.DRAW):
            return Refused("bank_named", bank=game.bank)
    if kind == "bet" and user == banker and phase in _IN_ROUND:
        return Refused("banker_no_stake")
    if kind == "dark" and code == "option_disabled":
        # Off in these rules, or on but not for the banker.
        return Refused("no_dark" if not game.variant.dark_draw else "banker_no_dark")
    leaving = game.is_seated(user) and game.seat(user).leaving
    if kind == "leave" and code == "illegal_action" and leaving:
        return Refused("leaving_already")
    if kind == "pass" and code == "cannot_pass_bank" and banker is None:
        return Refused("wrong_phase", phase=phase.value)  # nobody banks before the deal
    if code == "not_your_turn" and phase is Phase.BANK:
        return Refused("wrong_phase", phase=phase.value)  # the banker names the bank
    if code != "wrong_phase":
        return refused
    legal = game.legal_actions()
    if kind == "pass" and phase in _IN_ROUND:
        return Refused("round_on", kind=kind, turn_name=turn_name or "")
    if user == turn and phase is Phase.BANK:
        return Refused("bank_first", minimum=legal.minimum, maximum=legal.maximum)
    if user == turn and phase is Phase.STAKE and legal.maximum >= legal.minimum:
        return Refused("stake_first", minimum=legal.minimum, maximum=legal.maximum)
    if user == turn and phase in (Phase.DRAW, Phase.BANKER):
        return Refused("your_draw", kind=kind)
    if phase in _IN_ROUND:
        return Refused("round_on", kind=kind, turn_name=turn_name or "")
    return refused


class Duplicate(Exception):
    """The update was already processed; nothing was done again."""


class AlreadyDone(Exception):
    """The presser's same action from the same keyboard was applied already (a double tap, or
    Telegram delivering the press twice): nothing changes; answer with the current state."""

    def __init__(self, stored: StoredGame, game: Game) -> None:
        super().__init__("already_done")
        self.stored = stored
        self.game = game
