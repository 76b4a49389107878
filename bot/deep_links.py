"""The deep link that opens the private chat with the bot from a group,
``https://t.me/<bot>?start=g<game id>``: built and read here only."""

from __future__ import annotations

import re

_PAYLOAD = re.compile(r"g([1-9]\d{0,11})")


def build(bot_username: str, game_id: int) -> str:
    return f"https://t.me/{bot_username.lstrip('@')}?start=g{game_id}"


def game_of(payload: str) -> int | None:
    """The game a /start payload names, or None when it names none."""
    match = _PAYLOAD.fullmatch(payload)
    return int(match.group(1)) if match else None
