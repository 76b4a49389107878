"""The bot's metrics, in Prometheus' format (prometheus-client), served at ``/metrics``
(`bot.monitor`) when METRICS_ENABLED is set.

Every metric is registered on :data:`REGISTRY`, this module's own registry (not the client's
global one). Each fact is counted where it passes once: updates where PTB hands them to the
handlers (`bot.polling.CountedUpdates`), actions in `bot.actions`, Bot API calls in the
transport (`bot.transport`), the lanes' writes held back in `bot.lanes`; the gauges of things
that already exist as a number (the lanes' backlog, open Mini App pages, chat leases held) are
read when Prometheus scrapes (:func:`watch_lanes`, :func:`watch_pages`, :func:`watch_leases`).

No label's values grow with the chats or the people: kinds, outcomes, refusal codes, Bot API
method names and results only — never a chat id, a user id, a name, a card or a token.

Counting is off unless :func:`enable` is called (METRICS_ENABLED): then every helper returns at
once, and the benchmark's "metrics off" is the bot as it runs without them.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from contextvars import ContextVar

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram
from prometheus_client.exposition import CONTENT_TYPE_LATEST, generate_latest

__all__ = ["CONTENT_TYPE_LATEST", "REGISTRY"]

REGISTRY = CollectorRegistry()
# Latencies from a millisecond to a few seconds: a press is answered in tens of milliseconds,
# a commit in a few; the top buckets catch a stalled database or event loop.
LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
UPDATE_KINDS = (
    "message",
    "command",
    "callback_query",
    "edited_message",
    "my_chat_member",
    "chat_member",
    "web_app",
    "other",
)
ACTION_OUTCOMES = ("done", "repeated", "ignored", "refused")
BOTAPI_RESULTS = ("ok", "flood", "refused", "transient")
CHAT_KINDS = ("group", "private")

UPDATES = Counter(
    "ochko_updates", "Updates received from Telegram, by kind", ["kind"], registry=REGISTRY
)
ACTIONS = Counter(
    "ochko_actions",
    "Game actions by command and outcome (reason: the refusal's code when refused)",
    ["kind", "outcome", "reason"],
    registry=REGISTRY,
)
BOTAPI_REQUESTS = Counter(
    "ochko_botapi_requests",
    "Bot API requests by method and result (flood: 429; refused: a lasting 4xx)",
    ["method", "result"],
    registry=REGISTRY,
)
LANE_BACKLOG = Gauge(
    "ochko_lane_backlog",
    "Writes waiting in all chat lanes of a kind",
    ["chat_kind"],
    registry=REGISTRY,
)
LANE_BACKLOG_MAX = Gauge(
    "ochko_lane_backlog_max",
    "Writes waiting in the longest single chat lane of a kind",
    ["chat_kind"],
    registry=REGISTRY,
)
LANE_HELD = Counter(
    "ochko_lane_held",
    "Writes a chat lane held back: coalesced into a newer one, or deferred for the budget",
    ["chat_kind"],
    registry=REGISTRY,
)
PRESS_ANSWER = Histogram(
    "ochko_press_answer_seconds",
    "From a button press received to its answerCallbackQuery sent",
    buckets=LATENCY_BUCKETS,
    registry=REGISTRY,
)
COMMIT = Histogram(
    "ochko_commit_seconds",
    "An action's transaction, from the service's start to its commit",
    buckets=LATENCY_BUCKETS,
    registry=REGISTRY,
)
ACTIVE_TABLES = Gauge(
    "ochko_active_tables",
    "Games in progress (lobbies included) in the chats this process delivers",
    registry=REGISTRY,
)
MINIAPP_PAGES = Gauge("ochko_miniapp_pages", "Open Mini App live pages", registry=REGISTRY)
GAMES_HELD = Gauge(
    "ochko_games_held",
    "Chats (each with its games) whose lease this replica holds",
    registry=REGISTRY,
)
LEASE_CHANGES = Counter(
    "ochko_lease_changes",
    "Chat leases this replica acquired or lost",
    ["change"],
    registry=REGISTRY,
)
REPLICA_LEASE = Gauge(
    "ochko_replica_lease",
    "1 while this process holds its replica lease (one process: writes its heartbeat), else 0",
    registry=REGISTRY,
)
LAST_UPDATE = Gauge(
    "ochko_last_update_timestamp_seconds",
    "Unix time of the last update received",
    registry=REGISTRY,
)

_on = False
# When the update being handled in this task was received (monotonic): a press's answer
# measures from it.
_received: ContextVar[float | None] = ContextVar("ochko_received", default=None)


def enable(on: bool = True) -> None:
    """Count from now on (METRICS_ENABLED), or stop counting."""
    global _on
    _on = on


def enabled() -> bool:
    return _on


def exposition() -> bytes:
    """Every metric in Prometheus' text format."""
    return generate_latest(REGISTRY)


# ---------------------------------------------------------------- updates and presses


def update_received(update: object) -> None:
    """An update reaches the handlers (polling or webhook): its kind, its time, and the start
    of a press's clock (:func:`press_answered`, in the same task)."""
    if not _on:
        return
    _received.set(time.monotonic())
    UPDATES.labels(update_kind(update)).inc()
    LAST_UPDATE.set(time.time())


def update_kind(update: object) -> str:
    """One of :data:`UPDATE_KINDS` (a command is a message whose text starts with one)."""
    if getattr(update, "callback_query", None) is not None:
        return "callback_query"
    message = getattr(update, "message", None)
    if message is not None:
        if getattr(message, "web_app_data", None) is not None:
            return "web_app"
        text = getattr(message, "text", None)
        return "command" if isinstance(text, str) and text.startswith("/") else "message"
    for kind in ("edited_message", "my_chat_member", "chat_member"):
        if getattr(update, kind, None) is not None:
            return kind
    return "other"


def press_answered() -> None:
    """The press being handled in this task got its answerCallbackQuery."""
    if not _on:
        return
    received = _received.get()
    if received is not None:
        PRESS_ANSWER.observe(time.monotonic() - received)


# ---------------------------------------------------------------- actions


def action(kind: str, outcome: str, reason: str = "") -> None:
    """A game command ended: ``outcome`` one of :data:`ACTION_OUTCOMES`, ``reason`` the
    refusal's code (refused) else empty."""
    if _on:
        ACTIONS.labels(kind, outcome, reason).inc()


def committed(seconds: float) -> None:
    if _on:
        COMMIT.observe(seconds)


# ---------------------------------------------------------------- the Bot API and the lanes


def botapi(method: str, result: str) -> None:
    """A Bot API request answered: ``result`` one of :data:`BOTAPI_RESULTS`."""
    if _on:
        BOTAPI_REQUESTS.labels(method, result).inc()


def held(group: bool) -> None:
    """A lane held a write back (coalesced into a newer one, or deferred for its budget)."""
    if _on:
        LANE_HELD.labels("group" if group else "private").inc()


def watch_lanes(backlogs: Callable[[], Iterable[tuple[bool, int]]]) -> None:
    """The lanes' backlog, read at each scrape: ``backlogs`` gives (is a group, writes
    waiting) of every lane."""

    def reader(group: bool, pick: Callable[[list[int]], int]) -> Callable[[], float]:
        return lambda: float(pick([n for is_group, n in backlogs() if is_group is group] or [0]))

    for kind, group in (("group", True), ("private", False)):
        LANE_BACKLOG.labels(kind).set_function(reader(group, sum))
        LANE_BACKLOG_MAX.labels(kind).set_function(reader(group, max))


# ---------------------------------------------------------------- tables, pages, leases


def watch_pages(open_pages: Callable[[], int]) -> None:
    """The Mini App's open pages, read at each scrape."""
    MINIAPP_PAGES.set_function(lambda: float(open_pages()))


def watch_leases(held_chats: Callable[[], int]) -> None:
    """The chats whose lease this replica holds, read at each scrape."""
    GAMES_HELD.set_function(lambda: float(held_chats()))


def active_tables(count: int) -> None:
    if _on:
        ACTIVE_TABLES.set(count)


def lease_changed(change: str) -> None:
    """A chat lease ``acquired`` or ``lost``."""
    if _on:
        LEASE_CHANGES.labels(change).inc()


def replica_lease(holding: bool) -> None:
    if _on:
        REPLICA_LEASE.set(1 if holding else 0)
