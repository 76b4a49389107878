"""What the formatting parsers share: the entity type and error, UTF-16 lengths and slices,
tdlib's entity order and trimming; and the entities clients attach to a person's plain text."""

from __future__ import annotations

import re
from typing import Any, AnyStr

Entity = dict[str, Any]


class EntityParseError(ValueError):
    """Unparsable text; the message is tdlib's, without the "can't parse entities: " head."""


def utf16_len(text: str) -> int:
    """Length in UTF-16 code units: astral characters (most emoji) count twice."""
    return len(text.encode("utf-16-le")) // 2


def utf16_slice(text: str, offset: int, length: int) -> str:
    """The substring addressed by a Bot API entity (UTF-16 offset and length)."""
    data = text.encode("utf-16-le")
    return data[offset * 2 : (offset + length) * 2].decode("utf-16-le", errors="replace")


def sort_entities(entities: list[Entity]) -> list[Entity]:
    """tdlib's order: by offset, then the longer (outer) entity first."""
    return sorted(entities, key=lambda e: (e["offset"], -e["length"]))


def strip_text(text: str, entities: list[Entity]) -> tuple[str, list[Entity]]:
    """Trim surrounding whitespace like Telegram does, shifting and clipping entities to match."""
    stripped = text.strip()
    if not stripped:
        return "", []
    shift = utf16_len(text[: len(text) - len(text.lstrip())])
    size = utf16_len(stripped)
    result: list[Entity] = []
    for entity in entities:
        start = max(entity["offset"] - shift, 0)
        end = min(entity["offset"] + entity["length"] - shift, size)
        if end > start:
            result.append({**entity, "offset": start, "length": end - start})
    return stripped, result


def skip_match(pattern: re.Pattern[AnyStr], data: AnyStr, i: int) -> int:
    """The index after what `pattern` (which may match nothing) matches at data[i]."""
    match = pattern.match(data, i)
    return match.end() if match else i


# ------------------------------------------------------------------------- incoming user text

_COMMAND_RE = re.compile(r"(?<![\w/@])/[A-Za-z0-9_]{1,64}(?:@[A-Za-z0-9_]{3,32})?(?![\w/@])")
_MENTION_RE = re.compile(r"(?<![\w@])@[A-Za-z][A-Za-z0-9_]{3,31}(?![\w@])")
_URL_RE = re.compile(r"(?<![\w/@])https?://[^\s<>\"]+")


def detect_entities(text: str) -> list[Entity]:
    """Entities Telegram's clients attach to plain text: bot commands, mentions and URLs."""
    found: list[Entity] = []
    for kind, pattern in (("bot_command", _COMMAND_RE), ("mention", _MENTION_RE), ("url", _URL_RE)):
        for match in pattern.finditer(text):
            start = utf16_len(text[: match.start()])
            found.append({"type": kind, "offset": start, "length": utf16_len(match.group())})
    # A command's @suffix is not a separate mention.
    commands = [e for e in found if e["type"] == "bot_command"]
    found = [
        e
        for e in found
        if e["type"] != "mention"
        or not any(c["offset"] < e["offset"] < c["offset"] + c["length"] for c in commands)
    ]
    return sort_entities(found)
