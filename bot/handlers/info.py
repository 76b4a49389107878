"""Commands that tell rather than act: /help, /rules, /balance, /top, /stats, /chart,
/verify, /odds, /hand."""

from __future__ import annotations

import asyncio
import calendar
import logging
import time

from telegram import InlineKeyboardButton, InlineKeyboardMarkup, Message, User
from telegram.error import TelegramError

from bot import chart, deep_links, render
from bot.actions import display_name
from bot.handlers.common import (
    Asked,
    answer_command,
    command,
    command_game,
    group_command,
    private_reachable,
    stored_view,
    text_sender,
)
from bot.i18n import LANGUAGES, t
from bot.service_reads import StoredGame
from rules.odds import odds_for
from rules.variants import PRESETS

log = logging.getLogger(__name__)


@command
async def cmd_help(asked: Asked) -> None:
    private = not asked.in_group
    sections = asked.rt.help_sections(asked.lang, private=private)
    replay = bool(asked.rt.settings.webapp_url)
    await asked.say(render.help_text(sections, asked.lang, private=private, replay=replay))


@command
async def cmd_rules(asked: Asked) -> None:
    rt, chat, lang = asked.rt, asked.chat, asked.lang
    name = asked.args[0].lower() if asked.args else None
    if name is None:
        # Without a name: the rules being played here — the running game's (the private chat:
        # of the one game its person sits in), else what the chat's next game would be.
        if asked.in_group:
            stored = await rt.service.active_game(chat.id, asked.thread)
        else:
            seated = await rt.service.seated_games(asked.user.id)
            stored = await rt.service.stored_game(seated[0]) if len(seated) == 1 else None
        if stored is not None and stored.status != "finished":
            variant = rt.service.game(stored).variant
            await asked.say(render.rules_text(variant.name, lang, variant, running=True))
            return
        if asked.in_group:
            chats = await rt.service.next_variant(chat.id)
            await asked.say(render.rules_text(chats.name, lang, chats))
            return
        name = "classic36"
    if name not in PRESETS:
        await asked.say(
            render.text("unknown_preset", lang, name=name[:32], known=", ".join(PRESETS))
        )
        return
    await asked.say(render.rules_text(name, lang))


@command
async def cmd_balance(asked: Asked) -> None:
    if not asked.in_group:
        await _private_balances(asked)
        return
    rt, chat, user, lang = asked.rt, asked.chat, asked.user, asked.lang
    balance = await rt.service.balance(chat.id, user.id)  # a banker's bank is his chips too
    line = render.balance(display_name(user), balance.chips, lang, balance.bank)
    # A broke player learns how his chips come back (they do as he sits down).
    outlook = await rt.service.refill_outlook(chat.id, asked.thread, user.id, balance.chips)
    if outlook is not None:
        code, params = outlook
        line += "\n" + render.text(f"refill-balance_{code}", lang, **params)
    await asked.say(line)


BALANCE_CHATS = 10  # chats listed by a private /balance (one getChat each, for its title)


async def _private_balances(asked: Asked) -> None:
    """Private /balance: the person's chips in every chat he plays in (a balance belongs to
    its chat), named by the chats' titles."""
    seats = (await asked.rt.service.balances(asked.user.id))[:BALANCE_CHATS]

    async def title(chat_id: int) -> str | None:
        try:
            found = await asked.context.bot.get_chat(chat_id)
        except TelegramError as error:  # the bot was removed, the chat is gone
            log.info("getChat %s for /balance failed: %s", chat_id, error)
            return None
        return found.title or None

    titles = await asyncio.gather(*(title(seat.chat_id) for seat in seats))
    rows = [(name, seat.balance) for name, seat in zip(titles, seats, strict=True)]
    await asked.say(render.balances(rows, asked.lang))


def month_start(now: float) -> float:
    """The unix time of 00:00 UTC on the first day of the month of ``now`` (in UTC)."""
    day = time.gmtime(now)
    return float(calendar.timegm((day.tm_year, day.tm_mon, 1, 0, 0, 0)))


@group_command
async def cmd_top(asked: Asked) -> None:
    """The current season by what each won in it (all-time when the chat plays without
    seasons); ``/top all`` (``всё``) all-time by chips, ``/top month`` this calendar month."""
    rt, args = asked.rt, asked.args
    word = args[0].lower().replace("ё", "е") if args else ""
    month = {t("top-arg_month", lang) for lang in LANGUAGES}  # /top month, in either language
    everything = {t("top-arg_all", lang).replace("ё", "е") for lang in LANGUAGES}
    if word in month:
        since = month_start(rt.service.clock())
        rows = await rt.service.leaderboard(asked.chat.id, since=since, limit=10)
        await asked.say(render.leaderboard(rows, asked.lang, period="month"))
        return
    top = None if word in everything else await rt.service.season_top(asked.chat.id, limit=10)
    if top is not None:
        await asked.say(render.season_top(top, asked.lang))
        return
    rows = await rt.service.leaderboard(asked.chat.id, limit=10)
    champion = await rt.service.champion(asked.chat.id)
    await asked.say(render.leaderboard(rows, asked.lang, period="all", champion=champion))


@group_command
async def cmd_stats(asked: Asked) -> None:
    service = asked.rt.service
    stats = await service.player_stats(asked.chat.id, asked.user.id)
    earned = await service.achievements(asked.chat.id, asked.user.id)
    await asked.say(render.stats(stats, display_name(asked.user), asked.lang, earned))


def reply_target(message: Message | None, user: User) -> User:
    """Whom a command is about: the author of the message it replies to (a person, not a bot),
    else the caller."""
    reply = message.reply_to_message if message is not None else None
    if message is None or reply is None or reply.from_user is None or reply.from_user.is_bot:
        return user
    # In a forum topic a plain message "replies" to the topic's first message.
    if message.is_topic_message and reply.message_id == message.message_thread_id:
        return user
    return reply.from_user


@group_command
async def cmd_chart(asked: Asked) -> None:
    """A PNG of a player's balance over time in this chat: the caller's, or as a reply the
    replied-to person's. Rendered in a worker thread."""
    rt, chat, user, lang = asked.rt, asked.chat, asked.user, asked.lang
    if not chart.available():  # a plain install, without the chart extra
        await asked.say(render.text("chart-unavailable", lang))
        return
    if await _cooling(asked, "chart"):
        return
    target = reply_target(asked.message, user)
    name = display_name(target)
    history = await rt.service.balance_history(chat.id, target.id)
    if history is None:
        await asked.say(render.text("chart-none", lang, name=name))
        return
    try:
        png = await asyncio.to_thread(
            chart.render_balance_chart,
            history.points,
            title=render.chart_title(name, lang),
            lang=lang,
        )
    except Exception:
        log.exception("chart failed chat=%s user=%s", chat.id, target.id)
        await asked.say(render.text("chart-failed", lang))
        return
    caption = render.chart_caption(name, history.balance, history.points[0][1], lang)

    async def send_chart(target_chat: int, thread: int | None) -> object:
        return await rt.bot.send_photo(
            target_chat,
            photo=png,
            filename="balance.png",
            caption=caption,
            message_thread_id=thread,
            **rt.delivery.lanes.send_args(),
        )

    await answer_command(rt, asked.update, send_chart)


async def _cooling(asked: Asked, name: str) -> bool:
    """A costly command asked again too soon: say when it can be run (True), else count it."""
    wait = asked.rt.cooldowns.wait(asked.user.id, name)
    if wait:
        await asked.say(render.text("cooldown", asked.lang, seconds=wait))
    return bool(wait)


@command
async def cmd_verify(asked: Asked) -> None:
    """/verify [round]: the revealed deck of a settled round of the current game (the group's,
    or in private the user's own), checked with rules.fairness. A round still being played is
    refused: its salt and order stay secret until the showdown."""
    rt, lang = asked.rt, asked.lang
    if await _cooling(asked, "verify"):
        return
    stored: StoredGame | None = None
    if asked.in_group:
        stored = await rt.service.active_game(asked.chat.id, asked.thread)
    else:
        for game_id in sorted(await rt.service.seated_games(asked.user.id), reverse=True):
            stored = await rt.service.stored_game(game_id)
            if stored is not None:
                break
    if stored is None:
        await asked.say(render.text("verify-no_game", lang))
        return
    raw = asked.args[0] if asked.args else None
    asked_round = None if raw is None else int(raw) if raw.isdigit() and len(raw) < 9 else 0
    round_no, shuffles = await rt.service.revealed_round(stored, asked_round)
    text_ = await asyncio.to_thread(render.verify, round_no, shuffles, lang)
    # And the round replayed in the Mini App, which checks the same proof in the page.
    snap = rt.delivery.screens.snapshot(await stored_view(rt, stored), lang)
    row = render.replay_row(snap, round_no, private=not asked.in_group) if shuffles else []
    await asked.say(text_, InlineKeyboardMarkup([row]) if row else None)


@command
async def cmd_odds(asked: Asked) -> None:
    """/odds: the next-card odds of whoever is drawing, only ever where he alone reads them."""
    rt, user, lang = asked.rt, asked.user, asked.lang
    stored = await command_game(asked)
    if stored is None:
        return
    game = rt.service.game(stored)
    found = odds_for(game, user.id)
    if found is None or not asked.in_group:
        await asked.say(render.odds_text(game, user.id, lang))
        return
    # Never into the group: the odds tell what the hand holds.
    if await private_reachable(rt, user.id):
        send = text_sender(rt, render.odds_alert(found, lang), None)
        rt.delivery.lanes.post(user.id, lambda: send(user.id, None), "odds")
        return
    await asked.say(render.text("odds-press_button", lang))


@command
async def cmd_hand(asked: Asked) -> None:
    rt, user, lang = asked.rt, asked.user, asked.lang
    stored = await command_game(asked, none_text="hand_in_group")
    if stored is None:
        return
    if not rt.service.game(stored).is_seated(user.id):
        await asked.say(render.refusal("not_seated", {}, lang))
        return
    known = await rt.service.user(user.id)
    if known is None or not known.private_opened:
        button = InlineKeyboardButton(
            render.text("btn-open_private", lang),
            url=deep_links.build(rt.bot_username, stored.game_id),
        )
        await asked.say(
            render.refusal("private_needed", {}, lang), InlineKeyboardMarkup([[button]])
        )
        return
    if rt.replica is not None and not await rt.replica.take(stored.chat_id):
        # Another replica shows this chat and keeps its hand messages: this one sends the hand
        # once, outside those records (its buttons work wherever they are pressed).
        shown = rt.delivery.screens.hand(await stored_view(rt, stored), user.id)
        send = text_sender(rt, shown.text, shown.markup)
        rt.delivery.lanes.post(user.id, lambda: send(user.id, None), "hand")
        return
    rt.delivery.resend_hand(stored.game_id, user.id)
    if stored.game_id not in rt.delivery.views():
        await rt.delivery.load(stored.game_id)
