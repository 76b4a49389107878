"""Step 17: achievements, each earned once per person and chat (rules/achievements.py), with
the round that earned it; stat_events read by person, for a winning streak."""

from typing import Final

from storage.migrations.typed import typed

APPLY: Final = typed(
    """
-- Written in the transaction that settles the round: a crash or a repeated update records
-- nothing twice, and the key keeps one row per person, chat and achievement.
CREATE TABLE achievements (
    chat_id    {bigint} NOT NULL,
    user_id    {bigint} NOT NULL,
    code       TEXT NOT NULL,
    game_id    {bigint} NOT NULL,
    round_no   INTEGER NOT NULL,
    earned_at  {real} NOT NULL,
    PRIMARY KEY (chat_id, user_id, code),
    FOREIGN KEY (chat_id, user_id) REFERENCES players (chat_id, user_id)
){without_rowid};

-- A person's last rounds in a chat, newest first (the rounds won in a row).
CREATE INDEX stat_events_by_person ON stat_events (chat_id, user_id, event_id);
"""
)
