"""Step 8: users.client_language: the language Telegram reports."""

from typing import Final

# The language Telegram reports for a person (its language_code, when the bot speaks it): what
# they read when they never chose one with /lang, also in messages sent without an update.
APPLY: Final = """
ALTER TABLE users ADD COLUMN client_language TEXT;
"""
