"""A refused move said as its real reason, with the way forward: what the game waits for now
and from whom.

The checks of a move judge it by the phase it needs and whose turn it is; only the move and the
one who tried it say what he should do instead: a card asked for on one's own stake turn is
«stake first, 1 to 40», not «this needs the draw»; the bank named by someone else names the
banker. :func:`precise` turns the plain refusal into that one; every ``verify_x`` of the game
raises its result, so every caller (the chat, the Mini App, a script) hears the same reason.
:func:`judged` and :func:`permits` make each action's ``verify_x`` and ``can_x``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Concatenate, ParamSpec, TypeVar

from rules.errors import (
    AlreadyLeaving,
    AmountOutOfRange,
    BankerDoesNotStake,
    BankerNamesBank,
    BankerNoDark,
    BankFirst,
    BankNamed,
    CannotPassBank,
    DarkDrawOff,
    NoBankToName,
    NotSeated,
    RoundOn,
    RulesError,
    StakeFirst,
    WrongPhase,
    YourDraw,
)
from rules.state import GameState
from rules.table import IN_ROUND, Phase
from rules.variants import BankMode

G = TypeVar("G", bound=GameState)
P = ParamSpec("P")

# The moves only someone seated at the table makes: refused to anyone else as «not seated»
# whatever the phase (not «the game has not started», which suggests waiting would help).
# (Starting a game or its next round is the engine's to anyone: the service asks for a seat.)
SEATED_MOVES = frozenset({"set_bank", "stake", "hit", "stand", "dark", "pass_bank"})


def precise(game: GameState, action: str, player: int | None, error: RulesError) -> RulesError:
    """``error``, the plain refusal of ``player``'s ``action`` (a method of the game:
    ``set_bank``, ``stake``, ``hit``…), as the real reason; ``error`` itself when it is one."""
    code, phase, turn, banker = error.code, game.phase, game.turn, game.banker
    if player is None or code == "game_over" or phase is Phase.ENDED:
        return error
    if action in SEATED_MOVES and not game.is_seated(player):
        return NotSeated("not seated at this table", player=player)
    if action == "set_bank" and code in ("wrong_phase", "not_your_turn"):
        if game.variant.bank_mode is BankMode.ALL_IN:
            return NoBankToName("in these rules the banker puts up all his chips")
        if banker is not None and player != banker:
            return BankerNamesBank(
                f"the banker ({banker}) names the bank", player=player, banker=banker, turn=turn
            )
        if player == banker and phase in (Phase.STAKE, Phase.DRAW):
            return BankNamed("the bank is named already", bank=game.bank)
    if action == "stake" and player == banker and phase in IN_ROUND:
        return BankerDoesNotStake("the banker does not stake: the bank plays every stake")
    if action == "dark" and code == "option_disabled":
        # Off in these rules, or on but not for the banker.
        if not game.variant.dark_draw:
            return DarkDrawOff("dark draw is off in this game", option="dark_draw")
        return BankerNoDark("the banker does not draw dark", option="dark_draw")
    leaving = game.is_seated(player) and game.seat(player).leaving
    if action == "leave" and code == "illegal_action" and leaving:
        return AlreadyLeaving("already leaving at the end of this round", player=player)
    if action == "pass_bank" and code == "cannot_pass_bank" and banker is None:
        return WrongPhase("nobody banks before the deal", phase=phase.value)
    if code == "not_your_turn" and phase is Phase.BANK:
        return WrongPhase("the banker names the bank now", phase=phase.value)
    if code != "wrong_phase":
        return error
    if action == "pass_bank" and phase in IN_ROUND:
        # Mid-round: «wait for the round's end» only when the end of this round is all he waits
        # for (this one counted as held); else the condition itself at once.
        early = too_early_to_pass(game, game.banker_rounds + 1)
        return early or RoundOn(
            "the bank can be passed once the round ends", action=action, turn=turn
        )
    if player == turn and phase is Phase.BANK:
        maximum = game._bank_maximum()
        return BankFirst("name the bank first", minimum=1, maximum=maximum, phase=phase.value)
    if player == turn and phase is Phase.STAKE:
        low, high = game.stake_range(player)
        if high >= low:
            return StakeFirst("stake first", minimum=low, maximum=high, phase=phase.value)
    if player == turn and phase in (Phase.DRAW, Phase.BANKER):
        return YourDraw("it is your turn to draw", action=action, phase=phase.value)
    if phase in IN_ROUND:
        return RoundOn("the round is still on", action=action, turn=turn, phase=phase.value)
    return error


def too_early_to_pass(game: GameState, rounds_held: int) -> CannotPassBank | None:
    """Why the banker may not pass the bank once he has held it ``rounds_held`` rounds (these
    rules never let him, or he must hold it more rounds); None when he may."""
    rounds = game.variant.voluntary_pass_after
    if rounds is None:
        return CannotPassBank("this variant does not let the banker pass the bank", why="never")
    if rounds_held < rounds:
        return CannotPassBank(
            f"the bank can be passed after {rounds} rounds",
            rounds=rounds,
            played=game.banker_rounds,
            why="rounds",
        )
    return None


def judged(
    action: str, check: Callable[Concatenate[G, P], None]
) -> Callable[Concatenate[G, P], None]:
    """``verify_x = judged("x", _check_x)``: the checks of ``x``, a refusal raised as its real
    reason for the player named first (:func:`precise`). ``can_x`` runs the checks
    alone: a yes or a no needs no reason (and ``legal_actions`` asks several at every render)."""

    def verify(game: G, /, *args: P.args, **kwargs: P.kwargs) -> None:
        try:
            check(game, *args, **kwargs)
        except RulesError as error:
            player = args[0] if args and isinstance(args[0], int) else None
            said = precise(game, action, player, error)
            if said is error:
                raise
            said.params = error.params | said.params  # the plain refusal's parameters too
            raise said from None

    return verify


def permits(
    verify: Callable[Concatenate[G, P], None],
) -> Callable[Concatenate[G, P], bool]:
    """``can_x = permits(verify_x)``: whether ``x`` is legal now, as ``verify_x`` says (it
    raises a :class:`RulesError` where ``x`` is illegal)."""

    def can(game: G, /, *args: P.args, **kwargs: P.kwargs) -> bool:
        try:
            verify(game, *args, **kwargs)
        except RulesError:
            return False
        return True

    return can


def out_of_range(what: str, low: int, high: int, need: str = "") -> AmountOutOfRange:
    """The refusal of a ``what`` ("stake", "bank") outside ``low`` to ``high``; ``need`` says
    more of what it must be ("a whole number ")."""
    return AmountOutOfRange(
        f"the {what} must be {need}between {low} and {high}", minimum=low, maximum=high, what=what
    )
