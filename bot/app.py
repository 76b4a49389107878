"""Building and running the application: settings → logging → PTB Application → polling or
webhook. Services open in post_init and close in post_shutdown; nothing happens at import."""

from __future__ import annotations

import asyncio
import logging
import sys
from functools import partial
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError
from telegram import (
    BotCommand,
    BotCommandScopeAllGroupChats,
    BotCommandScopeAllPrivateChats,
    LinkPreviewOptions,
    Update,
)
from telegram.constants import ParseMode
from telegram.error import InvalidToken, NetworkError, TelegramError
from telegram.ext import Application, ApplicationBuilder, Defaults
from telegram.request import BaseRequest

from bot import commands, event_loop, heap, logs, metrics
from bot.handlers import endgame, seasons
from bot.handlers.common import Runtime
from bot.health import beat
from bot.i18n import LANGUAGES
from bot.polling import CountedUpdates, PolledRequest, PollPace
from bot.ratelimit import PacedRateLimiter
from bot.replicas import ORPHAN_SECONDS
from bot.scheduler import Clock, Scheduler
from bot.service import Command, GameService, Refused, Request
from bot.settings import Settings, describe_error
from bot.startup import (
    StartupError,
    StartupNoise,
    only_the_token_is_missing,
    rejection,
    unreachable,
    wait_for_bot_api,
    without_token,
)
from bot.transport import AiohttpRequest

if TYPE_CHECKING:
    from bot.monitor import Monitor
from storage import Storage, StorageError, open_storage

log = logging.getLogger("bot")
SWEEP_INTERVAL = 60.0
HEARTBEAT_INTERVAL = 30.0
PRUNE_INTERVAL = 3600.0
# Update ids are kept a day: Telegram re-sends an update for at most 24 hours, and may start
# its ids anew only after a week of silence, so no new update can meet an old id.
PROCESSED_KEEP = 86_400.0
SHOWN_KEEP = 7 * 86_400.0  # a message's digest, kept for a week after it was last shown
DRAIN_SECONDS = 5.0
SHARED_DRAIN_SECONDS = 2.0
# While the bot still handles a batch of updates, the next getUpdates waits for it, at most
# this long after the batch came (bot/polling.py): a busy bot's updates come in batches whose
# transactions share commits. Once a batch is handled the bot asks again at once. A fixed
# 20 ms after every batch had cut CPU per action by 29 % at 100 presses/s, but half of the
# p50 from press to answer (19 ms) was the wait for the next poll; asking at once costs about
# a quarter more CPU per action at that rate again, not measurably more at full load
# (docs/performance.md, 2026-12-03).
POLL_INTERVAL = 0.02
# Every message the bot writes is HTML (names escaped, `bot.render`), and none shows a link's
# preview: the deep link would otherwise grow a card under the table.
DEFAULTS = Defaults(
    parse_mode=ParseMode.HTML, link_preview_options=LinkPreviewOptions(is_disabled=True)
)


def build_application(
    settings: Settings,
    *,
    request: BaseRequest | None = None,
    rate_limiter: bool = True,
    clock: Clock | None = None,
) -> Application[Any, Any, Any, Any, Any, Any]:
    """The application; ``request`` replaces the HTTP transport (offline handler tests),
    ``clock`` the wall clock of everything the bot judges or does by time (tests move it)."""
    base = settings.bot_api_base_url.rstrip("/")
    pace = PollPace(POLL_INTERVAL)
    file_base = base[: -len("/bot")] + "/file/bot" if base.endswith("/bot") else base + "/file"
    builder = (
        ApplicationBuilder()
        .token(settings.bot_token.get_secret_value())
        .base_url(base)
        .base_file_url(file_base)
        .defaults(DEFAULTS)
        .concurrent_updates(CountedUpdates(256, pace))
        .job_queue(None)  # everything timed runs on the one scheduler (bot/scheduler.py)
        .post_init(post_init)
        .post_stop(post_stop)
        .post_shutdown(post_shutdown)
    )
    if rate_limiter:
        builder = builder.rate_limiter(PacedRateLimiter())  # type: ignore[arg-type]
    if request is None:
        # Our aiohttp transport: a third of the CPU of PTB's default per Bot API call.
        builder = builder.request(AiohttpRequest(256)).get_updates_request(PolledRequest(pace, 2))
    else:
        builder = builder.request(request).get_updates_request(request)
    application = builder.build()
    application.bot_data["settings"] = settings
    application.bot_data["poll_pace"] = pace if request is None else None
    application.bot_data["clock"] = clock if clock is not None else Clock()
    commands.register(application)
    return application


async def post_init(application: Application[Any, Any, Any, Any, Any, Any]) -> None:
    settings: Settings = application.bot_data["settings"]
    clock: Clock = application.bot_data["clock"]
    storage = open_storage(
        settings.database_url,
        synchronous=settings.sqlite_synchronous,
        default_language=settings.default_language,
        clock=clock,
    )
    await storage.start()
    service = GameService(
        storage,
        starting_balance=settings.starting_balance,
        turn_timeout=settings.turn_timeout,
        max_games_per_user=settings.max_games_per_user,
        clock=clock,
    )
    limiter = application.bot.rate_limiter
    rt = Runtime(
        settings=settings,
        service=service,
        bot=application.bot,
        limiter=limiter if isinstance(limiter, PacedRateLimiter) else None,
        help_sections=commands.sections,
        # PostgreSQL may be shared with other bot processes (replicas behind a webhook); an
        # SQLite file belongs to one process.
        shared=not settings.database_url.lower().startswith("sqlite:"),
        scheduler=Scheduler(clock),
    )
    timers, delivery, scheduler = rt.timers, rt.delivery, rt.scheduler
    delivery.lanes.started = delivery.lanes.clock()  # what a killed process sent is unknown
    application.bot_data["runtime"] = rt
    # A game seen in a season arms the end of that season (`bot.handlers.seasons`).
    delivery.followers.append(seasons.SeasonWatch(rt))
    metrics.enable(settings.metrics_enabled)
    # One process holds every chat (no leases): its "replica lease" is held while it runs.
    metrics.replica_lease(rt.replica is None)
    metrics.watch_lanes(delivery.lanes.backlogs)
    if rt.replica is not None:
        replica = rt.replica
        metrics.watch_leases(lambda: len(replica.held()))
    monitor = await _start_monitor(application, rt, settings)
    if settings.webapp_url:
        await _start_miniapp(application, rt, settings, monitor)
    elif monitor is not None:
        await monitor.serve(settings.metrics_listen, settings.metrics_port)
    if rt.replica is not None:
        # Before anything is sent: the overall flood budget is shared from the first message.
        await rt.replica.heartbeat()
    await prune(storage, clock())
    # Timers come back from the stored deadlines; overdue ones fire at once.
    for game_id, deadline in await storage.games_with_deadlines():
        timers.arm(game_id, deadline)
    # A crash can leave what the chats show behind the stored state (a result still in the
    # outbox, a table not yet edited, a prompt whose clock never started): show those games,
    # and only those, once.
    for game_id in sorted(
        set(await storage.stale_views()) | set(await storage.games_awaiting_clock())
    ):
        await delivery.load(game_id)
    # Deadlines kept in the database beside the games' (an unanswered «end the game?»).
    rt.deadlines.kind(endgame.ASK_KIND, partial(endgame.ask_expired, rt))
    # The end of each chat's season (its podium), armed by the games seen in it.
    rt.deadlines.kind(seasons.KIND, partial(seasons.season_ended, rt))
    await rt.deadlines.restore()
    timers.start()
    if rt.replica is not None:
        rt.replica.start(scheduler)
        scheduler.every(("deadlines",), ORPHAN_SECONDS, rt.deadlines.look)
    try:
        for code, private, entries in command_menus(settings.default_language):
            scope = BotCommandScopeAllPrivateChats() if private else BotCommandScopeAllGroupChats()
            await application.bot.set_my_commands(entries, scope=scope, language_code=code)
    except TelegramError as error:
        log.warning("could not register the command menu: %s", error)
    scheduler.every(("sweep",), SWEEP_INTERVAL, partial(sweep_stale, rt), first=5.0)
    await heartbeat()
    scheduler.every(("heartbeat",), HEARTBEAT_INTERVAL, heartbeat)
    scheduler.every(("prune",), PRUNE_INTERVAL, partial(prune_job, rt))
    if monitor is not None:
        monitor.start(scheduler)
    scheduler.start()
    log.info("started as @%s, %d timers re-armed", application.bot.username, timers.pending())


async def _start_monitor(
    application: Application[Any, Any, Any, Any, Any, Any], rt: Runtime, settings: Settings
) -> Monitor | None:
    """/healthz, /readyz and /metrics (`bot.monitor`), when the bot runs a web server: the
    Mini App's, or one of their own for the metrics."""
    if not (settings.webapp_url or settings.metrics_enabled):
        return None
    from bot.monitor import Monitor  # aiohttp's web server: only when it is wanted

    updater = application.updater
    monitor = Monitor(
        rt.storage,
        replica=rt.replica,
        updates_running=lambda: updater is not None and updater.running,
        pace=None if settings.webhook_url else application.bot_data.get("poll_pace"),
    )
    application.bot_data["monitor"] = monitor
    return monitor


async def _start_miniapp(
    application: Application[Any, Any, Any, Any, Any, Any],
    rt: Runtime,
    settings: Settings,
    monitor: Monitor | None,
) -> None:
    """The Mini App's web server, in this process; the chats get their ways into it."""
    from bot.webapp.server import MiniApp  # aiohttp's web server: only when it is wanted

    miniapp = MiniApp(
        rt,
        token=settings.bot_token.get_secret_value(),
        max_age=settings.webapp_auth_max_age,
        telegram_js=settings.webapp_telegram_js,
    )
    rt.delivery.followers.append(miniapp.live)
    metrics.watch_pages(miniapp.live.open_pages)
    if monitor is not None:
        miniapp.mounts.append(monitor.mount)
    rt.delivery.screens.app_url = settings.webapp_url or ""
    rt.delivery.screens.app_short_name = settings.webapp_short_name or ""
    await miniapp.start(settings.webapp_listen, settings.webapp_port)
    application.bot_data["miniapp"] = miniapp


def command_menus(default_language: str) -> list[tuple[str | None, bool, list[BotCommand]]]:
    """(language_code, private, commands) of every menu: one per scope (groups, private chats)
    and language, each built from the command table (`bot.commands`). The menu without a
    language code is what a person whose Telegram speaks neither language sees: the
    DEFAULT_LANGUAGE one."""
    menus = []
    for code, lang in ((None, default_language), *((code, code) for code in LANGUAGES)):
        for private in (False, True):
            entries = [BotCommand(c, d) for c, d in commands.menu(lang, private=private)]
            menus.append((code, private, entries))
    return menus


async def _job_turn(rt: Runtime, job: str, every: float) -> bool:
    """Whether this process runs the periodic job now: one of the replicas does."""
    return rt.replica is None or await rt.replica.job_turn(job, every)


async def sweep_stale(rt: Runtime) -> None:
    """Lobbies and games nobody touched for LOBBY_TIMEOUT end, with a message."""
    if not await _job_turn(rt, "sweep", SWEEP_INTERVAL):
        return
    idle_before = rt.scheduler.clock() - rt.settings.lobby_timeout
    for game_id in await rt.storage.stale_games(idle_before):
        try:
            await rt.actions.perform(Request(game_id, None, Command("expire")))
            log.info("game=%s event=expired", game_id)
        except Refused:
            continue


async def prune(storage: Storage, now: float) -> None:
    """Forget processed update ids older than a day and digests of long-gone messages."""
    async with storage.transaction() as tx:
        updates = await tx.prune_processed(now - PROCESSED_KEEP)
        shown = await tx.prune_shown(now - SHOWN_KEEP)
    if updates or shown:
        log.info("pruned %d processed update ids, %d message digests", updates, shown)


async def prune_job(rt: Runtime) -> None:
    if await _job_turn(rt, "prune", PRUNE_INTERVAL):
        await prune(rt.storage, rt.scheduler.clock())


async def heartbeat() -> None:
    """Proof of a live event loop for the container's health check (bot/health.py)."""
    try:
        beat()
    except OSError as error:
        log.warning("heartbeat not written: %s", error)


async def post_stop(application: Application[Any, Any, Any, Any, Any, Any]) -> None:
    """Updates have stopped; the HTTP client is still open: show what is pending (bounded)."""
    rt: Runtime | None = application.bot_data.get("runtime")
    if rt is None:
        return
    miniapp = application.bot_data.pop("miniapp", None)
    if miniapp is not None:
        await miniapp.stop()  # no more presses from the pages, as no more updates come
    monitor = application.bot_data.pop("monitor", None)
    if monitor is not None:
        await monitor.stop()
    # Nothing more runs by the clock: no turn times out, no lease is renewed meanwhile.
    await rt.scheduler.stop()
    # Replicas hand what is left to the others (with the chats' recent sends) rather than wait.
    drain = DRAIN_SECONDS if rt.replica is None else SHARED_DRAIN_SECONDS
    if not await rt.delivery.drain(timeout=drain):
        log.warning("stopping with chats still to update: %s", rt.delivery.lanes.waiting())
    if rt.replica is not None:
        # Drained: the other replicas take the chats over now, counting what was just sent.
        rt.replica.stop()
        await rt.replica.release_all()


async def post_shutdown(application: Application[Any, Any, Any, Any, Any, Any]) -> None:
    rt: Runtime | None = application.bot_data.get("runtime")
    if rt is None:
        return
    miniapp = application.bot_data.pop("miniapp", None)
    if miniapp is not None:  # a start that failed before post_stop
        await miniapp.stop()
    monitor = application.bot_data.pop("monitor", None)
    if monitor is not None:
        await monitor.stop()
    await rt.scheduler.stop()
    await rt.delivery.stop()
    if rt.replica is not None:
        rt.replica.stop()
    await rt.storage.stop()
    log.info("stopped cleanly")


def main() -> None:
    try:
        settings = Settings()  # type: ignore[call-arg]
    except ValidationError as error:
        if only_the_token_is_missing(error.errors()):
            without_token()
        sys.exit(f"ochko: invalid settings: {describe_error(error)}")
    secrets = [s.get_secret_value() for s in (settings.bot_token, settings.webhook_secret) if s]
    logs.configure_logging(settings.log_level, secrets, settings.log_format)
    try:
        open_storage(settings.database_url)  # fail fast on an unknown DATABASE_URL
    except StorageError as error:
        sys.exit(f"ochko: {error}")
    application = build_application(settings)
    token, api_url = application.bot.token, application.bot.base_url  # the URL PTB will call
    # Start-up failures are reported here in one line; PTB's tracebacks of them are dropped.
    noise = StartupNoise(lambda: not application.running)
    for handler in logging.getLogger().handlers:
        handler.addFilter(noise)
    try:
        if not wait_for_bot_api(token, api_url):
            log.info("stopped while waiting for the Bot API")
            return
    except StartupError as error:
        sys.exit(f"ochko: {error}")
    heap.settle()
    event_loop.install()
    try:
        if settings.webhook_url:
            secret = settings.webhook_secret.get_secret_value() if settings.webhook_secret else None
            application.run_webhook(
                listen=settings.webhook_listen,
                port=settings.webhook_port,
                url_path="telegram",
                webhook_url=settings.webhook_url,
                secret_token=secret,
                allowed_updates=Update.ALL_TYPES,
                drop_pending_updates=False,
                close_loop=False,
            )
        else:
            application.run_polling(
                poll_interval=0,  # paced by the transport of getUpdates (bot/polling.py)
                allowed_updates=Update.ALL_TYPES,
                drop_pending_updates=False,
                close_loop=False,
            )
    except StorageError as error:
        sys.exit(f"ochko: {error}")
    except InvalidToken as error:
        sys.exit(f"ochko: {rejection(error, api_url, token)}")
    except NetworkError as error:
        sys.exit(f"ochko: {unreachable(error, api_url, token)}")
    finally:
        # close_loop=False above: close what a failed start leaves open (the transport's
        # sessions; a no-op after a clean stop), then PTB's event loop.
        loop = asyncio.get_event_loop()
        try:
            loop.run_until_complete(application.bot.shutdown())
        finally:
            loop.close()
