"""The garbage collector's settings for the bot process: a long-running event loop whose
start-up heap (python-telegram-bot, pydantic, the catalogs, every module) lives as long as the
process, and whose actions each make and drop a few hundred containers.

With CPython's default thresholds (700, 10, 10) a young collection ran every few actions and a
full one, walking the whole heap with the event loop stopped (up to 0.2 s), several times a
minute: 2.7–3.3 s of the bot's CPU over a full-load run of benchmarks/bench_e2e.py at 200 groups
(docs/performance.md). Reference counting frees almost all of an action's garbage anyway; the
collector is only needed for cycles (an exception and its traceback, a future and its
callbacks), and those can wait a little.
"""

from __future__ import annotations

import gc

# A young collection after 5,000 more containers made than freed, an older one after 80 of
# those, a full one after 10 of those — and then only if the heap has grown by a quarter since
# the last (CPython's own rule). A young collection walks every container made since the last
# one and still alive, about twice the threshold here (what the bot frees meanwhile is mostly
# older, and counts against it): with 20,000 one stopped the event loop for 14–27 ms of CPU
# (the median; up to 49 ms) five times in 20 s at 100 presses/s, each pause delaying every
# press that came meanwhile; with 5,000 the median is 3–5 ms (the longest 14–29 ms), and the
# collector's CPU stays under 0.1 ms per action (docs/performance.md, 2026-12-03, measured on
# a loaded machine). The older generation is collected as rarely as before.
THRESHOLDS = (5_000, 80, 10)


def settle() -> None:
    """Once, after start-up and before the first update: what exists now is kept for the
    process's life, so the collector stops walking it (``gc.freeze``), and collections of
    what comes after run less often. (Not in tests that build the application in-process:
    their heaps come and go.)"""
    gc.collect()
    gc.freeze()
    gc.set_threshold(*THRESHOLDS)
