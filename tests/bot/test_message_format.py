"""Every message the bot writes or edits is HTML and shows no link preview, whoever sends it
(the table, a hand, an answer, the odds, the settings menu, the end question): the
application's defaults put both into each request, so no send site can forget them."""

from __future__ import annotations

import json
from typing import Any

from bot.callbacks import Act
from localbotapi.models import RequestRecord
from tests.bot.conftest import Harness
from tests.bot.test_commands import setting
from tests.bot.test_odds_bot import FIRST, deal

WRITES = ("sendMessage", "editMessageText", "sendPhoto", "editMessageCaption")
PREVIEWED = ("sendMessage", "editMessageText")


def _preview(record: RequestRecord) -> Any:
    raw = record.params.get("link_preview_options")
    return json.loads(raw) if isinstance(raw, str) else raw


async def test_every_message_is_html_without_a_preview(harness: Harness) -> None:
    h = harness
    a, b, _, _ = h.users
    await deal(h)
    await h.say(b, "/odds")  # a plain line of figures, sent privately
    await h.press_act(b, h.table(), Act.HIT)
    await h.say(a, "/help")
    await h.say(a, "/settings")
    menu = h.group.last_with_buttons()
    assert menu is not None
    await h.press_data(a, menu, setting(menu, "fine", "50"))  # the menu is edited
    await h.say(a, "/endgame")
    await h.deliver()
    writes = [r for r in h.server.requests if r.method in WRITES]
    methods = {r.method for r in writes}
    assert {"sendMessage", "editMessageText"} <= methods, methods
    assert any(r.params.get("text") == FIRST for r in writes), "the odds were not sent"
    for record in writes:
        assert record.ok, record
        assert record.params.get("parse_mode") == "HTML", record
        if record.method in PREVIEWED:
            assert _preview(record) == {"is_disabled": True}, record
