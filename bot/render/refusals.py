"""The short alerts (≤ 200 characters) that say why an action or a setting is refused."""

from __future__ import annotations

import html
from collections.abc import Mapping

from bot.i18n import has, t, t_map
from bot.render.common import clip


def refusal(code: str, params: Mapping[str, object], lang: str) -> str:
    """A short alert (≤ 200 characters) for a refusal code of the engine or of the bot."""
    safe = {k: html.escape(v) if isinstance(v, str) else v for k, v in params.items()}
    key = f"refusal-{code}"
    if code in ("amount_out_of_range", "bad_amount"):
        low, high = params.get("minimum"), params.get("maximum")
        if isinstance(low, int) and isinstance(high, int) and high < low:
            key = "refusal-amount_none"
        elif code == "bad_amount" and not (isinstance(low, int) and isinstance(high, int)):
            key = "refusal-bad_amount_plain"
        elif params.get("what") in ("bank", "stake"):
            key = f"refusal-range_{params['what']}"  # «the bank», not «the stake», for /bank
    elif code == "not_your_turn" and isinstance(params.get("turn_name"), str):
        key = "refusal-not_your_turn_name"  # whose turn it is
    elif code == "wrong_phase" and isinstance(params.get("phase"), str):
        key = "refusal-wrong_phase_at"  # what is going on now, and what to do
    elif code == "cannot_pass_bank" and "rounds" in params and "played" in params:
        key = "refusal-cannot_pass_bank_rounds"
    elif code == "cannot_pass_bank" and params.get("why") == "not_banker":
        has_name = isinstance(params.get("banker_name"), str)
        key = "refusal-cannot_pass_bank_banker" if has_name else "refusal-cannot_pass_bank"
    elif code == "cannot_pass_bank" and params.get("why") == "never":
        key = "refusal-cannot_pass_bank_never"
    elif code == "not_enough_players" and isinstance(params.get("missing"), int):
        key = "refusal-not_enough_players_more"  # how many more must sit down, and how
    elif code == "cannot_afford":
        most, balance = params.get("maximum"), params.get("balance")
        if not (isinstance(most, int) and isinstance(balance, int)):
            key = "refusal-generic"
        elif most < balance:
            key = "refusal-cannot_afford_fine"  # what keeps the stake below the balance
    if not has(key):
        key = "refusal-generic"
    return clip(t_map(key, lang, safe, missing="?"))


def setting_refusal(key: str, lang: str) -> str:
    """A setting the chat's rules do not take, in the catalog's words: the options offered
    (dark draw, ace as one) clash only with twodecks104's banker-first and picture-ten rules."""
    reasons = {"dark_draw": "settings-invalid-dark_draw", "acelow": "settings-invalid-ace_low"}
    reason_key = reasons.get(key, "")
    if not has(reason_key):
        return clip(t("refusal-invalid_variant", lang))
    return clip(t("settings-invalid", lang, reason=t(reason_key, lang)))
