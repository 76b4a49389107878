"""The send path alone: CPU per request through the chats' lanes and the rate limiter.

No network and no bot: ``--chats`` chats (half groups, half private chats) each want
``--steps`` game steps a round, for ``--rounds`` rounds a little over a second apart (past every
chat's spacing); a step's request goes through `PacedRateLimiter.process_request` with the
lane's arguments to a callback that answers at once. The bot-wide rate is set out of reach, so
what is measured is the bookkeeping: the lanes' budgets, the bot's turns, the sleeps and wakes
of the lanes' tasks. The process's CPU time over the rounds, per request.

``--repo`` runs another checkout's `bot` package (the code before a change, say): the arguments
this uses of it (``Lanes(provider, limiter)``, ``Step``, ``Priority``,
``PacedRateLimiter(overall_per_second=…)``) have not changed since the lanes came.

Run: .venv/bin/python benchmarks/bench_lanes.py [--chats 6000 --steps 1 --rounds 4]
     [--repo /path/to/other/checkout]
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import sys
import time
from collections.abc import Hashable
from pathlib import Path
from typing import Any


async def run(args: argparse.Namespace) -> str:
    lanes_module = importlib.import_module("bot.lanes")
    ratelimit = importlib.import_module("bot.ratelimit")
    limiter = ratelimit.PacedRateLimiter(overall_per_second=1_000_000)
    chats = [-1000 - n for n in range(args.chats // 2)]
    chats += [1000 + n for n in range(args.chats - len(chats))]
    left: dict[int, int] = {}
    answered = 0
    expected = 0
    round_done = asyncio.Event()

    async def callback(*_: Any, **__: Any) -> bool:
        nonlocal answered
        answered += 1
        if answered == expected:
            round_done.set()
        return True

    class Provider:
        def next_step(self, key: Hashable, chat_id: int, *, edits_now: bool = True) -> Any:
            if not left.get(chat_id):
                return None

            async def send() -> object:
                left[chat_id] -= 1
                return await limiter.process_request(
                    callback, (), {}, "sendMessage", {"chat_id": chat_id}, {"reserved": True}
                )

            return lanes_module.Step(lanes_module.Priority.GAME, send, "step")

        async def chat_lost(self, chat_id: int, verdict: Any) -> None:
            return None

        async def chat_migrated(self, old_chat_id: int, new_chat_id: int) -> None:
            return None

    lanes = lanes_module.Lanes(Provider(), limiter)
    cpu, wall = time.process_time(), time.monotonic()
    for _ in range(args.rounds):
        expected += len(chats) * args.steps
        round_done.clear()
        for chat in chats:
            left[chat] = args.steps
            lanes.want(chat, "game")
        await round_done.wait()
        await asyncio.sleep(1.2)  # past every chat's spacing: idle, no CPU
    used = time.process_time() - cpu
    await lanes.stop()
    where = Path(sys.modules["bot.lanes"].__file__ or "?").parents[1]
    return (
        f"lanes {where}: chats={args.chats} steps={args.steps} rounds={args.rounds} "
        f"requests={answered} cpu={used / max(1, answered) * 1e6:.1f} µs/request "
        f"wall={time.monotonic() - wall:.1f}s"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chats", type=int, default=6000, help="half groups, half private")
    parser.add_argument("--steps", type=int, default=1, help="game steps per chat a round")
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--repo", type=Path, default=Path(__file__).resolve().parents[1])
    args = parser.parse_args()
    sys.path.insert(0, str(args.repo.resolve()))
    print(asyncio.run(run(args)))


if __name__ == "__main__":
    main()
