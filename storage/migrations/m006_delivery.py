"""Step 6: shown_messages, games.posted_seq, indexes for chat migration and pruning."""

from typing import Final

from storage.migrations.typed import typed

APPLY: Final = typed(
    """
-- What each bot message shows now, as a digest of its text and buttons: an edit that would show
-- the same again is skipped, even after a restart (Telegram refuses it: "message is not
-- modified"). Pruned by age, hence the index on shown_at.
CREATE TABLE shown_messages (
    chat_id     {bigint} NOT NULL,
    message_id  {bigint} NOT NULL,
    digest      TEXT    NOT NULL,
    shown_at    {real}    NOT NULL,
    PRIMARY KEY (chat_id, message_id)
){without_rowid};
CREATE INDEX shown_messages_by_time ON shown_messages (shown_at);

-- How far the delivery of a game's results got (a sequence number the bot defines): recorded
-- apart from the state, so that it never bumps the game's version.
ALTER TABLE games ADD COLUMN posted_seq {bigint} NOT NULL DEFAULT 0;

-- A group upgraded to a supergroup moves every game to the new chat id, finished ones included:
-- without this index that is a scan of every game ever played, under the write lock.
CREATE INDEX games_by_chat ON games (chat_id);

-- prune_processed deletes by age: without this index each prune scans every update id kept.
CREATE INDEX processed_updates_by_time ON processed_updates (processed_at);
"""
)
