"""A settled round's achievements, recorded in the round's own transaction: what the round
earned (rules/achievements.py, with what the records say of each person), less the house,
recorded once per person and chat; those earned for the first time go into the result the
chat is shown (``RoundSettled.earned``)."""

from __future__ import annotations

from dataclasses import replace

from bot.house import HOUSE_ID
from rules.achievements import STREAK, History, candidates, earned
from rules.events import RoundSettled
from rules.variants import Variant
from storage import Transaction


async def record_round(
    tx: Transaction,
    chat_id: int,
    game_id: int,
    event: RoundSettled,
    variant: Variant,
    starting: int,
) -> RoundSettled:
    """The round's result with the achievements it earned first (after its statistics are
    written: a streak counts this round)."""
    winners, rich = candidates(event, starting)
    history: dict[int, History] = {}
    for person in winners:
        history[person] = History(streak=await tx.win_streak(chat_id, person, STREAK))
    for person in rich:
        refilled = await tx.last_refill(chat_id, person) is not None
        history[person] = replace(history.get(person, History()), refilled=refilled)
    found = [
        (person, code)
        for person, code in earned(event, variant, starting=starting, history=history)
        if person != HOUSE_ID
    ]
    first = await tx.record_achievements(chat_id, game_id, event.round_no, found) if found else []
    return replace(event, earned=tuple(first)) if first else event
