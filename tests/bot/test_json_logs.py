"""LOG_FORMAT=json: one JSON object per line, with the chat and the game where known; the token
redacted and telegram's debug payloads (the private hands) dropped, as in the text lines."""

from __future__ import annotations

import io
import logging
from collections.abc import Iterator

import orjson
import pytest

from bot import logs

TOKEN = "123456:SECRETTOKEN_abcdefghijklmnopqrstuv"


@pytest.fixture
def lines() -> Iterator[io.StringIO]:
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    logs.configure_logging("DEBUG", [TOKEN], "json")
    stream = io.StringIO()
    root.handlers[0].setStream(stream)  # type: ignore[attr-defined]
    yield stream
    root.handlers[:] = handlers
    root.setLevel(level)


def test_one_object_per_line_with_chat_and_game(lines: io.StringIO) -> None:
    log = logging.getLogger("bot.test")
    logs.bind(chat=-1001, game=None)
    log.info("handled an update\nover two lines")
    logs.bind(game=42)
    log.warning("acting")
    log.info("game=%s chat=%s events=%s", 7, -2002, "seated")  # named in the message: those
    logs.bind(chat=None, game=None)
    log.info("calling %s/sendMessage", f"https://api.telegram.org/bot{TOKEN}")
    try:
        raise ValueError("boom")
    except ValueError:
        log.exception("failed")
    # Telegram's own debug line with a private hand: the payload goes.
    logging.getLogger("telegram.ext").debug("sent %s", {"text": "Ваши карты: 10♠ A♠"})
    text = lines.getvalue()
    entries = [orjson.loads(line) for line in text.splitlines()]
    assert len(entries) == 6
    assert all(isinstance(entry, dict) for entry in entries)
    assert (entries[0]["chat"], "game" in entries[0]) == (-1001, False)
    assert entries[0]["message"] == "handled an update\nover two lines"
    assert (entries[1]["chat"], entries[1]["game"], entries[1]["level"]) == (-1001, 42, "WARNING")
    assert (entries[2]["chat"], entries[2]["game"]) == (-2002, 7)
    assert "chat" not in entries[3] and "<redacted>" in entries[3]["message"]
    assert "ValueError: boom" in entries[4]["exception"]
    assert entries[5]["logger"] == "telegram.ext" and logs.PAYLOAD in entries[5]["message"]
    assert TOKEN not in text and TOKEN.split(":")[1] not in text
    assert "♠" not in text and "10\\u2660" not in text
