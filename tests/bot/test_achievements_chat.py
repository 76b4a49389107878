"""Achievements in the chat: announced once, in the result of the round that first earned them
(a later round that earns one again says nothing), recorded with that round, listed by /stats
and in the Mini App's state for the person who earned them."""

from __future__ import annotations

from rules.achievements import CODES
from tests.bot.conftest import Harness, plain
from tests.bot.test_miniapp import Pages, deal, pages  # noqa: F401  (pages: the fixture)

# Борис 10♠, Вика 9♠, Аня (the banker) 7♥; Борис draws the ace: 21 on two cards.
DECK = ["10S", "9S", "7H", "AS"]


async def natural_round(h: Harness, *, first: bool) -> str:
    """A round in which Борис makes 21 with two cards (Вика stands on 9, Аня on 7); returns
    its result as the group sees it."""
    opening = [(0, "/newgame classic36"), (1, "/join"), (2, "/join"), (0, "/deal")]
    moves = opening if first else [(0, "/next")]
    for who, text in moves:
        await h.say(h.users[who], text)
    if (await h.stored()).state["engine"]["phase"] == "bank":
        await h.say(h.users[0], "/bank 100")
    # Борис stakes and draws the ace, Вика stands on 9, Аня on 7.
    for who, text in ((1, "/bet 10"), (1, "/hit"), (2, "/bet 10"), (2, "/stand"), (0, "/stand")):
        await h.say(h.users[who], text)
    await h.deliver()
    results = [text for text in h.group_texts() if "вскрываемся" in text]
    return plain(results[-1])


async def test_announced_once_in_the_result_and_listed_by_stats(harness: Harness) -> None:
    h = harness
    boris, vika = h.users[1], h.users[2]
    h.script(decks=[DECK, DECK], lots=[0])
    first = await natural_round(h, first=True)
    assert "🏅 Борис: Очко с раздачи" in first.split("\n"), first
    assert first.count("🏅") == 1  # nobody else earned anything
    achieved = await h.rt.storage.achievements(h.group.id, boris.id)
    assert [(a.code, a.round_no) for a in achieved] == [("natural", 1)]

    second = await natural_round(h, first=False)
    assert "Раунд 2" in second
    assert "21 очко" in second  # the same feat again…
    assert "🏅" not in second  # …is not announced again
    achieved = await h.rt.storage.achievements(h.group.id, boris.id)
    assert [(a.code, a.round_no) for a in achieved] == [("natural", 1)]

    # /stats in the group answers in the private chat: the achievement with its round.
    await h.say(boris, "/stats")
    stats = plain(h.private_texts(boris)[-1])
    assert "🏅 Достижения (1):" in stats
    assert "Очко с раздачи — 21 на двух первых картах · раунд 1" in stats
    await h.say(vika, "/stats")
    assert "Достижения" not in plain(h.private_texts(vika)[-1])


async def test_a_repeated_update_records_and_announces_nothing_twice(harness: Harness) -> None:
    h = harness
    boris = h.users[1]
    h.script(decks=[DECK], lots=[0])
    await natural_round(h, first=True)
    # Telegram sends the update that settled the round (Аня's /stand) again: nothing twice.
    await h.redeliver(h.processed[-1])
    results = [plain(t) for t in h.group_texts() if "вскрываемся" in t]
    assert len(results) == 1
    assert results[0].count("🏅 Борис: Очко с раздачи") == 1
    assert len(await h.rt.storage.achievements(h.group.id, boris.id)) == 1


async def test_the_mini_app_shows_a_persons_achievements_in_the_chat(pages: Pages) -> None:  # noqa: F811
    h = pages.h
    anya, boris, vika = h.users
    await deal(pages)
    status, state = await pages.state(boris)
    assert status == 200 and state["achievements"] == []
    await pages.act(boris, "hit")  # the ace: 21 on two cards
    await h.say(vika, "/bet 10")
    await h.say(vika, "/stand")
    await pages.act(anya, "stand")
    status, state = await pages.state(boris)
    assert status == 200
    assert state["labels"]["achievements"] == "Достижения"
    assert state["achievements"] == [
        {
            "code": "natural",
            "title": "Очко с раздачи",
            "about": "21 на двух первых картах",
            "round": "раунд 1",
        }
    ]
    # Only his own: Вика earned nothing.
    assert (await pages.state(vika))[1]["achievements"] == []
    assert len(CODES) == 12
