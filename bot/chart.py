"""A player's balance over time as a PNG, rendered headless.

Only the object-oriented API of matplotlib is used — a ``Figure`` drawn by ``FigureCanvasAgg`` —
so nothing needs a display and no pyplot state is shared between renders. A render takes tens
to hundreds of milliseconds of CPU: call :func:`render_balance_chart` through
``asyncio.to_thread`` (as :func:`render_balance_chart_async` does) so the event loop never blocks.
"""

from __future__ import annotations

import asyncio
import io
import threading
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from functools import cache

import matplotlib
from matplotlib import dates as mdates
from matplotlib import font_manager
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.ft2font import FT2Font
from matplotlib.ticker import MaxNLocator, StrMethodFormatter

from bot.i18n import t

DPI = 100
TITLE_LIMIT = 48
# A lone point (or points within a minute) is shown on an axis this wide around it.
MIN_SPAN = timedelta(minutes=30)
# Matplotlib's caches (fonts, text layout) are not documented as thread-safe: one render at a time.
_RENDER_LOCK = threading.Lock()

LINE = "#1f6fb2"
START = "#777777"
GAIN = "#2e9e4f"
LOSS = "#d0453f"


@cache
def _font_charmap() -> frozenset[int]:
    """The code points the default sans-serif font can draw (it covers Latin and Cyrillic)."""
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
    kept: list[int] = []
    bucket_of = None
    low = high = 0
    for i, (ts, balance) in enumerate(points):
        bucket = min(int((ts - first) / span * buckets), buckets - 1)
        if bucket != bucket_of:
            if bucket_of is not None:
                kept.extend(sorted({low, high, i - 1}))
            kept.append(i)
            bucket_of, low, high = bucket, i, i
        elif balance < points[low][1]:
            low = i
        elif balance > points[high][1]:
            high = i
    kept.extend(sorted({low, high, len(points) - 1}))
    return [points[i] for i in sorted(set(kept))]


def _datenum(moment: datetime) -> float:
    """Matplotlib's number for a moment (days since its epoch); matplotlib.dates is untyped."""
    return float(mdates.date2num(moment))  # type: ignore[no-untyped-call]


def render_balance_chart(
    points: Sequence[tuple[float, int]],
    *,
    title: str,
    lang: str,
    size: tuple[int, int] = (800, 450),
) -> bytes:
    """A PNG of exactly ``size`` pixels: the balance after each movement as a step line over
    time (UTC dates), the starting balance dashed. ``points`` are (unix time, balance), oldest
    first, at least one."""
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
    low, high = times[0], times[-1]
    if high - low < timedelta(minutes=1):
        low, high = low - MIN_SPAN, high + MIN_SPAN
    else:
        pad = (high - low) / 40
        low, high = low - pad, high + pad

    with _RENDER_LOCK, matplotlib.rc_context({"font.family": "sans-serif", "font.size": 11}):
        figure = Figure(figsize=(width / DPI, height / DPI), dpi=DPI)
        FigureCanvasAgg(figure)  # attaches itself: savefig draws with Agg, no display
        ax = figure.add_subplot()
        ax.axhline(start, color=START, linestyle="--", linewidth=1.2, zorder=1)
        ax.fill_between(
            x,
            balances,
            start,
            where=[b >= start for b in balances],
            step="post",
            color=GAIN,
            alpha=0.15,
            linewidth=0,
        )
        ax.fill_between(
            x,
            balances,
            start,
            where=[b <= start for b in balances],
            step="post",
            color=LOSS,
            alpha=0.15,
            linewidth=0,
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
        # matplotlib.dates has no type annotations.
        locator = mdates.AutoDateLocator(tz=UTC, minticks=3, maxticks=8)  # type: ignore[no-untyped-call]
        formatter = mdates.ConciseDateFormatter(locator, tz=UTC)  # type: ignore[no-untyped-call]
        ax.xaxis.set_major_locator(locator)
        ax.xaxis.set_major_formatter(formatter)
        ax.yaxis.set_major_locator(MaxNLocator(nbins=6, integer=True))
        ax.yaxis.set_major_formatter(StrMethodFormatter("{x:,.0f}"))
        bottom, top = min(*balances, start), max(*balances, start)
        margin = max((top - bottom) * 0.08, abs(start) * 0.05, 5.0)
        ax.set_ylim(bottom - margin, top + margin)
        ax.grid(True, color="#e4e4e4", linewidth=0.8)
        ax.set_axisbelow(True)
        for side in ("top", "right"):
            ax.spines[side].set_visible(False)
        ax.set_title(clean_title(title), fontsize=14, loc="left", parse_math=False)
        ax.set_ylabel(t("chart-axis_balance", lang), parse_math=False)
        ax.set_xlabel(t("chart-axis_time", lang), parse_math=False)
        figure.subplots_adjust(left=0.11, right=0.97, top=0.89, bottom=0.16)
        out = io.BytesIO()
        figure.savefig(out, format="png", dpi=DPI)
    return out.getvalue()


async def render_balance_chart_async(
    points: Sequence[tuple[float, int]],
    *,
    title: str,
    lang: str,
    size: tuple[int, int] = (800, 450),
) -> bytes:
    """:func:`render_balance_chart` in a worker thread."""
    return await asyncio.to_thread(
        render_balance_chart, list(points), title=title, lang=lang, size=size
    )
