"""How the seats of a simulated game play (:mod:`rules.simulate`, benchmarks/bench_engine.py)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from rules.game import Game
from rules.house import bank_amount, decide

BankFn = Callable[[Game, int, int], int]  # (game, banker, maximum) -> a bank, 1 to maximum
StakeFn = Callable[[Game, int, int, int], int]  # (game, player, low, high) -> a stake in range
HitFn = Callable[[Game, int], bool]  # (game, player) -> draw; asked only when a hit is legal


@dataclass(frozen=True, slots=True)
class Strategy:
    """How every seat plays. The simulator never chooses dark draws, timeouts or passing the
    bank."""

    name: str
    bank: BankFn
    stake: StakeFn
    player_hits: HitFn
    banker_hits: HitFn
    description: str = ""
    house: bool = False  # seat 1 is a fixed house banker (rules.house) who banks every round


def draw_below(threshold: int) -> HitFn:
    """Draw while the hand's best total is below ``threshold``; stand on it or more."""
    return lambda game, player: game.hand_value(player).total < threshold


def threshold_strategy(
    name: str, *, player_stand: int = 17, banker_stand: int = 17, stake: int = 10, bank: int = 1000
) -> Strategy:
    """Players and banker draw to fixed totals; fixed stakes and a fixed named bank (or all the
    banker has, if that is less). A bank of 1000 against stakes of 10 rarely runs dry, so the
    edge measured is that of the drawing rules rather than of a short bank; in the all-in
    presets the bank is the banker's whole balance."""
    return Strategy(
        name=name,
        bank=lambda game, banker, maximum: min(bank, maximum),
        stake=lambda game, player, low, high: max(low, min(stake, high)),
        player_hits=draw_below(player_stand),
        banker_hits=draw_below(banker_stand),
        description=(
            f"players stand on {player_stand}+, the banker on {banker_stand}+, "
            f"stakes of {stake}, a named bank of {bank}"
        ),
    )


def house_strategy(name: str = "house", *, player_stand: int = 17, stake: int = 10) -> Strategy:
    """Seat 1 is the house banker of issue 8: it banks every round, names the largest bank
    allowed and draws by :func:`rules.house.decide`; players stand on ``player_stand``+."""
    return Strategy(
        name=name,
        bank=lambda game, banker, maximum: bank_amount(game, banker),
        stake=lambda game, player, low, high: max(low, min(stake, high)),
        player_hits=draw_below(player_stand),
        banker_hits=lambda game, banker: decide(game, banker) == "hit",
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
