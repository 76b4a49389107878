"""A member floods a group with commands during a round (the real bot process, the server's
flood limits on): the table and the private hands keep up, nobody is timed out before the
prompt naming them was shown for the whole turn, the spam costs the group a handful of replies,
and another group's answers do not wait behind it."""

from __future__ import annotations

import asyncio
import json
import statistics
import time

import pytest

from localbotapi.models import RequestRecord
from rules.table import Phase
from tests.e2e.conftest import E2E, IN_ROUND, Table

TIMEOUT = 15  # the turn timeout of this test, seconds
SPAM = ("/help", "/rules", "/balance", "/top", "/stats", "/help@ochko_e2e_bot")


def is_game_message(record: RequestRecord) -> bool:
    """A message the game posts (a table with its buttons, a result, a turn mention), not an
    answer to a command."""
    markup = json.dumps(record.params.get("reply_markup") or "")
    text = str(record.result.get("text", ""))
    return '"g:' in markup or text.startswith(("🏁", "👉"))


@pytest.mark.slow
async def test_a_griefer_does_not_freeze_the_table(e2e: E2E) -> None:
    group, users = e2e.group_with_players("Griefed", 4)
    griefer = e2e.server.create_user("Griefer", username="griefer")
    group.add_member(griefer)
    quiet_group, quiet_users = e2e.group_with_players("Quiet", 3)
    await e2e.start_bot(TURN_TIMEOUT=str(TIMEOUT))
    await e2e.open_private(users + quiet_users)
    table = Table(e2e, group, users, preset="classic36", by_buttons={u.id for u in users})
    await table.open_and_start()
    idle = users[2]  # never acts: the timer must stand them, and only after a full turn

    spam_started = time.monotonic()

    async def spam() -> None:
        for i in range(30):
            await griefer.send(group, SPAM[i % len(SPAM)])
            await asyncio.sleep(1.0)

    delays: list[float] = []

    async def ask_elsewhere() -> None:
        """Members of the quiet group ask things while the spam goes on; each answer comes
        to their private chat."""
        for i in range(9):
            user = quiet_users[i % len(quiet_users)]
            private = user.private_chat(e2e.bot)
            last = private.last_message
            started = time.monotonic()
            await user.send(quiet_group, ("/rules", "/help", "/balance")[i // 3])
            await private.wait_for(lambda m: True, timeout=30, after=last)
            delays.append(time.monotonic() - started)
            await asyncio.sleep(2.0)

    spammer = asyncio.create_task(spam())
    asker = asyncio.create_task(ask_elsewhere())
    round_started = time.monotonic()
    row = table.row()
    timed_out_at: float | None = None
    while row.phase in IN_ROUND:
        user, act, amount = table.decide(row)
        if user.id == idle.id:
            await e2e.wait_until(
                lambda before=row.version: table.row().version > before,
                "the idle player's timeout",
                timeout=60,
            )
            timed_out_at = time.time()
            row = table.row()
            continue
        row = await table.act(user, act, amount)
    assert row.phase in (Phase.ROUND_OVER, Phase.ENDED)
    await e2e.wait_until(
        lambda: (p := e2e.db.publishing(group.id)) is not None and p[1] == 0, "the result", 90
    )
    round_took = time.monotonic() - round_started
    await spammer
    await asker

    # The idle player was stood by the timer only after their turn message had been shown
    # for the whole timeout.
    assert timed_out_at is not None, "the idle player was never on turn"
    notices = [
        r
        for r in e2e.server.requests
        if r.ok
        and r.method == "sendMessage"
        and r.chat_id == idle.id
        and r.params.get("reply_markup")
    ]
    assert notices, "the idle player never got a turn message"
    shown_at = max(r.time for r in notices if r.time <= timed_out_at)
    assert timed_out_at - shown_at >= TIMEOUT - 1.0, timed_out_at - shown_at
    assert round_took <= 90, round_took

    # The spam got at most a handful of replies in the group.
    replies = [
        r
        for r in e2e.group_text_requests(group.id)
        if r.method == "sendMessage" and r.time >= spam_started and not is_game_message(r)
    ]
    # The griefer never opened the private chat: his first command is answered in the group,
    # the rest (within the minute) are not.
    assert 1 <= len(replies) <= 5, [r.result.get("text", "")[:40] for r in replies]

    # The other group was answered at once.
    assert len(delays) == 9
    p99 = sorted(delays)[-1]
    print(
        f"round {round_took:.1f} s; spam replies in the group: {len(replies)}; "
        f"other group's answers: median {statistics.median(delays):.2f} s, max {p99:.2f} s"
    )
    assert p99 <= 2.0, delays
    e2e.assert_within_limits()
    assert "outside its lane" not in e2e.log()  # the replies too went through the lanes
    e2e.assert_chips_conserved(group.id, len(users))
