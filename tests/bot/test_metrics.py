"""Issue 32: the metrics' labels stay bounded (no chat, person or token in any of them), the
kinds and results they count are told apart, and /readyz names a database that does not answer.
The metrics moving in a real process: tests/e2e/test_metrics.py."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from telegram import Update

from bot import metrics
from bot.callbacks import Act
from bot.monitor import Monitor
from bot.transport import result_of
from localbotapi.server import BotApiServer
from tests.bot.conftest import TOKEN, Harness, make_settings, start_harness, stop_harness
from tests.e2e.test_webhook import free_port

# What each label may say: a fixed set, or a word (a command, a refusal code, a method).
BOUNDED = {
    "outcome": set(metrics.ACTION_OUTCOMES),
    "result": set(metrics.BOTAPI_RESULTS),
    "chat_kind": set(metrics.CHAT_KINDS),
    "change": {"acquired", "lost"},
}
WORD = re.compile(r"[a-z][A-Za-z_]*|")


@pytest.fixture
async def metered(tmp_path: Path) -> AsyncIterator[Harness]:
    settings = make_settings(tmp_path, metrics_enabled=True, metrics_port=free_port())
    h = await start_harness(BotApiServer(flood_limits=False), settings)
    try:
        yield h
    finally:
        await stop_harness(h)
        metrics.enable(False)


def samples() -> list[tuple[str, dict[str, str], float]]:
    return [
        (sample.name, sample.labels, sample.value)
        for family in metrics.REGISTRY.collect()
        for sample in family.samples
    ]


def count(name: str, **labels: str) -> float:
    return sum(
        value
        for sample, found, value in samples()
        if sample == name and all(found.get(k) == v for k, v in labels.items())
    )


async def test_labels_are_bounded(metered: Harness) -> None:
    h = metered
    anya, boris, vika = h.users[:3]
    refused = count("ochko_actions_total", kind="bet", outcome="refused")
    joins = count("ochko_actions_total", kind="join", outcome="done")
    await h.say(anya, "/newgame classic36")
    await h.press_act(boris, h.table(), Act.JOIN)
    await h.press_act(vika, h.table(), Act.JOIN)
    await h.press_act(boris, h.table(), Act.JOIN)  # again: already seated
    await h.press_act(boris, h.table(), Act.START)
    await h.say(vika, "/bet 50")  # not her turn, nor a stake yet: refused
    assert count("ochko_actions_total", kind="bet", outcome="refused") > refused
    assert count("ochko_actions_total", kind="join", outcome="done") >= joins + 2
    assert count("ochko_commit_seconds_count") >= 3  # the table, two seats
    names = [(sample, labels) for sample, labels, _ in samples()]
    assert {sample for sample, _ in names} >= {
        "ochko_actions_total",
        "ochko_commit_seconds_count",
        "ochko_lane_backlog",
        "ochko_replica_lease",
    }
    secret_words = {str(h.group.id), TOKEN, *(str(u.id) for u in h.users)}
    secret_words |= {u.first_name for u in h.users}
    for sample, labels in names:
        for key, value in labels.items():
            assert not any(word in value for word in secret_words), (sample, key, value)
            if key in BOUNDED:
                assert value in BOUNDED[key], (sample, key, value)
            elif key != "le":  # (a histogram's bucket bound)
                assert WORD.fullmatch(value), (sample, key, value)


def test_update_kinds() -> None:
    chat = {"id": -100, "type": "supergroup", "title": "t"}
    user = {"id": 7, "is_bot": False, "first_name": "A"}
    message = {"message_id": 1, "date": 0, "chat": chat, "from": user}
    cases = {
        "command": {"message": {**message, "text": "/hit"}},
        "message": {"message": {**message, "text": "hello"}},
        "edited_message": {"edited_message": {**message, "text": "/hit", "edit_date": 1}},
        "callback_query": {
            "callback_query": {"id": "1", "from": user, "chat_instance": "c", "data": "x"}
        },
        "web_app": {
            "message": {**message, "web_app_data": {"data": "d", "button_text": "b"}},
        },
        "other": {},
    }
    assert set(cases) <= set(metrics.UPDATE_KINDS)
    for kind, body in cases.items():
        update = Update.de_json({"update_id": 1, **body}, None)
        assert metrics.update_kind(update) == kind, kind


def test_bot_api_results() -> None:
    assert [result_of(status) for status in (200, 400, 403, 429, 500, 502)] == [
        "ok",
        "refused",
        "refused",
        "flood",
        "transient",
        "transient",
    ]


async def test_readiness_names_a_database_that_does_not_answer(harness: Harness) -> None:
    monitor = Monitor(harness.rt.storage, replica=None, updates_running=lambda: True, pace=None)
    assert await monitor.readiness_problem() is None
    await harness.rt.storage.stop()
    problem = await monitor.readiness_problem()
    assert problem is not None and "database" in problem
    await harness.rt.storage.start()
    assert await monitor.readiness_problem() is None
    stopped = Monitor(harness.rt.storage, replica=None, updates_running=lambda: False, pace=None)
    assert "updates" in (await stopped.readiness_problem() or "")
