"""Answers to commands, placed so they never hold up a game.

A group's ~20 writes a minute belong to the game. So in a group an answer goes to the asker's
private chat when it is open (with at most one short pointer in the group per person every few
minutes); otherwise it is posted in the group, but the same command in the same chat is answered
once a minute and a person gets at most one group answer a minute — thirty /help in thirty
seconds cost the group one message. Every answer goes through the chat's lane at the lowest
priority, so the handler returns at once and one chat's backlog never delays another.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TypeVar

from bot.lanes import Lanes

SAME_COMMAND_SECONDS = 60.0
PER_PERSON_SECONDS = 60.0
POINTER_SECONDS = 300.0
MEMORY_LIMIT = 20_000
K = TypeVar("K")

# (chat id, thread id or None) -> the send, made when the chat's lane gets to it
Make = Callable[[int, int | None], Awaitable[object]]


@dataclass
class Replies:
    lanes: Lanes
    clock: Callable[[], float] = time.monotonic
    _command_said: dict[tuple[int, int, str], float] = field(default_factory=dict)
    _person_said: dict[tuple[int, int], float] = field(default_factory=dict)
    _pointed: dict[tuple[int, int], float] = field(default_factory=dict)

    def answer(
        self,
        *,
        chat_id: int,
        thread_id: int,
        user_id: int | None,
        command: str,
        make: Make,
        private_ok: bool,
        in_group: bool = False,
        pointer: Callable[[], Make] | None = None,
    ) -> str:
        """Queue the answer; returns where it went: "private", "group" or "dropped".

        ``in_group`` keeps it in the group (a menu with the group's buttons); ``pointer`` makes
        the send of the short group line that says the answer went to the private chat.
        """
        now = self.clock()
        self._trim(now)
        if chat_id > 0 or user_id is None:
            self.lanes.post(chat_id, lambda: make(chat_id, None), f"reply to {command}")
            return "private"
        asker = user_id
        if (
            private_ok
            and not in_group
            and self.lanes.post(asker, lambda: make(asker, None), f"reply to {command}")
        ):
            key = (chat_id, asker)
            due = now - self._pointed.get(key, float("-inf")) >= POINTER_SECONDS
            if due and pointer is not None:
                self._pointed[key] = now
                send = pointer()
                self.lanes.post(chat_id, lambda: send(chat_id, thread_id or None), "pointer")
            return "private"
        same = (chat_id, thread_id, command)
        person = (chat_id, user_id)
        if now - self._command_said.get(same, float("-inf")) < SAME_COMMAND_SECONDS:
            return "dropped"
        if now - self._person_said.get(person, float("-inf")) < PER_PERSON_SECONDS:
            return "dropped"
        self._command_said[same] = now
        self._person_said[person] = now
        self.lanes.post(chat_id, lambda: make(chat_id, thread_id or None), f"reply to {command}")
        return "group"

    def _trim(self, now: float) -> None:
        if len(self._command_said) > MEMORY_LIMIT:
            self._command_said = _recent(self._command_said, now, SAME_COMMAND_SECONDS)
        if len(self._person_said) > MEMORY_LIMIT:
            self._person_said = _recent(self._person_said, now, PER_PERSON_SECONDS)
        if len(self._pointed) > MEMORY_LIMIT:
            self._pointed = _recent(self._pointed, now, POINTER_SECONDS)


def _recent(store: dict[K, float], now: float, keep: float) -> dict[K, float]:
    return {key: when for key, when in store.items() if now - when < keep}


@dataclass
class Cooldowns:
    """Costly commands (/verify, /chart): once per person per ``seconds``."""

    seconds: float = 10.0
    clock: Callable[[], float] = time.monotonic
    _last: dict[tuple[int, str], float] = field(default_factory=dict)

    def wait(self, user_id: int, command: str) -> int:
        """0 when the person may run ``command`` now (and counts it), else seconds to wait."""
        now = self.clock()
        last = self._last.get((user_id, command))
        if last is not None and now - last < self.seconds:
            return int(self.seconds - (now - last)) + 1
        if len(self._last) > MEMORY_LIMIT:
            self._last = {k: v for k, v in self._last.items() if now - v < self.seconds}
        self._last[(user_id, command)] = now
        return 0
