"""Telegram's text formatting: HTML, MarkdownV2 and legacy Markdown parsers, UTF-16 offsets.

The parsers follow tdlib's `parse_html` / `parse_markdown_v2` (td/telegram/MessageEntity.cpp), the
code the real Bot API runs, so the bot meets the same errors here as in production: the same
byte offsets, the same wording, the same leniency (tdlib keeps a bare `&` that does not start a
known entity as literal text, so we do too). Entity offsets and lengths are in UTF-16 code units,
as in the Bot API.

The parsers live in html.py and markdown.py (MarkdownV2 and legacy Markdown), what they share in
text.py; this module applies a message's parse_mode and exports the public names.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .html import parse_html
from .markdown import parse_markdown, parse_markdown_v2
from .text import (
    Entity,
    EntityParseError,
    detect_entities,
    sort_entities,
    strip_text,
    utf16_len,
    utf16_slice,
)

__all__ = [
    "Entity",
    "EntityParseError",
    "ParsedText",
    "detect_entities",
    "parse_html",
    "parse_markdown",
    "parse_markdown_v2",
    "parse_text",
    "sort_entities",
    "strip_text",
    "utf16_len",
    "utf16_slice",
]


@dataclass
class ParsedText:
    """Text ready to store: plain text plus entities, trimmed like Telegram trims it."""

    text: str
    entities: list[Entity] = field(default_factory=list)


def parse_text(text: str, parse_mode: str | None) -> ParsedText:
    """Apply parse_mode; raises EntityParseError or ValueError("unsupported parse_mode")."""
    mode = (parse_mode or "").strip()
    if not mode:
        return ParsedText(text, [])
    lowered = mode.lower()
    if lowered == "html":
        plain, entities = parse_html(text)
    elif lowered == "markdownv2":
        plain, entities = parse_markdown_v2(text)
    elif lowered == "markdown":
        plain, entities = parse_markdown(text)
    else:
        raise ValueError("unsupported parse_mode")
    return ParsedText(plain, entities)
