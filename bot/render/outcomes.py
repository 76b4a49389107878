"""What a person is told of his own action (:mod:`bot.outcomes`), written once for every front
end: the toast of a press, in the chat or the Mini App (plain text, no HTML, at most 200
characters), and the lines a typed command adds in the chat.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from bot import deep_links
from bot.game_state import View
from bot.i18n import t
from bot.outcomes import Done, Ignored, Joined, Refusal, Repeated, Result
from bot.render.common import Snapshot, clip, text
from bot.render.hands import peek
from bot.render.refusals import refusal


@dataclass(frozen=True, slots=True)
class Toast:
    """The answer to a press: ``text`` (None: nothing to say), shown as an ``alert`` when it is
    a refusal, and a ``url`` the presser is sent to (or offered, on the page)."""

    text: str | None
    alert: bool = False
    url: str | None = None


def toast(
    result: Result, lang: str, snapshot: Callable[[View], Snapshot], *, bot_username: str = ""
) -> Toast:
    """The answer to ``result`` in ``lang``; ``snapshot`` makes the views' snapshot of a
    version (asked only when the answer shows the presser's hand)."""
    if isinstance(result, Refusal):
        return Toast(refusal(result.code, result.params, lang), alert=True)
    if isinstance(result, Ignored):
        return Toast(None)
    if isinstance(result, Repeated):
        said = text("pressed-done", lang)
        if result.seated:
            said += " " + peek(snapshot(result.view), result.user, lang)
        return Toast(clip(said))
    if isinstance(result, Joined):
        return _joined(result, lang, bot_username)
    if isinstance(result, Done) and result.shows_hand and result.user is not None:
        return Toast(peek(snapshot(result.outcome.view), result.user, lang))
    return Toast(None)


def _joined(result: Joined, lang: str, bot_username: str) -> Toast:
    if result.refill is not None:
        said = text("refill-toast", lang, amount=result.refill.amount)
    elif result.next_round:
        said = text("joined_next", lang)
    else:
        said = text("joined", lang)
    url = None
    if result.needs_private and bot_username:
        # A bot cannot write first: the answer opens the private chat, where the cards go.
        url = deep_links.build(bot_username, result.outcome.stored.game_id)
        said += " " + t("joined-private", lang, bot=bot_username)
    return Toast(clip(said), url=url)


def replies(result: Result, lang: str, name: str) -> list[str]:
    """What a typed command adds in the chat besides the table (HTML); ``name`` is the person's
    display name (raw: escaped here)."""
    if isinstance(result, Refusal):
        return [refusal(result.code, result.params, lang)]
    if not isinstance(result, Joined):
        return []
    lines = []
    if (refill := result.refill) is not None:
        lines.append(
            text("refill-done", lang, name=name, amount=refill.amount, balance=refill.balance)
        )
    if result.next_round:
        lines.append(text("joined_next", lang))
    return lines
