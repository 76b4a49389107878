"""Texts and inline keyboards of every message the bot sends (HTML parse mode), one module per
family of messages (docs/architecture.md). Pure functions of a :class:`Snapshot`: no I/O, no
Telegram calls, nothing of the service. Every user-supplied string goes through
:func:`html.escape`; no text exceeds 4096 characters and no alert 200. Hidden cards never reach a
group text: the table shows each hand as :meth:`rules.table.Hand.visible_to_others` allows, the
private hand as ``visible_to_owner``.
"""

from __future__ import annotations

from bot.render.common import JOKER, Rendered, Snapshot, achievement_title, card, text
from bot.render.hands import hand, odds_alert, odds_text, peek
from bot.render.info import (
    balance,
    balances,
    chart_caption,
    chart_title,
    help_text,
    leaderboard,
    rules_text,
    stats,
)
from bot.render.lobbies import lobby
from bot.render.notices import notice, switched
from bot.render.outcomes import replies, toast
from bot.render.refusals import refusal, setting_refusal
from bot.render.results import (
    end_confirm,
    end_not_yours,
    replay_row,
    result,
    session_end,
    verify,
)
from bot.render.seasons import season_podium, season_top
from bot.render.settings import settings_menu
from bot.render.tables import announce, table, turn_mention

__all__ = [
    "JOKER",
    "Rendered",
    "Snapshot",
    "achievement_title",
    "announce",
    "balance",
    "balances",
    "card",
    "chart_caption",
    "chart_title",
    "end_confirm",
    "end_not_yours",
    "hand",
    "help_text",
    "leaderboard",
    "lobby",
    "notice",
    "odds_alert",
    "odds_text",
    "peek",
    "refusal",
    "replay_row",
    "replies",
    "result",
    "rules_text",
    "season_podium",
    "season_top",
    "session_end",
    "setting_refusal",
    "settings_menu",
    "stats",
    "switched",
    "table",
    "text",
    "toast",
    "turn_mention",
    "verify",
]
