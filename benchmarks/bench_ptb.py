"""The library's share of a game action: CPU time python-telegram-bot spends to parse one callback
update (with the table message it was pressed on) and to answer it, and the CPU of one Bot API
call over each HTTP transport (PTB's default httpx one and the bot's aiohttp one) against the
local Bot API server running in another process.

The update is parsed twice: as PTB parses it by default (json, the whole message), and as the
bot's transport hands it over (orjson, the message without its text and keyboard). The calls
are getMe (no parameters) and a sendMessage with a table and its keyboard (the parameters as
PTB's form fields over httpx, as one JSON body over aiohttp).

Run: .venv/bin/python benchmarks/bench_ptb.py [--calls 1000]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from telegram import Bot, InlineKeyboardButton, InlineKeyboardMarkup, Update
from telegram.request import BaseRequest, HTTPXRequest, RequestData

from benchmarks._common import TOKEN, machine
from bot.transport import AiohttpRequest

TABLE = "🂠 <b>Стол №1</b> — банк 300\n" + "\n".join(
    f"Игрок {n}: 🂠🂠 — ставка 10" for n in range(1, 5)
)
CALLBACK_UPDATE: dict[str, Any] = {
    "update_id": 1,
    "callback_query": {
        "id": "42",
        "from": {"id": 7, "is_bot": False, "first_name": "Аня", "language_code": "ru"},
        "chat_instance": "1",
        "data": "g:1:5:hit",
        "message": {
            "message_id": 5,
            "date": 1_700_000_000,
            "chat": {"id": -100123, "type": "supergroup", "title": "Очко"},
            "from": {"id": 1, "is_bot": True, "first_name": "Очко", "username": "ochko_bot"},
            "text": TABLE,
            "entities": [{"type": "bold", "offset": 3, "length": 7}] * 6,
            "reply_markup": {
                "inline_keyboard": [
                    [{"text": t, "callback_data": f"g:1:5:{t}"} for t in ("hit", "stand", "peek")],
                    [{"text": "odds", "callback_data": "g:1:5:odds"}],
                ]
            },
        },
    },
}


class Instant(BaseRequest):
    """Answers every call at once, as Telegram would answer answerCallbackQuery."""

    async def initialize(self) -> None:
        return None

    async def shutdown(self) -> None:
        return None

    @property
    def read_timeout(self) -> float | None:
        return 1.0

    async def do_request(
        self,
        url: str,
        method: str,
        request_data: RequestData | None = None,
        read_timeout: Any = None,
        write_timeout: Any = None,
        connect_timeout: Any = None,
        pool_timeout: Any = None,
    ) -> tuple[int, bytes]:
        if url.endswith("/getMe"):
            return 200, b'{"ok":true,"result":{"id":1,"is_bot":true,"first_name":"b"}}'
        return 200, b'{"ok":true,"result":true}'


KEYBOARD = InlineKeyboardMarkup(
    [
        [InlineKeyboardButton(t, callback_data=f"g:1:5:{t}") for t in ("hit", "stand", "peek")],
        [InlineKeyboardButton("odds", callback_data="g:1:5:odds")],
    ]
)


def _serve(base_url: Any) -> None:
    from localbotapi import BotApiServer

    async def main() -> None:
        async with BotApiServer(flood_limits=False) as server:
            server.add_bot(TOKEN, username="ochko_bench_bot")
            group = server.create_group("Очко", members=[server.create_user("Аня")])
            base_url.put((server.base_url, group.id))
            await asyncio.sleep(3600)

    asyncio.run(main())


async def per_call(
    request: BaseRequest, base_url: str, chat_id: int, calls: int
) -> tuple[float, float]:
    """CPU milliseconds per getMe and per sendMessage (a table with its keyboard)."""
    async with Bot(TOKEN, base_url=base_url, request=request) as bot:
        for _ in range(20):  # connections open, caches warm
            await bot.get_me()
            await bot.send_message(chat_id, TABLE, parse_mode="HTML", reply_markup=KEYBOARD)
        started = time.process_time()
        for _ in range(calls):
            await bot.get_me()
        get_me = (time.process_time() - started) / calls * 1000
        started = time.process_time()
        for _ in range(calls):
            await bot.send_message(chat_id, TABLE, parse_mode="HTML", reply_markup=KEYBOARD)
        return get_me, (time.process_time() - started) / calls * 1000


async def run(calls: int) -> str:
    bot = Bot(TOKEN, request=Instant(), get_updates_request=Instant())
    await bot.initialize()
    raw = json.dumps(CALLBACK_UPDATE).encode()
    started = time.process_time()
    for _ in range(calls):
        Update.de_json(json.loads(raw), bot)
    parse = (time.process_time() - started) / calls * 1000
    envelope = json.dumps({"ok": True, "result": [CALLBACK_UPDATE]}).encode()
    started = time.process_time()
    for _ in range(calls):
        Update.de_list(AiohttpRequest.parse_json_payload(envelope)["result"], bot)
    slim = (time.process_time() - started) / calls * 1000
    started = time.process_time()
    for _ in range(calls):
        await bot.answer_callback_query("42", text="Твои карты: 10♠ 7♥ — 17")
    answer = (time.process_time() - started) / calls * 1000
    await bot.shutdown()

    queue: Any = multiprocessing.Queue()
    server = multiprocessing.Process(target=_serve, args=(queue,), daemon=True)
    server.start()
    try:
        base_url, chat_id = queue.get(timeout=30)
        httpx_ms = await per_call(HTTPXRequest(connection_pool_size=8), base_url, chat_id, calls)
        aiohttp_ms = await per_call(AiohttpRequest(8), base_url, chat_id, calls)
    finally:
        server.terminate()
        server.join()
    return (
        f"ptb per action: parse a callback update {parse:.3f} ms CPU (as the bot's transport "
        f"hands it: {slim:.3f} ms), answerCallbackQuery {answer:.3f} ms CPU (transport "
        f"excluded); per Bot API call (local server), getMe / sendMessage with a keyboard: "
        f"httpx {httpx_ms[0]:.2f} / {httpx_ms[1]:.2f} ms CPU, aiohttp {aiohttp_ms[0]:.2f} / "
        f"{aiohttp_ms[1]:.2f} ms CPU, {calls} calls each ({machine()})"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=1000, help="calls (and parses) timed")
    args = parser.parse_args()
    print(asyncio.run(run(args.calls)))


if __name__ == "__main__":
    main()
