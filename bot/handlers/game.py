"""The lobby and the game: typed moves (`game_command`), /newgame, /table, and the game's
buttons (`on_game_button`), each answered as soon as its action is committed or refused."""

from __future__ import annotations

import logging

from telegram import CallbackQuery, Update
from telegram.ext import ContextTypes

from bot import render
from bot.actions import actor_of, display_name
from bot.callbacks import ACT_COMMANDS, Act, GameButton, parse_game
from bot.handlers.common import (
    Asked,
    Handler,
    Runtime,
    admin_check,
    answer,
    command,
    command_game,
    group_command,
    parse_amount,
    person_language,
    runtime,
    stored_view,
)
from bot.outcomes import Done, Ignored, Joined, refill_of
from bot.service import Command, Request
from rules.variants import PRESETS

log = logging.getLogger(__name__)


def game_command(kind: str, *, needs_amount: bool = False) -> Handler:
    async def cmd(asked: Asked) -> None:
        rt, user, lang, update = asked.rt, asked.user, asked.lang, asked.update
        # Lobby and table management stay in the group, where everyone sees them happen: the
        # command table (`bot.commands`) does not route those here from a private chat.
        stored = await command_game(asked)
        if stored is None:
            return
        # A missing or unusable amount goes to the service too: the engine says what is wrong
        # with it there (not your turn, no bank to name now, or the range of a bank or a stake).
        amount = parse_amount(asked.args) if needs_amount else None
        # Some actions are for the group's admins too (`bot.permissions`): asked when it matters.
        admin = asked.admin() if asked.in_group else None
        result = await rt.actions.act(
            Request(stored.game_id, actor_of(user, admin), Command(kind, amount), update.update_id)
        )
        if isinstance(result, Ignored):
            log.info("duplicate update %s ignored", update.update_id)
        if isinstance(result, Done | Joined):
            await rt.actions.publish(result.outcome)
        for line in render.replies(result, lang, display_name(user)):
            await asked.say(line)

    cmd.__name__ = f"cmd_{kind}"
    return command(cmd)


@group_command
async def cmd_newgame(asked: Asked) -> None:
    rt, chat, lang = asked.rt, asked.chat, asked.lang
    preset_name = asked.args[0].lower() if asked.args else None
    if preset_name is not None and preset_name not in PRESETS:
        await asked.say(
            render.text("unknown_preset", lang, name=preset_name[:32], known=", ".join(PRESETS))
        )
        return
    outcome = await rt.service.open_lobby(
        chat.id,
        asked.thread,
        actor_of(asked.user),
        preset_name,
        update_id=asked.update.update_id,
        chat_title=chat.title or "",
    )
    log.info("game=%s chat=%s event=lobby_opened", outcome.stored.game_id, chat.id)
    await rt.actions.publish(outcome)
    await rt.notices.table_opened(outcome)  # to those who asked to be called
    # Its creator sat down: with the daily refill, if that is what made the seat possible.
    refill = refill_of(outcome.events)
    seated = Joined(outcome, asked.user.id, next_round=False, refill=refill, needs_private=False)
    for line in render.replies(seated, lang, display_name(asked.user)):
        await asked.say(line)


@command
async def cmd_table(asked: Asked) -> None:
    """Post the table anew (the old message may be far up the chat)."""
    rt, lang = asked.rt, asked.lang
    stored = await rt.service.active_game(asked.chat.id, asked.thread)
    if stored is None:
        await asked.say(render.refusal("no_game", {}, lang))
        return
    async with rt.locks.hold(stored.game_id):
        outcome = await rt.service.repost_table(stored.game_id)
    await rt.delivery.committed(outcome.view)  # (the turn's clock is as it was)


async def on_game_button(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    rt = runtime(context)
    query = update.callback_query
    if query is None:
        return
    user = query.from_user
    origin = query.message.chat.id if query.message is not None else user.id
    button = parse_game(query.data)
    # A toast or an alert is read by the presser alone: in his language.
    lang = await person_language(
        rt, user, origin, game_id=button.game_id if button is not None else None
    )
    if button is None:
        await answer(query, render.refusal("stale_button", {}, lang), alert=True)
        return
    if button.act in (Act.PEEK, Act.ODDS):
        await _show_own(rt, query, button, origin, lang)
        return
    # An action is judged inside its transaction (game over, foreign chat, stale button): no
    # read of the game before it.
    kind = ACT_COMMANDS[button.act]
    # Some actions are for the group's admins too (`bot.permissions`): asked when it matters.
    admin = admin_check(rt, origin, user.id) if origin < 0 else None
    command = Command(kind, button.amount)
    result = await rt.actions.act(
        Request(
            button.game_id, actor_of(user, admin), command, update.update_id, button.version, origin
        )
    )
    # Answered as soon as it is committed or refused; only then is it shown (timers, delivery,
    # the Mini App's pages).
    said = render.toast(
        result, lang, lambda view: rt.delivery.snapshot(view, lang), bot_username=rt.bot_username
    )
    await answer(query, said.text, url=said.url, alert=said.alert)
    if isinstance(result, Done | Joined):
        await rt.actions.publish(result.outcome)


async def _show_own(
    rt: Runtime, query: CallbackQuery, button: GameButton, origin: int, lang: str
) -> None:
    """👁 and 💡: the presser's own cards or odds, in an alert only he sees."""
    user = query.from_user
    stored = await rt.service.stored_game(button.game_id)
    if stored is None or stored.status == "finished":
        await answer(query, render.refusal("game_over", {}, lang), alert=True)
        return
    if origin not in (stored.chat_id, user.id):
        await answer(query, render.refusal("foreign_game", {}, lang), alert=True)
        return
    if button.act is Act.PEEK:
        snap = rt.delivery.snapshot(await stored_view(rt, stored), lang)
        await answer(query, render.peek(snap, user.id, lang), alert=True)
        return
    await answer(query, render.odds_text(rt.service.game(stored), user.id, lang), alert=True)
