"""A player's balance over time as a PNG, rendered headless.

Only the object-oriented API of matplotlib is used — a ``Figure`` drawn by ``FigureCanvasAgg`` —
so nothing needs a display and no pyplot state is shared between renders. A render takes tens
to hundreds of milliseconds of CPU: call :func:`render_balance_chart` through
``asyncio.to_thread`` so the event loop never blocks.
"""

from __future__ import annotations

import importlib.util
import io
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from functools import cache
from itertools import groupby
from typing import TYPE_CHECKING

from babel.dates import format_interval, format_skeleton, format_time

from bot.i18n import number, t

if TYPE_CHECKING:  # matplotlib costs 0.75 s to import: only a chart being drawn pays for it
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

DPI = 100
TITLE_LIMIT = 48
# The narrowest time axis: over less than this the ticks would fall every few seconds, and
# seconds mean nothing on a chart of an evening's balance.
MIN_SPAN = timedelta(minutes=20)
# Up to this span the axis shows clock times (and the day in its label), beyond it dates.
HOURS_SPAN = timedelta(hours=36)
# Beyond this span the ticks are months (with their years): «1 Jan» of two years would repeat.
MONTHS_SPAN = timedelta(days=200)
# Matplotlib's caches (fonts, text layout) are not documented as thread-safe: one render at a time.
_RENDER_LOCK = threading.Lock()
LINE = "#1f6fb2"
START = "#777777"
GAIN = "#2e9e4f"
LOSS = "#d0453f"


@cache
def available() -> bool:
    """matplotlib is installed (the chart extra, `pip install 'ochko-bot[chart]'`): without it
    /chart answers so instead of drawing. Looked up, not imported (the import is slow)."""
    return importlib.util.find_spec("matplotlib") is not None


@cache
def _font_charmap() -> frozenset[int]:
    """The code points the default sans-serif font can draw (it covers Latin and Cyrillic)."""
    from matplotlib import font_manager
    from matplotlib.ft2font import FT2Font

    path = font_manager.findfont(font_manager.FontProperties(family=["sans-serif"]))
    return frozenset(FT2Font(path).get_charmap())


def clean_title(title: str, limit: int = TITLE_LIMIT) -> str:
    """The title on one line, short, and with only characters the font has (emoji and other
    missing glyphs are dropped instead of drawn as boxes)."""
    drawable = _font_charmap()
    text = "".join(ch for ch in " ".join(title.split()) if ord(ch) in drawable)
    text = " ".join(text.split())
    if len(text) > limit:
        text = text[: limit - 1].rstrip() + "…"
    return text


def thin(points: Sequence[tuple[float, int]], buckets: int) -> list[tuple[float, int]]:
    """At most about ``4 * buckets`` points that draw the same step line at this width: the
    time span is cut into ``buckets`` equal slices and each keeps its first, lowest, highest
    and last point, in order (so the start, the end and every extreme stay)."""
    if len(points) <= 4 * buckets:
        return list(points)
    first, last = points[0][0], points[-1][0]
    span = (last - first) or 1.0

    def bucket(i: int) -> int:
        return min(int((points[i][0] - first) / span * buckets), buckets - 1)

    def balance(i: int) -> int:
        return points[i][1]

    kept: set[int] = set()
    for _, group in groupby(range(len(points)), key=bucket):
        slice_ = list(group)
        kept |= {slice_[0], min(slice_, key=balance), max(slice_, key=balance), slice_[-1]}
    return [points[i] for i in sorted(kept)]


def _datenum(moment: datetime) -> float:
    """Matplotlib's number for a moment (days since its epoch); matplotlib.dates is untyped."""
    from matplotlib import dates as mdates

    return float(mdates.date2num(moment))  # type: ignore[no-untyped-call]


def _axis_span(times: Sequence[datetime]) -> tuple[datetime, datetime]:
    """The x range: the points with a little air, never narrower than :data:`MIN_SPAN`."""
    low, high = times[0], times[-1]
    if high - low < MIN_SPAN:
        middle = low + (high - low) / 2
        return middle - MIN_SPAN / 2, middle + MIN_SPAN / 2
    pad = (high - low) / 40
    return low - pad, high + pad


def time_axis(first: datetime, last: datetime, lang: str) -> tuple[str, str]:
    """The x axis for points from ``first`` to ``last``: what its ticks show ("time", "date" or
    "month") and its label (the days, or the years; UTC) — one kind per chart, never offsets in
    seconds."""
    if last - first <= HOURS_SPAN:
        days = format_interval(first.date(), last.date(), "MMMd", locale=lang)
        return "time", t("chart-axis_hours", lang, days=days)
    if first.year == last.year:
        return "date", t("chart-axis_dates", lang, years=str(first.year))
    years = t("chart-axis_dates", lang, years=f"{first.year}–{last.year}")
    return ("date" if last - first <= MONTHS_SPAN else "month"), years


def tick_label(value: float, kind: str, lang: str) -> str:
    """One x tick in the chat's language, by Babel: a clock time ("14:05" / "2:05 PM"; a midnight
    as its day), a day ("1 Dec" in Russian's own abbreviations), or a month with its year."""
    from matplotlib import dates as mdates

    moment: datetime = mdates.num2date(value, tz=UTC)  # type: ignore[no-untyped-call]
    if kind == "time" and (moment.hour or moment.minute):
        return format_time(moment, "short", tzinfo=UTC, locale=lang)
    if kind == "month":
        return format_skeleton("yMMM", moment, locale=lang)
    # A day; on a time axis, a midnight names the new day: «18:00 · 2 Dec · 06:00» reads
    # without a legend.
    return format_skeleton("MMMd", moment, locale=lang)


@contextmanager
def drawn(
    points: Sequence[tuple[float, int]], *, title: str, lang: str, size: tuple[int, int]
) -> Iterator[tuple[Figure, Axes]]:
    """The chart drawn onto an Agg canvas, under the render lock (the PNG's, and the axis texts
    its tests read)."""
    import matplotlib
    from matplotlib import dates as mdates
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.ticker import FuncFormatter, MaxNLocator

    if not points:
        raise ValueError("no points to chart")
    width, height = size
    if width <= 0 or height <= 0:
        raise ValueError(f"bad size {size!r}")
    points = thin(sorted(points, key=lambda point: point[0]), width)
    times = [datetime.fromtimestamp(ts, UTC) for ts, _ in points]
    balances = [int(balance) for _, balance in points]
    x = [_datenum(moment) for moment in times]
    start = balances[0]
    low, high = _axis_span(times)
    kind, axis_label = time_axis(times[0], times[-1], lang)
    with _RENDER_LOCK, matplotlib.rc_context({"font.family": "sans-serif", "font.size": 11}):
        figure = Figure(figsize=(width / DPI, height / DPI), dpi=DPI)
        FigureCanvasAgg(figure)  # attaches itself: savefig draws with Agg, no display
        ax = figure.add_subplot()
        ax.axhline(start, color=START, linestyle="--", linewidth=1.2, zorder=1)
        for color, sign in ((GAIN, 1), (LOSS, -1)):
            where = [(b - start) * sign >= 0 for b in balances]
            ax.fill_between(
                x, balances, start, where=where, step="post", color=color, alpha=0.15, linewidth=0
            )
        ax.step(
            x,
            balances,
            where="post",
            color=LINE,
            linewidth=1.8,
            marker="o" if len(points) <= 60 else None,
            markersize=3.5,
            zorder=3,
        )
        ax.set_xlim(_datenum(low), _datenum(high))
        locator = mdates.AutoDateLocator(  # type: ignore[no-untyped-call]
            tz=UTC, minticks=3, maxticks=7
        )
        ax.xaxis.set_major_locator(locator)
        ax.xaxis.set_major_formatter(FuncFormatter(lambda value, _: tick_label(value, kind, lang)))
        ax.yaxis.set_major_locator(MaxNLocator(nbins=6, integer=True))
        ax.yaxis.set_major_formatter(FuncFormatter(lambda value, _: number(round(value), lang)))
        bottom, top = min(*balances, start), max(*balances, start)
        margin = max((top - bottom) * 0.08, abs(start) * 0.05, 5.0)
        ax.set_ylim(bottom - margin, top + margin)
        ax.grid(True, color="#e4e4e4", linewidth=0.8)
        ax.set_axisbelow(True)
        for side in ("top", "right"):
            ax.spines[side].set_visible(False)
        ax.set_title(clean_title(title), fontsize=14, loc="left", parse_math=False)
        ax.set_ylabel(t("chart-axis_balance", lang), parse_math=False)
        ax.set_xlabel(axis_label, parse_math=False)
        figure.subplots_adjust(left=0.12, right=0.97, top=0.89, bottom=0.16)
        yield figure, ax


def render_balance_chart(
    points: Sequence[tuple[float, int]],
    *,
    title: str,
    lang: str,
    size: tuple[int, int] = (800, 450),
) -> bytes:
    """A PNG of exactly ``size`` pixels: the balance after each movement as a step line over
    time (UTC), the starting balance dashed, numbers and dates as ``lang`` writes them.
    ``points`` are (unix time, balance), oldest first, at least one."""
    with drawn(points, title=title, lang=lang, size=size) as (figure, _):
        out = io.BytesIO()
        figure.savefig(out, format="png", dpi=DPI)
    return out.getvalue()
