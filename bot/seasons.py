"""A chat's seasons (a setting: off, a calendar week or month in the chat's time zone), the
days they span and who wears the champion's 🏆: pure functions of the settings and the time.

A season is stored when it ends, and only if anyone played (`storage.Season`); its champion
wears 🏆 until the season after his ends (``ChatSettings.champion_until``).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Final

from storage.models import ChatSettings, LeaderboardRow

OFF: Final = "off"
LENGTHS: Final = (OFF, "week", "month")
OFFSETS: Final = tuple(range(13))  # hours east of UTC a chat may set (Russia: +2 … +12)
TROPHY: Final = "🏆"
HOUR: Final = 3600


def bounds(length: str, utc_offset: int, now: float) -> tuple[float, float]:
    """The unix times [start, end) of the season of ``length`` ("week": Monday to Monday,
    "month": the 1st to the 1st, both from midnight ``utc_offset`` hours east of UTC) that
    ``now`` falls in."""
    shift = utc_offset * HOUR
    local = datetime.fromtimestamp(now + shift, UTC)
    if length == "week":
        monday = local.date() - timedelta(days=local.weekday())
        start = datetime(monday.year, monday.month, monday.day, tzinfo=UTC)
        end = start + timedelta(days=7)
    elif length == "month":
        start = datetime(local.year, local.month, 1, tzinfo=UTC)
        end = datetime(local.year + local.month // 12, local.month % 12 + 1, 1, tzinfo=UTC)
    else:
        raise ValueError(f"no seasons of length {length!r}")
    return start.timestamp() - shift, end.timestamp() - shift


def current(chat: ChatSettings, now: float) -> tuple[float, float] | None:
    """The chat's season now, or None when it plays without seasons."""
    return None if chat.season == OFF else bounds(chat.season, chat.utc_offset, now)


def just_ended(chat: ChatSettings, now: float) -> tuple[float, float] | None:
    """The chat's season that ended last, by ``now``: the one before the current."""
    season = current(chat, now)
    return None if season is None else bounds(chat.season, chat.utc_offset, season[0] - 1)


def champion(chat: ChatSettings, now: float) -> int | None:
    """Who wears 🏆 in the chat now: the last season's champion, through the next season (and
    not while the chat plays without seasons)."""
    if chat.season == OFF or chat.champion is None or now >= chat.champion_until:
        return None
    return chat.champion


def crowned(names: dict[int, str], chat: ChatSettings, now: float) -> dict[int, str]:
    """The display names with 🏆 before the champion's, when he is among them."""
    wearer = champion(chat, now)
    if wearer is None or wearer not in names:
        return names
    return names | {wearer: f"{TROPHY} {names[wearer]}"}


def local_day(moment: float, utc_offset: int) -> datetime:
    """The date (as midnight, UTC-labelled) a moment falls on in the chat's time zone."""
    local = datetime.fromtimestamp(moment + utc_offset * HOUR, UTC)
    return datetime(local.year, local.month, local.day, tzinfo=UTC)


@dataclass(frozen=True, slots=True)
class SeasonTop:
    """The current season's table: its number, its days [start, end) in the chat's time zone,
    the players by what they won in it, and the champion wearing 🏆 (user, name, his season)."""

    number: int
    starts_at: float
    ends_at: float
    utc_offset: int
    rows: list[LeaderboardRow]
    champion: tuple[int, str, int] | None
