"""The seasons' texts: the current season's /top and the podium posted when a season ends."""

from __future__ import annotations

from babel.dates import format_date

from bot.i18n import t
from bot.render.common import MEDALS, escape_name, signed
from bot.render.info import leaderboard_rows
from bot.seasons import SeasonTop, local_day
from storage.models import Season


def season_days(starts_at: float, ends_at: float, utc_offset: int, lang: str) -> str:
    """«1 декабря – 31 декабря»: the first and the last day of a season, in its time zone."""
    first = format_date(local_day(starts_at, utc_offset), "d MMMM", locale=lang)
    last = format_date(local_day(ends_at - 1, utc_offset), "d MMMM", locale=lang)
    return f"{first} – {last}"


def season_top(top: SeasonTop, lang: str) -> str:
    """/top while the chat plays in seasons: the current season by what each won in it."""
    days = season_days(top.starts_at, top.ends_at, top.utc_offset, lang)
    head = [t("top-season", lang, number=top.number, days=days)]
    tail = []
    if top.champion is not None:
        _, name, number = top.champion
        tail.append(t("top-season-champion", lang, season=number, name=escape_name(name)))
    tail.append(t("top-season-all", lang))
    champion = top.champion[0] if top.champion is not None else None
    return leaderboard_rows(top.rows, lang, head, tail, period="season", champion=champion)


def season_podium(season: Season, utc_offset: int, lang: str) -> str:
    """The group's one message when a season with games ends: the podium, the champion."""
    days = season_days(season.starts_at, season.ends_at, utc_offset, lang)
    lines = [t("season-ended", lang, number=season.number, days=days)]
    for place, (_, name, net) in zip(MEDALS, season.podium, strict=False):
        lines.append(t("season-place", lang, place=place, name=escape_name(name), net=signed(net)))
    lines.append(t("season-champion", lang, name=escape_name(season.podium[0][1])))
    return "\n".join(lines)
