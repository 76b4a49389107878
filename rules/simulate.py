"""Monte Carlo simulation of Ochko: the banker's edge under simple fixed strategies
(:mod:`rules.strategies`).

Rounds are played through the public engine API with a seeded random source, so a run is
reproducible from its seed. Balances start large (:data:`START_BALANCE`) so sessions do not end
for lack of chips; when a session ends anyway (twodecks104 ends once everyone has dealt) or grows
long (its log is kept in memory), a new session starts and the count of rounds goes on.
``python -m rules.simulate --help`` says how to run it; docs/rules.md shows its figures.
"""

from __future__ import annotations

import argparse
import math
import secrets
import sys
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, replace
from typing import Any

from rules.errors import RulesError
from rules.events import RoundSettled
from rules.game import Game, new_game
from rules.randomness import seeded
from rules.strategies import DEFAULT_STRATEGY, STRATEGIES, Strategy, draw_below
from rules.table import Phase
from rules.variants import PRESETS, Variant

START_BALANCE = 10**7  # each player's chips at the start of a session: far above any stake
SESSION_ROUNDS = 2_000  # a session is ended and a new one started after this many rounds
Z95 = 1.959963984540054  # two-sided 95% quantile of the standard normal distribution


@dataclass(slots=True)
class Tally:
    """Running sums over settled rounds, enough for the edge and its confidence interval."""

    rounds: int = 0  # rounds settled
    staked_rounds: int = 0  # of those, rounds with at least one stake
    staked: int = 0  # Σ stakes
    banker_net: int = 0  # Σ the banker's net (what the players lost, fines included)
    sum_b2: int = 0  # Σ b², b the banker's net in a round
    sum_s2: int = 0  # Σ s², s the stakes of a round
    sum_bs: int = 0  # Σ b·s
    wins: int = 0  # player hands won, pushed and lost
    pushes: int = 0
    losses: int = 0
    sessions: int = 0

    def add(self, settled: RoundSettled) -> None:
        b = s = 0
        for result in settled.results:
            outcome = result.outcome
            if outcome == "out":
                continue
            s += result.stake
            b -= result.net
            if outcome == "win":
                self.wins += 1
            elif outcome == "lose":
                self.losses += 1
            else:
                self.pushes += 1
        self.rounds += 1
        if s:
            self.staked_rounds += 1
            self.staked += s
            self.banker_net += b
            self.sum_b2 += b * b
            self.sum_s2 += s * s
            self.sum_bs += b * s


def edge_interval(tally: Tally) -> tuple[float, float]:
    """The banker's edge ``R = Σb / Σs`` and the half-width of its 95% confidence interval.

    ``R`` is a ratio of per-round sums, so its standard error comes from the per-round residuals
    ``z = (b - R·s) / s̄`` (the delta method): half-width ``1.96 · sd(z) / √n``. With equal stakes
    every round this is the plain ``mean ± 1.96·sd/√n`` of the banker's net per unit staked.
    """
    n = tally.staked_rounds
    if n == 0 or tally.staked == 0:
        return 0.0, math.inf
    edge = tally.banker_net / tally.staked
    if n < 2:
        return edge, math.inf
    mean_stake = tally.staked / n
    residual_squares = tally.sum_b2 - 2 * edge * tally.sum_bs + edge * edge * tally.sum_s2
    variance = max(residual_squares, 0.0) / (n - 1) / (mean_stake * mean_stake)
    return edge, Z95 * math.sqrt(variance / n)


def play(
    variant: Variant,
    rounds: int,
    *,
    players: int = 4,
    strategy: Strategy | None = None,
    seed: int = 0,
    session_rounds: int = SESSION_ROUNDS,
) -> Tally:
    """Play ``rounds`` settled rounds of ``variant`` and return their tally; one random source,
    ``seeded(seed)``, serves every session in turn, so the whole run is reproducible."""
    if rounds < 0:
        raise ValueError("rounds must not be negative")
    if not variant.min_seats <= players <= variant.max_seats:
        raise ValueError(
            f"{variant.name} seats {variant.min_seats} to {variant.max_seats} players, "
            f"not {players}"
        )
    plan = strategy if strategy is not None else STRATEGIES[DEFAULT_STRATEGY]
    rng = seeded(seed)
    seating = [(player, START_BALANCE) for player in range(1, players + 1)]
    tally = Tally()
    game: Game | None = None
    session_start = 0
    while tally.rounds < rounds:
        if game is None or game.phase is Phase.ENDED:
            if game is not None and tally.rounds == session_start:
                raise RulesError(f"a {variant.name} session ended without playing a round")
            if plan.house:
                game = new_game(variant, seating[1:], source=rng)
                game.join(seating[0][0], seating[0][1], house=True)
            else:
                game = new_game(variant, seating, source=rng)
            tally.sessions += 1
            session_start = tally.rounds
            events = game.start()
        else:
            phase = game.phase
            turn = game.turn
            if phase is Phase.DRAW or phase is Phase.BANKER:
                assert turn is not None
                hits = plan.banker_hits if phase is Phase.BANKER else plan.player_hits
                if game.can_hit(turn) and hits(game, turn):
                    events = game.hit(turn)
                else:
                    events = game.stand(turn)
            elif phase is Phase.STAKE:
                assert turn is not None
                low, high = game.stake_range(turn)
                events = game.stake(turn, plan.stake(game, turn, low, high))
            elif phase is Phase.ROUND_OVER:
                if tally.rounds - session_start >= session_rounds:
                    game.end()
                    continue
                events = game.next_round()
            elif phase is Phase.BANK:
                assert turn is not None
                maximum = game.legal_actions().maximum
                events = game.set_bank(turn, plan.bank(game, turn, maximum))
            else:
                raise RulesError(f"the simulator cannot play the {phase.value} phase")
        if not game.in_round:
            settled = next((e for e in events if type(e) is RoundSettled), None)
            if settled is not None:
                tally.add(settled)
    return tally


@dataclass(slots=True)
class Report(Tally):
    """A timed run of one preset: its tally and the figures drawn from it."""

    variant: str = ""
    seconds: float = 0.0
    edge: float = 0.0  # the banker's net per unit staked
    half_width: float = 0.0  # of the 95% confidence interval of ``edge``
    win_rate: float = 0.0  # of the players' hands that played
    push_rate: float = 0.0
    loss_rate: float = 0.0
    rounds_per_second: float = 0.0

    @property
    def low(self) -> float:
        return self.edge - self.half_width

    @property
    def high(self) -> float:
        return self.edge + self.half_width

    def line(self) -> str:
        return (
            f"{self.variant:<12} rounds {self.rounds:>9,}  "
            f"banker edge {self.edge:+.4f} ± {self.half_width:.4f} "
            f"(95% CI {self.low:+.4f} … {self.high:+.4f})  "
            f"players win {self.win_rate:6.2%} push {self.push_rate:6.2%} "
            f"lose {self.loss_rate:6.2%}  {self.rounds_per_second:>9,.0f} rounds/s"
        )


def run(variant: Variant, rounds: int, **options: Any) -> Report:
    """:func:`play`, timed: the figures of one preset."""
    started = time.perf_counter()
    tally = play(variant, rounds, **options)
    seconds = time.perf_counter() - started
    edge, half_width = edge_interval(tally)
    hands = tally.wins + tally.pushes + tally.losses or 1
    return Report(
        **asdict(tally),
        variant=variant.name,
        seconds=seconds,
        edge=edge,
        half_width=half_width,
        win_rate=tally.wins / hands,
        push_rate=tally.pushes / hands,
        loss_rate=tally.losses / hands,
        rounds_per_second=tally.rounds / seconds if seconds > 0 else 0.0,
    )


# ---------------------------------------------------------------------- command line


def _seed(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, not {text!r}") from None


def _positive(text: str) -> int:
    value = _seed(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {value}")
    return value


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m rules.simulate",
        description="Play Ochko rounds with fixed strategies and print the banker's edge.",
    )
    add = parser.add_argument
    add(
        "--variant",
        default="classic36",
        metavar="NAME",
        help=f"a preset ({', '.join(PRESETS)}) or 'all' (default: classic36)",
    )
    add("--rounds", type=_positive, default=100_000, help="rounds per preset (default: 100000)")
    add("--players", type=_positive, default=4, help="seats, the banker included (default: 4)")
    add("--seed", type=_seed, help="random seed (default: a fresh one, printed)")
    add(
        "--strategy",
        default=DEFAULT_STRATEGY,
        metavar="NAME",
        help=f"one of {', '.join(STRATEGIES)} (default: {DEFAULT_STRATEGY})",
    )
    add("--stand", type=_positive, help="override: players stand on this total")
    add("--banker-stand", type=_positive, help="override: the banker stands on this total")
    args = parser.parse_args(argv)
    if args.variant == "all":
        variants = list(PRESETS.values())
    elif args.variant in PRESETS:
        variants = [PRESETS[args.variant]]
    else:
        parser.error(f"unknown variant {args.variant!r}; choose one of {', '.join(PRESETS)} or all")
    if args.strategy not in STRATEGIES:
        parser.error(f"unknown strategy {args.strategy!r}; choose one of {', '.join(STRATEGIES)}")
    for variant in variants:
        if not variant.min_seats <= args.players <= variant.max_seats:
            parser.error(
                f"--players {args.players}: {variant.name} seats "
                f"{variant.min_seats} to {variant.max_seats} players"
            )
    strategy = STRATEGIES[args.strategy]
    if args.stand is not None:
        strategy = replace(
            strategy,
            player_hits=draw_below(args.stand),
            description=f"{strategy.description}; override: players stand on {args.stand}+",
        )
    if args.banker_stand is not None:
        strategy = replace(
            strategy,
            banker_hits=draw_below(args.banker_stand),
            description=f"{strategy.description}; override: the banker stands on "
            f"{args.banker_stand}+",
        )
    seed = args.seed if args.seed is not None else secrets.randbelow(2**32)
    print(f"strategy {strategy.name}: {strategy.description}", flush=True)
    print(f"{args.players} seats, {args.rounds:,} rounds per preset, seed {seed}", flush=True)
    for variant in variants:
        report = run(variant, args.rounds, players=args.players, strategy=strategy, seed=seed)
        print(report.line(), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
