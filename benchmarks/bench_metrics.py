"""What the metrics add to one game action, apart from everything else the action costs.

The whole bot's CPU per action moves by ±10 % from run to run on a shared virtual machine
(`bench_inprocess.py --metrics off|on`), more than the metrics could cost; this times the calls
a press makes into `bot.metrics` alone, with counting on and off: the update counted, the action
and its commit, the press's answer, two Bot API calls (a press makes about 1.2), one lane hold.
Run: .venv/bin/python benchmarks/bench_metrics.py (a few seconds).
"""

from __future__ import annotations

import argparse
import platform
import statistics
import sys
import timeit
import types
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bot import metrics

PRESS = types.SimpleNamespace(callback_query=object())


def one_action() -> None:
    metrics.update_received(PRESS)
    metrics.action("hit", "done")
    metrics.committed(0.001)
    metrics.press_answered()
    metrics.botapi("answerCallbackQuery", "ok")
    metrics.botapi("sendMessage", "ok")
    metrics.held(True)


def microseconds(on: bool, number: int, repeats: int) -> float:
    """The median over ``repeats`` runs of µs per action."""
    metrics.enable(on)
    runs = timeit.repeat(one_action, number=number, repeat=repeats)
    return statistics.median(runs) / number * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--number", type=int, default=100_000, help="actions a run")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    off = microseconds(False, args.number, args.repeats)
    on = microseconds(True, args.number, args.repeats)
    print(
        f"metrics per action: on {on:.2f} µs, off {off:.2f} µs "
        f"(median of {args.repeats} x {args.number:,}; Python {platform.python_version()})"
    )


if __name__ == "__main__":
    main()
