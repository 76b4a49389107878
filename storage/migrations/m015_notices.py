"""Step 15: a call to play: chats.notices_per_hour, who asked to be told when a table opens in
a chat (notice_subscribers) and the notices claimed (notices_sent)."""

from typing import Final

from storage.migrations.typed import typed

APPLY: Final = typed(
    """
-- At most this many notices an hour reach one person from one chat; 0 turns them off.
ALTER TABLE chats ADD COLUMN notices_per_hour INTEGER NOT NULL DEFAULT 3;

-- Who asked, in a chat, to be told in the private chat when a table opens there.
CREATE TABLE notice_subscribers (
    chat_id  {bigint} NOT NULL,
    user_id  {bigint} NOT NULL,
    since    {real}   NOT NULL,
    PRIMARY KEY (chat_id, user_id)
){without_rowid};

CREATE INDEX notice_subscribers_by_user ON notice_subscribers (user_id);

-- A notice claimed for a person about a table, in the transaction that decided to send it:
-- one per table and person, whichever process or restart asks again; the rows of the last
-- hour count against the chat's notices_per_hour.
CREATE TABLE notices_sent (
    game_id  {bigint} NOT NULL,
    user_id  {bigint} NOT NULL,
    chat_id  {bigint} NOT NULL,
    sent_at  {real}   NOT NULL,
    PRIMARY KEY (game_id, user_id)
){without_rowid};

CREATE INDEX notices_sent_by_person ON notices_sent (chat_id, user_id, sent_at);
"""
)
