"""Who asks the Mini App, and what a request says.

Every API request carries Telegram's ``initData`` (header ``Authorization: tma <initData>``, or
``auth=`` for the event stream, which cannot set headers): without a valid and fresh one the
answer is 401 and nothing is read or changed. A person's requests are paced (else 429).

Which table: ``chat`` (and ``thread``) in the query, else the start parameter of a direct link
(``c<chat id>`` or ``c<chat id>t<thread id>``), else the game the person sits in. Only a person
seated at the table or a member of its group sees it (``getChatMember``, trusted for a minute).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

import orjson
from aiohttp import web
from cachetools import TTLCache
from telegram.constants import ChatMemberStatus
from telegram.error import TelegramError

from bot import deep_links, render
from bot.actions import Actions
from bot.callbacks import Act
from bot.delivery import Delivery
from bot.game_state import View
from bot.languages import personal
from bot.replicas import Replica
from bot.scheduler import Scheduler
from bot.service import GameService
from bot.settings import Settings
from bot.webapp.init_data import InitData, InitDataError, secret_key, validate
from bot.webapp.view import PAGE_ACTS

log = logging.getLogger(__name__)
# A person's requests (states, presses, streams opened) in any rolling window: a page makes a
# few a minute, a tapping thumb a few a second; a script past this is answered 429.
REQUESTS_PER_WINDOW = 40
WINDOW_SECONDS = 10.0
MEMBER_SECONDS = 60.0  # how long Telegram's answer to "is this person in the group" is trusted
MEMBER_CACHE = 20_000
MEMBERS = frozenset(
    {ChatMemberStatus.OWNER, ChatMemberStatus.ADMINISTRATOR, ChatMemberStatus.MEMBER}
)


class Backend(Protocol):
    """What the Mini App uses of the bot's runtime (`bot.handlers.common.Runtime` is one): it
    acts through the same :class:`~bot.actions.Actions` as the chat's buttons, and reads what
    delivery knows."""

    settings: Settings
    service: GameService
    delivery: Delivery
    replica: Replica | None
    actions: Actions
    scheduler: Scheduler
    bot_username: str


class Problem(Exception):
    """A request the page cannot be served: the HTTP status and a catalog key of the reason."""

    def __init__(self, status: int, code: str, key: str) -> None:
        super().__init__(code)
        self.status, self.code, self.key = status, code, key

    def answer(self, lang: str) -> web.Response:
        message = render.text(self.key, lang)
        return json_response({"ok": False, "error": self.code, "message": message}, self.status)


@dataclass(frozen=True, slots=True)
class Asker:
    """Who asks (proven by initData), in which language, about which table."""

    init: InitData
    lang: str
    chat_id: int | None
    thread_id: int


class Askers:
    """Tells who asks (initData), paces each person's requests, and whether one may see a
    table (seated there, or a member of its group)."""

    def __init__(
        self, rt: Backend, *, token: str, max_age: float, clock: Callable[[], float] = time.time
    ) -> None:
        self.rt = rt
        self.key = secret_key(token)
        self.max_age = max_age
        self.clock = clock
        self._members: TTLCache[tuple[int, int], bool] = TTLCache(MEMBER_CACHE, MEMBER_SECONDS)
        self._recent: TTLCache[int, list[float]] = TTLCache(MEMBER_CACHE, WINDOW_SECONDS)

    async def asker(self, request: web.Request, raw: str | None) -> Asker:
        try:
            init = validate(raw or "", self.key, max_age=self.max_age, clock=self.clock)
        except InitDataError as error:
            log.info("Mini App request refused: %s", error)
            raise Problem(401, "unauthorized", "app-unauthorized") from None
        self._pace(init.user.id)
        chat_id, thread_id = table_of(request.query, init.start_param)
        known = await self.rt.service.user(init.user.id)
        lang = personal(known, init.user.language_code)
        if lang is None and chat_id is not None:
            lang = (await self.rt.service.chat(chat_id)).language
        return Asker(init, lang or self.rt.settings.default_language, chat_id, thread_id)

    def _pace(self, user_id: int) -> None:
        now = self.clock()
        times = [t for t in self._recent.get(user_id, ()) if t > now - WINDOW_SECONDS]
        if len(times) >= REQUESTS_PER_WINDOW:
            raise Problem(429, "slow_down", "refusal-slow_down")
        times.append(now)
        self._recent[user_id] = times

    async def may_see(self, asker: Asker, view: View) -> bool:
        user = asker.init.user.id
        if view.game.is_seated(user) or user in view.game.hands:
            return True
        return await self._member(view.stored.chat_id, user)

    async def _member(self, chat_id: int, user_id: int) -> bool:
        key = (chat_id, user_id)
        found = self._members.get(key)
        if found is None:
            try:
                member = await self.rt.delivery.bot.get_chat_member(chat_id, user_id)
            except TelegramError as error:
                log.info("chat=%s user=%s not a member: %s", chat_id, user_id, error)
                found = False
            else:
                found = member.status in MEMBERS or bool(getattr(member, "is_member", False))
            self._members[key] = found
        return found


def json_response(data: dict[str, Any], status: int = 200) -> web.Response:
    return web.Response(
        body=orjson.dumps(data),
        status=status,
        content_type="application/json",
        headers={"Cache-Control": "no-store"},
    )


def table_of(query: Any, start_param: str) -> tuple[int | None, int]:
    """The table asked about: the query's ``chat``/``thread``, else the start parameter."""
    chat = query.get("chat")
    if chat:
        try:
            return int(chat), max(0, int(query.get("thread") or 0))
        except ValueError:
            raise Problem(400, "bad_request", "app-bad_request") from None
    return deep_links.app_table(start_param) or (None, 0)


def replay_of_query(query: Any, start_param: str) -> tuple[int, int] | None:
    """The (game, round) a replay asks for: the query's ``game`` and ``round``, else a replay
    start parameter (``v<game>r<round>``); None when neither names one."""
    game, round_no = query.get("game"), query.get("round")
    if game is None and round_no is None:
        return deep_links.replay_of(start_param)
    if not (isinstance(game, str) and isinstance(round_no, str)):
        return None
    return deep_links.replay_of(f"v{game}r{round_no}")


def press_of(body: Any) -> tuple[int, int, Act, int | None] | None:
    """(game, version, act, amount) of a well-formed press, else None."""
    if not isinstance(body, dict):
        return None
    game, version, act, amount = (body.get(k) for k in ("game", "version", "act", "amount"))
    if type(game) is not int or type(version) is not int or not isinstance(act, str):
        return None  # (a JSON true is no game id: bool is an int to isinstance)
    if game < 1 or version < 1 or act not in PAGE_ACTS:  # (an Act is equal to its value)
        return None
    if amount is not None and not (type(amount) is int and 1 <= amount <= 10**12):
        return None
    return game, version, Act(act), amount
