"""The private chat and languages: /start (and its deep link), /lang, plain private text,
unknown commands, a command typed where it does not work, and the language Telegram reports
for each person."""

from __future__ import annotations

from telegram import Update
from telegram.ext import ContextTypes

from bot import deep_links, render
from bot.actions import display_name
from bot.handlers.common import Asked, Handler, command, person_language, runtime
from bot.handlers.info import cmd_help
from bot.languages import from_telegram


async def remember_language(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Keep the language Telegram reports for the person (when the bot speaks it): messages
    sent to him without an update of his (his cards, a turn warning) are written in it too."""
    user = update.effective_user
    if user is None or user.is_bot:
        return
    rt = runtime(context)
    reported = from_telegram(user.language_code)
    if await rt.service.note_client_language(user.id, display_name(user), reported):
        await rt.delivery.refresh_user(user.id)


@command
async def cmd_start(asked: Asked) -> None:
    """Private /start, or any private text: the user opened the chat, so hands can come here
    from now on."""
    rt, user = asked.rt, asked.user
    if asked.in_group:
        await cmd_help(asked.update, asked.context)
        return
    await rt.service.open_private_chat(user.id, display_name(user))
    await rt.delivery.refresh_user(user.id)
    game_id = deep_links.game_of(asked.args[0] if asked.args else "")
    lang = await person_language(rt, user, user.id, game_id=game_id)
    if game_id is not None:
        stored = await rt.service.stored_game(game_id)
        if stored is not None and rt.service.game(stored).is_seated(user.id):
            await asked.say(render.text("private-opened", lang))
            await rt.delivery.load(game_id)
            return
    await asked.say(render.help_text(rt.help_sections(lang, private=True), lang, private=True))


@command
async def cmd_lang(asked: Asked) -> None:
    rt, chat, user, lang = asked.rt, asked.chat, asked.user, asked.lang
    choice = asked.args[0].lower() if asked.args else ""
    if choice not in ("ru", "en"):
        await asked.say(render.text("lang-usage", lang))
        return
    if asked.in_group:
        # The group's language, as /settings sets it: its admins choose, and the group reads
        # the answer, in the language it has now. One's own language (the hand, alerts) is
        # chosen by /lang in the private chat, which the refusal says.
        await rt.service.set_group_language(chat.id, choice, asked.admin())
        await asked.say(render.text("lang-group_switched", choice), in_group=True)
        return
    await rt.service.choose_language(user.id, display_name(user), choice)
    await rt.delivery.refresh_user(user.id)
    await asked.say(render.text("lang-switched", choice))


def answer_with(key: str) -> Handler:
    """A handler that only answers with the text ``key``: a command typed where it does not
    work («this command works in a group»), or one the bot does not know."""

    async def answer(asked: Asked) -> None:
        await asked.say(render.text(key, asked.lang))

    answer.__name__ = f"answer_{key}"
    return command(answer)
