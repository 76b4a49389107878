"""The Mini App's server in the bot's process: who is asking (initData), what each person is
sent (nobody else's hidden card), acting through the same service as the buttons, the live
stream, and the ways into it from the chats. The page itself is tested in a real browser
(tests/e2e/test_miniapp_browser.py)."""

from __future__ import annotations

import asyncio
import json
import socket
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from bot import render
from bot.delivery import BOOK_SECONDS
from bot.webapp.init_data import InitDataError, secret_key, validate
from localbotapi import BotApiServer, FakeUser
from localbotapi.webapp import init_data
from rules.table import Phase
from tests.bot.conftest import (
    TOKEN,
    Harness,
    make_settings,
    plain,
    start_harness,
    stop_harness,
)
from tests.bot.test_refill import lose_chips

DECK = ["10S", "9S", "7H", "AS", "8D", "KD", "10D", "6C", "6D"]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


class Pages:
    """HTTP to the Mini App as the page makes it, with each person's initData."""

    def __init__(self, harness: Harness, port: int, session: aiohttp.ClientSession) -> None:
        self.h = harness
        self.base = f"http://127.0.0.1:{port}/app/"
        self.session = session

    def auth(self, user: FakeUser, **fields: Any) -> str:
        return init_data(TOKEN, user, **fields)

    async def state(self, user: FakeUser, *, raw: str | None = None, **query: Any) -> Any:
        params = {"chat": str(self.h.group.id), **{k: str(v) for k, v in query.items()}}
        headers = {"Authorization": f"tma {raw if raw is not None else self.auth(user)}"}
        async with self.session.get(self.base + "api/state", params=params, headers=headers) as r:
            return r.status, await r.json()

    async def act(
        self,
        user: FakeUser,
        act: str,
        *,
        version: int | None = None,
        raw: str | None = None,
        amount: int | None = None,
        body: Any = None,
    ) -> tuple[int, Any]:
        if body is None:
            stored = await self.h.stored()
            body = {
                "chat": self.h.group.id,
                "game": stored.game_id,
                "version": version or stored.version,
                "act": act,
                "amount": amount,
            }
        headers = {"Authorization": f"tma {raw if raw is not None else self.auth(user)}"}
        async with self.session.post(self.base + "api/act", json=body, headers=headers) as r:
            result = r.status, await r.json()
        await self.h.deliver()
        return result


@pytest.fixture
async def pages(tmp_path: Path) -> AsyncIterator[Pages]:
    port = free_port()
    settings = make_settings(
        tmp_path,
        webapp_url=f"http://127.0.0.1:{port}/app/",
        webapp_short_name="table",
        webapp_port=port,
    )
    server = BotApiServer(flood_limits=False)
    h = await start_harness(server, settings, players=3)
    h.script([DECK], lots=[0])
    try:
        async with aiohttp.ClientSession() as session:
            yield Pages(h, port, session)
    finally:
        await stop_harness(h)


async def deal(pages: Pages) -> None:
    """Аня banks 100, Борис and Вика sit with her; Борис stakes 50 and is on turn to draw."""
    h = pages.h
    anya, boris, vika = h.users
    await h.say(anya, "/newgame classic36")
    await h.say(boris, "/join")
    await h.say(vika, "/join")
    await h.say(anya, "/deal")
    await h.say(anya, "/bank 100")
    await h.say(boris, "/bet 50")


def hidden_codes(stored: Any, player: int) -> set[str]:
    for hand in stored.state["engine"]["hands"]:
        if hand["player"] == player:
            return {c for c, up in zip(hand["cards"], hand["face_up"], strict=True) if not up}
    return set()


def codes_in(data: Any) -> set[str]:
    text = json.dumps(data, ensure_ascii=False)
    return {code for code in DECK if f'"{code}"' in text}


# ---------------------------------------------------------------------- who is asking


def test_validate_accepts_telegrams_string_and_refuses_changes() -> None:
    server = BotApiServer()
    user = server.create_user("Аня", language_code="ru")
    key = secret_key(TOKEN)
    raw = init_data(TOKEN, user, start_param="c-100", chat_type="group")
    found = validate(raw, key)
    assert (found.user.id, found.user.first_name, found.start_param) == (user.id, "Аня", "c-100")
    assert found.user.language_code == "ru"
    cases = {
        "bad_hash": raw.replace(f"%22id%22%3A{user.id}", f"%22id%22%3A{user.id + 1}"),
        "malformed": raw + "&auth_date=1",
        "missing": "",
    }
    for reason, forged in cases.items():
        with pytest.raises(InitDataError) as caught:
            validate(forged, key)
        assert str(caught.value) == reason
    with pytest.raises(InitDataError, match="bad_hash"):
        validate(init_data("654321:" + "x" * 30, user), key)  # another bot's string
    old = init_data(TOKEN, user, auth_date=int(time.time()) - 3600)
    assert validate(old, key, max_age=7200).user.id == user.id
    with pytest.raises(InitDataError, match="expired"):
        validate(old, key, max_age=1800)
    with pytest.raises(InitDataError, match="from_future"):
        validate(init_data(TOKEN, user, auth_date=int(time.time()) + 3600), key)


async def test_forged_altered_or_expired_init_data_is_401_and_changes_nothing(
    pages: Pages,
) -> None:
    await deal(pages)
    h = pages.h
    boris = h.users[1]
    before = await h.stored()
    genuine = pages.auth(boris)
    forged = {
        "forged": init_data("999999:" + "f" * 30, boris),
        # Борис → Ворис: the hash no longer fits the name.
        "altered": genuine.replace("%D0%91", "%D0%92", 1),
        "expired": pages.auth(boris, auth_date=int(time.time()) - 2 * 86_400),
        "none": "",
    }
    for name, raw in forged.items():
        status, body = await pages.act(boris, "hit", raw=raw)
        assert status == 401, name
        assert body["error"] == "unauthorized"
        assert body["message"] == render.text("app-unauthorized", "ru")
        status, _ = await pages.state(boris, raw=raw)
        assert status == 401, name
    after = await h.stored()
    assert after.version == before.version
    assert after.state == before.state


# ---------------------------------------------------------------------- what is sent


async def test_nobody_elses_hidden_card_leaves_the_server_before_the_showdown(
    pages: Pages,
) -> None:
    await deal(pages)
    h = pages.h
    _anya, boris, vika = h.users
    stored = await h.stored()
    hidden = {p.id: hidden_codes(stored, p.id) for p in h.users}
    assert all(hidden[p.id] for p in (boris, vika))
    for viewer in h.users:
        status, state = await pages.state(viewer)
        assert status == 200
        game = state["game"]
        assert game["phase"] == "draw"
        others = set().union(*(hidden[p.id] for p in h.users if p is not viewer))
        assert not codes_in(state) & others, viewer.first_name
        mine = [c["code"] for c in game["me"]["cards"] if c and "code" in c]
        assert set(mine) >= hidden[viewer.id]
    # Someone who is not seated but is in the group sees the table, and no hidden card at all.
    gosha = h.newcomer("Гоша")
    status, state = await pages.state(gosha)
    assert status == 200
    assert state["game"]["me"] is None
    assert not codes_in(state) & set().union(*hidden.values())


async def test_a_stranger_to_the_group_is_refused_the_table(pages: Pages) -> None:
    await deal(pages)
    stranger = pages.h.server.create_user("Чужой")
    status, body = await pages.state(stranger)
    assert status == 403
    assert body["error"] == "not_member"
    status, body = await pages.act(stranger, "join")
    assert status == 403
    game = await pages.h.stored()
    assert stranger.id not in [seat["player"] for seat in game.state["engine"]["seats"]]


# ---------------------------------------------------------------------- acting


async def test_acting_from_the_page_goes_through_the_service(pages: Pages) -> None:
    await deal(pages)
    h = pages.h
    _anya, boris, vika = h.users
    status, state = await pages.state(boris)
    acts = [a["act"] for a in state["game"]["actions"]]
    assert acts[:2] == ["hit", "stand"] and "odds" in acts
    assert state["game"]["turn"]["mine"] is True
    status, state = await pages.state(vika)
    assert state["game"]["actions"] == []
    assert state["game"]["turn"]["mine"] is False
    # Out of turn: the service's refusal, in the person's language.
    status, body = await pages.act(vika, "hit")
    assert status == 409
    assert body["error"] == "not_your_turn"
    assert body["message"] == render.refusal("not_your_turn", {"turn_name": "Борис"}, "ru")
    # Борис draws the ace: 21, paid at once.
    version = (await h.stored()).version
    status, body = await pages.act(boris, "hit", version=version)
    assert status == 200 and body["ok"], body
    assert body["state"]["game"]["version"] > version
    after = await h.stored()
    assert after.version > version
    # The same press again (a double tap): acts once.
    status, again = await pages.act(boris, "hit", version=version)
    assert status == 200
    assert again["toast"].startswith(render.text("pressed-done", "ru"))
    assert (await h.stored()).version == after.version
    # The group's table shows it too.
    assert any("Борис" in text and "21" in text for text in h.group_texts())


async def test_bad_presses_get_a_clear_answer_and_change_nothing(pages: Pages) -> None:
    await deal(pages)
    h = pages.h
    boris = h.users[1]
    before = await h.stored()
    for body in (
        {"game": before.game_id, "version": before.version, "act": "explode"},
        {"game": True, "version": before.version, "act": "hit"},
        {"game": before.game_id, "version": "7", "act": "hit"},
        {"game": before.game_id, "version": before.version, "act": "bet", "amount": -5},
        ["hit"],
    ):
        status, answer = await pages.act(boris, "", body=body)
        assert status == 400, body
        assert answer["message"] == render.text("app-bad_request", "ru")
    # A press drawn for an earlier decision.
    status, answer = await pages.act(boris, "hit", version=1)
    assert status == 409 and answer["error"] == "stale_button"
    assert (await h.stored()).version == before.version


async def test_an_english_speaker_reads_the_page_in_english(pages: Pages) -> None:
    await deal(pages)
    h = pages.h
    await h.say(h.users[2], "/lang en", h.bot)
    status, state = await pages.state(h.users[2])
    assert status == 200
    assert state["lang"] == "en"
    assert state["labels"]["your_cards"] == "Your cards"
    _, body = await pages.act(h.users[2], "hit")
    assert body["message"] == render.refusal("not_your_turn", {"turn_name": "Борис"}, "en")


async def test_joining_from_the_page_seats_a_member_for_the_next_round(pages: Pages) -> None:
    await deal(pages)
    h = pages.h
    gosha = h.newcomer("Гоша")
    _, state = await pages.state(gosha)
    assert [a["act"] for a in state["game"]["actions"]] == ["join"]
    status, body = await pages.act(gosha, "join", version=state["game"]["actions"][0]["version"])
    assert status == 200, body
    seated = [seat["player"] for seat in (await h.stored()).state["engine"]["seats"]]
    assert gosha.id in seated
    # The page says what the chat's button says: he plays from the next round, and his cards
    # go to the private chat he has not opened yet (the chat's answer opens it; the page
    # offers the same link).
    link = f"https://t.me/{h.bot.username}?start=g{(await h.stored()).game_id}"
    hint = render.text("joined-private", "ru", bot=h.bot.username)
    assert body["toast"] == render.text("joined_next", "ru") + " " + hint
    assert body["link"] == link
    # The chat's /join says the same of the next round.
    dima = h.newcomer("Дима")
    await h.say(dima, "/join")
    assert any(plain(render.text("joined_next", "ru")) in text for text in h.group_texts())


async def test_the_page_joins_with_the_chats_words(pages: Pages) -> None:
    """A seat taken from the page in the lobby, by someone whose private chat is open: the
    chat's «seated» toast, no link; a broke player's seat comes with the refill's note."""
    h = pages.h
    anya, boris, vika = h.users
    await h.say(anya, "/newgame classic36")
    status, body = await pages.act(boris, "join")
    assert status == 200, body
    assert body["toast"] == render.text("joined", "ru") and "link" not in body
    await lose_chips(h, vika, anya)
    status, body = await pages.act(vika, "join")
    assert status == 200, body
    assert body["toast"] == render.text("refill-toast", "ru", amount=1000)
    assert any(s["player"] == vika.id for s in (await h.stored()).state["engine"]["seats"])


# ---------------------------------------------------------------------- live


async def read_event(response: aiohttp.ClientResponse, timeout: float = 5.0) -> Any:
    """The next ``event: state`` of a stream (comments skipped)."""
    data = b""
    async with asyncio.timeout(timeout):
        while True:
            line = await response.content.readline()
            if not line:
                raise EOFError
            if line.startswith(b"data: "):
                data = line[6:]
            elif line == b"\n" and data:
                return json.loads(data)


async def test_each_commit_is_pushed_and_a_new_stream_starts_with_the_latest(
    pages: Pages,
) -> None:
    await deal(pages)
    h = pages.h
    _anya, boris, vika = h.users
    params = {"chat": str(h.group.id), "auth": pages.auth(vika)}
    async with pages.session.get(pages.base + "api/events", params=params) as stream:
        assert stream.status == 200
        assert stream.headers["Content-Type"].startswith("text/event-stream")
        first = await read_event(stream)
        version = first["game"]["version"]
        started = time.monotonic()
        status, _ = await pages.act(boris, "hit")
        assert status == 200
        pushed = await read_event(stream)
        assert pushed["game"]["version"] > version
        assert time.monotonic() - started < 1.0
        # A timer's commit (no page, no button) is pushed as well.
        await h.say(vika, "/bet 25")
        pushed = await read_event(stream)
        assert pushed["game"]["turn"]["name"] == "Вика"
        assert pushed["game"]["turn"]["mine"] is True
    # Reconnecting: the first event is the newest state.
    latest = (await h.stored()).version
    async with pages.session.get(pages.base + "api/events", params=params) as stream:
        again = await read_event(stream)
        assert again["game"]["version"] == latest
    # A page that went away stops being followed at once.
    miniapp = h.app.bot_data["miniapp"]
    async with asyncio.timeout(2):
        while miniapp.live.open_pages():  # noqa: ASYNC110 - a count, not an event, is watched
            await asyncio.sleep(0.01)


async def test_the_turn_clock_reaches_the_page_when_it_starts(pages: Pages) -> None:
    """The clock starts when the turn's notice is delivered (not at the commit): the page's
    countdown then shows the stored deadline, pushed without a new version."""
    await deal(pages)
    h = pages.h
    params = {"chat": str(h.group.id), "auth": pages.auth(h.users[2])}
    async with pages.session.get(pages.base + "api/events", params=params) as stream:
        state = await read_event(stream)
        await pages.act(h.users[1], "stand")
        await h.advance_clock(BOOK_SECONDS)  # delivered, and its clock start written
        stored = await h.stored()
        assert stored.deadline is not None
        while state["game"]["version"] != stored.version or (
            state["game"]["turn"]["deadline"] != stored.deadline
        ):
            state = await read_event(stream)
    assert state["game"]["turn"]["name"] == "Вика"
    assert state["game"]["turn"]["deadline"] == stored.deadline


async def test_an_event_stream_refuses_bad_init_data(pages: Pages) -> None:
    await deal(pages)
    params = {"chat": str(pages.h.group.id), "auth": "user=%7B%7D&hash=00"}
    async with pages.session.get(pages.base + "api/events", params=params) as stream:
        assert stream.status == 401


# ---------------------------------------------------------------------- the ways in


async def test_the_private_hand_opens_the_app_and_the_group_links_to_it(pages: Pages) -> None:
    await deal(pages)
    h = pages.h
    boris = h.users[1]
    hand = h.private(boris).last_with_buttons()
    assert hand is not None
    apps = [b for row in hand.inline_keyboard for b in row if "web_app" in b]
    assert apps, hand.buttons
    assert apps[0]["web_app"]["url"] == f"{pages.base}?chat={h.group.id}"
    links = [b.get("url") for row in h.table().inline_keyboard for b in row if b.get("url")]
    link = f"https://t.me/ochko_test_bot/table?startapp=c{h.group.id}"
    assert link in links
    # No web_app button ever went to the group (Telegram refuses it there).
    for message in h.group.all_messages:
        assert not any("web_app" in b for row in message.inline_keyboard for b in row)


async def test_the_start_parameter_names_the_table(pages: Pages) -> None:
    await deal(pages)
    h = pages.h
    raw = pages.auth(h.users[2], start_param=f"c{h.group.id}", chat_type="supergroup")
    async with pages.session.get(
        pages.base + "api/state", headers={"Authorization": f"tma {raw}"}
    ) as response:
        state = await response.json()
    assert state["game"]["phase"] == Phase.DRAW.value
    # With neither: the game the person sits in.
    async with pages.session.get(
        pages.base + "api/state", headers={"Authorization": f"tma {pages.auth(h.users[2])}"}
    ) as response:
        assert (await response.json())["game"]["id"] == (await h.stored()).game_id


async def test_the_page_is_served_with_telegrams_script(pages: Pages) -> None:
    async with pages.session.get(pages.base) as response:
        page = await response.text()
    assert '<script src="https://telegram.org/js/telegram-web-app.js"></script>' in page
    for name in ("app.js", "app.css"):
        async with pages.session.get(pages.base + "static/" + name) as response:
            assert response.status == 200
    async with pages.session.get(pages.base + "static/../settings.py") as response:
        assert response.status == 404


async def test_a_flood_of_requests_is_slowed_down_and_changes_nothing(pages: Pages) -> None:
    from bot.webapp.asking import REQUESTS_PER_WINDOW
    from bot.webapp.live import STREAMS_PER_PERSON

    await deal(pages)
    vika = pages.h.users[2]
    statuses = [(await pages.state(vika))[0] for _ in range(REQUESTS_PER_WINDOW)]
    assert set(statuses) == {200}
    status, body = await pages.state(vika)
    assert status == 429
    assert body["message"] == render.refusal("slow_down", {}, "ru")
    # Someone else is not slowed down by her.
    assert (await pages.state(pages.h.users[1]))[0] == 200
    # Event streams: a few pages at once, not a hundred.
    miniapp = pages.h.app.bot_data["miniapp"]
    miniapp.askers._recent.clear()
    boris = pages.h.users[1]
    params = {"chat": str(pages.h.group.id), "auth": pages.auth(boris)}
    streams = []
    try:
        for _ in range(STREAMS_PER_PERSON):
            stream = await pages.session.get(pages.base + "api/events", params=params)
            assert stream.status == 200
            await read_event(stream)
            streams.append(stream)
        async with pages.session.get(pages.base + "api/events", params=params) as refused:
            assert refused.status == 429
    finally:
        for stream in streams:
            stream.close()


async def test_the_press_that_settles_a_round_answers_with_its_result(pages: Pages) -> None:
    await deal(pages)
    h = pages.h
    anya, boris, vika = h.users
    await pages.act(boris, "hit")  # the ace: 21
    await h.say(vika, "/bet 10")
    await h.say(vika, "/stand")
    assert (await h.stored()).state["engine"]["phase"] == "banker"
    status, body = await pages.act(anya, "stand")
    assert status == 200, body
    game = body["state"]["game"]
    assert game["phase"] == "round_over"
    assert game["result"] is not None and game["result"]["lines"]
