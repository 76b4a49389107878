"""What Telegram does to a bot from outside, staged by the server: the default allowed_updates,
the bot kicked, left, restricted and re-added, a basic group upgraded to a supergroup, a person
deleting a message, a closed forum topic, and injected failures."""

from __future__ import annotations

import io
import struct
from typing import Any

import httpx
import pytest
import telegram
from aiohttp import web
from telegram import InlineKeyboardButton, InlineKeyboardMarkup
from telegram.error import BadRequest, ChatMigrated, Forbidden, NetworkError, RetryAfter

from localbotapi.models import Chat, Message
from localbotapi.server import BotApiServer
from tests.botapi.conftest import World

JOIN = InlineKeyboardMarkup([[InlineKeyboardButton("Join", callback_data="join")]])
PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + struct.pack(">II", 8, 8) + bytes(20)


async def raw(world: World, method: str, **params: object) -> httpx.Response:
    async with httpx.AsyncClient() as client:
        return await client.post(f"{world.server.base_url}{world.bot.token}/{method}", json=params)


async def updates(world: World, **params: object) -> list[dict[str, Any]]:
    """Every pending update (raw JSON), confirmed so the next call sees only newer ones."""
    result: list[dict[str, Any]] = (await raw(world, "getUpdates", **params)).json()["result"]
    if result:
        await raw(world, "getUpdates", offset=result[-1]["update_id"] + 1)
    return result


def kinds(batch: list[dict[str, Any]]) -> list[str]:
    return [next(k for k in u if k != "update_id") for u in batch]


async def posted(world: World, chat: Chat, text: str = "Стол", markup: Any = JOIN) -> Message:
    sent = await world.ptb.send_message(chat.id, text, reply_markup=markup)
    message = chat.message(sent.message_id)
    assert message is not None
    return message


def error(reply: httpx.Response) -> tuple[int, str]:
    body = reply.json()
    assert body["ok"] is False and body["error_code"] == reply.status_code
    return reply.status_code, body["description"]


# ------------------------------------------------------------------------- allowed_updates


def push_every_kind(server: BotApiServer, world: World) -> None:
    chat = world.group.to_dict()
    for kind in (
        "message",
        "chat_member",
        "message_reaction",
        "message_reaction_count",
        "my_chat_member",
        "chat_join_request",
        "chat_boost",
    ):
        server.push_update(world.bot, {kind: {"chat": chat}})


async def test_default_allowed_updates_leave_out_chat_member_and_reactions(world: World) -> None:
    push_every_kind(world.server, world)
    expected = ["message", "my_chat_member", "chat_join_request", "chat_boost"]
    assert kinds(await updates(world)) == expected
    push_every_kind(world.server, world)
    assert kinds(await updates(world, allowed_updates=[])) == expected  # empty = the default
    push_every_kind(world.server, world)
    chosen = ["chat_member", "message_reaction", "message"]
    assert kinds(await updates(world, allowed_updates=chosen)) == [
        "message",
        "chat_member",
        "message_reaction",
    ]
    push_every_kind(world.server, world)  # the explicit list stays in force
    assert kinds(await updates(world)) == ["message", "chat_member", "message_reaction"]


async def test_webhook_without_allowed_updates_gets_the_default_set(world: World) -> None:
    received: list[str] = []

    async def receive(request: web.Request) -> web.Response:
        update = await request.json()
        received.append(next(k for k in update if k != "update_id"))
        return web.Response()

    app = web.Application()
    app.router.add_post("/hook", receive)
    runner = web.AppRunner(app)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", 0).start()
    try:
        await world.ptb.set_webhook(f"http://127.0.0.1:{runner.addresses[0][1]}/hook")
        push_every_kind(world.server, world)
        await world.server.wait_for(lambda: len(received) >= 4, timeout=5)
        await world.server.wait_for(lambda: not world.bot.pending, timeout=5)
        assert received == ["message", "my_chat_member", "chat_join_request", "chat_boost"]
    finally:
        await world.ptb.delete_webhook()
        await runner.cleanup()


# ------------------------------------------------------------------------------ membership

WRITES: list[tuple[str, dict[str, Any]]] = [
    ("sendMessage", {"text": "x"}),
    ("sendChatAction", {"action": "typing"}),
    ("getChat", {}),
    ("getChatAdministrators", {}),
    ("getChatMemberCount", {}),
]


async def every_chat_call(world: World, chat: Chat, message: Message) -> list[httpx.Response]:
    """One call of each method addressed to `chat`, about `message` where it takes one."""
    replies = [await raw(world, m, chat_id=chat.id, **p) for m, p in WRITES]
    mid = message.message_id
    markup = {"inline_keyboard": [[{"text": "Go", "callback_data": "go"}]]}
    replies += [
        await raw(world, "editMessageText", chat_id=chat.id, message_id=mid, text="y"),
        await raw(
            world, "editMessageReplyMarkup", chat_id=chat.id, message_id=mid, reply_markup=markup
        ),
        await raw(world, "deleteMessage", chat_id=chat.id, message_id=mid),
        await raw(world, "getChatMember", chat_id=chat.id, user_id=world.alice.id),
    ]
    async with httpx.AsyncClient() as client:
        replies.append(
            await client.post(
                f"{world.server.base_url}{world.bot.token}/sendPhoto",
                data={"chat_id": str(chat.id)},
                files={"photo": ("p.png", PNG, "image/png")},
            )
        )
    return replies


@pytest.mark.parametrize(
    ("chat_type", "kicked", "status", "refusal"),
    [
        ("supergroup", True, "kicked", "Forbidden: bot was kicked from the supergroup chat"),
        ("group", True, "kicked", "Forbidden: bot was kicked from the group chat"),
        ("supergroup", False, "left", "Forbidden: bot is not a member of the supergroup chat"),
        ("group", False, "left", "Forbidden: bot is not a member of the group chat"),
    ],
)
async def test_removed_bot_is_told_and_refused_everywhere(
    world: World, chat_type: Any, kicked: bool, status: str, refusal: str
) -> None:
    server = world.server
    group = server.create_group(
        "Removal", members=[world.alice, world.bob], admins=[world.alice], chat_type=chat_type
    )
    assert group.type == chat_type and (group.id < -1_000_000_000_000) == (chat_type != "group")
    message = await posted(world, group)
    await updates(world)
    update = server.remove_bot(world.bot, group, kicked=kicked, by=world.bob if kicked else None)

    batch = await updates(world)
    assert [u["update_id"] for u in batch] == [update["update_id"]]
    changed = batch[0]["my_chat_member"]
    assert changed["chat"] == {"id": group.id, "type": chat_type, "title": "Removal"}
    assert changed["from"]["id"] == (world.bob.id if kicked else world.bot.id)
    assert changed["old_chat_member"] == {"status": "member", "user": world.bot.to_dict()}
    expected_new: dict[str, Any] = {"status": status, "user": world.bot.to_dict()}
    if kicked:
        expected_new["until_date"] = 0
    assert changed["new_chat_member"] == expected_new
    parsed = telegram.Update.de_json(batch[0], world.ptb)
    assert parsed.my_chat_member is not None
    assert parsed.my_chat_member.new_chat_member.status == status
    assert group.messages[-1].service == {"left_chat_member": world.bot.to_dict()}

    before = len(server.requests)
    replies = await every_chat_call(world, group, message)
    assert {error(reply) for reply in replies} == {(403, refusal)}
    refused = [r for r in server.requests[before:] if r.chat_id == group.id]
    assert len(refused) == len(replies) and all(r.status == 403 for r in refused)
    with pytest.raises(Forbidden, match=refusal.removeprefix("Forbidden: ")):
        await world.ptb.send_message(group.id, "still here?")

    # What people do there no longer reaches the bot.
    await world.alice.send(group, "/start")
    query = await world.bob.press(message, "Join")
    assert not query.delivered
    assert await updates(world) == []
    with pytest.raises(TimeoutError, match="never delivered"):
        await query.wait(timeout=0.05)


@pytest.mark.parametrize("admin_bot", [False, True])
async def test_a_member_who_leaves_or_is_removed_is_told_as_telegram_tells_it(
    world: World, admin_bot: bool
) -> None:
    server, alice, bob = world.server, world.alice, world.bob
    carol = server.create_user("Carol")
    group = server.create_group(
        "Leaving", members=[alice, bob, carol], admins=[alice], bot_admin=admin_bot
    )
    await updates(world)
    left = server.remove_member(group, bob)
    removed = server.remove_member(group, carol, by=alice)
    assert bob.id not in group.members and carol.id not in group.members
    assert left.service == {"left_chat_member": bob.to_dict()}
    assert removed.service == {"left_chat_member": carol.to_dict()}
    # The service messages reach every bot of the group, from whoever made the change.
    batch = await updates(world)
    assert kinds(batch) == ["message", "message"]
    assert [u["message"]["from"]["id"] for u in batch] == [bob.id, alice.id]
    parsed = telegram.Update.de_json(batch[0], world.ptb)
    assert parsed.message is not None and parsed.message.left_chat_member is not None
    assert parsed.message.left_chat_member.id == bob.id
    # chat_member updates go to administrator bots that asked for them.
    server.remove_member(group, alice)
    asked = await updates(world, allowed_updates=["message", "chat_member"])
    assert kinds(asked) == (["chat_member", "message"] if admin_bot else ["message"])
    if admin_bot:
        change = telegram.Update.de_json(asked[0], world.ptb).chat_member
        assert change is not None and change.new_chat_member.user.id == alice.id
        assert (change.old_chat_member.status, change.new_chat_member.status) == (
            "creator",
            "left",
        )
    with pytest.raises(ValueError, match="not a member"):
        server.remove_member(group, bob)


async def test_bot_added_back_is_told_and_can_write(world: World) -> None:
    server, group = world.server, world.group
    server.remove_bot(world.bot, group)
    await updates(world)
    update = server.add_bot_to_group(world.bot, group, by=world.alice, admin=True)
    batch = await updates(world)
    assert kinds(batch) == ["my_chat_member", "message"]
    assert batch[0] == update
    changed = update["my_chat_member"]
    assert changed["old_chat_member"]["status"] == "kicked"
    assert changed["new_chat_member"]["status"] == "administrator"
    assert changed["from"]["id"] == world.alice.id
    assert batch[1]["message"]["new_chat_members"] == [world.bot.to_dict()]
    assert "text" not in batch[1]["message"]
    sent = await world.ptb.send_message(group.id, "Я вернулся")
    assert sent.chat.id == group.id
    me = await world.ptb.get_chat_member(group.id, world.bot.id)
    assert me.status == "administrator"
    with pytest.raises(ValueError, match="already in"):
        server.add_bot_to_group(world.bot, group)


async def test_restricted_bot_cannot_send_but_can_edit(world: World) -> None:
    server, group = world.server, world.group
    own = await posted(world, group, "Раунд 1")
    await updates(world)
    server.restrict_bot(world.bot, group, by=world.alice)
    batch = await updates(world)
    changed = batch[0]["my_chat_member"]
    assert changed["old_chat_member"]["status"] == "member"
    new = changed["new_chat_member"]
    assert new["status"] == "restricted" and new["is_member"] is True
    assert new["can_send_messages"] is False and new["can_send_photos"] is False
    assert new["until_date"] == 0
    parsed = telegram.Update.de_json(batch[0], world.ptb)
    assert parsed.my_chat_member is not None
    member = parsed.my_chat_member.new_chat_member
    assert isinstance(member, telegram.ChatMemberRestricted) and not member.can_send_messages

    reply = await raw(world, "sendMessage", chat_id=group.id, text="x")
    assert error(reply) == (400, "Bad Request: not enough rights to send text messages to the chat")
    with pytest.raises(BadRequest, match="Not enough rights to send photos to the chat"):
        await world.ptb.send_photo(group.id, io.BytesIO(PNG))
    edited = await world.ptb.edit_message_text("Раунд 2", group.id, own.message_id)
    assert isinstance(edited, telegram.Message) and own.text == "Раунд 2"
    await world.ptb.edit_message_reply_markup(group.id, own.message_id, reply_markup=JOIN)
    me = await world.ptb.get_chat_member(group.id, world.bot.id)
    assert me.status == "restricted"
    await world.alice.send(group, "still heard")  # a restricted member still reads the chat
    assert kinds(await updates(world)) == ["message"]

    server.restrict_bot(world.bot, group, can_send_messages=True, can_send_photos=False)
    await world.ptb.send_message(group.id, "text is fine")
    with pytest.raises(BadRequest, match="Not enough rights to send photos"):
        await world.ptb.send_photo(group.id, io.BytesIO(PNG))
    server.unrestrict_bot(world.bot, group)
    batch = await updates(world)
    assert [u["my_chat_member"]["new_chat_member"]["status"] for u in batch] == [
        "restricted",
        "member",
    ]
    await world.ptb.send_photo(group.id, io.BytesIO(PNG))
    basic = server.create_group("Basic", members=[world.alice], chat_type="group")
    with pytest.raises(ValueError, match="basic group"):
        server.restrict_bot(world.bot, basic)


async def test_my_chat_member_only_when_allowed(world: World) -> None:
    await updates(world, allowed_updates=["message", "callback_query"])
    world.server.restrict_bot(world.bot, world.group)
    world.server.unrestrict_bot(world.bot, world.group)
    world.server.remove_bot(world.bot, world.group)
    assert await updates(world) == []
    world.server.add_bot_to_group(world.bot, world.group)
    assert kinds(await updates(world)) == ["message"]  # the new_chat_members service message


# ------------------------------------------------------------------------------- migration


async def test_basic_group_migrates_to_a_supergroup(world: World) -> None:
    server = world.server
    basic = server.create_group(
        "Table 2",
        members=[world.alice, world.bob],
        admins=[world.alice],
        chat_type="group",
        bot_admin=True,
    )
    info = await world.ptb.get_chat(basic.id)
    assert info.type == "group" and not str(basic.id).startswith("-100")
    old_message = await posted(world, basic)
    await updates(world)

    new = server.migrate_group(basic, by=world.alice)
    assert str(new.id).startswith("-100") and new.id != basic.id
    assert (new.type, new.title) == ("supergroup", "Table 2")
    assert set(new.members) == {world.alice.id, world.bob.id} and new.admins == {world.alice.id}
    assert server.groups[new.id] is new and basic.migrated_to is new

    batch = await updates(world)
    assert kinds(batch) == ["message", "message"]
    to_old, to_new = batch[0]["message"], batch[1]["message"]
    assert to_old["chat"]["id"] == basic.id and to_old["migrate_to_chat_id"] == new.id
    assert to_new["chat"] == {"id": new.id, "type": "supergroup", "title": "Table 2"}
    assert to_new["migrate_from_chat_id"] == basic.id
    assert to_old["from"]["id"] == to_new["from"]["id"] == world.alice.id
    assert "text" not in to_old and "text" not in to_new
    parsed = telegram.Update.de_json(batch[0], world.ptb)
    assert parsed.message is not None and parsed.message.migrate_to_chat_id == new.id

    reply = await raw(world, "sendMessage", chat_id=basic.id, text="x")
    assert reply.status_code == 400
    assert reply.json() == {
        "ok": False,
        "error_code": 400,
        "description": "Bad Request: group chat was upgraded to a supergroup chat",
        "parameters": {"migrate_to_chat_id": new.id},
    }
    with pytest.raises(ChatMigrated) as caught:
        await world.ptb.send_message(basic.id, "x")
    assert caught.value.new_chat_id == new.id
    with pytest.raises(ChatMigrated):
        await world.ptb.edit_message_text("y", basic.id, old_message.message_id)
    migrated = [r for r in server.requests if r.chat_id == basic.id and r.status == 400]
    assert len(migrated) == 3

    # The bot keeps its rights in the new chat; people write there now.
    me = await world.ptb.get_chat_member(new.id, world.bot.id)
    assert me.status == "administrator"
    await world.ptb.send_message(new.id, "Стол переехал")
    assert old_message in basic.messages and old_message.content == "Стол"
    with pytest.raises(ValueError, match="upgraded"):
        await world.bob.press(old_message, "Join")
    with pytest.raises(ValueError, match="upgraded"):
        await world.bob.send(basic, "hello?")
    await world.bob.send(new, "hello")
    assert [u["message"]["chat"]["id"] for u in await updates(world)] == [new.id]
    with pytest.raises(ValueError, match="only a basic group"):
        server.migrate_group(new)


# -------------------------------------------------------------------------------- deletion


async def test_message_deleted_by_a_person(world: World) -> None:
    server, group = world.server, world.group
    mine = await posted(world, group, "Ставки")
    bobs = await world.bob.send(group, "ставлю 50")
    with pytest.raises(ValueError, match="only their own"):
        server.delete_message(group, mine, by=world.bob)
    server.delete_message(group, bobs.message_id, by=world.bob)  # the author
    server.delete_message(group, mine, by=world.alice)  # an admin
    assert mine.deleted and mine not in group.messages and mine in group.all_messages
    assert bobs not in group.messages

    reply = await raw(
        world, "editMessageText", chat_id=group.id, message_id=mine.message_id, text="y"
    )
    assert error(reply) == (400, "Bad Request: message to edit not found")
    with pytest.raises(BadRequest, match="Message to edit not found"):
        await world.ptb.edit_message_reply_markup(group.id, mine.message_id, reply_markup=None)
    reply = await raw(
        world,
        "sendMessage",
        chat_id=group.id,
        text="ответ",
        reply_parameters={"message_id": bobs.message_id},
    )
    assert error(reply) == (400, "Bad Request: message to be replied not found")
    sent = await world.ptb.send_message(
        group.id,
        "ответ",
        reply_parameters=telegram.ReplyParameters(
            bobs.message_id, allow_sending_without_reply=True
        ),
    )
    assert sent.reply_to_message is None
    with pytest.raises(ValueError, match="already deleted"):
        server.delete_message(group, mine, by=world.alice)


# ---------------------------------------------------------------------------------- topics


async def test_closed_topic_refuses_sends(world: World) -> None:
    server = world.server
    forum = server.create_group("Forum", members=[world.alice, world.bob], forum=True)
    table, other = forum.create_topic("Table A"), forum.create_topic("Table B")
    await world.ptb.send_message(forum.id, "open", message_thread_id=table)
    server.close_topic(forum, table)
    reply = await raw(world, "sendMessage", chat_id=forum.id, text="x", message_thread_id=table)
    assert error(reply) == (400, "Bad Request: TOPIC_CLOSED")
    with pytest.raises(BadRequest, match="Topic_closed"):
        await world.ptb.send_photo(forum.id, io.BytesIO(PNG), message_thread_id=table)
    await world.ptb.send_message(forum.id, "elsewhere", message_thread_id=other)
    await world.ptb.send_message(forum.id, "general")
    with pytest.raises(ValueError, match="closed"):
        await world.bob.send(forum, "let me in", thread_id=table)
    server.reopen_topic(forum, table)
    await world.ptb.send_message(forum.id, "open again", message_thread_id=table)
    server.close_topic(forum, 1)
    with pytest.raises(BadRequest, match="Topic_closed"):
        await world.ptb.send_message(forum.id, "general")
    with pytest.raises(ValueError, match="not a forum"):
        server.close_topic(world.group, 1)


# -------------------------------------------------------------------------------- failures


async def test_fail_next_injects_errors(world: World) -> None:
    server, group = world.server, world.group
    server.fail_next("sendMessage", count=2)
    for _ in range(2):
        reply = await raw(world, "sendMessage", chat_id=group.id, text="x")
        assert reply.status_code == 502
        assert reply.json() == {"ok": False, "error_code": 502, "description": "Bad Gateway"}
    assert group.messages == []  # the failed calls did nothing
    await world.ptb.send_message(group.id, "third time lucky")

    server.fail_next("sendmessage", status=400, description="Bad Request: chat not found")
    with pytest.raises(BadRequest, match="Chat not found"):
        await world.ptb.send_message(group.id, "x")
    server.fail_next("getMe", status=500, description="Internal Server Error")
    with pytest.raises(NetworkError, match="Internal Server Error"):
        await world.ptb.get_me()
    server.fail_next(
        "sendMessage",
        status=429,
        description="Too Many Requests: retry after 3",
        parameters={"retry_after": 3},
    )
    with pytest.raises(RetryAfter):
        await world.ptb.send_message(group.id, "x")

    other = server.create_group("Other", members=[world.alice])
    server.fail_next("sendMessage", chat_id=other.id)
    await world.ptb.send_message(group.id, "not this chat")
    with pytest.raises(NetworkError, match="Bad Gateway"):
        await world.ptb.send_message(other.id, "this one")
    assert server.failures["sendmessage"] == []
    statuses = [(r.method, r.status) for r in server.errors]
    assert statuses == [("sendMessage", 502)] * 2 + [
        ("sendMessage", 400),
        ("getMe", 500),
        ("sendMessage", 429),
        ("sendMessage", 502),
    ]
    assert server.errors[-1].chat_id == other.id
    with pytest.raises(ValueError, match="no method"):
        server.fail_next("sendDice")


async def test_a_link_to_a_user_is_a_text_mention() -> None:
    """`<a href="tg://user?id=…">` becomes a text_mention entity carrying the user (it notifies
    them); a link to an unknown user is dropped, as Telegram does."""
    server = BotApiServer(flood_limits=False)
    bot = server.add_bot("77:mentions_abcdefghijklmnopqrstuvwxyz", username="mention_bot")
    alice = server.create_user("Alice")
    group = server.create_group("G", members=[alice], bots=[bot])
    text = f'<a href="tg://user?id={alice.id}">Alice</a>, <a href="tg://user?id=999">X</a>'
    status, body = await server.dispatch(
        bot.token, "sendMessage", {"chat_id": group.id, "text": text, "parse_mode": "HTML"}
    )
    assert status == 200, body
    entities = body["result"]["entities"]
    assert [(e["type"], e["user"]["id"]) for e in entities] == [("text_mention", alice.id)]
