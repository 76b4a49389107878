"""What sleeping costs on this machine: the CPU a thread uses to go to sleep and be woken, and
how much more CPU the same Python work takes right after an idle gap than back to back.

The bot's CPU per action is about 2.5 times higher at 100 presses/s than under full load
(benchmarks/bench_e2e.py, docs/performance.md), for the same code and about the same work per
press. Under full load its threads hardly ever sleep; at 100 presses/s they sleep and wake
about ten times per press (``bot_wakeups=`` in bench_e2e.py's output). This measures the two
costs that come with a wake-up, apart from the bot:

- a wake-up alone: a thread that sleeps 10 ms in a loop (``time.sleep``), and an event loop
  (the bot's: uvloop where installed) that waits 10 ms in a loop (``asyncio.sleep``), CPU per
  wake-up;
- a unit of the bot's kind of work (five presses parsed as the bot parses getUpdates: orjson,
  the transport's trimming, python-telegram-bot's objects; a dictionary of a few hundred
  entries built): CPU per unit back to back, then each unit after an idle gap of 2 ms and
  10 ms, the wake-up's own CPU taken off.

Run: .venv/bin/python benchmarks/bench_wakeup.py [--units 500]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import orjson
from telegram import Update

from benchmarks._common import machine
from benchmarks.bench_ptb import CALLBACK_UPDATE
from bot import event_loop
from bot.transport import AiohttpRequest

# A press, with the table message it was pressed on, as Telegram sends it in getUpdates.
POLL = orjson.dumps({"ok": True, "result": [CALLBACK_UPDATE]})
GAPS = (0.002, 0.01)
ROUNDS = 3


def unit() -> int:
    """About half a millisecond of the bot's kind of work."""
    for _ in range(5):
        # As the bot's transport hands it over (without the message's text and keyboard).
        for update in AiohttpRequest.parse_json_payload(POLL)["result"]:
            Update.de_json(update, None)
    built = {str(n): [n, n, n] for n in range(300)}
    return len(built)


def cpu_per_call(call: Callable[[], object], times: int) -> float:
    """CPU seconds per call of ``call`` (this process: this is its only busy thread)."""
    start = time.process_time()
    for _ in range(times):
        call()
    return (time.process_time() - start) / times


def sleep_cost(gap: float, times: int) -> float:
    return cpu_per_call(lambda: time.sleep(gap), times)


def loop_sleep_cost(loop: asyncio.AbstractEventLoop, gap: float, times: int) -> float:
    async def wait() -> float:
        start = time.process_time()
        for _ in range(times):
            await asyncio.sleep(gap)
        return (time.process_time() - start) / times

    return loop.run_until_complete(wait())


def after_gap(gap: float, times: int) -> float:
    def slept_then_worked() -> None:
        time.sleep(gap)
        unit()

    return cpu_per_call(slept_then_worked, times) - sleep_cost(gap, times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--units", type=int, default=500, help="units of work per measurement")
    args = parser.parse_args()
    units = args.units
    unit()  # imports and caches warmed before anything is timed
    # Interleaved rounds, medians: the machine's other work comes and goes.
    wake, loop_wake, hot = [], [], []
    cold: dict[float, list[float]] = {gap: [] for gap in GAPS}
    loop = event_loop.install()
    try:
        for _ in range(ROUNDS):
            wake.append(sleep_cost(0.01, units))
            loop_wake.append(loop_sleep_cost(loop, 0.01, units))
            hot.append(cpu_per_call(unit, units))
            for gap in GAPS:
                cold[gap].append(after_gap(gap, units))
    finally:
        loop.close()
    median_hot = statistics.median(hot)
    after = ", ".join(
        f"after {gap * 1000:.0f} ms idle {statistics.median(cold[gap]) * 1e6:.0f} µs "
        f"({statistics.median(cold[gap]) / median_hot:.1f}×)"
        for gap in GAPS
    )
    print(
        f"wakeup: a sleeping thread {statistics.median(wake) * 1e6:.0f} µs CPU per wake-up, "
        f"the event loop ({type(loop).__module__}) {statistics.median(loop_wake) * 1e6:.0f} µs; "
        f"a unit of work back to back {median_hot * 1e6:.0f} µs CPU, {after} "
        f"(medians of {ROUNDS} rounds of {units}) ({machine()})"
    )


if __name__ == "__main__":
    main()
