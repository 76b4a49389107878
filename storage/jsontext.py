"""The JSON text of every stored value (game states, settings, logs, statement parameters).

orjson rather than the standard library's json: a game's state is encoded on every action and
decoded on every load, and orjson does both in about a tenth of the time (measured:
docs/performance.md). The text is the same compact form as ``json.dumps(value,
ensure_ascii=False, separators=(",", ":"))``.
"""

from __future__ import annotations

from typing import Any, Final

import orjson

# Keys that are not strings (a hand's message ids by user id) become strings, as json.dumps
# makes them: a stored value always reads back with string keys.
_OPTIONS: Final = orjson.OPT_NON_STR_KEYS


def dumps(value: Any) -> str:
    return orjson.dumps(value, option=_OPTIONS).decode()


def dumps_sorted(value: Any) -> str:
    """Keys sorted: the same mapping always makes the same text (chat settings; rows written
    before orjson have spaces after the separators, and read back the same)."""
    return orjson.dumps(value, option=_OPTIONS | orjson.OPT_SORT_KEYS).decode()


loads: Final = orjson.loads
