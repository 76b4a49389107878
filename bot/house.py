"""The house banker (a chat setting): who it is and what it is called, for the service that seats
it and the views that name it."""

from __future__ import annotations

from bot.i18n import t

# A reserved player id, never a Telegram user's, with a chat balance granted once through the
# ledger like any player's, shown on /top under its name.
HOUSE_ID = 0
HOUSE_BALANCE = 100_000


def house_name(lang: str) -> str:
    """The house banker's display name in ``lang`` (stored once, shown on /top per reader)."""
    return t("house-name", lang)
