"""Callback data: short, versioned, parsed strictly, never trusted.

Game buttons: ``g:<game id>:<state version>:<action>[:<amount>]`` — the version is the state
version the keyboard was drawn at; the service refuses it once the game has moved past the
decision that keyboard was drawn for. Settings buttons: ``s:<chat id>:<key>:<value>``.
End confirmations: ``e:<game id>:<asker id>:<expires, unix time>:<y|n>`` — only the asker's
press counts, and only until it expires (judged from the data itself, so it holds across a
restart). A call to play: ``n:sw`` switches the presser's notices of the group it is pressed in
(the lobby, a result), ``n:join:<game id>`` seats him from a notice (the service checks he was
sent one of that table), ``n:off:<chat id>`` stops the notices of that chat. Everything must
fit Telegram's 64 bytes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum

MAX_BYTES = 64


class Act(StrEnum):
    JOIN = "join"
    LEAVE = "leave"
    START = "start"
    CANCEL = "cancel"
    BANK = "bank"  # with the amount
    PASS = "pass"  # decline or hand on the bank
    BET = "bet"  # with the amount
    HIT = "hit"
    STAND = "stand"
    DARK = "dark"
    NEXT = "next"
    PEEK = "peek"  # "👁 my cards": an alert only the presser sees
    ODDS = "odds"
    RESUME = "resume"  # a paused table goes on


AMOUNT_ACTS = frozenset({Act.BANK, Act.BET})
# The service's command (`bot.service.Command.kind`) each acting button presses: its own name;
# 👁 and 💡 only show the presser his own cards or odds.
ACT_COMMANDS: dict[Act, str] = {act: act.value for act in Act if act not in (Act.PEEK, Act.ODDS)}

_GAME = re.compile(
    r"^g:(?P<game>[1-9]\d{0,11}):(?P<version>[1-9]\d{0,9}):(?P<act>[a-z]{3,6})"
    r"(?::(?P<amount>[1-9]\d{0,11}))?$",
    re.ASCII,  # \d is 0-9 alone: another script's digits are not a number here
)
_END = re.compile(
    r"^e:(?P<game>[1-9]\d{0,11}):(?P<user>[1-9]\d{0,15}):(?P<expires>[1-9]\d{0,11}):(?P<yes>[yn])$",
    re.ASCII,
)
_NOTICE = re.compile(
    r"^n:(?:(?P<switch>sw)|join:(?P<game>[1-9]\d{0,11})|off:(?P<chat>-[1-9]\d{0,15}))$", re.ASCII
)
_SETTING = re.compile(
    r"^s:(?P<chat>-?[1-9]\d{0,15}):(?P<key>[a-z_]{1,24}):(?P<value>[A-Za-z0-9_-]{1,16})$", re.ASCII
)


@dataclass(frozen=True, slots=True)
class GameButton:
    game_id: int
    version: int
    act: Act
    amount: int | None = None

    def encode(self) -> str:
        return _encode("g", self.game_id, self.version, self.act.value, self.amount)


@dataclass(frozen=True, slots=True)
class EndButton:
    """«End the game?»: the asker's answer, good until ``expires``."""

    game_id: int
    user_id: int
    expires: int
    yes: bool

    def encode(self) -> str:
        return _encode("e", self.game_id, self.user_id, self.expires, "y" if self.yes else "n")


def parse_end(data: str | None) -> EndButton | None:
    match = _match(_END, data)
    if match is None:
        return None
    return EndButton(
        int(match["game"]), int(match["user"]), int(match["expires"]), match["yes"] == "y"
    )


@dataclass(frozen=True, slots=True)
class SettingButton:
    chat_id: int
    key: str
    value: str

    def encode(self) -> str:
        return _encode("s", self.chat_id, self.key, self.value)


class NoticeAct(StrEnum):
    SWITCH = "sw"  # in a group: the presser's notices of it, on or off
    JOIN = "join"  # in a notice: seat me at that table
    OFF = "off"  # in a notice: no more notices from that chat


@dataclass(frozen=True, slots=True)
class NoticeButton:
    """A call to play's button; ``target`` is the table (JOIN), the chat (OFF), or 0."""

    act: NoticeAct
    target: int = 0

    def encode(self) -> str:
        return _encode("n", self.act.value, self.target or None)


def parse_notice(data: str | None) -> NoticeButton | None:
    match = _match(_NOTICE, data)
    if match is None:
        return None
    if match["switch"]:
        return NoticeButton(NoticeAct.SWITCH)
    if match["game"]:
        return NoticeButton(NoticeAct.JOIN, int(match["game"]))
    return NoticeButton(NoticeAct.OFF, int(match["chat"]))


def _encode(*parts: object) -> str:
    """The parts joined by colons (a None left out), refused when over Telegram's limit."""
    data = ":".join(str(part) for part in parts if part is not None)
    if len(data.encode()) > MAX_BYTES:
        raise ValueError(f"callback data over {MAX_BYTES} bytes: {data!r}")
    return data


def _match(pattern: re.Pattern[str], data: str | None) -> re.Match[str] | None:
    """``data`` read by ``pattern``, or None when it is empty, too long or does not match (any
    press at all: the patterns match ASCII alone, so a match's characters are its bytes)."""
    if not data or len(data) > MAX_BYTES:
        return None
    return pattern.fullmatch(data)


def parse_game(data: str | None) -> GameButton | None:
    """The game button in ``data``, or None when it is malformed in any way."""
    match = _match(_GAME, data)
    if match is None:
        return None
    try:
        act = Act(match["act"])
    except ValueError:
        return None
    amount = int(match["amount"]) if match["amount"] else None
    if (act in AMOUNT_ACTS) != (amount is not None):
        return None
    return GameButton(int(match["game"]), int(match["version"]), act, amount)


def parse_setting(data: str | None) -> SettingButton | None:
    match = _match(_SETTING, data)
    if match is None:
        return None
    return SettingButton(int(match["chat"]), match["key"], match["value"])
