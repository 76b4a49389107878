"""Answers to the information commands: /help, /rules, /top, /stats, /balance, and the /chart
picture's title and caption."""

from __future__ import annotations

import html
from collections.abc import Sequence

from bot.house import HOUSE_ID, house_name
from bot.i18n import has, t
from bot.render.common import (
    MEDALS,
    PRESET_ORDER,
    achievement_title,
    escape_name,
    fit_text,
    preset_label,
    short_name,
    signed,
)
from bot.seasons import TROPHY
from rules.variants import PRESETS, StakeCap, Variant
from storage.models import Achievement, LeaderboardRow, PlayerStats


def help_text(
    sections: Sequence[tuple[str, Sequence[tuple[str, str]]]],
    lang: str,
    *,
    private: bool,
    replay: bool = False,
) -> str:
    """/help: how a game starts and whose turn it is, where the rules are, then the chat's
    menu (the command table's, `bot.commands.sections`: the same commands ``set_my_commands``
    gets, in its order) in groups of (title, (command, description) pairs). ``replay``: the
    bot offers its Mini App, where /verify's button replays a round and checks its deck."""
    header = t("help-header_private" if private else "help-header_group", lang)
    start = t("help-start_private" if private else "help-start", lang)  # there: «come here»
    lines = [header, start, t("help-rules", lang)]
    for title, entries in sections:
        lines += ["", title, *(f"/{name} — {desc}" for name, desc in entries)]
    if replay:
        lines += ["", t("help-verify_app", lang)]
    lines.extend(["", t("help-footer", lang)])
    return "\n".join(lines)


def rules_parts(
    preset_name: str, lang: str, variant: Variant | None = None, *, running: bool = False
) -> list[list[str]]:
    """The preset's rules for someone who never played, in parts of one phone screen each,
    most important first. ``variant`` may carry the chat's overrides; ``running``: they are the
    running game's. An unknown preset: one part, the known ones."""
    name = preset_name.strip().lower()
    if variant is None:
        if name not in PRESETS:
            return [[t("rules-unknown", lang, presets=", ".join(PRESET_ORDER))]]
        variant = PRESETS[name]
    v = variant
    header = t("rules-header", lang, preset=preset_label(v.name, lang), name=html.escape(v.name))
    notes = [t("rules-running", lang)] if running else []
    if PRESETS.get(v.name) not in (None, v):
        notes.append(t("rules-chat_overrides", lang))
    if notes:
        header += "\n" + " ".join(notes)

    play = [header, t("rules-part-play", lang), t("rules-goal", lang), t("rules-compare", lang)]
    play.append(t("rules-draw", lang, count=v.max_cards))
    play.append(t("rules-banker_first" if v.banker_first else "rules-banker_last", lang))
    fine = "rules-fine" if v.bust_fine_percent else "rules-no_fine"
    play.append(t(fine, lang, percent=v.bust_fine_percent))
    play += _where(lang, (v.both_bust_quits, "rules-both_bust"))
    play.append(t("rules-hidden", lang))
    play += _where(lang, (v.instant_21, "rules-instant_21"), (v.golden_point, "rules-golden"))

    stakes = [t("rules-part-stakes", lang), t("rules-bank_pays", lang)]
    stakes.append(t(f"rules-bank-{v.bank_mode.value}", lang))
    if v.bank_limit is not None:
        stakes.append(t("rules-bank_limit", lang, limit=v.bank_limit))
    stakes.append(t(f"rules-stakes-{v.stake_timing.value}", lang))
    shared = v.stake_cap is StakeCap.SHARED
    stakes.append(t("rules-cap-shared" if shared else "rules-cap-bank", lang))
    if v.bust_fine_percent:
        # Why a stake stops below the bank: the balance must cover the stake and its fine.
        example = 1000
        stake = example * 100 // (100 + v.bust_fine_percent)
        stakes.append(t("rules-fine_cap", lang, balance=example, stake=stake))
    stakes.append(t("rules-cover", lang))

    cards = [t("rules-part-cards", lang)]
    cards.append(t("rules-seats", lang, minimum=v.min_seats, maximum=v.max_seats))
    cards.append(t(f"rules-deck-{v.deck.value}", lang))
    cards.append(t(f"rules-values-{v.values.value}", lang))
    ace_low = v.ace_low_on_bust and v.values.value == "russian"  # western: always 1 or 11
    cards += _where(lang, (ace_low, "rules-ace_low"), (v.jokers_wild, "rules-jokers"))
    cards.append(t("rules-deal", lang, count=v.first_deal))
    cards += _where(
        lang,
        (v.naturals, "rules-naturals"),
        (v.banker_card_up, "rules-banker_up"),
        (v.show_bottom, "rules-bottom"),
    )
    if v.dark_draw:
        # The engine ends a player's drawing with a dark card, and a dark bust pays no fine.
        dark = t("rules-dark", lang)
        cards.append(dark + " " + t("rules-dark_fine", lang) if v.bust_fine_percent else dark)
    else:
        cards.append(t("rules-no_dark", lang))

    bank = [t("rules-part-bank", lang), t("rules-lot", lang)]
    bank.append(t(f"rules-order-{v.turn_order.value}", lang))
    bank.append(t(f"rules-pass-{v.bank_passing.value}", lang))
    if v.voluntary_pass_after is not None:
        bank.append(t("rules-pass-voluntary", lang, rounds=v.voluntary_pass_after))
    bank.append(t("rules-end_all_dealt" if v.end_when_all_dealt else "rules-end_chips", lang))
    bank.append(t("rules-achievements", lang))
    others = [p for p in PRESET_ORDER if p != v.name]
    bank.append(t("rules-others", lang, presets=", ".join(f"/rules {p}" for p in others)))
    return [play, stakes, cards, bank]


def _where(lang: str, *lines: tuple[bool, str]) -> list[str]:
    """The lines of /rules whose rule this game plays: (it plays it, the catalog id)."""
    return [t(key, lang) for plays, key in lines if plays]


def rules_text(
    preset_name: str, lang: str, variant: Variant | None = None, *, running: bool = False
) -> str:
    parts = rules_parts(preset_name, lang, variant, running=running)
    return "\n\n".join("\n".join(part) for part in parts)


def leaderboard(
    rows: Sequence[LeaderboardRow], lang: str, *, period: str, champion: int | None = None
) -> str:
    """``period``: "all" (by balance) or "day"/"week"/"month" (by the net result);
    ``champion`` wears the season's 🏆."""
    period_key = f"top-period-{period}"
    label = t(period_key, lang) if has(period_key) else html.escape(period)
    head = [t("top-header", lang, period=label)]
    return leaderboard_rows(rows, lang, head, [], period=period, champion=champion)


def leaderboard_rows(
    rows: Sequence[LeaderboardRow],
    lang: str,
    head: list[str],
    tail: list[str],
    *,
    period: str,
    champion: int | None,
) -> str:
    """The lines of a leaderboard between ``head`` and ``tail``: by balance ("all") or by the
    net result of a period (a season's among them)."""
    if not rows:
        return "\n".join([*head, t("top-empty", lang), *tail])
    body = []
    for i, row in enumerate(rows):
        place = MEDALS[i] if i < len(MEDALS) else f"{i + 1}."
        # The house's name in the reader's language.
        name = house_name(lang) if row.user_id == HOUSE_ID else row.name
        if row.user_id == champion:
            name = f"{TROPHY} {name}"
        shared = {"place": place, "name": escape_name(name), "net": signed(row.net)}
        if period == "all":
            line = t("top-row", lang, balance=row.balance, rounds=row.rounds, **shared)
            if row.bank:
                line += " " + t("held-bank_note", lang, bank=row.bank)
        else:
            line = t("top-row_period", lang, rounds=row.rounds, wins=row.wins, **shared)
        body.append(line)
    return fit_text(head, body, tail, lang)


def stats(st: PlayerStats | None, name: str, lang: str, earned: Sequence[Achievement] = ()) -> str:
    """/stats: a person's rounds and chips in the chat, and the achievements earned there, each
    with its round."""
    shown = escape_name(name)
    if st is None or st.rounds == 0:
        return t("stats-none", lang, name=shown)
    rounds = {"rounds": st.rounds, "wins": st.wins, "losses": st.losses, "pushes": st.pushes}
    # Only what happened: three "0 times" say nothing and cost a line on a phone.
    special = [
        t(key, lang, count=count)
        for key, count in (
            ("stats-twentyones", st.twentyones),
            ("stats-golden", st.golden_points),
            ("stats-busts", st.busts),
        )
        if count
    ]
    lines = [
        t("stats-header", lang, name=html.escape(short_name(name))),
        t("stats-rounds", lang, **rounds),
        t("stats-win_rate", lang, percent=round(100 * st.wins / st.rounds)),
    ]
    if special:
        line = " · ".join(special)
        lines.append(line[:1].upper() + line[1:])
    lines.append(t("stats-money", lang, biggest=st.biggest_win, net=signed(st.net)))
    known = [(a, title) for a in earned if (title := achievement_title(a.code, lang)) is not None]
    if known:
        lines += ["", t("stats-achievements", lang, count=len(known))]
        lines += [
            t("stats-achievement", lang, title=title, about=t(f"achievement-{a.code}-about", lang))
            + " · "
            + t("stats-achievement_round", lang, round=a.round_no)
            for a, title in known
        ]
    return "\n".join(lines)


def balance(name: str, amount: int, lang: str, bank: int = 0) -> str:
    """``amount``: all the person's chips, ``bank`` of them in the bank he is holding."""
    line = t("balance-line", lang, name=escape_name(name), amount=amount)
    return line + (" " + t("held-bank_note", lang, bank=bank) if bank else "")


def balances(rows: Sequence[tuple[str | None, int]], lang: str) -> str:
    """A private /balance: (chat title or None when unknown, balance) per chat played in."""
    if not rows:
        return t("balance-private_none", lang)
    lines = [t("balance-private_header", lang)]
    for title, amount in rows:
        key = "balance-private_line_untitled" if title is None else "balance-private_line"
        lines.append(t(key, lang, chat=html.escape(title or ""), amount=amount))
    return "\n".join(lines)


def chart_title(name: str, lang: str) -> str:
    """The chart's own title: plain text drawn into the picture, not HTML."""
    return t("chart-title", lang, name=short_name(name, 32))


def chart_caption(name: str, amount: int, start: int, lang: str) -> str:
    """The photo's caption (HTML): the current balance against the first one charted."""
    net = signed(amount - start)
    return t("chart-caption", lang, name=escape_name(name), amount=amount, start=start, net=net)
