"""Who reads which language.

A group reads the chat's language (its settings; the bot's DEFAULT_LANGUAGE until an admin
chooses). A person reads, in the private chat and in alerts and toasts only he sees, the
language he chose with /lang, else the one Telegram reports for him (``language_code``) when the
bot speaks it, else the language of the chat the message is about, else the default.
"""

from __future__ import annotations

from bot.i18n import LANGUAGES
from storage import User


def from_telegram(code: str | None) -> str | None:
    """The bot's language for Telegram's ``language_code`` (``en-US`` → ``en``), or None when
    the bot does not speak it."""
    if not code:
        return None
    base = code.replace("_", "-").split("-", 1)[0].lower()
    return base if base in LANGUAGES else None


def personal(known: User | None, code: str | None = None) -> str | None:
    """The person's own language, or None when neither he nor Telegram says one: his /lang
    choice, else the ``code`` of the update at hand, else the one Telegram reported last."""
    if known is not None and known.language:
        return known.language
    return from_telegram(code) or (known.client_language if known is not None else None)
