"""The methods about the bot itself and its chats: getMe, logOut, close, the command menus
(set/get/deleteMyCommands by scope and language), the profile texts (name, description, short
description), the menu button (set/getChatMenuButton, per private chat and the bot's default),
getChat, getChatMember, getChatAdministrators, getChatMemberCount and sendChatAction."""

from __future__ import annotations

import re

from .members import bot_member, chat_member
from .models import JSON, Chat, FakeBot, scope_key
from .webapp import valid_web_app_url
from .wire import Params, bad_request
from .world import World

CHAT_ACTIONS = frozenset(
    {
        "typing",
        "upload_photo",
        "record_video",
        "upload_video",
        "record_voice",
        "upload_voice",
        "upload_document",
        "choose_sticker",
        "find_location",
        "record_video_note",
        "upload_video_note",
    }
)


MenuButtonKey = tuple[int, int | None]
"""(the bot's id, the private chat's id or None for the bot's default)."""


class ChatMethods(World):
    """The bot and chat methods of `BotApiServer`."""

    _menu_button_store: dict[MenuButtonKey, JSON]

    @property
    def _menu_buttons(self) -> dict[MenuButtonKey, JSON]:
        """Menu buttons set by setChatMenuButton (created on first use)."""
        try:
            return self._menu_button_store
        except AttributeError:
            self._menu_button_store = {}
            return self._menu_button_store

    def menu_button(self, bot: FakeBot, chat_id: int | None = None) -> JSON:
        """The menu button a person sees in their private chat with `bot` (getChatMenuButton):
        the chat's own, else the bot's default, else the list of commands."""
        buttons = self._menu_buttons
        found = buttons.get((bot.id, chat_id)) if chat_id is not None else None
        found = found or buttons.get((bot.id, None))
        return dict(found) if found else {"type": "commands"}

    async def _api_getMe(self, bot: FakeBot, params: Params) -> JSON:
        return {
            **bot.to_dict(),
            "can_join_groups": True,
            "can_read_all_group_messages": True,
            "supports_inline_queries": False,
            "can_connect_to_business": False,
            "has_main_web_app": False,
        }

    async def _api_logOut(self, bot: FakeBot, params: Params) -> bool:
        return True

    async def _api_close(self, bot: FakeBot, params: Params) -> bool:
        return True

    async def _api_setMyCommands(self, bot: FakeBot, params: Params) -> bool:
        commands = params.obj("commands", "commands")
        if not isinstance(commands, list):
            raise bad_request("can't parse commands JSON object")
        if len(commands) > 100:
            raise bad_request("BOT_COMMANDS_TOO_MUCH")
        cleaned: list[JSON] = []
        for item in commands:
            if not isinstance(item, dict):
                raise bad_request("can't parse BotCommand JSON object")
            command = str(item.get("command", "")).lstrip("/")
            description = str(item.get("description", ""))
            if not re.fullmatch(r"[a-z0-9_]{1,32}", command):
                raise bad_request("BOT_COMMAND_INVALID")
            if not 1 <= len(description.strip()) <= 256:
                raise bad_request("BOT_COMMAND_DESCRIPTION_INVALID")
            cleaned.append({"command": command, "description": description})
        key = self._commands_key(params)
        if cleaned:
            bot.commands[key] = cleaned
        else:
            bot.commands.pop(key, None)
        return True

    async def _api_getMyCommands(self, bot: FakeBot, params: Params) -> list[JSON]:
        return list(bot.commands.get(self._commands_key(params), []))

    async def _api_deleteMyCommands(self, bot: FakeBot, params: Params) -> bool:
        bot.commands.pop(self._commands_key(params), None)
        return True

    @staticmethod
    def _commands_key(params: Params) -> tuple[str, str]:
        scope = params.obj("scope", "bot command scope")
        kinds = {
            "default",
            "all_private_chats",
            "all_group_chats",
            "all_chat_administrators",
            "chat",
            "chat_administrators",
            "chat_member",
        }
        if scope is not None and (not isinstance(scope, dict) or scope.get("type") not in kinds):
            raise bad_request("can't parse BotCommandScope JSON object")
        language = params.string("language_code") or ""
        if language and not re.fullmatch(r"[a-z]{2}", language):
            raise bad_request("invalid language code specified")
        return scope_key(scope), language

    async def _set_text(self, bot: FakeBot, params: Params, kind: str, field: str) -> bool:
        language = params.string("language_code") or ""
        value = params.string(field) or ""
        if value:
            bot.texts[f"{kind}:{language}"] = value
        else:
            bot.texts.pop(f"{kind}:{language}", None)
        return True

    async def _api_setMyDescription(self, bot: FakeBot, params: Params) -> bool:
        return await self._set_text(bot, params, "description", "description")

    async def _api_getMyDescription(self, bot: FakeBot, params: Params) -> JSON:
        key = f"description:{params.string('language_code') or ''}"
        return {"description": bot.texts.get(key, "")}

    async def _api_setMyShortDescription(self, bot: FakeBot, params: Params) -> bool:
        return await self._set_text(bot, params, "short_description", "short_description")

    async def _api_getMyShortDescription(self, bot: FakeBot, params: Params) -> JSON:
        key = f"short_description:{params.string('language_code') or ''}"
        return {"short_description": bot.texts.get(key, "")}

    async def _api_setMyName(self, bot: FakeBot, params: Params) -> bool:
        return await self._set_text(bot, params, "name", "name")

    async def _api_getMyName(self, bot: FakeBot, params: Params) -> JSON:
        key = f"name:{params.string('language_code') or ''}"
        return {"name": bot.texts.get(key, bot.first_name)}

    def _menu_chat(self, params: Params) -> int | None:
        """The private chat a menu button is for (None: the bot's default)."""
        if params.raw("chat_id") is None:
            return None
        chat_id = params.integer("chat_id")
        if chat_id is None or chat_id <= 0 or chat_id not in self.users:
            raise bad_request("chat not found")
        return chat_id

    async def _api_setChatMenuButton(self, bot: FakeBot, params: Params) -> bool:
        chat_id = self._menu_chat(params)
        button = params.obj("menu_button", "menu button")
        if button is None:
            button = {"type": "default"}
        if not isinstance(button, dict):
            raise bad_request("can't parse menu button JSON object")
        kind = button.get("type")
        cleaned: JSON
        if kind == "web_app":
            text, web_app = button.get("text"), button.get("web_app")
            if not isinstance(text, str):
                raise bad_request('can\'t parse menu button: Field "text" must be of type String')
            if not text.strip():
                raise bad_request("BUTTON_TEXT_EMPTY")
            if not isinstance(web_app, dict) or not isinstance(web_app.get("url"), str):
                raise bad_request(
                    'can\'t parse menu button: Field "web_app" must be of type Object'
                )
            if not valid_web_app_url(web_app["url"]):
                raise bad_request("BUTTON_URL_INVALID")
            cleaned = {"type": "web_app", "text": text, "web_app": {"url": web_app["url"]}}
        elif kind in ("commands", "default"):
            cleaned = {"type": kind}
        else:
            raise bad_request("can't parse menu button: unsupported menu button type")
        key = (bot.id, chat_id)
        if kind == "default":
            self._menu_buttons.pop(key, None)
        else:
            self._menu_buttons[key] = cleaned
        return True

    async def _api_getChatMenuButton(self, bot: FakeBot, params: Params) -> JSON:
        return self.menu_button(bot, self._menu_chat(params))

    async def _api_getChat(self, bot: FakeBot, params: Params) -> JSON:
        chat = self._resolve_chat(bot, params)
        info = chat.to_dict()
        info.update(
            accent_color_id=0,
            max_reaction_count=11,
            accepted_gift_types={
                "unlimited_gifts": True,
                "limited_gifts": True,
                "unique_gifts": True,
                "premium_subscription": True,
                "gifts_from_channels": True,
            },
        )
        return info

    def _member(self, chat: Chat, user_id: int, bot: FakeBot) -> JSON:
        if user_id in chat.bots:
            return bot_member(chat, chat.bots[user_id])
        if user_id in chat.removed_bots:
            gone = next((b for b in self.bots.values() if b.id == user_id), None)
            if gone is not None:
                return bot_member(chat, gone)
        user = self.users.get(user_id)
        if user is None and user_id == bot.id:
            return chat_member(bot.to_dict(), "member")
        if user is None:
            raise bad_request("user not found")
        if chat.is_private:
            if chat.user is not user:
                raise bad_request("user not found")
            return chat_member(user.to_dict(), "member")
        if user_id not in chat.members:
            return chat_member(user.to_dict(), "left")
        if user_id == chat.creator_id:
            return chat_member(user.to_dict(), "creator")
        if user_id in chat.admins:
            return chat_member(user.to_dict(), "administrator")
        return chat_member(user.to_dict(), "member")

    async def _api_getChatMember(self, bot: FakeBot, params: Params) -> JSON:
        chat = self._resolve_chat(bot, params)
        user_id = params.integer("user_id")
        if user_id is None:
            raise bad_request("user_id is empty")
        if chat.is_private and user_id == bot.id:
            return chat_member(bot.to_dict(), "member")
        return self._member(chat, user_id, bot)

    async def _api_getChatAdministrators(self, bot: FakeBot, params: Params) -> list[JSON]:
        chat = self._resolve_chat(bot, params)
        if chat.is_private:
            raise bad_request("there are no administrators in the private chat")
        ids = [uid for uid in chat.members if uid in chat.admins]
        ids.sort(key=lambda uid: uid != chat.creator_id)
        return [self._member(chat, uid, bot) for uid in [*ids, *sorted(chat.bot_admins)]]

    async def _api_getChatMemberCount(self, bot: FakeBot, params: Params) -> int:
        chat = self._resolve_chat(bot, params)
        return 2 if chat.is_private else len(chat.members) + len(chat.bots)

    async def _api_sendChatAction(self, bot: FakeBot, params: Params) -> bool:
        chat = self._resolve_chat(bot, params)
        self._check_can_write(bot, chat)
        if params.string("action") not in CHAT_ACTIONS:
            raise bad_request("wrong parameter action in request")
        return True
