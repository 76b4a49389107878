"""The message methods: sendMessage, sendPhoto, editMessageText, editMessageReplyMarkup,
deleteMessage and answerCallbackQuery, with what they check as strictly as Telegram: formatted
text and entities, length limits, inline keyboards and callback data, topics, replies, photos,
"message is not modified"."""

from __future__ import annotations

import hashlib
import re
import secrets
import struct
import time
from typing import Any

from .entities import Entity, EntityParseError, parse_text, sort_entities, strip_text, utf16_len
from .models import JSON, CallbackAnswer, Chat, FakeBot, Message, MessageVersion
from .webapp import valid_web_app_url
from .wire import Params, bad_request
from .world import ServerEvent, World

MAX_TEXT = 4096
MAX_CAPTION = 1024
MAX_ALERT = 200
NOT_MODIFIED = (
    "message is not modified: specified new message content and reply markup are exactly the "
    "same as a current content and reply markup of the message"
)
QUERY_TOO_OLD = "query is too old and response timeout expired or query ID is invalid"


class MessageMethods(World):
    """The message methods of `BotApiServer` and the checks they share."""

    def _formatted(
        self,
        params: Params,
        text_field: str,
        entities_field: str,
        *,
        limit: int,
        empty_error: str,
        long_error: str,
        allow_empty: bool = False,
    ) -> tuple[str, list[Entity]]:
        text = params.string(text_field) or ""
        explicit = params.obj(entities_field, "entities")
        if explicit is not None:
            entities = self._validate_entities(explicit, text)
            plain = text
        else:
            try:
                parsed = parse_text(text, params.string("parse_mode"))
            except EntityParseError as error:
                raise bad_request(f"can't parse entities: {error}") from None
            except ValueError:
                raise bad_request("unsupported parse_mode") from None
            plain, entities = parsed.text, parsed.entities
            entities = self._text_mentions(entities)
        plain, entities = strip_text(plain, entities)
        if not plain and not allow_empty:
            raise bad_request(empty_error)
        if utf16_len(plain) > limit:
            raise bad_request(long_error)
        return plain, entities

    def _text(self, params: Params, *, empty: str, too_long: str) -> tuple[str, list[Entity]]:
        """The text of sendMessage or editMessageText and its entities; `empty` and `too_long`
        are the method's wording of those refusals."""
        if params.string("text") is None:
            raise bad_request(empty)
        return self._formatted(
            params, "text", "entities", limit=MAX_TEXT, empty_error=empty, long_error=too_long
        )

    def _text_mentions(self, entities: list[Entity]) -> list[Entity]:
        """A link to ``tg://user?id=<id>`` is a mention of that user, as on Telegram: a
        ``text_mention`` entity carrying the user (it notifies them); a mention of a user
        Telegram does not know is dropped."""
        result: list[Entity] = []
        for entity in entities:
            url = str(entity.get("url", "")) if entity.get("type") == "text_link" else ""
            found = re.fullmatch(r"tg://user\?id=(\d{1,20})", url)
            if found is None:
                result.append(entity)
                continue
            user = self.users.get(int(found.group(1)))
            if user is not None:
                mention = {k: v for k, v in entity.items() if k != "url"}
                result.append(mention | {"type": "text_mention", "user": user.to_dict()})
        return result

    @staticmethod
    def _validate_entities(value: Any, text: str) -> list[Entity]:
        if not isinstance(value, list):
            raise bad_request("can't parse entities JSON object")
        size = utf16_len(text)
        result: list[Entity] = []
        for item in value:
            if not isinstance(item, dict) or not isinstance(item.get("type"), str):
                raise bad_request('can\'t parse MessageEntity: field "type" must be of type String')
            try:
                offset, length = int(item["offset"]), int(item["length"])
            except (KeyError, TypeError, ValueError):
                raise bad_request("can't parse MessageEntity: wrong offset or length") from None
            if offset < 0 or length <= 0 or offset >= size:
                continue  # Telegram silently drops entities outside the text
            result.append({**item, "offset": offset, "length": min(length, size - offset)})
        return sort_entities(result)

    def _markup(self, params: Params, chat: Chat, *, inline_only: bool = False) -> JSON | None:
        markup = params.obj("reply_markup", "reply keyboard markup")
        if markup is None:
            return None
        if not isinstance(markup, dict):
            raise bad_request("can't parse reply keyboard markup JSON object")
        if "inline_keyboard" in markup:
            rows = markup["inline_keyboard"]
            if not isinstance(rows, list) or not all(isinstance(row, list) for row in rows):
                raise bad_request(
                    'field "inline_keyboard" of the InlineKeyboardMarkup must be an Array of Arrays'
                )
            for row in rows:
                for button in row:
                    self._check_button(button, chat)
            rows = [row for row in rows if row]
            return {"inline_keyboard": rows} if rows else None
        if inline_only:
            raise bad_request("inline keyboard expected")
        if not any(k in markup for k in ("keyboard", "remove_keyboard", "force_reply")):
            raise bad_request("can't parse reply keyboard markup JSON object")
        rows = markup.get("keyboard")
        if isinstance(rows, list):
            for row in rows:
                for button in row if isinstance(row, list) else []:
                    if isinstance(button, dict) and "web_app" in button:
                        _check_web_app(button["web_app"], chat, "keyboard")
        return markup

    @staticmethod
    def _check_button(button: Any, chat: Chat) -> None:
        if not isinstance(button, dict) or not isinstance(button.get("text"), str):
            raise bad_request(
                "can't parse inline keyboard button: "
                "Text buttons are unallowed in the inline keyboard"
            )
        if not button["text"].strip():
            raise bad_request("BUTTON_TEXT_EMPTY")
        kinds = [
            k
            for k in (
                "callback_data",
                "url",
                "switch_inline_query",
                "web_app",
                "login_url",
                "switch_inline_query_current_chat",
                "pay",
                "callback_game",
                "copy_text",
                "switch_inline_query_chosen_chat",
            )
            if k in button
        ]
        if not kinds:
            raise bad_request(
                "can't parse inline keyboard button: "
                "Text buttons are unallowed in the inline keyboard"
            )
        if "callback_data" in button:
            data = button["callback_data"]
            if not isinstance(data, str) or not 1 <= len(data.encode("utf-8")) <= 64:
                raise bad_request("BUTTON_DATA_INVALID")
        if "url" in button:
            url = button["url"]
            if not isinstance(url, str) or not re.match(r"^(https?|tg)://\S+$", url):
                raise bad_request(f"inline keyboard button URL '{url}' is invalid: Wrong HTTP URL")
        if "web_app" in button:
            _check_web_app(button["web_app"], chat, "inline keyboard")

    def _thread_id(self, params: Params, chat: Chat) -> int | None:
        thread_id = params.integer("message_thread_id")
        if thread_id is None:
            if chat.is_forum and 1 in chat.closed_topics:  # a send without one goes to General
                raise bad_request("TOPIC_CLOSED")
            return None
        if chat.is_forum and thread_id not in chat.topics and thread_id != 1:
            raise bad_request("message thread not found")
        if not chat.is_forum and chat.message(thread_id) is None:
            raise bad_request("message thread not found")
        if chat.is_forum and thread_id in chat.closed_topics:
            raise bad_request("TOPIC_CLOSED")
        return thread_id

    def _reply_to(self, params: Params, chat: Chat) -> Message | None:
        reply = params.obj("reply_parameters", "reply parameters")
        message_id: int | None
        allow_missing = params.flag("allow_sending_without_reply")
        if isinstance(reply, dict):
            try:
                message_id = int(reply["message_id"])
            except (KeyError, TypeError, ValueError):
                raise bad_request("can't parse reply parameters JSON object") from None
            allow_missing = bool(reply.get("allow_sending_without_reply", allow_missing))
        else:
            message_id = params.integer("reply_to_message_id")
        if message_id is None:
            return None
        message = chat.message(message_id)
        if message is None or message.deleted:
            if allow_missing:
                return None
            raise bad_request("message to be replied not found")
        return message

    def _find_message(self, chat: Chat, params: Params, missing: str) -> Message:
        if params.raw("inline_message_id") is not None:
            raise bad_request("MESSAGE_ID_INVALID")
        message_id = params.integer("message_id")
        if message_id is None:
            raise bad_request("message identifier is not specified")
        message = chat.message(message_id)
        if message is None or message.deleted:
            raise bad_request(missing)
        return message

    def _send_options(self, params: Params) -> JSON:
        options: JSON = {}
        for name in ("disable_notification", "protect_content"):
            if params.raw(name) is not None:
                options[name] = params.flag(name)
        preview = params.obj("link_preview_options", "link preview options")
        if preview is not None:
            options["link_preview_options"] = preview
        elif params.raw("disable_web_page_preview") is not None:
            options["link_preview_options"] = {
                "is_disabled": params.flag("disable_web_page_preview")
            }
        return options

    def _send(self, bot: FakeBot, chat: Chat, params: Params, **content: Any) -> JSON:
        """Post the bot's message with `content` once the rest of the call checks out: its
        reply markup, topic, reply and send options, and the flood limits."""
        markup = self._markup(params, chat)
        thread_id = self._thread_id(params, chat)
        reply_to = self._reply_to(params, chat)
        options = self._send_options(params)
        self._check_flood(bot, chat)
        message = chat._post(
            bot.to_dict(),
            bot,
            reply_markup=markup,
            thread_id=thread_id,
            reply_to=reply_to,
            options=options,
            **content,
        )
        self._emit(ServerEvent("new", message))
        return message.to_dict()

    # ------------------------------------------------------------------------------ methods

    async def _api_sendMessage(self, bot: FakeBot, params: Params) -> JSON:
        chat = self._resolve_chat(bot, params)
        self._check_can_write(bot, chat, "can_send_messages")
        text, entities = self._text(
            params, empty="message text is empty", too_long="message is too long"
        )
        return self._send(bot, chat, params, text=text, entities=entities)

    async def _api_sendPhoto(self, bot: FakeBot, params: Params) -> JSON:
        chat = self._resolve_chat(bot, params)
        self._check_can_write(bot, chat, "can_send_photos")
        data, file_id = self._photo(params)
        caption, caption_entities = self._formatted(
            params,
            "caption",
            "caption_entities",
            limit=MAX_CAPTION,
            empty_error="message caption is empty",
            long_error="message caption is too long",
            allow_empty=True,
        )
        width, height = (_image_size(data) if data else None) or (320, 320)
        unique = hashlib.sha1(file_id.encode()).hexdigest()[:16]
        photo = [
            {
                "file_id": file_id,
                "file_unique_id": unique,
                "width": width,
                "height": height,
                "file_size": len(data or b""),
            }
        ]
        return self._send(
            bot,
            chat,
            params,
            caption=caption or None,
            caption_entities=caption_entities,
            photo=photo,
            photo_bytes=data,
        )

    def _photo(self, params: Params) -> tuple[bytes | None, str]:
        """The photo's bytes (None for a URL) and its file_id; uploads are stored."""
        raw = params.raw("photo")
        upload = params.files.get("photo")
        if isinstance(raw, str) and raw.startswith("attach://"):
            upload = params.files.get(raw[len("attach://") :])
        if upload is not None:
            if not upload.data:
                raise bad_request("file must be non-empty")
            if _image_size(upload.data) is None:
                raise bad_request("IMAGE_PROCESS_FAILED")
            file_id = "AgAC" + secrets.token_urlsafe(24)
            self.files[file_id] = upload.data
            return upload.data, file_id
        if not isinstance(raw, str) or not raw:
            raise bad_request("there is no photo in the request")
        if raw in self.files:
            return self.files[raw], raw
        if re.match(r"^https?://\S+$", raw):
            return None, "AgAC" + hashlib.sha1(raw.encode()).hexdigest()
        raise bad_request("wrong file identifier/HTTP URL specified")

    async def _api_editMessageText(self, bot: FakeBot, params: Params) -> JSON:
        chat, message = self._to_edit(bot, params)
        if message.text is None:
            raise bad_request("there is no text in the message to edit")
        text, entities = self._text(
            params, empty="text must be non-empty", too_long="MESSAGE_TOO_LONG"
        )
        markup = self._markup(params, chat, inline_only=True)
        if (text, entities, markup) == (message.text, message.entities, message.reply_markup):
            raise bad_request(NOT_MODIFIED)
        self._check_flood(bot, chat)
        self._edit(message, text=text, entities=entities, reply_markup=markup)
        return message.to_dict()

    async def _api_editMessageReplyMarkup(self, bot: FakeBot, params: Params) -> JSON:
        chat, message = self._to_edit(bot, params)
        markup = self._markup(params, chat, inline_only=True)
        if markup == message.reply_markup:
            raise bad_request(NOT_MODIFIED)
        self._check_flood(bot, chat)
        self._edit(message, text=message.text, entities=message.entities, reply_markup=markup)
        return message.to_dict()

    def _to_edit(self, bot: FakeBot, params: Params) -> tuple[Chat, Message]:
        """The chat and the message of an edit, which must be the bot's own."""
        chat = self._resolve_chat(bot, params)
        message = self._find_message(chat, params, "message to edit not found")
        if message.bot is not bot:
            raise bad_request("message can't be edited")
        return chat, message

    def _edit(
        self,
        message: Message,
        *,
        text: str | None,
        entities: list[Entity],
        reply_markup: JSON | None,
    ) -> None:
        message.history.append(
            MessageVersion(
                date=message.edit_date or message.date,
                text=message.text,
                entities=message.entities,
                reply_markup=message.reply_markup,
            )
        )
        message.text = text
        message.entities = entities
        message.reply_markup = reply_markup
        message.edit_date = int(time.time())
        self._emit(ServerEvent("edit", message))

    async def _api_deleteMessage(self, bot: FakeBot, params: Params) -> bool:
        chat = self._resolve_chat(bot, params)
        message = self._find_message(chat, params, "message to delete not found")
        if chat.is_group and message.bot is not bot and bot.id not in chat.bot_admins:
            raise bad_request("message can't be deleted")
        message.deleted = True
        self._emit(ServerEvent("delete", message))
        return True

    async def _api_answerCallbackQuery(self, bot: FakeBot, params: Params) -> bool:
        query_id = params.string("callback_query_id")
        query = self._queries.get(query_id or "")
        if query is None or query.bot is not bot or query.answered:
            raise bad_request(QUERY_TOO_OLD)
        text = params.string("text")
        if text is not None and utf16_len(text) > MAX_ALERT:
            raise bad_request("MESSAGE_TOO_LONG")
        answer = CallbackAnswer(
            text=text,
            show_alert=params.flag("show_alert"),
            url=params.string("url"),
            cache_time=params.integer("cache_time") or 0,
        )
        query._set_answer(answer)
        self._emit(ServerEvent("answer", query=query))
        return True


def _check_web_app(web_app: Any, chat: Chat, keyboard: str) -> None:
    """A button that opens a Mini App: only in private chats, with a WebAppInfo whose url is
    https (plain http on loopback hosts too, see the server's docstring)."""
    if not isinstance(web_app, dict):
        raise bad_request(f'can\'t parse {keyboard} button: Field "web_app" must be of type Object')
    url = web_app.get("url")
    if not isinstance(url, str):
        raise bad_request(f'can\'t parse {keyboard} button: Field "url" must be of type String')
    if not chat.is_private:
        raise bad_request("BUTTON_TYPE_INVALID")
    if not valid_web_app_url(url):
        raise bad_request("BUTTON_URL_INVALID")


def _image_size(data: bytes) -> tuple[int, int] | None:
    """Width and height of a PNG, GIF, JPEG, WebP or BMP; None if it is not an image."""
    if data.startswith(b"\x89PNG\r\n\x1a\n") and len(data) >= 24:
        width, height = struct.unpack(">II", data[16:24])
        return int(width), int(height)
    if data[:6] in (b"GIF87a", b"GIF89a") and len(data) >= 10:
        width, height = struct.unpack("<HH", data[6:10])
        return int(width), int(height)
    if data.startswith(b"BM") and len(data) >= 26:
        width, height = struct.unpack("<ii", data[18:26])
        return abs(int(width)), abs(int(height))
    if data.startswith(b"RIFF") and data[8:12] == b"WEBP":
        return 512, 512
    if data.startswith(b"\xff\xd8"):
        i = 2
        while i + 9 < len(data):
            if data[i] != 0xFF:
                i += 1
                continue
            marker = data[i + 1]
            if marker in (0xC0, 0xC1, 0xC2):
                height, width = struct.unpack(">HH", data[i + 5 : i + 9])
                return int(width), int(height)
            (length,) = struct.unpack(">H", data[i + 2 : i + 4])
            i += 2 + int(length)
        return 320, 320
    return None
