"""``python -m benchmarks._run_bot [--unpaced] [--profile FILE]``: the bot's own ``main()`` (what
``python -m bot`` runs), optionally built without the PacedRateLimiter — to measure the bot itself
rather than the flood-limit pacing — and optionally under cProfile (stats written to FILE at
exit). Used by bench_e2e.py; set OCHKO_NO_VENV=1 and the bot's environment."""

from __future__ import annotations

import cProfile
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import bot.app as bot_app

if "--unpaced" in sys.argv[1:]:
    _build = bot_app.build_application

    def _unpaced(settings: Any, **kwargs: Any) -> Any:
        kwargs["rate_limiter"] = False
        return _build(settings, **kwargs)

    bot_app.build_application = _unpaced

args = sys.argv[1:]
if "--profile" in args:
    profiler = cProfile.Profile()
    profiler.runcall(bot_app.main)
    profiler.dump_stats(args[args.index("--profile") + 1])
else:
    bot_app.main()
