"""A round's replay in the Mini App (issue 31): ``/app/api/replay`` gives a settled round of the
asker's chat card by card with its revealed shuffles (the page checks the proof itself:
tests/e2e/test_replay_browser.py) — to a member of the game's group only, never a round still
being played, never without a genuine initData; the result message and /verify lead to it; the
live page shows the whole deck hash before the first card."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from bot import deep_links, render
from bot.webapp.replay import REPLAY_LABELS, replay_labels
from bot.webapp.view import plain as page_plain
from localbotapi import BotApiServer, FakeUser
from localbotapi.webapp import init_data
from rules.fairness import commitment
from tests.bot.conftest import TOKEN, Harness, make_settings, start_harness, stop_harness
from tests.bot.test_miniapp import free_port
from tests.bot.test_rounds import PLANS, play_round

PLAN = PLANS["classic36"]  # Аня banks 100; Борис 50 and 21 at once; Вика 25 and a dark 8; …


class Replays:
    """The replay API as the page calls it, with each person's initData."""

    def __init__(self, harness: Harness, port: int, session: aiohttp.ClientSession) -> None:
        self.h = harness
        self.base = f"http://127.0.0.1:{port}/app/"
        self.session = session

    async def get(
        self, user: FakeUser, *, raw: str | None = None, start_param: str = "", **query: Any
    ) -> tuple[int, Any]:
        auth = raw if raw is not None else init_data(TOKEN, user, start_param=start_param)
        params = {k: str(v) for k, v in query.items()}
        headers = {"Authorization": f"tma {auth}"}
        async with self.session.get(self.base + "api/replay", params=params, headers=headers) as r:
            return r.status, await r.json()

    async def page(self, **query: str) -> str:
        async with self.session.get(self.base, params=query) as r:
            assert r.status == 200
            return await r.text()


async def app_harness(tmp_path: Path, **settings: Any) -> tuple[Harness, int]:
    """Four people in a group, and the bot serving its Mini App (as a group links to it)."""
    port = free_port()
    configured = make_settings(
        tmp_path,
        webapp_url=f"http://127.0.0.1:{port}/app/",
        webapp_short_name="table",
        webapp_port=port,
        **settings,
    )
    return await start_harness(BotApiServer(flood_limits=False), configured, players=4), port


@pytest.fixture
async def replays(tmp_path: Path) -> AsyncIterator[Replays]:
    h, port = await app_harness(tmp_path)
    try:
        async with aiohttp.ClientSession() as session:
            yield Replays(h, port, session)
    finally:
        await stop_harness(h)


async def settled_round_one(replays: Replays) -> int:
    """Round 1 of classic36 played to its showdown, round 2 dealt and being played."""
    await play_round(replays.h, "classic36", buttons=False)
    stored = await replays.h.stored()
    assert stored.state["engine"]["round_no"] == 2 and stored.state["engine"]["phase"] != "lobby"
    return stored.game_id


async def test_a_settled_round_is_replayed_card_by_card_as_it_was_played(
    replays: Replays,
) -> None:
    h = replays.h
    game_id = await settled_round_one(replays)
    anya, boris, vika, gosha = h.users
    # Гоша is in the group but sat at no table: members see the replay as they see the table.
    status, body = await replays.get(gosha, game=game_id, round=1, chat=h.group.id)
    assert status == 200, body
    assert body["labels"] == replay_labels("ru") and body["lang"] == "ru"
    replay = body["replay"]
    assert (replay["game"], replay["round"]) == (game_id, 1)
    # The shuffle as the bot revealed it, and the one /verify checks.
    stored = await h.stored()
    round_no, shuffles = await h.rt.service.revealed_round(stored, 1)
    assert round_no == 1 and len(shuffles) == 1
    revealed = shuffles[0]
    assert replay["shuffles"] == [
        {
            "commitment": revealed.commitment,
            "salt": revealed.salt,
            "order": list(revealed.order),
            "recycled": False,
        }
    ]
    assert commitment(revealed.order, revealed.salt) == revealed.commitment
    frames = replay["frames"]
    # The hash as published before the first card comes first, then the cards in dealing order,
    # each to whom it went, the dark one marked.
    assert frames[0]["kind"] == "shuffled" and frames[0]["commitment"] == revealed.commitment
    cards = [(f["player"], f["card"]["code"], f["dark"]) for f in frames if f["kind"] == "card"]
    assert cards == [
        (boris.id, "10S", False),
        (vika.id, "9S", False),
        (anya.id, "7H", False),
        (boris.id, "AS", False),
        (vika.id, "8D", True),
        (anya.id, "KD", False),
        (anya.id, "10D", False),
    ]
    assert [c for _, c, _ in cards] == list(revealed.dealt) == PLAN.deck
    assert next(f for f in frames if f["kind"] == "card" and f["player"] == anya.id)["face_up"]
    stakes = [(f["player"], f["amount"]) for f in frames if f["kind"] == "stake"]
    assert stakes == [(boris.id, 50), (vika.id, 25)]
    # The bank's flow: 100 at the deal, Борис's 21 paid from it, … 75 at the end.
    assert frames[0]["bank"] == 100
    assert frames[-1]["bank"] == PLAN.bank
    paid = [f for f in frames if f["kind"] == "chips"]
    assert paid and any("Борис" in f["text"] for f in paid)
    texts = [f["text"] for f in frames]
    assert "🃏 Борис получает A♠" in texts and "🌑 Вика берёт втёмную: 8♦" in texts, texts
    assert "💰 Вика ставит 25" in texts
    assert all("<" not in text for text in texts)  # plain text (the page uses textContent)
    # The players (the banker first) and the result as the chat showed it.
    assert [(p["id"], p["banker"]) for p in replay["players"]] == [
        (anya.id, True),
        (boris.id, False),
        (vika.id, False),
    ]
    assert replay["result"]["title"].startswith("🏁 Раунд 1")
    shown_result = next(t for t in h.group_texts() if "Раунд 1: вскрываемся" in t)
    assert replay["result"]["lines"][0] == page_plain(shown_result.split("\n")[1])
    # The record is the engine's: the same round rebuilt from the stored log.
    archived = await h.rt.storage.archived_log(game_id)
    record = h.rt.service.game(stored).round_record(1, archived)
    assert record is not None
    assert len([e for s in record.steps for e in s.events if e.kind == "card_dealt"]) == 7


async def test_the_round_being_played_is_refused_and_the_start_parameter_names_a_round(
    replays: Replays,
) -> None:
    h = replays.h
    game_id = await settled_round_one(replays)
    boris = h.users[1]
    status, body = await replays.get(boris, game=game_id, round=2, chat=h.group.id)
    assert status == 409 and body["ok"] is False
    assert body["error"] == "not_revealed"
    assert body["message"] == page_plain(render.refusal("not_revealed", {"round": 2}, "ru"))
    assert str(2) in body["message"]
    status, body = await replays.get(boris, game=game_id, round=9, chat=h.group.id)
    assert status == 409 and body["error"] == "no_round"
    # A direct link's start parameter names the round (no query).
    param = deep_links.replay_param(game_id, 1)
    status, body = await replays.get(boris, start_param=param)
    assert status == 200 and body["replay"]["round"] == 1
    status, body = await replays.get(boris, game="x", round=1)
    assert status == 400 and body["error"] == "bad_request"
    status, body = await replays.get(boris, game=game_id + 50, round=1)
    assert status == 404 and body["error"] == "not_found"
    # The page itself: the table's address serves the replay when it names a round.
    assert "replay.js" in await replays.page(tgWebAppStartParam=param)
    assert "replay.js" in await replays.page(replay=param)
    assert "app.js" in await replays.page() and "replay.js" not in await replays.page()


async def test_another_chat_a_stranger_and_a_forged_init_data_are_refused(
    replays: Replays,
) -> None:
    h = replays.h
    game_id = await settled_round_one(replays)
    gosha = h.users[3]
    stranger = h.server.create_user("Чужой")
    other = h.server.create_group("Другая", members=[stranger, gosha], admins=[stranger])
    # Someone not in the group: refused as the table refuses him.
    status, body = await replays.get(stranger, game=game_id, round=1)
    assert status == 403 and body["error"] == "not_member"
    assert body["message"] == render.text("app-not_member", "ru")
    assert "replay" not in body and "salt" not in str(body)
    # A page of another chat asks for this chat's round: refused, even to a member of both.
    status, body = await replays.get(gosha, game=game_id, round=1, chat=other.id)
    assert status == 403 and body["error"] == "other_chat"
    assert body["message"] == render.text("app-replay-other_chat", "ru")
    # No genuine initData: nothing is read.
    genuine = init_data(TOKEN, gosha)
    for raw in ("", init_data("999999:" + "f" * 30, gosha), genuine.replace("%D0%93", "%D0%94")):
        status, body = await replays.get(gosha, raw=raw, game=game_id, round=1)
        assert status == 401 and body["error"] == "unauthorized", raw
    status, body = await replays.get(gosha, raw=genuine, game=game_id, round=1)
    assert status == 200


async def test_the_result_and_verify_lead_to_the_replay(replays: Replays) -> None:
    h = replays.h
    game_id = await settled_round_one(replays)
    anya = h.users[0]
    link = deep_links.replay_link("ochko_test_bot", "table", game_id, 1)
    assert link == f"https://t.me/ochko_test_bot/table?startapp=v{game_id}r1"
    # The round's result carries «🔍 Проверить раунд 1», a direct link (a group refuses
    # web_app buttons), and keeps it once the next round began.
    result = next(m for m in h.group.messages if "Раунд 1: вскрываемся" in m.content)
    buttons = [b for row in result.inline_keyboard for b in row]
    assert {"text": "🔍 Проверить раунд 1", "url": link} in buttons, buttons
    assert not any("web_app" in b for b in buttons)
    # /verify 1 in private while round 2 is played: round 1 is checked, and its button opens the
    # replay in the Mini App.
    await h.say(anya, "/verify 1", h.bot)
    reply = h.private(anya).messages[-1]
    assert "раунд 1" in reply.content and "✅ колода честная" in reply.content
    apps = [b for row in reply.inline_keyboard for b in row if "web_app" in b]
    assert [b["text"] for b in apps] == ["🔍 Проверить раунд 1"]
    assert apps[0]["web_app"]["url"] == (
        f"{replays.base}?chat={h.group.id}&replay={deep_links.replay_param(game_id, 1)}"
    )
    # /verify in the group (the last settled round by default) gives the direct link.
    h.advance_reply_clock(h.rt.cooldowns.seconds)
    boris = h.users[1]
    before = len(h.private(boris).all_messages)
    await h.say(boris, "/verify")
    answer = h.private(boris).all_messages[before:]
    assert len(answer) == 1 and "раунд 1" in answer[0].content
    urls = [b.get("url") for row in answer[0].inline_keyboard for b in row]
    assert urls == [link]


async def test_the_live_page_shows_the_whole_hash_before_the_first_card(
    replays: Replays,
) -> None:
    h = replays.h
    anya, boris = h.users[:2]
    h.script([PLAN.deck], lots=[0])
    await h.say(anya, "/newgame classic36")
    await h.say(boris, "/join")
    await h.say(anya, "/deal")
    await h.say(anya, "/bank 100")  # dealt: nobody has staked, no card is out
    engine = (await h.stored()).state["engine"]
    assert engine["phase"] == "stake" and engine["shuffles"]
    committed = engine["shuffles"][-1]["commitment"]
    assert len(committed) == 64
    headers = {"Authorization": f"tma {init_data(TOKEN, boris)}"}
    params = {"chat": str(h.group.id)}
    async with replays.session.get(replays.base + "api/state", params=params, headers=headers) as r:
        state = await r.json()
    assert state["game"]["commitment"] == committed
    assert state["labels"]["deck_hash"] == render.text("app-deck_hash", "ru")


def test_the_replay_labels_are_in_both_catalogs_with_their_marks() -> None:
    for lang in ("ru", "en"):
        labels = replay_labels(lang)
        assert {f"app-{key}" for key in labels} == set(REPLAY_LABELS)
        assert all(text and "app-" not in text for text in labels.values()), labels
        hash_bad, deal_bad = labels["replay-hash_bad"], labels["replay-deal_bad"]
        assert "{computed}" in hash_bad and "{committed}" in hash_bad
        assert "{place}" in deal_bad and "{expected}" in deal_bad


def test_the_replay_page_holds_no_words_and_asks_only_for_its_labels() -> None:
    """Like the table's page (tests/bot/test_miniapp_labels.py): every word comes from the
    server in the reader's language."""
    static = Path(__file__).resolve().parents[2] / "bot" / "webapp" / "static"
    script = (static / "replay.js").read_text(encoding="utf-8")
    asked = set(re.findall(r'\b[LF]\("([\w-]+)"', script))
    asked |= set(re.findall(r'"(replay-[a-z_]+)"', script))
    assert {"replay-hash_bad", "replay-deal_bad", "replay-first", "bank"} <= asked
    assert asked == set(replay_labels("en")), asked ^ set(replay_labels("en"))
    for name in ("replay.js", "replay.html", "replay.css"):
        assert not re.search(r"[\u0400-\u04FF]", (static / name).read_text(encoding="utf-8"))
