"""The bot's aiohttp transport: what the Bot API server answers reaches PTB unchanged, and the
network's failures become PTB's errors. (tests/botapi/test_server.py runs every server test on
this transport too.)"""

from __future__ import annotations

import asyncio
import json
import socket
from collections.abc import AsyncIterator

import pytest
import telegram
from aiohttp import web
from telegram import InlineKeyboardButton, InlineKeyboardMarkup
from telegram.error import BadRequest, NetworkError, TelegramError, TimedOut

from bot import transport
from bot.transport import CALLBACK_MESSAGE_FIELDS, AiohttpRequest
from localbotapi.server import BotApiServer
from tests.http_stub import serving

PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360000002000001e221bc330000000049454e44ae426082"
)


@pytest.fixture
async def server() -> AsyncIterator[BotApiServer]:
    async with BotApiServer(flood_limits=False) as running:
        yield running


async def test_calls_uploads_and_errors_round_trip(server: BotApiServer) -> None:
    fake = server.add_bot(username="transport_bot")
    alice = server.create_user("Alice")
    group = server.create_group("Table", members=[alice])
    request = AiohttpRequest(4)
    async with telegram.Bot(fake.token, base_url=server.base_url, request=request) as bot:
        assert (await bot.get_me()).username == "transport_bot"
        sent = await bot.send_message(group.id, "<b>Банк</b> 100 ♠", parse_mode="HTML")
        assert group.messages[-1].text == "Банк 100 ♠"
        assert sent.message_id == group.messages[-1].message_id
        # A multipart upload: the file and the plain fields beside it.
        photo = await bot.send_photo(group.id, PNG, caption="chart")
        assert photo.photo and group.messages[-1].caption == "chart"
        with pytest.raises(BadRequest, match="find end tag"):
            await bot.send_message(group.id, "<b>open", parse_mode="HTML")


async def test_a_silent_server_times_out_and_a_closed_port_is_a_network_error() -> None:
    async def stall(request: web.Request) -> web.Response:
        await asyncio.sleep(5)
        return web.json_response({"ok": True, "result": True})

    request = AiohttpRequest(2, read_timeout=0.2, write_timeout=0.0)
    await request.initialize()
    async with serving(stall) as port:
        with pytest.raises(TimedOut):
            await request.post(f"http://127.0.0.1:{port}/bot1:x/getMe")
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        closed = probe.getsockname()[1]
    try:
        with pytest.raises(NetworkError, match="aiohttp"):
            await request.post(f"http://127.0.0.1:{closed}/bot1:x/getMe")
    finally:
        await request.shutdown()
        await request.shutdown()  # twice is harmless


async def test_it_must_be_initialized_and_can_start_again() -> None:
    request = AiohttpRequest(1)
    with pytest.raises(RuntimeError, match="not initialized"):
        await request.do_request("http://127.0.0.1:9/", "POST")
    await request.initialize()
    await request.shutdown()
    await request.initialize()
    assert request.read_timeout == transport.DEFAULT_TIMEOUT
    await request.shutdown()
    with pytest.raises(ValueError, match="at least 1"):
        AiohttpRequest(0)


async def test_calls_go_through_the_proxy_the_environment_names(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for name in transport.PROXY_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    assert not transport._proxy_set()
    seen: list[bytes] = []

    async def proxy(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        head = await reader.readuntil(b"\r\n\r\n")
        seen.append(head.split(b"\r\n", 1)[0])
        length = next(
            int(line.split(b":", 1)[1])
            for line in head.split(b"\r\n")
            if line.lower().startswith(b"content-length:")
        )
        await reader.readexactly(length)
        body = b'{"ok":true,"result":true}'
        writer.write(
            b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
            + b"Content-Length: %d\r\n\r\n" % len(body)
            + body
        )
        await writer.drain()
        writer.close()

    server = await asyncio.start_server(proxy, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    monkeypatch.setenv("HTTP_PROXY", f"http://127.0.0.1:{port}")
    assert transport._proxy_set()
    request = AiohttpRequest(1)
    await request.initialize()
    try:
        # The host does not exist: only the proxy can answer.
        result = await request.post("http://bot-api.invalid/bot1:x/logOut")
    finally:
        await request.shutdown()
        server.close()
        await server.wait_closed()
    assert result is True
    assert seen == [b"POST http://bot-api.invalid/bot1:x/logOut HTTP/1.1"]


async def test_requests_are_json_with_their_values_as_they_are() -> None:
    """PTB's form fields carry nested objects as JSON text inside the form; our bodies are one
    JSON object, numbers as numbers and a keyboard as an object (the Bot API takes either)."""
    seen: list[tuple[str, bytes]] = []

    me = {"id": 1, "is_bot": True, "first_name": "Bot", "username": "json_bot"}

    async def record(request: web.Request) -> web.Response:
        seen.append((request.content_type, await request.read()))
        return web.json_response({"ok": True, "result": me if "getMe" in request.path else True})

    keyboard = InlineKeyboardMarkup([[InlineKeyboardButton("Ещё", callback_data="g:1:2:h")]])
    async with (
        serving(record) as port,
        telegram.Bot(
            "1:x", base_url=f"http://127.0.0.1:{port}/bot", request=AiohttpRequest(1)
        ) as bot,
    ):
        await bot.set_my_commands([("help", "помощь")])
        await bot.delete_message(-100, 7)
        await bot.edit_message_reply_markup(-100, 7, reply_markup=keyboard)
    kinds = {kind for kind, _ in seen}
    bodies = [json.loads(body) for _, body in seen]
    assert kinds == {"application/json"}
    assert {"chat_id": -100, "message_id": 7} in bodies
    assert bodies[-1]["reply_markup"] == {
        "inline_keyboard": [[{"text": "Ещё", "callback_data": "g:1:2:h"}]]
    }


async def test_a_pressed_button_comes_with_where_its_message_is_and_nothing_more(
    server: BotApiServer,
) -> None:
    fake = server.add_bot(username="transport_bot")
    alice = server.create_user("Alice")
    group = server.create_group("Table", members=[alice])
    keyboard = InlineKeyboardMarkup([[InlineKeyboardButton("Ещё", callback_data="more")]])
    async with telegram.Bot(
        fake.token,
        base_url=server.base_url,
        request=AiohttpRequest(4),
        get_updates_request=AiohttpRequest(1),
    ) as bot:
        table = await bot.send_message(
            group.id, "<b>Банк</b> 100", parse_mode="HTML", reply_markup=keyboard
        )
        assert table.text == "Банк 100" and table.reply_markup == keyboard  # answers: whole
        await alice.send(group, "/help")
        await alice.press(group.messages[-2], data="more")
        typed, pressed = await bot.get_updates(timeout=0)
    assert typed.message is not None and typed.message.text == "/help"
    assert typed.message.entities  # a message update keeps everything
    query = pressed.callback_query
    assert query is not None and query.data == "more" and query.from_user.id == alice.id
    message = query.message
    assert message is not None and message.chat.id == group.id
    assert message.message_id == table.message_id and message.date == table.date
    assert message.text is None and message.reply_markup is None and not message.entities
    assert {"message_id", "date", "chat", "from"} <= CALLBACK_MESSAGE_FIELDS


def test_an_answer_that_is_not_json_is_telegrams_error() -> None:
    with pytest.raises(TelegramError, match="Invalid server response"):
        AiohttpRequest.parse_json_payload(b"<html>502 Bad Gateway</html>")
    assert AiohttpRequest.parse_json_payload('{"ok":true,"result":"ё"}'.encode()) == {
        "ok": True,
        "result": "ё",
    }
