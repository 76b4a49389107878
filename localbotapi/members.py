"""ChatMember objects as the Bot API shapes them: anyone's by status (`chat_member`), a bot's as
it stands in a chat (`bot_member`: administrator, restricted with its rights, member, kicked,
left)."""

from __future__ import annotations

from .models import JSON, Chat, FakeBot


def bot_member(chat: Chat, bot: FakeBot) -> JSON:
    """The bot's ChatMember object in `chat` as it stands."""
    status = chat.bot_status(bot.id)
    user = bot.to_dict()
    if status == "administrator":
        return chat_member(user, "administrator")
    if status == "restricted":
        return _restricted_member(user, chat.bot_permissions[bot.id])
    if status == "kicked":
        return {"status": "kicked", "user": user, "until_date": 0}
    if status in (None, "left"):
        return {"status": "left", "user": user}
    return {"status": "member", "user": user}


def chat_member(user: JSON, status: str) -> JSON:
    """A person's (or a bot's) ChatMember object with this status; an administrator has the
    rights this server grants every administrator."""
    member: JSON = {"status": status, "user": user}
    if status == "creator":
        member["is_anonymous"] = False
    elif status == "administrator":
        member.update(
            can_be_edited=False,
            is_anonymous=False,
            can_manage_chat=True,
            can_delete_messages=True,
            can_manage_video_chats=True,
            can_restrict_members=True,
            can_promote_members=False,
            can_change_info=True,
            can_invite_users=True,
            can_post_stories=False,
            can_edit_stories=False,
            can_delete_stories=False,
            can_pin_messages=True,
        )
    return member


def _restricted_member(user: JSON, permissions: JSON) -> JSON:
    """A ChatMemberRestricted with every field the reference requires; the media rights follow
    can_send_photos, the rest of the sending rights can_send_messages."""
    text = bool(permissions.get("can_send_messages", True))
    media = bool(permissions.get("can_send_photos", True))
    return {
        "status": "restricted",
        "user": user,
        "is_member": True,
        "can_send_messages": text,
        "can_send_audios": media,
        "can_send_documents": media,
        "can_send_photos": media,
        "can_send_videos": media,
        "can_send_video_notes": media,
        "can_send_voice_notes": media,
        "can_send_polls": text,
        "can_send_other_messages": text,
        "can_add_web_page_previews": text,
        "can_react_to_messages": True,
        "can_edit_tag": False,
        "can_change_info": False,
        "can_invite_users": True,
        "can_pin_messages": False,
        "can_manage_topics": False,
        "until_date": 0,
    }
