"""How the seats of a simulated game play (:mod:`rules.simulate`, benchmarks/bench_engine.py).

A strategy is a :class:`Strategy`: four small functions (the bank, a stake, whether a player
draws, whether the banker draws). :func:`threshold_strategy` builds the fixed ones; a smarter
banker (the "house banker" of issue 8) is one more ``banker_hits`` function in
:data:`STRATEGIES`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from rules.game import Game
from rules.house import bank_amount, decide

BankFn = Callable[[Game, int, int], int]
"""``(game, banker, maximum) -> amount``: the bank a banker names, from 1 to ``maximum``."""
StakeFn = Callable[[Game, int, int, int], int]
"""``(game, player, low, high) -> amount``: a stake from ``low`` to ``high``."""
HitFn = Callable[[Game, int], bool]
"""``(game, player) -> bool``: draw one more card (True) or stand (False). Called only when a
hit is legal; ``game.hand_value(player)`` is the hand's best total."""


@dataclass(frozen=True, slots=True)
class Strategy:
    """How every seat plays; each field is a plain function of the game.

    The simulator asks ``bank`` when a banker must name a bank, ``stake`` when a player must
    stake, ``player_hits`` when a player may draw, and ``banker_hits`` when the banker may draw.
    Dark draws, timeouts and passing the bank are never chosen.
    """

    name: str
    bank: BankFn
    stake: StakeFn
    player_hits: HitFn
    banker_hits: HitFn
    description: str = ""
    house: bool = False  # seat 1 is a fixed house banker (rules.house) who banks every round


def fixed_bank(amount: int) -> BankFn:
    """Name ``amount`` as the bank, or everything the banker may put up if that is less."""

    def bank(game: Game, banker: int, maximum: int) -> int:
        return min(amount, maximum)

    return bank


def fixed_stake(amount: int) -> StakeFn:
    """Stake ``amount``, brought within the allowed range."""

    def stake(game: Game, player: int, low: int, high: int) -> int:
        return max(low, min(amount, high))

    return stake


def draw_below(threshold: int) -> HitFn:
    """Draw while the hand's best total is below ``threshold``; stand on it or more."""

    def hits(game: Game, player: int) -> bool:
        return game.hand_value(player).total < threshold

    return hits


def threshold_strategy(
    name: str, *, player_stand: int = 17, banker_stand: int = 17, stake: int = 10, bank: int = 1000
) -> Strategy:
    """Players and banker draw to fixed totals; fixed stakes and a fixed named bank.

    A named bank of 1000 against stakes of 10 rarely runs dry, so the edge measured is that of
    the drawing rules rather than of a short bank. In the all-in presets the bank is the banker's
    whole balance.
    """
    return Strategy(
        name=name,
        bank=fixed_bank(bank),
        stake=fixed_stake(stake),
        player_hits=draw_below(player_stand),
        banker_hits=draw_below(banker_stand),
        description=(
            f"players stand on {player_stand}+, the banker on {banker_stand}+, "
            f"stakes of {stake}, a named bank of {bank}"
        ),
    )


def house_bank(game: Game, banker: int, maximum: int) -> int:
    """The house names the largest bank allowed (:func:`rules.house.bank_amount`)."""
    return bank_amount(game, banker)


def house_hits(game: Game, banker: int) -> bool:
    """The house banker's exact optimal draw (:func:`rules.house.decide`)."""
    return decide(game, banker) == "hit"


def house_strategy(name: str = "house", *, player_stand: int = 17, stake: int = 10) -> Strategy:
    """Seat 1 is the house banker of issue 8: it banks every round, names the largest bank
    allowed and draws by :func:`rules.house.decide`; players stand on ``player_stand``+."""
    return Strategy(
        name=name,
        bank=house_bank,
        stake=fixed_stake(stake),
        player_hits=draw_below(player_stand),
        banker_hits=house_hits,
        description=(
            f"the house banks every round and draws optimally (rules.house); players stand on "
            f"{player_stand}+, stakes of {stake}, the bank is the house's whole balance"
        ),
        house=True,
    )


STRATEGIES: dict[str, Strategy] = {
    s.name: s
    for s in (
        threshold_strategy("threshold"),
        threshold_strategy("cautious", player_stand=15),
        threshold_strategy("bold", player_stand=19),
        house_strategy(),
    )
}
DEFAULT_STRATEGY = "threshold"
