"""README.md's "What a game looks like" is the real screen: this test plays a scripted game of
three through the real handlers, writes the lobby, the live table, a private hand and the
result as the chat shows them (plain text, buttons in brackets) and compares them with the block
between the README's markers, so the sample cannot drift from what the bot sends.

``OCHKO_UPDATE_README=1 .venv/bin/pytest tests/bot/test_readme_sample.py`` rewrites the block."""

from __future__ import annotations

import os
import re
from pathlib import Path

from bot.callbacks import Act, parse_game
from localbotapi.models import Message
from tests.bot.conftest import Harness

README = Path(__file__).resolve().parents[2] / "README.md"
START = "<!-- sample-game:start -->"
END = "<!-- sample-game:end -->"
INDENT = " " * 7
# Аня banks (the lot), Борис stakes 50 and draws an ace to 21 (paid at once), Вика stakes 25 and
# takes a dark card (17), Аня draws to 17 and stands: a push with Вика.
DECK = ["10S", "9S", "7H", "AS", "8D", "10D"]


def screen(who: str, message: Message) -> list[str]:
    """A message as the chat shows it: its lines, then one line per row of buttons."""
    lines = message.content.split("\n")
    lines += [" ".join(f"[{label}]" for label, _ in row) for row in message.buttons]
    return [f"{who:<7}{lines[0]}"] + [f"{INDENT}{line}".rstrip() for line in lines[1:]]


def label(message: Message, act: Act) -> str:
    return next(
        text for text, data in message.flat_buttons if (b := parse_game(data)) and b.act is act
    )


def said(who: str, text: str) -> str:
    return f"{who + ':':<7}{text}"


async def sample(harness: Harness) -> str:
    a, b, v = harness.users[:3]
    harness.group.title = "Пятница"  # a group's own name, as the private hand shows it
    harness.script(decks=[DECK], lots=[0])
    out: list[str] = [said("Аня", "/newgame")]
    await harness.say(a, "/newgame")
    for user in (b, v):
        await harness.press_act(user, harness.table(), Act.JOIN)
    out += screen("Бот:", harness.table())
    join, start = (label(harness.table(), act) for act in (Act.JOIN, Act.START))
    out.append(f"Борис and Вика press «{join}», Аня presses «{start}»; the lot makes Аня banker.")
    await harness.press_act(a, harness.table(), Act.START)
    await harness.press_act(a, harness.table(), Act.BANK, 100)
    await harness.press_act(b, harness.table(), Act.BET, 50)
    out += screen("Бот:", harness.table())
    hand = harness.private(b).last_with_buttons()
    assert hand is not None
    out.append("Борис's private chat with the bot:")
    out += screen("Бот:", hand)
    out.append("Борис draws an ace (21, paid at once); Вика bets 25 and takes a card blind;")
    out.append("Аня, the banker, draws a 10 (17) and stands.")
    await harness.press_act(b, hand, Act.HIT)
    await harness.press_act(v, harness.table(), Act.BET, 25)
    await harness.press_act(v, harness.table(), Act.DARK)
    posted = len(harness.group.all_messages)
    await harness.press_act(a, harness.table(), Act.HIT)
    await harness.press_act(a, harness.table(), Act.STAND)
    result = [m for m in harness.group.all_messages[posted:] if m.from_bot and m.buttons]
    assert result, "no result message"
    out += screen("Бот:", result[-1])
    return "\n".join(out)


def block(text: str) -> str:
    return f"{START}\n```\n{text}\n```\n{END}"


async def test_the_readme_sample_is_the_real_screen(harness: Harness) -> None:
    text = await sample(harness)
    readme = README.read_text(encoding="utf-8")
    found = re.search(re.escape(START) + r".*?" + re.escape(END), readme, re.DOTALL)
    assert found, f"README.md has no {START} … {END} block"
    if os.environ.get("OCHKO_UPDATE_README") == "1":
        README.write_text(readme.replace(found.group(0), block(text)), encoding="utf-8")
        return
    assert found.group(0) == block(text), (
        "README.md's sample game differs from the bot's screens; "
        "OCHKO_UPDATE_README=1 rewrites it:\n" + text
    )
    # Short enough to read on a page, and the old names are gone.
    assert len(text.splitlines()) <= 60
    assert "Присоединиться" not in text
