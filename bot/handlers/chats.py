"""The chats themselves: a group becoming a supergroup, the bot removed or muted (its games
end), a chat heard from again, and the error handler."""

from __future__ import annotations

import logging

from telegram import Update
from telegram.constants import ChatMemberStatus
from telegram.ext import ContextTypes

from bot import render
from bot.handlers.common import answer, end_chat_games, person_language, runtime

log = logging.getLogger(__name__)


async def on_migration(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Both service messages of a group's upgrade (either may come first; the second finds
    nothing left to move)."""
    rt = runtime(context)
    message = update.effective_message
    if message is None:
        return
    if message.migrate_to_chat_id:
        old, new = message.chat.id, int(message.migrate_to_chat_id)
    elif message.migrate_from_chat_id:
        old, new = int(message.migrate_from_chat_id), message.chat.id
    else:
        return
    await rt.delivery.chat_migrated(old, new)
    rt.delivery.lanes.move(old, new)


async def on_my_membership(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """The bot was removed from a chat (or may no longer write there): its games end, stakes
    back, and nothing more is sent there until it is back."""
    rt = runtime(context)
    change = update.my_chat_member
    if change is None or change.chat.id > 0:
        return
    member = change.new_chat_member
    muted = member.status == ChatMemberStatus.RESTRICTED and not getattr(
        member, "can_send_messages", True
    )
    chat_id = change.chat.id
    if member.status in (ChatMemberStatus.BANNED, ChatMemberStatus.LEFT) or muted:
        why = f"membership {member.status}"
        rt.delivery.lanes.close(chat_id, why)
        await end_chat_games(rt, chat_id, why)
    else:
        rt.delivery.lanes.reopen(chat_id)


async def reopen_chat(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Any update from a chat shows it may hear us again (rights restored, bot unblocked)."""
    chat = update.effective_chat
    if chat is not None and update.my_chat_member is None:
        runtime(context).delivery.lanes.reopen(chat.id)


async def on_error(update: object, context: ContextTypes.DEFAULT_TYPE) -> None:
    log.error(
        "unhandled error in update %s", getattr(update, "update_id", "?"), exc_info=context.error
    )
    if isinstance(update, Update) and update.callback_query is not None:
        query = update.callback_query
        lang = "ru"
        try:
            rt = runtime(context)
            lang = rt.settings.default_language
            origin = query.message.chat.id if query.message is not None else query.from_user.id
            lang = await person_language(rt, query.from_user, origin)
        except Exception:  # the error may be the storage itself: answer all the same
            log.debug("no language for the error alert", exc_info=True)
        await answer(query, render.text("error-internal", lang), alert=True)
