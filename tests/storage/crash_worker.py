"""Applies game actions in a loop until it is killed; driven by test_crash.py.

usage: crash_worker.py DATABASE_URL SEED FIRST_UPDATE_ID [TASKS]
Prints "ready" once storage is open. Action n: claim update n, save chat (n % 2 + 1)'s game with
{"last": n}, apply 2 + n % 2 random transfers with reason "a<n>", add one stats round. With
TASKS > 1, that many tasks apply actions concurrently and print "ack N" once action N returned.
"""

from __future__ import annotations

import asyncio
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from storage import (
    Account,
    ConcurrencyConflict,
    StatsDelta,
    Transaction,
    Transfer,
    open_storage,
)

CHATS = (1, 2)
USERS = (1, 2, 3, 4)


def chat_of(n: int) -> int:
    return n % 2 + 1


def transfers_of(n: int) -> int:
    return 2 + n % 2


async def act(tx: Transaction, n: int, rng: random.Random) -> None:
    chat = chat_of(n)
    if not await tx.claim_update(n):
        raise SystemExit(f"update {n} was already processed")
    game = await tx.load_active_game(chat, 0)
    assert game is not None
    await tx.save_game(
        game.game_id,
        expected_version=game.version,
        state={"last": n, "pad": "x" * rng.randrange(10, 4000)},
        status="active",
        deadline=float(n),
    )
    balances: dict[Account, int] = {Account.bank(game.game_id): game.bank}
    for user in USERS:
        player = await tx.get_player(chat, user)
        assert player is not None
        balances[Account.player(user)] = player.balance
    transfers = []
    for _ in range(transfers_of(n)):
        source = rng.choice([a for a, b in balances.items() if b > 0])
        target = rng.choice([a for a in balances if a != source])
        amount = rng.randint(1, min(50, balances[source]))
        balances[source] -= amount
        balances[target] += amount
        transfers.append(Transfer(source, target, amount, f"a{n}"))
    await tx.apply_transfers(chat, game.game_id, n, transfers)
    await tx.add_stats(chat, rng.choice(USERS), StatsDelta(rounds=1, net=rng.randint(-9, 9)))


async def main(database_url: str, seed: int, first: int, tasks: int) -> None:
    rng = random.Random(seed)
    storage = open_storage(database_url)
    await storage.start()
    print("ready", flush=True)
    if tasks == 1:
        n = first
        while True:
            async with storage.transaction() as tx:
                await act(tx, n, rng)
            n += 1
    # Concurrent writers. Each takes the next update id inside its block. On SQLite they share
    # group commits: blocks run one at a time, so ids are applied (and committed) in order, and
    # a conflict would be a bug. On PostgreSQL transactions run side by side on the pool: two on
    # one game race, the loser gets ConcurrencyConflict with nothing committed and runs its
    # action again, as the bot does; ids then commit out of order. "ack N" is printed once the
    # block has returned, i.e. once action N is acknowledged as durable.
    following = [first]
    retry = not database_url.startswith("sqlite:")

    async def writer() -> None:
        while True:
            n = None
            while True:
                try:
                    async with storage.transaction() as tx:
                        if n is None:
                            n = following[0]
                            following[0] += 1
                        await act(tx, n, rng)
                    break
                except ConcurrencyConflict:
                    if not retry:
                        raise
            print(f"ack {n}", flush=True)

    await asyncio.gather(*(writer() for _ in range(tasks)))


if __name__ == "__main__":
    tasks = int(sys.argv[4]) if len(sys.argv) > 4 else 1
    asyncio.run(main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), tasks))
