"""Answer first: a pressed button is answered as soon as its action is committed (or refused);
the turn timer, delivery and the Mini App's pages get the committed version only after that,
and an answer that finishes late never puts an older deadline over a newer one."""

from __future__ import annotations

from typing import Any

from bot.callbacks import Act
from bot.game_state import View
from bot.outcomes import Outcome
from bot.service import Command, Request
from tests.bot.conftest import Harness

DECK = ["10S", "10H", "6D", "9S", "9H", "7C"]


def watch(h: Harness) -> list[tuple[str, int, int]]:
    """(what, version, answers so far) each time an action hands a version to the timers or
    to delivery."""
    seen: list[tuple[str, int, int]] = []
    delivery, timers = h.rt.delivery, h.rt.timers
    committed = delivery.committed

    async def shown(view: View) -> None:
        seen.append(("shown", view.version, len(h.calls("answerCallbackQuery"))))
        await committed(view)

    def armed(game_id: int, deadline: float | None) -> None:
        version = delivery.version_of(game_id) or 0
        seen.append(("armed", version, len(h.calls("answerCallbackQuery"))))
        timers.arm(game_id, deadline)

    delivery.committed = shown  # type: ignore[method-assign]
    h.rt.actions.shows = delivery
    h.rt.actions.clocks = type("Clocks", (), {"arm": staticmethod(armed)})()
    return seen


async def test_a_press_is_answered_before_it_is_shown(harness: Harness) -> None:
    h = harness
    a, b, c = h.users[:3]
    h.script(decks=[DECK], lots=[0])
    await h.say(a, "/newgame classic36")
    seen = watch(h)
    answers = len(h.calls("answerCallbackQuery"))
    await h.press_act(b, h.table(), Act.JOIN)
    assert seen and all(count == answers + 1 for _, _, count in seen), seen
    seen.clear()
    await h.press_act(c, h.table(), Act.JOIN)
    await h.press_act(a, h.table(), Act.START)
    assert [what for what, _, _ in seen] == ["armed", "shown"] * 2
    assert [count for _, _, count in seen] == [answers + 2] * 2 + [answers + 3] * 2


async def test_a_refused_press_is_answered_and_nothing_is_shown(harness: Harness) -> None:
    h = harness
    a, b = h.users[:2]
    await h.say(a, "/newgame classic36")
    seen = watch(h)
    answer = await h.press_act(b, h.table(), Act.START)  # not seated: refused
    assert answer.show_alert and answer.text
    assert seen == []


async def test_an_older_version_published_late_keeps_the_newer_deadline(harness: Harness) -> None:
    h = harness
    a, b = h.users[:2]
    await h.say(a, "/newgame classic36")
    await h.say(b, "/join")
    stored = await h.stored()
    armed: list[Any] = []
    h.rt.actions.clocks = type("Clocks", (), {"arm": lambda self, g, d: armed.append(d)})()
    newer = await h.rt.actions.commit(Request(stored.game_id, None, Command("end")))
    await h.rt.actions.publish(newer)
    older = h.rt.actions.service.game(stored)
    late = Outcome(stored, older, newer.meta, [], newer.chat)
    await h.rt.actions.publish(late)  # its answer took longer: it arrives second
    assert armed == [newer.stored.deadline]
