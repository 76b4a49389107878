"""The deep link that opens the private chat with the bot from a group,
``https://t.me/<bot>?start=g<game id>``: built and read here only."""

from __future__ import annotations

import re

_PAYLOAD = re.compile(r"g([1-9]\d{0,11})", re.ASCII)


def build(bot_username: str, game_id: int) -> str:
    return f"https://t.me/{bot_username.lstrip('@')}?start=g{game_id}"


def game_of(payload: str) -> int | None:
    """The game a /start payload names, or None when it names none."""
    match = _PAYLOAD.fullmatch(payload)
    return int(match.group(1)) if match else None


# The Mini App: a page address with the table in its query (the private chat's web_app
# button), and a direct link with the table in its start parameter (the group's: web_app
# buttons work only in private chats). A table is a chat, and a topic when not the main one.
_TABLE = re.compile(r"c(-?[1-9]\d{0,15})(?:t([1-9]\d{0,9}))?", re.ASCII)


def app_page(page_url: str, chat_id: int, thread_id: int = 0) -> str:
    query = f"chat={chat_id}" + (f"&thread={thread_id}" if thread_id else "")
    return f"{page_url}{'&' if '?' in page_url else '?'}{query}"


def app_link(bot_username: str, short_name: str, chat_id: int, thread_id: int = 0) -> str:
    param = f"c{chat_id}" + (f"t{thread_id}" if thread_id else "")
    return f"https://t.me/{bot_username.lstrip('@')}/{short_name}?startapp={param}"


def app_table(start_param: str) -> tuple[int, int] | None:
    """The (chat, thread) a Mini App start parameter names, or None."""
    match = _TABLE.fullmatch(start_param)
    return (int(match.group(1)), int(match.group(2) or 0)) if match else None


# A round's replay in the Mini App (the page checks the round's fairness proof itself): the
# start parameter ``v<game id>r<round>`` of a direct link, or the page's ``replay=`` query.
_REPLAY = re.compile(r"v([1-9]\d{0,11})r([1-9]\d{0,8})", re.ASCII)


def replay_param(game_id: int, round_no: int) -> str:
    return f"v{game_id}r{round_no}"


def replay_page(page_url: str, game_id: int, round_no: int) -> str:
    query = f"replay={replay_param(game_id, round_no)}"
    return f"{page_url}{'&' if '?' in page_url else '?'}{query}"


def replay_link(bot_username: str, short_name: str, game_id: int, round_no: int) -> str:
    param = replay_param(game_id, round_no)
    return f"https://t.me/{bot_username.lstrip('@')}/{short_name}?startapp={param}"


def replay_of(param: str) -> tuple[int, int] | None:
    """The (game, round) a replay parameter names, or None."""
    match = _REPLAY.fullmatch(param)
    return (int(match.group(1)), int(match.group(2))) if match else None
