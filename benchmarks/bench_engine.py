"""Rules engine throughput: simulated rounds per second on one core, for each preset.

Each round goes through the public engine API exactly as ``python -m rules.simulate`` plays it
(the same loop: 4 seats, the default fixed strategy, a seeded shuffle per round, every action
verified and its events built). After a short warm-up, each preset plays ``--repeats`` timed runs
of about ``--seconds`` each; the line shows the median rate, the slowest and fastest runs, and
microseconds per round. Run: .venv/bin/python benchmarks/bench_engine.py (about 35 s).
"""

from __future__ import annotations

import argparse
import platform
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rules.simulate import play
from rules.strategies import STRATEGIES
from rules.variants import PRESETS, Variant

TARGET = 20_000  # rounds per second aimed at on one core (issue 2)


def timed(variant: Variant, rounds: int, players: int, seed: int) -> float:
    """Rounds per second of one run."""
    started = time.perf_counter()
    tally = play(variant, rounds, players=players, strategy=STRATEGIES["threshold"], seed=seed)
    return tally.rounds / (time.perf_counter() - started)


def bench(variant: Variant, players: int, seconds: float, repeats: int) -> str:
    estimate = timed(variant, 300, players, seed=0)  # warm-up, and a first estimate of the rate
    rounds = max(300, int(estimate * seconds))
    rates = sorted(timed(variant, rounds, players, seed=run) for run in range(1, repeats + 1))
    median = statistics.median(rates)
    verdict = "meets" if median >= TARGET else "below"
    return (
        f"{variant.name:<12} {median:>8,.0f} rounds/s (runs {rates[0]:,.0f} … {rates[-1]:,.0f}, "
        f"{rounds:,} rounds each)  {1e6 / median:6.1f} µs/round  "
        f"{verdict} the {TARGET:,}/s target"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--seconds", type=float, default=2.5, help="length of one timed run")
    parser.add_argument("--repeats", type=int, default=3, help="timed runs per preset")
    parser.add_argument("--players", type=int, default=4, help="seats, the banker included")
    args = parser.parse_args()
    if args.seconds <= 0 or args.repeats < 1:
        parser.error("--seconds must be positive and --repeats at least 1")
    for variant in PRESETS.values():
        if not variant.min_seats <= args.players <= variant.max_seats:
            parser.error(
                f"--players {args.players}: {variant.name} seats at most {variant.max_seats}"
            )
    print(
        f"engine rounds/s, one core, {args.players} seats, strategy threshold; "
        f"Python {platform.python_version()} on {platform.machine()} "
        f"({platform.processor() or platform.system()})",
        flush=True,
    )
    started = time.perf_counter()
    for variant in PRESETS.values():
        print(bench(variant, args.players, args.seconds, args.repeats), flush=True)
    print(f"finished in {time.perf_counter() - started:.1f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
