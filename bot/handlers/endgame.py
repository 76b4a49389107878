"""/endgame and its question: «end the game?» is asked in the group, and only its asker's
press, in time, ends the game."""

from __future__ import annotations

import logging

from telegram import ReplyParameters
from telegram.error import TelegramError

from bot import render
from bot.actions import actor_of, display_name
from bot.callbacks import parse_end
from bot.handlers.common import (
    Asked,
    Pressed,
    Runtime,
    answer,
    command_game,
    group_command,
    pressed,
)
from bot.service import Command, Duplicate, Refused, Request

log = logging.getLogger(__name__)


END_CONFIRM_SECONDS = 30  # how long «end the game?» waits for its asker's press
# Its expiry is a deadline kept in the database (`bot.scheduler.Deadlines`), keyed
# "<chat>:<message>": after a restart the question still closes itself.
ASK_KIND = "end_ask"


@group_command
async def cmd_endgame(asked: Asked) -> None:
    """/endgame asks first: a slip of the finger must not end a whole evening. The question goes
    to the group (where the game is), and only its asker's press, within
    :data:`END_CONFIRM_SECONDS`, ends the game (`on_end_button`)."""
    rt, chat, user = asked.rt, asked.chat, asked.user
    stored = await command_game(asked)
    if stored is None:
        return
    await rt.service.verify_end(stored, user.id, asked.admin())
    message = asked.message
    group_lang = (await rt.service.chat(chat.id)).language
    name, game_id = display_name(user), stored.game_id

    async def send() -> object:
        # The clock starts when the question is shown, not when it was queued.
        expires = int(rt.service.clock()) + END_CONFIRM_SECONDS
        shown = render.end_confirm(name, game_id, user.id, expires, END_CONFIRM_SECONDS, group_lang)
        sent = await rt.bot.send_message(
            chat.id,
            shown.text,
            reply_markup=shown.markup,
            message_thread_id=asked.thread or None,
            reply_parameters=ReplyParameters(message.message_id, allow_sending_without_reply=True),
            **rt.delivery.lanes.send_args(),
        )
        # Unanswered, the question says so and loses its buttons (`ask_expired`).
        await rt.deadlines.arm(ASK_KIND, f"{chat.id}:{sent.message_id}", expires)
        return sent

    rt.delivery.lanes.post(chat.id, send, "end confirmation")


async def ask_expired(rt: Runtime, key: str) -> None:
    """Nobody answered in time: the question says so and loses its buttons (one edit, at the
    lowest priority: never before the game's own messages). Replicas may each run it: the
    first closes the question (`_close`)."""
    chat_id, message_id = (int(part) for part in key.split(":"))
    group_lang = (await rt.service.chat(chat_id)).language
    _close(rt, chat_id, message_id, render.text("endgame-expired", group_lang))


async def _close_end_ask(rt: Runtime, key: tuple[int, int], note: str | None) -> None:
    """The question is answered: its expiry is forgotten, and it is closed (`_close`)."""
    chat_id, message_id = key
    await rt.deadlines.cancel(ASK_KIND, f"{chat_id}:{message_id}")
    _close(rt, chat_id, message_id, note)


def _close(rt: Runtime, chat_id: int, message_id: int, note: str | None) -> None:
    """Edit the question to ``note`` (no buttons), or with no note delete it (the game's
    summary follows it)."""

    async def close() -> object:
        if rt.replica is not None and not await rt.replica.first_to(
            f"end:{chat_id}:{message_id}", 4 * END_CONFIRM_SECONDS
        ):
            return None  # another replica closed it (the press went there, the timer here)
        try:
            if note is None:
                return await rt.bot.delete_message(
                    chat_id, message_id, **rt.delivery.lanes.send_args()
                )
            return await rt.bot.edit_message_text(
                note,
                chat_id=chat_id,
                message_id=message_id,
                reply_markup=None,
                **rt.delivery.lanes.send_args(),
            )
        except TelegramError as error:
            # Already closed (edited, deleted) by an earlier press or a previous run.
            log.info("end question chat=%s message=%s not closed: %s", chat_id, message_id, error)
            return None

    rt.delivery.lanes.post(chat_id, close, "end question closed")


@pressed
async def on_end_button(press: Pressed) -> None:
    """The answer to «end the game?»: only the asker's, only in time."""
    rt, query, lang, user, chat_id = press.rt, press.query, press.lang, press.user, press.chat_id
    button = parse_end(query.data)
    if button is None:
        await answer(query, render.refusal("stale_button", {}, lang), alert=True)
        return
    key = (chat_id, press.message.message_id)
    group_lang = (await rt.service.chat(chat_id)).language if chat_id < 0 else lang
    if user.id != button.user_id:
        asker = await rt.service.user(button.user_id)
        name = asker.name if asker is not None else "?"
        await answer(query, render.end_not_yours(name, lang), alert=True)
        return
    if not button.yes:
        await answer(query)
        kept = render.text("endgame-kept", group_lang, name=display_name(user))
        await _close_end_ask(rt, key, kept)
        return
    if rt.service.clock() > button.expires:
        await answer(query, render.text("endgame-expired", lang), alert=True)
        await _close_end_ask(rt, key, render.text("endgame-expired", group_lang))
        return
    try:
        actor = actor_of(user, press.admin())
        await rt.actions.perform(
            Request(button.game_id, actor, Command("end"), press.update.update_id, origin=chat_id)
        )
    except Refused as refused:
        if refused.code in ("game_over", "foreign_game"):  # ended meanwhile: the question goes
            await answer(query, render.text("endgame-over", lang), alert=True)
            await _close_end_ask(rt, key, None)
        else:
            await answer(query, render.refusal(refused.code, refused.params, lang), alert=True)
        return
    except Duplicate:
        await answer(query)
        return
    await answer(query)
    await _close_end_ask(rt, key, None)
