"""The chat settings a group admin changes from /settings, in one table.

The menu's lines and buttons (`bot.render.settings_menu`), the parsing and validation of a
press (`bot.handlers.chat_settings`) and the change it makes to the stored settings
(`bot.service_settings`) are all built from :data:`OPTIONS`, so a new option is one entry
here (and its texts in the catalogs), never four edits that can drift apart.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from typing import Any

from bot import seasons
from bot.i18n import LANGUAGES, t
from rules.variants import PRESETS, Variant, preset, with_overrides
from storage import ChatSettings

CLOSE = "close"  # the menu's «✖ Close»: s:<chat>:close:x
CLOSE_VALUE = "x"


@dataclass(frozen=True, slots=True)
class Option:
    """One row of the menu: a line saying the current value and a row of buttons.

    ``key`` and each of ``values`` travel in the callback data (``s:<chat>:<key>:<value>``);
    the catalog's ids are named after ``name`` (the key unless given): ``line``, the line with
    the current value, and ``label``, one button's label with its value (as ``$value``, or
    ``param``). ``read`` is the current value as one of
    ``values`` ("" when none is chosen: ``unset_line`` is shown); ``write`` stores a value and
    raises `rules.errors.RulesError` for a combination the rules refuse.
    """

    key: str
    values: tuple[str, ...]
    read: Callable[[ChatSettings], str]
    write: Callable[[ChatSettings, str], ChatSettings]
    word: Callable[[str, str], object]  # (value, language) -> what $value shows
    name: str = ""
    param: str = "value"
    unset_line: str | None = None
    per_row: int = 3
    # Each value in its own language (a Russian speaker finds «Русский» in an English menu).
    own_language: bool = False

    @property
    def line(self) -> str:
        return f"settings-{self.name or self.key}"

    @property
    def label(self) -> str:
        return f"settings-btn-{self.name or self.key}"


def _base(settings: ChatSettings) -> Variant:
    return PRESETS.get(settings.preset, PRESETS["classic36"])


def _onoff(value: bool) -> str:
    return "on" if value else "off"


def _number(value: str, lang: str) -> int:
    return int(value)


def _override(name: str) -> Callable[[ChatSettings, str], ChatSettings]:
    """A preset parameter the chat overrides; the rules check the combination."""

    def write(settings: ChatSettings, value: str) -> ChatSettings:
        parsed: object = int(value) if value.isdigit() else value == "on"
        overrides = dict(settings.overrides) | {name: parsed}
        with_overrides(preset(settings.preset), overrides)
        return replace(settings, overrides=overrides)

    return write


def _switch(
    key: str,
    read: Callable[[ChatSettings], str],
    write: Callable[[ChatSettings, str], ChatSettings],
    name: str = "",
) -> Option:
    """An on/off option."""
    return Option(key, ("on", "off"), read, write, t, name)


def _override_switch(key: str, field: str, name: str = "") -> Option:
    """An on/off preset parameter the chat overrides (see :func:`_override`)."""

    def read(settings: ChatSettings) -> str:
        return _onoff(bool(settings.overrides.get(field, getattr(_base(settings), field))))

    return _switch(key, read, _override(field), name)


def _count(key: str, values: Iterable[int], field: str, per_row: int) -> Option:
    """A whole number the chat picks among ``values`` (its `ChatSettings` field)."""

    def write(settings: ChatSettings, value: str) -> ChatSettings:
        changes: dict[str, Any] = {field: int(value)}
        return replace(settings, **changes)

    return Option(
        key=key,
        values=tuple(str(value) for value in values),
        read=lambda s: str(getattr(s, field)),
        write=write,
        word=_number,
        per_row=per_row,
    )


def _read_fine(settings: ChatSettings) -> str:
    raw = settings.overrides.get("bust_fine_percent", _base(settings).bust_fine_percent)
    return str(raw if isinstance(raw, int) else _base(settings).bust_fine_percent)


def _preset_word(value: str, lang: str) -> str:
    key = f"preset-{value}-name"
    found = t(key, lang)
    return value if found == key else found


OPTIONS: tuple[Option, ...] = (
    Option(
        key="preset",
        values=tuple(PRESETS),
        param="preset",
        read=lambda s: s.preset,
        # A new preset starts from its own values: overrides made for another do not carry.
        write=lambda s, v: replace(s, preset=v, overrides={}),
        word=_preset_word,
        per_row=2,
    ),
    _override_switch("dark_draw", "dark_draw", "dark"),
    Option("fine", ("0", "50", "100"), _read_fine, _override("bust_fine_percent"), _number),
    _override_switch("acelow", "ace_low_on_bust"),
    Option(
        key="timeout",
        values=("30", "60", "120"),
        unset_line="settings-timeout_default",
        read=lambda s: str(s.turn_timeout) if s.turn_timeout else "",
        write=lambda s, v: replace(s, turn_timeout=int(v)),
        word=_number,
    ),
    _switch(
        "house", lambda s: _onoff(s.house_banker), lambda s, v: replace(s, house_banker=v == "on")
    ),
    _switch(
        "refill", lambda s: _onoff(s.daily_refill), lambda s, v: replace(s, daily_refill=v == "on")
    ),
    # A call to play: at most this many notices an hour from the chat per person (0: none).
    _count("notices", (0, 1, 3, 6), "notices_per_hour", per_row=4),
    Option(
        key="season",
        values=seasons.LENGTHS,
        read=lambda s: s.season,
        write=lambda s, v: replace(s, season=v),
        word=lambda v, lang: t(f"season-length-{v}", lang),
    ),
    _count("tz", seasons.OFFSETS, "utc_offset", per_row=7),
    Option(
        key="lang",
        values=LANGUAGES,
        read=lambda s: s.language,
        write=lambda s, v: replace(s, language=v),
        word=lambda v, _: v,
        own_language=True,
    ),
)
BY_KEY: dict[str, Option] = {option.key: option for option in OPTIONS}


def valid(key: str, value: str) -> bool:
    """Whether a press names an option and one of its values (or the menu's close button)."""
    if key == CLOSE:
        return value == CLOSE_VALUE
    option = BY_KEY.get(key)
    return option is not None and value in option.values


def apply(settings: ChatSettings, key: str, value: str) -> ChatSettings:
    """The chat's settings with one change (a valid key and value, see :func:`valid`); a
    combination the rules refuse raises `rules.errors.InvalidVariant`."""
    return BY_KEY[key].write(settings, value)
