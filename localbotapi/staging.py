"""What tests stage from outside the Bot API: what people and Telegram do to a bot's groups.

The bot added to, removed from (kicked or left) and restricted in a group, each told with a
`my_chat_member` update; a person leaving a group or removed from it; a basic group upgraded to
a supergroup; a person deleting a message; a forum topic closed and reopened.
"""

from __future__ import annotations

import time

from .members import bot_member, chat_member
from .models import JSON, Chat, FakeBot, FakeUser, Message
from .world import ServerEvent, World


class Staging(World):
    """The `BotApiServer` methods that change a group from outside (see the module docstring)."""

    def add_bot_to_group(
        self, bot: FakeBot, group: Chat, *, by: FakeUser | None = None, admin: bool = False
    ) -> JSON:
        """`by` adds the bot (back) to `group`, as a member or an administrator.

        The bot gets a `my_chat_member` update ("left"/"kicked" → "member"/"administrator";
        returned) and, with every bot in the group, the service message with new_chat_members.
        """
        self._check_live_group(group)
        if bot.id in group.bots:
            raise ValueError(f"@{bot.username} is already in {group.describe()}")
        actor = self._actor(group, by)
        old = bot_member(group, bot)
        group.add_bot(bot, admin=admin)
        update = self._my_chat_member(bot, group, actor.to_dict(), old)
        self._service_message(group, actor, {"new_chat_members": [bot.to_dict()]})
        return update

    def remove_bot(
        self, bot: FakeBot, group: Chat, *, kicked: bool = True, by: FakeUser | None = None
    ) -> JSON:
        """Take the bot out of `group`: kicked (banned, until_date 0) by `by` (default: the
        creator), or with `kicked=False` left — by itself (as leaveChat) unless `by` removed it.

        The bot gets a `my_chat_member` update (returned); the other bots get the service
        message with left_chat_member. From now on every call of the bot addressed to the group
        answers 403 "Forbidden: bot was kicked from the group chat" (or "supergroup chat"), or
        "Forbidden: bot is not a member of the group chat" after leaving; messages and button
        presses in the group no longer reach it.
        """
        self._check_live_group(group)
        if bot.id not in group.bots:
            raise ValueError(f"@{bot.username} is not in {group.describe()}")
        # Nobody removed a bot that left: it did that itself (as leaveChat).
        removed = kicked or by is not None
        sender = self._actor(group, by).to_dict() if removed else bot.to_dict()
        old = bot_member(group, bot)
        del group.bots[bot.id]
        group.bot_admins.discard(bot.id)
        group.bot_permissions.pop(bot.id, None)
        group.removed_bots[bot.id] = "kicked" if kicked else "left"
        update = self._my_chat_member(bot, group, sender, old)
        self._service_message(group, sender, {"left_chat_member": bot.to_dict()})
        return update

    def remove_member(self, group: Chat, user: FakeUser, *, by: FakeUser | None = None) -> Message:
        """`user` leaves `group`, or `by` (an administrator) removes him (kicked, until_date 0).

        Every bot of the group gets the service message with left_chat_member, from `by` (else
        from the user himself), which is returned; the group's administrator bots also get a
        `chat_member` update ("member", "administrator" or "creator" → "left" or "kicked"),
        which, as on Telegram, reaches only a bot that named chat_member in allowed_updates.
        """
        self._check_live_group(group)
        if user.id not in group.members:
            raise ValueError(f"{user.first_name} is not a member of {group.describe()}")
        sender = user if by is None else self._actor(group, by)
        if by is not None and by.id not in group.admins:
            raise ValueError(f"{by.first_name} is not an administrator of {group.describe()}")
        old_status = (
            "creator"
            if user.id == group.creator_id
            else "administrator"
            if user.id in group.admins
            else "member"
        )
        new = chat_member(user.to_dict(), "left" if by is None else "kicked")
        if by is not None:
            new["until_date"] = 0
        del group.members[user.id]
        group.admins.discard(user.id)
        for bot_id in sorted(group.bot_admins):
            update: JSON = {
                "chat_member": {
                    "chat": group.to_dict(),
                    "from": sender.to_dict(),
                    "date": int(time.time()),
                    "old_chat_member": chat_member(user.to_dict(), old_status),
                    "new_chat_member": new,
                }
            }
            self.push_update(group.bots[bot_id], update)
        return self._service_message(group, sender, {"left_chat_member": user.to_dict()})

    def restrict_bot(
        self,
        bot: FakeBot,
        group: Chat,
        *,
        can_send_messages: bool = False,
        can_send_photos: bool | None = None,
        by: FakeUser | None = None,
    ) -> JSON:
        """Restrict the bot in a supergroup (Telegram restricts members of supergroups only):
        "member"/"administrator" → "restricted", told by a `my_chat_member` update (returned).

        `can_send_photos` follows `can_send_messages` unless given. Without can_send_messages
        sendMessage answers 400 "Bad Request: not enough rights to send text messages to the
        chat", without can_send_photos sendPhoto answers 400 "Bad Request: not enough rights to
        send photos to the chat"; edits and deletions of the bot's own messages still work. With
        every right granted the bot is simply a member again.
        """
        self._check_live_group(group)
        if group.is_basic_group:
            raise ValueError(
                f"{group.describe()} is a basic group: restricting a member upgrades it to a "
                "supergroup on Telegram, so call migrate_group first"
            )
        if bot.id not in group.bots:
            raise ValueError(f"@{bot.username} is not in {group.describe()}")
        actor = self._actor(group, by)
        photos = can_send_messages if can_send_photos is None else can_send_photos
        old = bot_member(group, bot)
        group.bot_admins.discard(bot.id)  # restricting an administrator demotes it
        if can_send_messages and photos:
            group.bot_permissions.pop(bot.id, None)
        else:
            group.bot_permissions[bot.id] = {
                "can_send_messages": can_send_messages,
                "can_send_photos": photos,
            }
        return self._my_chat_member(bot, group, actor.to_dict(), old)

    def unrestrict_bot(self, bot: FakeBot, group: Chat, *, by: FakeUser | None = None) -> JSON:
        """Lift the bot's restrictions: "restricted" → "member" (a `my_chat_member` update)."""
        self._check_live_group(group)
        if group.bot_status(bot.id) != "restricted":
            raise ValueError(f"@{bot.username} is not restricted in {group.describe()}")
        actor = self._actor(group, by)
        old = bot_member(group, bot)
        group.bot_permissions.pop(bot.id, None)
        return self._my_chat_member(bot, group, actor.to_dict(), old)

    def migrate_group(self, group: Chat, *, by: FakeUser | None = None) -> Chat:
        """`by` (default: the creator) upgrades a basic group to a supergroup, as Telegram does.

        The supergroup has a new -100… id, the same title, members, admins and bots (with their
        rights). The basic group gets a service message from `by` with migrate_to_chat_id, the
        supergroup one with migrate_from_chat_id; the group's bots get both as `message`
        updates. Every later call addressed to the old id answers 400 "Bad Request: group chat
        was upgraded to a supergroup chat" with parameters.migrate_to_chat_id. The old messages
        stay in the old chat, which nobody can write in or press buttons in any more.
        """
        if not group.is_basic_group:
            raise ValueError(f"only a basic group upgrades; {group.describe()} is a {group.type}")
        self._check_live_group(group)
        actor = self._actor(group, by)
        new_id = -1_001_000_000_000 - next(self._group_ids)
        new = Chat(self, new_id, "supergroup", title=group.title)
        new.members = dict(group.members)
        new.admins = set(group.admins)
        new.creator_id = group.creator_id
        new.bots = dict(group.bots)
        new.bot_admins = set(group.bot_admins)
        new.bot_permissions = {k: dict(v) for k, v in group.bot_permissions.items()}
        new.migrated_from = group
        group.migrated_to = new
        self.groups[new_id] = new
        self._service_message(group, actor.to_dict(), {"migrate_to_chat_id": new_id})
        self._service_message(new, actor.to_dict(), {"migrate_from_chat_id": group.id})
        return new

    def delete_message(self, chat: Chat, message: Message | int, *, by: FakeUser) -> Message:
        """`by` deletes a message: in a group its author or an admin, in a private chat the
        user (either side's message). Nothing tells the bot; afterwards editing it answers 400
        "Bad Request: message to edit not found", replying to it "Bad Request: message to be
        replied not found", and it is gone from `chat.messages` (still in `all_messages`, with
        `.deleted` True)."""
        found = chat.message(message) if isinstance(message, int) else message
        if found is None or found.chat is not chat:
            raise ValueError(f"no message {message!r} in {chat.describe()}")
        if found.deleted:
            raise ValueError(f"{found!r} is already deleted")
        if chat.is_private:
            if chat.user is not by:
                raise ValueError(f"{by.first_name} cannot see {chat.describe()}")
        else:
            self._check_live_group(chat)
            if by.id not in chat.members:
                raise ValueError(f"{by.first_name} is not a member of {chat.describe()}")
            own = found.bot is None and found.sender.get("id") == by.id
            if not own and by.id not in chat.admins:
                raise ValueError(f"{by.first_name} may delete only their own messages here")
        found.deleted = True
        self._emit(ServerEvent("delete", found))
        return found

    def close_topic(self, group: Chat, thread_id: int) -> None:
        """Close a forum topic (1 is the General topic): the bot's sends into it answer 400
        "Bad Request: TOPIC_CLOSED"."""
        if not group.is_forum:
            raise ValueError(f"{group.describe()} is not a forum")
        if thread_id not in group.topics and thread_id != 1:
            raise ValueError(f"no topic {thread_id} in {group.describe()}")
        group.closed_topics.add(thread_id)

    def reopen_topic(self, group: Chat, thread_id: int) -> None:
        group.closed_topics.discard(thread_id)

    def _check_live_group(self, group: Chat) -> None:
        if not group.is_group:
            raise ValueError(f"{group.describe()} is not a group")
        if group.migrated_to is not None:
            raise ValueError(
                f"{group.describe()} was upgraded to the supergroup {group.migrated_to.id}"
            )

    @staticmethod
    def _actor(group: Chat, by: FakeUser | None) -> FakeUser:
        """The person doing something to the group: `by`, else the creator (else an admin,
        else any member)."""
        if by is not None:
            if by.id not in group.members:
                raise ValueError(f"{by.first_name} is not a member of {group.describe()}")
            return by
        for user_id in (group.creator_id, *sorted(group.admins), *group.members):
            if user_id is not None and user_id in group.members:
                return group.members[user_id]
        raise ValueError(f"{group.describe()} has no members: pass by=")

    def _my_chat_member(self, bot: FakeBot, chat: Chat, sender: JSON, old: JSON) -> JSON:
        update: JSON = {
            "my_chat_member": {
                "chat": chat.to_dict(),
                "from": dict(sender),
                "date": int(time.time()),
                "old_chat_member": old,
                "new_chat_member": bot_member(chat, bot),
            }
        }
        return self.push_update(bot, update)

    def _service_message(self, chat: Chat, sender: FakeUser | JSON, fields: JSON) -> Message:
        sender = sender.to_dict() if isinstance(sender, FakeUser) else dict(sender)
        return self._deliver(chat._post(sender, service=fields))
