"""A call to play: /notify and the 🔔 button in a group (the presser's notices of it, on or
off), a notice's buttons in the private chat (seat me; stop), and the members who leave a group
(off its list). The notices themselves are sent by `bot.notices` when a table opens."""

from __future__ import annotations

import logging

from telegram import Update
from telegram.constants import ChatMemberStatus
from telegram.ext import ContextTypes

from bot import render
from bot.actions import actor_of
from bot.callbacks import NoticeAct, parse_notice
from bot.handlers.common import (
    Asked,
    Pressed,
    answer,
    group_command,
    pressed,
    private_reachable,
    runtime,
)
from bot.outcomes import Done, Joined
from bot.service import Command, Request

log = logging.getLogger(__name__)
SWITCHES = {"": None, "on": True, "off": False}


@group_command
async def cmd_notify(asked: Asked) -> None:
    """/notify switches, /notify on and /notify off say which."""
    rt, lang = asked.rt, asked.lang
    word = asked.args[0].lower() if len(asked.args) == 1 else "" if not asked.args else "?"
    if word not in SWITCHES:
        await asked.say(render.text("notice-usage", lang))
        return
    switch = SWITCHES[word]
    on = await rt.service.set_notices(asked.chat.id, asked.user.id, switch, asked.update.update_id)
    reachable = await private_reachable(rt, asked.user.id)
    await asked.say(render.switched(on, lang, private_open=reachable))


@pressed
async def on_notice_button(press: Pressed) -> None:
    rt, query, lang, user = press.rt, press.query, press.lang, press.user
    button = parse_notice(query.data)
    in_group = press.chat_id < 0
    if button is None or (button.act is NoticeAct.SWITCH) != in_group:
        await answer(query, render.refusal("stale_button", {}, lang), alert=True)
        return
    if button.act is NoticeAct.SWITCH:
        on = await rt.service.set_notices(press.chat_id, user.id, None, press.update.update_id)
        reachable = await private_reachable(rt, user.id)
        await answer(query, render.switched(on, lang, private_open=reachable), alert=not reachable)
        return
    if button.act is NoticeAct.OFF:
        await rt.service.set_notices(button.target, user.id, False)
        await answer(query, render.switched(False, lang))
        return
    # A notice's 🪑: seats him as the lobby's button would, if this table's notice was his.
    if not await rt.service.was_noticed(button.target, user.id):
        await answer(query, render.refusal("stale_button", {}, lang), alert=True)
        return
    result = await rt.actions.act(
        Request(button.target, actor_of(user), Command("join"), press.update.update_id)
    )
    said = render.toast(
        result, lang, lambda view: rt.delivery.snapshot(view, lang), bot_username=rt.bot_username
    )
    await answer(query, said.text, url=said.url, alert=said.alert)
    if isinstance(result, Done | Joined):
        await rt.actions.publish(result.outcome)


async def on_member_left(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """A member left the group, or was removed (the service message, or a chat_member update
    where the bot is an admin): he is off the group's list."""
    chat = update.effective_chat
    if chat is None or chat.id > 0:
        return
    gone = None
    message = update.effective_message
    if message is not None and message.left_chat_member is not None:
        gone = message.left_chat_member
    change = update.chat_member
    if change is not None and change.new_chat_member.status in (
        ChatMemberStatus.LEFT,
        ChatMemberStatus.BANNED,
    ):
        gone = change.new_chat_member.user
    if gone is None or gone.is_bot:
        return
    if await runtime(context).service.member_left(chat.id, gone.id):
        log.info("chat=%s user=%s left: off the notice list", chat.id, gone.id)
