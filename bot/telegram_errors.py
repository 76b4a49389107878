"""What a failed Bot API request means for the chat it went to.

python-telegram-bot raises `BadRequest` and `Forbidden` as subclasses of `NetworkError`, so an
``except NetworkError`` placed first takes a lasting refusal ("the bot was kicked") for a hiccup
and retries it forever. Every sender classifies through :func:`classify` instead, which looks at
the specific classes first.
"""

from __future__ import annotations

import datetime as dtm
import warnings
from dataclasses import dataclass
from enum import Enum

from telegram.error import (
    BadRequest,
    ChatMigrated,
    Forbidden,
    InvalidToken,
    NetworkError,
    RetryAfter,
    TelegramError,
    TimedOut,
)


class Fate(Enum):
    NOT_MODIFIED = "not_modified"  # the message already shows this: count it as shown
    MESSAGE_GONE = "message_gone"  # deleted (by a person) or too old to edit: post anew
    MIGRATED = "migrated"  # the group became a supergroup with a new id
    CHAT_LOST = "chat_lost"  # lasting: kicked, left, no rights, chat or topic gone, blocked
    TRANSIENT = "transient"  # timeouts, 5xx, 429 beyond our retries: retry with backoff
    REJECTED = "rejected"  # this one request is wrong (our bug): drop it, never retry it


@dataclass(frozen=True, slots=True)
class Verdict:
    fate: Fate
    reason: str
    new_chat_id: int | None = None  # with MIGRATED


# Lasting refusals that Telegram answers with 400 rather than 403.
_LASTING_400 = (
    "not enough rights",
    "have no rights",
    "chat not found",
    "chat_write_forbidden",
    "topic_closed",
    "topic_deleted",
    "thread not found",
    "message thread not found",
    "chat_restricted",
    "need administrator rights",
    "group chat was deactivated",
    "user is deactivated",
    "peer_id_invalid",
)
_GONE_400 = (
    "message to edit not found",
    "message can't be edited",
    "message to delete not found",
    "message to be replied not found",
    "message_id_invalid",
)


def classify(error: TelegramError) -> Verdict:
    """The verdict on ``error`` (specific classes before their `NetworkError` base)."""
    reason = str(error)
    text = reason.lower()
    if isinstance(error, ChatMigrated):
        return Verdict(Fate.MIGRATED, reason, int(error.new_chat_id))
    if isinstance(error, Forbidden):
        return Verdict(Fate.CHAT_LOST, reason)
    if isinstance(error, InvalidToken):
        return Verdict(Fate.CHAT_LOST, "the token was revoked")
    if isinstance(error, BadRequest):
        if "not modified" in text:
            return Verdict(Fate.NOT_MODIFIED, reason)
        if any(part in text for part in _GONE_400):
            return Verdict(Fate.MESSAGE_GONE, reason)
        if any(part in text for part in _LASTING_400):
            return Verdict(Fate.CHAT_LOST, reason)
        return Verdict(Fate.REJECTED, reason)
    if isinstance(error, RetryAfter | TimedOut | NetworkError):
        return Verdict(Fate.TRANSIENT, reason)
    return Verdict(Fate.REJECTED, reason)


def retry_after_seconds(error: RetryAfter) -> float:
    """A 429's wait in seconds, whichever form PTB gives it (an int that warns of the coming
    timedelta, or the timedelta)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        value = error.retry_after
    return value.total_seconds() if isinstance(value, dtm.timedelta) else float(value)
