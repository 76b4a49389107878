"""The end of a round and of a game: the showdown with every payment, the provably fair deck and
/verify, the summary of a finished session, and «end the game?» with its buttons."""

from __future__ import annotations

import html
from collections.abc import Sequence

from telegram import InlineKeyboardButton, InlineKeyboardMarkup, WebAppInfo

from bot import deep_links
from bot.callbacks import EndButton
from bot.i18n import has, t
from bot.render.common import (
    MEDALS,
    Rendered,
    Snapshot,
    achievement_title,
    action_rows,
    bold_name,
    clip,
    codes_text,
    escape_name,
    fit_text,
    inline_markup,
    short_name,
    signed,
)
from bot.render.notices import switch_row
from bot.render.tables import next_round_note
from rules.events import RevealedShuffle, RoundSettled, SessionEnded
from rules.fairness import verify_commitment, verify_deal
from rules.table import Phase


def _payment(stake: int, net: int, outcome: str, lang: str, due: int = 0) -> str:
    if net > 0 and due > net:
        # The bank ran dry before this winner: say what was due and why it is less.
        return t("pay-win_short", lang, amount=net, due=due)
    if outcome == "push" and net == 0 and due > 0:
        return t("pay-push_dry", lang, due=due)
    if outcome == "win" or net > 0:
        return t("pay-win", lang, amount=net)
    if outcome == "lose" or net < 0:
        lost = -net
        if lost > stake > 0:
            return t("pay-lose_fine", lang, amount=lost, fine=lost - stake)
        return t("pay-lose", lang, amount=lost)
    return t("pay-push", lang)


def result(s: Snapshot, settled: RoundSettled, *, next_note: bool = True) -> Rendered:
    """The showdown of a round. While it is the last word (the game waits for the next round)
    it says when that starts and carries its buttons; rendered again once the game has moved
    on, it is the round's record alone (`bot.delivery` edits it so: no stale countdown).
    ``next_note=False`` leaves the countdown to a page that shows it ticking (the Mini App)."""
    game, lang = s.game, s.lang
    head = [t("result-header", lang, round=settled.round_no)]
    cards = codes_text(settled.banker_cards) or t("table-no_cards", lang)
    name = bold_name(s, settled.banker)
    banker_line = t("result-banker", lang, name=name, cards=cards, total=settled.banker_total)
    if settled.banker_bust:
        banker_line += " · " + t("result-bust", lang)
    head.append(banker_line)
    body: list[str] = []
    banker_net = 0
    for r in settled.results:
        if r.outcome == "out":
            body.append(t("result-out_row", lang, name=bold_name(s, r.player)))
            continue
        banker_net -= r.net
        # One mark a kind, in this order (a golden point is a 21 of its own).
        marks = [
            t(key, lang)
            for key, shown in (
                ("result-golden", r.golden),
                ("result-twenty_one", r.twenty_one and not r.golden),
                ("result-natural", r.natural),
                ("result-bust", r.bust),
                ("result-dark", r.dark),
            )
            if shown
        ]
        total = f"<b>{r.total}</b>" + (" " + ", ".join(marks) if marks else "")
        name = bold_name(s, r.player)
        cards = codes_text(r.cards) or t("table-no_cards", lang)
        payment = _payment(r.stake, r.net, r.outcome, lang, r.due)
        body.append(t("result-row", lang, name=name, cards=cards, total=total, payment=payment))
    body += earned_lines(s, settled.earned, lang)
    tail = [
        "",
        t("result-banker_net", lang, amount=signed(banker_net)),
        t("result-bank", lang, bank=settled.bank),
        t("result-balances", lang),
    ]
    # The banker's chips are his balance and the bank he holds (back to him when it passes),
    # said as /balance says them (`held-bank_note`).
    tail += [
        t("result-balance_row", lang, name=bold_name(s, p), amount=amount + held)
        + (" " + t("held-bank_note", lang, bank=held) if held else "")
        for p, amount in settled.balances
        for held in [settled.bank if p == settled.banker else 0]
    ]
    note = next_round_note(s, lang) if next_note else ""
    if note:
        tail += ["", note]
    if settled.shuffles:
        # The deck is revealed: /verify gives each shuffle's hash, salt and order (one short
        # line a round here, not the 64 + 32 hex digits that took several).
        tail += ["", t("result-verify_hint", lang, round=str(settled.round_no))]
    text_ = fit_text(head, body, tail, lang)
    # A paused table carries the buttons itself.
    rows = action_rows(s, peek=False) if game.phase is Phase.ROUND_OVER and not s.paused else []
    if rows:
        rows.append(switch_row(lang))  # tell me when a table opens here (goes with the rest)
    if settled.shuffles and s.app_link and s.app_name:
        # The round replayed in the Mini App, which checks the deck itself (stays on the record).
        rows = [*rows, replay_row(s, settled.round_no, private=False)]
    return Rendered(text_, inline_markup(rows))


def replay_row(s: Snapshot, round_no: int, *, private: bool) -> list[InlineKeyboardButton]:
    """«🔍 Check» a round in the Mini App: a web_app button in a private chat, the direct
    link in a group (where web_app buttons are refused); none when the bot offers no app."""
    label = t("btn-replay", s.lang, round=round_no)
    if private and s.app_page:
        page = deep_links.replay_page(s.app_page, s.game_id, round_no)
        return [InlineKeyboardButton(label, web_app=WebAppInfo(page))]
    if not private and s.app_link and s.app_name:
        url = deep_links.replay_link(s.bot_username, s.app_name, s.game_id, round_no)
        return [InlineKeyboardButton(label, url=url)]
    return []


def earned_lines(s: Snapshot, earned: Sequence[tuple[int, str]], lang: str) -> list[str]:
    """🏅 A person: the achievements this round earned them for the first time (one line a
    person, in the order earned)."""
    titles: dict[int, list[str]] = {}
    for person, code in earned:
        title = achievement_title(code, lang)
        if title is not None:
            titles.setdefault(person, []).append(title)
    return [
        t("result-achievement", lang, name=bold_name(s, person), titles=", ".join(names))
        for person, names in titles.items()
    ]


def verify(round_no: int, shuffles: Sequence[RevealedShuffle], lang: str) -> str:
    """The answer to /verify for a settled round: for each shuffle the commitment, the salt, the
    committed order and the cards dealt from it, checked with :mod:`rules.fairness`."""
    if not shuffles:
        return t("verify-legacy", lang, round=round_no)
    lines = [t("verify-header", lang, round=round_no)]
    all_ok = True
    for n, shuffle in enumerate(shuffles, 1):
        hash_ok = verify_commitment(shuffle.commitment, shuffle.order, shuffle.salt)
        deal_ok = verify_deal(shuffle.order, shuffle.dealt)
        all_ok = all_ok and hash_ok and deal_ok
        dealt = shuffle.dealt
        lines += [
            "",
            t("verify-recycled" if shuffle.recycled else "verify-shuffle", lang, n=n),
            t("verify-commitment", lang, value=html.escape(shuffle.commitment)),
            t("verify-salt", lang, value=html.escape(shuffle.salt)),
            # Cards as the table shows them; the codes that are hashed are explained in words.
            t("verify-order", lang, value=codes_text(shuffle.order)),
            t("verify-dealt", lang, count=len(dealt), value=codes_text(dealt) or "—"),
            t("verify-hash_ok" if hash_ok else "verify-hash_bad", lang)
            + " · "
            + t("verify-deal_ok" if deal_ok else "verify-deal_bad", lang),
        ]
    lines += ["", t("verify-ok" if all_ok else "verify-bad", lang), t("verify-how", lang)]
    return fit_text(lines, [], [], lang)


def session_end(
    s: Snapshot, ended: SessionEnded, *, ended_by: str | None = None, expired: bool = False
) -> Rendered:
    """The one summary of a finished game: a single line saying why (who ended it — ``ended_by``
    is that person's raw name —, that it expired, or the rule that ended it), then the final
    balances."""
    lang = s.lang
    if ended_by is not None:
        head = [t("end-header_by", lang, name=escape_name(ended_by))]
    elif expired:
        head = [t("game-expired", lang)]
    else:
        reason_key = f"end-reason-{ended.reason}"
        reason = t(reason_key if has(reason_key) else "end-reason-other", lang)
        head = [t("end-header", lang), reason, *_end_details(s, ended, lang)]
    head += ["", t("end-balances", lang)]
    ranked = sorted(ended.balances, key=lambda pair: -pair[1])
    body = [
        f"{MEDALS[i] if i < len(MEDALS) else f'{i + 1}.'} "
        + t("result-balance_row", lang, name=bold_name(s, p), amount=amount)
        for i, (p, amount) in enumerate(ranked)
    ]
    tail = ["", t("end-new_game", lang)]
    return Rendered(fit_text(head, body, tail, lang), None)


def _end_details(s: Snapshot, ended: SessionEnded, lang: str) -> list[str]:
    """Why nobody could take the bank: who turned it down, who had no chips, who held it."""
    if ended.reason not in ("no_banker", "all_dealt", "no_players"):
        return []
    lines = []
    groups = [("end-declined", ended.declined), ("end-broke", ended.broke)]
    if ended.reason != "no_players" and ended.declined:
        groups.append(("end-dealt", ended.dealt))
    for key, players in groups:
        if players:
            lines.append(t(key, lang, names=", ".join(bold_name(s, p) for p in players)))
    return lines


def end_confirm(
    name: str, game_id: int, user_id: int, expires: int, seconds: int, lang: str
) -> Rendered:
    """«End the game?» in the group: buttons only the asker's press counts on, until
    ``expires`` (unix time)."""
    buttons = [
        InlineKeyboardButton(
            t(f"btn-endgame_{word}", lang),
            callback_data=EndButton(game_id, user_id, expires, yes).encode(),
        )
        for word, yes in (("yes", True), ("no", False))
    ]
    body = t("endgame-confirm", lang, name=escape_name(name), seconds=seconds)
    return Rendered(body, InlineKeyboardMarkup([buttons]))


def end_not_yours(name: str, lang: str) -> str:
    """The alert for someone else's press on «end the game?» (plain text: alerts have no HTML)."""
    return clip(t("endgame-not_yours", lang, name=short_name(name)))
