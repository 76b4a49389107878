"""The server driven by PTB itself and by raw HTTP, as the bot will drive it."""

from __future__ import annotations

import asyncio
import io
import struct
import time

import httpx
import pytest
import telegram
from aiohttp import web
from telegram import InlineKeyboardButton, InlineKeyboardMarkup
from telegram.error import BadRequest, Conflict, Forbidden, RetryAfter

from localbotapi.flood import FloodLimits
from localbotapi.models import Message
from localbotapi.server import BotApiServer
from tests.botapi.conftest import World
from tests.http_stub import serving


def text_of(update: telegram.Update) -> telegram.Message:
    """The update's message, asserting there is one (keeps mypy and the reader sure)."""
    assert update.message is not None
    return update.message


JOIN = InlineKeyboardMarkup([[InlineKeyboardButton("Join", callback_data="join")]])


async def raw(world: World, method: str, **params: object) -> httpx.Response:
    async with httpx.AsyncClient() as client:
        return await client.post(f"{world.server.base_url}{world.bot.token}/{method}", json=params)


async def test_get_me_and_base_url(world: World) -> None:
    me = await world.ptb.get_me()
    assert (me.id, me.username, me.is_bot) == (world.bot.id, "ochko_test_bot", True)
    assert world.server.base_url.startswith("http://127.0.0.1:")


async def test_unauthorized_and_unknown_method(world: World) -> None:
    async with httpx.AsyncClient() as client:
        reply = await client.get(f"{world.server.base_url}123:{'x' * 30}/getMe")
        assert reply.status_code == 401
        assert reply.json() == {"ok": False, "error_code": 401, "description": "Unauthorized"}
    reply = await raw(world, "sendDice", chat_id=world.group.id)
    assert reply.status_code == 404
    assert reply.json() == {"ok": False, "error_code": 404, "description": "Not Found"}
    # Method names are case-insensitive on Telegram.
    assert (await raw(world, "getme")).json()["ok"] is True


def test_token_format_is_validated() -> None:
    server = BotApiServer()
    with pytest.raises(ValueError, match="not a bot token"):
        server.add_bot("123:short")
    assert server.add_bot(f"42:{'A' * 35}").id == 42


async def test_updates_offset_confirms_and_unconfirmed_are_redelivered(world: World) -> None:
    await world.alice.send(world.group, "/bet 50")
    await world.bob.send(world.group, "hello")
    first = await world.ptb.get_updates(timeout=0)
    assert [text_of(u).text for u in first] == ["/bet 50", "hello"]
    entity = text_of(first[0]).entities[0]
    assert (entity.type, entity.offset, entity.length) == ("bot_command", 0, 4)
    again = await world.ptb.get_updates(timeout=0)  # nothing confirmed: delivered again
    assert [u.update_id for u in again] == [u.update_id for u in first]
    limited = await world.ptb.get_updates(offset=first[0].update_id + 1, limit=1, timeout=0)
    assert [text_of(u).text for u in limited] == ["hello"]
    assert await world.ptb.get_updates(offset=first[1].update_id + 1, timeout=0) == ()


async def test_long_poll_wakes_on_new_update(world: World) -> None:
    poll = asyncio.create_task(world.ptb.get_updates(timeout=10))
    await asyncio.sleep(0.2)
    assert not poll.done()
    started = time.monotonic()
    await world.alice.send(world.group, "wake up")
    updates = await asyncio.wait_for(poll, 5)
    assert time.monotonic() - started < 2
    assert text_of(updates[0]).text == "wake up"


async def test_second_poll_terminates_first(world: World) -> None:
    first = asyncio.create_task(raw(world, "getUpdates", timeout=10))
    await asyncio.sleep(0.2)
    second = asyncio.create_task(raw(world, "getUpdates", timeout=0))
    reply = await asyncio.wait_for(first, 5)
    assert reply.status_code == 409
    assert "terminated by other getUpdates request" in reply.json()["description"]
    assert (await second).json() == {"ok": True, "result": []}


async def test_allowed_updates_and_duplicate_push(world: World) -> None:
    update = world.server.push_update(world.bot, {"message": {"message_id": 1}})
    world.server.push_update(world.bot, update)  # the same update twice, as Telegram may
    ids = [u["update_id"] for u in (await raw(world, "getUpdates")).json()["result"]]
    assert ids == [update["update_id"], update["update_id"]]
    msg = await world.alice.send(world.group, "x")
    query = await world.alice.press(await bot_message(world, "pick", JOIN), "Join")
    result = (
        await raw(world, "getUpdates", offset=ids[-1] + 1, allowed_updates=["callback_query"])
    ).json()["result"]
    assert [u["callback_query"]["id"] for u in result] == [query.id]
    assert msg.text == "x"


async def bot_message(
    world: World, text: str, markup: InlineKeyboardMarkup | None = None
) -> Message:
    sent = await world.ptb.send_message(world.group.id, text, reply_markup=markup)
    message = world.group.message(sent.message_id)
    assert message is not None
    return message


async def test_send_message_shapes_and_storage(world: World) -> None:
    original = await world.alice.send(world.group, "deal me in")
    sent = await world.ptb.send_message(
        world.group.id,
        "<b>Стол</b> открыт &amp; ждёт",
        parse_mode="HTML",
        reply_markup=JOIN,
        reply_parameters=telegram.ReplyParameters(original.message_id),
        link_preview_options=telegram.LinkPreviewOptions(is_disabled=True),
        disable_notification=True,
    )
    assert sent.text == "Стол открыт & ждёт"
    assert sent.reply_to_message is not None
    assert sent.reply_to_message.message_id == original.message_id
    stored = world.group.messages[-1]
    assert stored.from_bot and stored.buttons == [[("Join", "join")]]
    assert stored.entity_texts("bold") == ["Стол"]
    assert stored.options["disable_notification"] is True
    record = world.server.calls("sendMessage")[-1]
    assert record.ok and record.chat_id == world.group.id


async def test_text_errors(world: World) -> None:
    cases = {
        'Bad Request: can\'t parse entities: Unsupported start tag "foo" at byte offset 6': (
            "hello <foo>",
            "HTML",
        ),
        "Bad Request: can't parse entities: Character '.' is reserved and must be escaped "
        "with the preceding '\\'": ("Bet 50.", "MarkdownV2"),
        "Bad Request: message text is empty": ("<b> </b>", "HTML"),
        "Bad Request: message is too long": ("я" * 4097, None),
    }
    for description, (text, mode) in cases.items():
        with pytest.raises(BadRequest) as caught:
            await world.ptb.send_message(world.group.id, text, parse_mode=mode)
        assert f"Bad Request: {caught.value.message}".lower() == description.lower()
    # 4096 characters after parsing is fine even though the markup is longer.
    await world.ptb.send_message(world.group.id, "<b>" + "я" * 4096 + "</b>", parse_mode="HTML")
    reply = await raw(world, "sendMessage", chat_id=world.group.id, text="")
    assert reply.json() == {
        "ok": False,
        "error_code": 400,
        "description": "Bad Request: message text is empty",
    }
    reply = await raw(world, "sendMessage", chat_id=-100123, text="x")
    assert reply.json()["description"] == "Bad Request: chat not found"


async def test_callback_data_limit(world: World) -> None:
    reply = await raw(
        world,
        "sendMessage",
        chat_id=world.group.id,
        text="x",
        reply_markup={"inline_keyboard": [[{"text": "a", "callback_data": "ж" * 33}]]},
    )
    assert reply.json()["description"] == "Bad Request: BUTTON_DATA_INVALID"
    ok = InlineKeyboardMarkup([[InlineKeyboardButton("a", callback_data="d" * 64)]])
    await world.ptb.send_message(world.group.id, "x", reply_markup=ok)


async def test_edit_not_modified_not_found_and_history(world: World) -> None:
    sent = await world.ptb.send_message(world.group.id, "Round 1", reply_markup=JOIN)
    with pytest.raises(BadRequest, match="Message is not modified: specified new message content"):
        await world.ptb.edit_message_text(
            "Round 1", world.group.id, sent.message_id, reply_markup=JOIN
        )
    await world.ptb.edit_message_text("Round 1", world.group.id, sent.message_id)  # drops keyboard
    await world.ptb.edit_message_reply_markup(world.group.id, sent.message_id, reply_markup=JOIN)
    edited = await world.ptb.edit_message_text(
        "<i>Round 2</i>", world.group.id, sent.message_id, parse_mode="HTML", reply_markup=JOIN
    )
    assert isinstance(edited, telegram.Message) and edited.edit_date is not None
    message = world.group.message(sent.message_id)
    assert message is not None
    assert message.edit_count == 3 and message.texts == ["Round 1"] * 3 + ["Round 2"]
    with pytest.raises(BadRequest, match="Message to edit not found"):
        await world.ptb.edit_message_text("x", world.group.id, 9999)
    assert await world.ptb.delete_message(world.group.id, sent.message_id)
    with pytest.raises(BadRequest, match="Message to delete not found"):
        await world.ptb.delete_message(world.group.id, sent.message_id)
    assert world.group.message(sent.message_id) not in world.group.messages


async def test_private_chat_needs_start_and_respects_block(world: World) -> None:
    with pytest.raises(Forbidden, match="bot can't initiate conversation with a user"):
        await world.ptb.send_message(world.alice.id, "your cards")
    await world.alice.send_private(world.bot, "/start join_42")
    update = (await world.ptb.get_updates(timeout=0))[-1]
    assert text_of(update).text == "/start join_42" and text_of(update).chat.type == "private"
    await world.ptb.send_message(world.alice.id, "your cards: 10♠")
    assert [m.text for m in world.alice.private_messages(world.bot)][-1] == "your cards: 10♠"
    world.alice.block(world.bot)
    with pytest.raises(Forbidden, match="bot was blocked by the user"):
        await world.ptb.send_message(world.alice.id, "more")


async def test_press_and_answer_callback_query(world: World) -> None:
    message = await bot_message(world, "Join?", JOIN)
    query = await world.bob.press(message, "join")  # a unique substring, any case
    update = (await world.ptb.get_updates(timeout=0))[-1]
    assert update.callback_query is not None
    assert (
        update.callback_query.data == "join" and update.callback_query.from_user.id == world.bob.id
    )
    with pytest.raises(BadRequest, match="Message_too_long"):
        await update.callback_query.answer("x" * 201)
    await update.callback_query.answer("x" * 200, show_alert=True)
    answer = await query.wait(timeout=1)
    assert answer.show_alert and answer.text == "x" * 200
    with pytest.raises(BadRequest, match="Query is too old"):
        await update.callback_query.answer("again")
    reply = await raw(world, "answerCallbackQuery", callback_query_id="123")
    assert reply.json()["description"] == (
        "Bad Request: query is too old and response timeout expired or query ID is invalid"
    )
    with pytest.raises(TimeoutError):
        await (await world.alice.press(message, data="join")).wait(timeout=0.1)


async def test_group_flood_limit_gives_429_and_retry_after_is_honoured(
    server: BotApiServer,
) -> None:
    bot = server.add_bot()
    alice = server.create_user("Alice")
    group = server.create_group("Busy", members=[alice])
    async with telegram.Bot(bot.token, base_url=server.base_url) as ptb:
        for n in range(20):
            await ptb.send_message(group.id, f"m{n}")
        with pytest.raises(RetryAfter) as caught:
            await ptb.send_message(group.id, "m21")
        seconds = caught.value._retry_after.total_seconds()  # PTB's int/timedelta transition
        assert seconds == int(seconds)
        assert 1 <= seconds <= 2
        assert server.flood.too_many_requests == 1
        with pytest.raises(RetryAfter):  # impatience is noticed and refused
            await ptb.send_message(group.id, "m21 again")
        assert server.flood.inside_retry_after == 1
        await asyncio.sleep(seconds)
        await ptb.send_message(group.id, "m21 after waiting")
        assert server.flood.inside_retry_after == 1
        record = server.errors[0]
        assert (record.status, record.retry_after) == (429, int(seconds))
        # Switched off at run time: no more 429s.
        server.flood_limits = False
        for n in range(25):
            await ptb.send_message(group.id, f"burst {n}")
        assert server.flood.too_many_requests == 2


async def test_private_flood_limit_allows_a_burst_of_three() -> None:
    limits = FloodLimits(private_count=3, private_window=1.0)
    async with BotApiServer(flood_limits=limits) as server:
        bot = server.add_bot()
        alice = server.create_user("Alice")
        await alice.send_private(bot, "/start")
        async with telegram.Bot(bot.token, base_url=server.base_url) as ptb:
            for n in range(3):
                await ptb.send_message(alice.id, f"card {n}")
            with pytest.raises(RetryAfter):
                await ptb.send_message(alice.id, "card 4")


async def test_webhook_delivery_with_secret_and_retry(world: World) -> None:
    received: list[tuple[str | None, dict[str, object]]] = []
    failures = 1

    async def receive(request: web.Request) -> web.Response:
        nonlocal failures
        if failures:
            failures -= 1
            return web.Response(status=500)
        received.append(
            (request.headers.get("X-Telegram-Bot-Api-Secret-Token"), await request.json())
        )
        return web.Response()

    async with serving(receive, "/hook") as port:
        await world.ptb.set_webhook(f"http://127.0.0.1:{port}/hook", secret_token="s3cret")
        with pytest.raises(Conflict, match="can't use getUpdates method while webhook is active"):
            await world.ptb.get_updates()
        await world.alice.send(world.group, "/start")
        await world.server.wait_for(lambda: received, timeout=5)
        secret, update = received[0]
        assert secret == "s3cret"
        assert update["message"]["text"] == "/start"  # type: ignore[index]
        info = await world.ptb.get_webhook_info()
        assert info.url.endswith("/hook") and info.pending_update_count == 0
        assert info.last_error_message is not None  # the first attempt failed
        await world.ptb.delete_webhook(drop_pending_updates=True)
        assert await world.ptb.get_updates(timeout=0) == ()


async def test_commands_chat_info_and_members(world: World) -> None:
    commands = [
        telegram.BotCommand("bet", "Сделать ставку"),
        telegram.BotCommand("start", "Начать"),
    ]
    await world.ptb.set_my_commands(commands, language_code="ru")
    group_scope = telegram.BotCommandScopeAllGroupChats()
    await world.ptb.set_my_commands(commands[:1], scope=group_scope)
    assert await world.ptb.get_my_commands(language_code="ru") == tuple(commands)
    assert await world.ptb.get_my_commands(scope=group_scope) == tuple(commands[:1])
    assert world.bot.get_commands({"type": "all_group_chats"})[0]["command"] == "bet"
    await world.ptb.delete_my_commands(language_code="ru")
    assert await world.ptb.get_my_commands(language_code="ru") == ()
    with pytest.raises(BadRequest, match="Bot_command_invalid"):
        await world.ptb.set_my_commands([telegram.BotCommand("Bad-Name", "x")])
    chat = await world.ptb.get_chat(world.group.id)
    assert (chat.type, chat.title) == ("supergroup", "Table 1")
    owner = await world.ptb.get_chat_member(world.group.id, world.alice.id)
    member = await world.ptb.get_chat_member(world.group.id, world.bob.id)
    assert (owner.status, member.status) == ("creator", "member")
    admins = await world.ptb.get_chat_administrators(world.group.id)
    assert [a.user.id for a in admins] == [world.alice.id]
    assert await world.ptb.send_chat_action(world.group.id, "typing")
    with pytest.raises(BadRequest, match="Wrong parameter action"):
        await world.ptb.send_chat_action(world.group.id, "dancing")
    assert await world.ptb.log_out() and await world.ptb.close()


async def test_send_photo_upload_is_stored(world: World) -> None:
    png = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + struct.pack(">II", 64, 32) + bytes(20)
    sent = await world.ptb.send_photo(
        world.group.id, io.BytesIO(png), caption="<b>Стол</b>", parse_mode="HTML"
    )
    assert (sent.photo[-1].width, sent.photo[-1].height) == (64, 32)
    assert sent.caption == "Стол"
    stored = world.group.messages[-1]
    assert stored.photo_bytes == png and stored.content == "Стол"
    again = await world.ptb.send_photo(world.group.id, sent.photo[-1].file_id)
    assert again.photo[-1].file_id == sent.photo[-1].file_id
    with pytest.raises(BadRequest, match="Image_process_failed"):
        await world.ptb.send_photo(world.group.id, io.BytesIO(b"not an image"))


async def test_forum_topics_and_wait_for(world: World) -> None:
    forum = world.server.create_group("Forum", members=[world.alice], forum=True)
    topic = forum.create_topic("Table A")
    await world.alice.send(forum, "/start", thread_id=topic)
    update = (await world.ptb.get_updates(timeout=0))[-1]
    assert text_of(update).message_thread_id == topic and text_of(update).is_topic_message

    async def reply_later() -> None:
        await asyncio.sleep(0.2)
        await world.ptb.send_message(forum.id, "Welcome to the table", message_thread_id=topic)

    task = asyncio.create_task(reply_later())
    message = await forum.wait_for("Welcome", timeout=5)
    await task
    assert message.thread_id == topic
    with pytest.raises(BadRequest, match="Message thread not found"):
        await world.ptb.send_message(forum.id, "x", message_thread_id=999)
    with pytest.raises(TimeoutError, match="Nothing"):
        await forum.wait_for("Nothing", timeout=0.1)
