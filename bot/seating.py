"""Sitting down at a table: how many games a person may sit in, the chips a seat brings (the
chat balance; for a broke player, where the chat allows it, first refilled up to the starting
balance once a day, through the ledger) and the house banker's seat. The service calls it inside
the transaction of the action that seats someone."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar

from bot.errors import Refused
from bot.game_state import Meta
from bot.house import HOUSE_BALANCE, HOUSE_ID, house_name
from rules.errors import CannotCoverStake
from rules.events import Event
from rules.game import Game
from storage import ChatSettings, Refill, Transaction

# A broke player gets chips back up to the starting balance at most once in this many seconds
# (a rolling day: no time zone to guess, and the wait can be told exactly).
REFILL_PERIOD = 24 * 3600.0


@dataclass(frozen=True, slots=True)
class Refilled(Event):
    """Chips issued to a broke player as he sat down (not an engine event: the chips came
    into the chat's books before the engine seated him with them)."""

    kind: ClassVar[str] = "refilled"
    player: int
    amount: int
    balance: int


async def check_cap(tx: Transaction, user: int, chat_id: int, limit: int) -> None:
    """A person sits in at most ``limit`` games at once, and in one game per chat: a game
    seats a player with his chat balance, so two games of one chat (forum topics) would each
    spend the same chips."""
    games = await tx.seated_games(user)
    for game_id in games:
        other = await tx.load_game(game_id)
        if other is not None and other.chat_id == chat_id:
            raise Refused("seated_in_chat")
    if len(games) >= limit:
        raise Refused("user_game_limit", limit=limit)


async def seat_player(
    tx: Transaction,
    chat: ChatSettings,
    game: Game,
    user: int,
    name: str,
    *,
    starting_balance: int,
    clock: Callable[[], float],
) -> list[Event]:
    """Seat a person with his chat balance; a balance that cannot cover the smallest stake
    is first refilled (once a period, where the chat allows it) or the seat is refused
    with when chips come back. The refill is in the transaction of the seat: a refused
    seat (a full table) issues nothing, and a repeated press finds him seated."""
    player = await tx.ensure_player(chat.chat_id, user, name, starting_balance)
    game.verify_join(user, player.balance)
    balance, events = player.balance, list[Event]()
    try:
        game.verify_covers_seat(balance)
    except CannotCoverStake as error:
        refill = None
        if chat.daily_refill:
            refill = await tx.refill(chat.chat_id, user, starting_balance, period=REFILL_PERIOD)
            balance = refill.balance
        if refill is None or refill.amount == 0:
            raise _no_chips(error, refill, starting_balance, clock()) from None
        if not game.covers_seat(balance):  # a starting balance too small to play with
            raise Refused.from_rules(error) from None
        events.append(Refilled(user, refill.amount, balance))
    return events + game.join(user, balance)


def _no_chips(
    error: CannotCoverStake, refill: Refill | None, starting_balance: int, now: float
) -> Refused:
    """Why a broke player may not sit down, and how he gets chips back."""
    params = {**error.params, "refill": starting_balance}
    if refill is None:
        return Refused("no_chips_refill_off", **params)
    if refill.next_at is None:
        return Refused.from_rules(error)  # a starting balance too small to play with
    minutes = max(1, math.ceil((refill.next_at - now) / 60))
    return Refused("no_chips_wait", **params, hours=minutes // 60, minutes=minutes % 60)


async def seat_house(tx: Transaction, chat: ChatSettings, game: Game, meta: Meta) -> list[Event]:
    """Seat the house banker in a new lobby, with its chat balance (granted once)."""
    # The house's chips are one balance per chat: two tables of one chat (forum topics)
    # would both spend it, so the house banks at one table of a chat at a time.
    for game_id in await tx.seated_games(HOUSE_ID):
        other = await tx.load_game(game_id)
        if other is not None and other.chat_id == chat.chat_id:
            raise Refused("house_busy")
    name = house_name(chat.language)
    house = await tx.ensure_player(chat.chat_id, HOUSE_ID, name, HOUSE_BALANCE)
    meta.names[HOUSE_ID] = name
    return game.join(HOUSE_ID, house.balance, house=True)
