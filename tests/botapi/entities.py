"""Telegram's text formatting: HTML, MarkdownV2 and legacy Markdown parsers, UTF-16 offsets.

The parsers follow tdlib's `parse_html` / `parse_markdown_v2` (td/telegram/MessageEntity.cpp), the
code the real Bot API runs, so the bot meets the same errors here as in production: the same
byte offsets, the same wording, the same leniency (tdlib keeps a bare `&` that does not start a
known entity as literal text, so we do too). Entity offsets and lengths are in UTF-16 code units,
as in the Bot API.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

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


# --------------------------------------------------------------------------------------- HTML

_HTML_TAGS = frozenset(
    {"a", "b", "strong", "i", "em", "s", "strike", "del", "u", "ins", "tg-spoiler", "tg-emoji"}
    | {"span", "pre", "code", "blockquote"}
)
_HTML_TYPES = {
    "b": "bold",
    "strong": "bold",
    "i": "italic",
    "em": "italic",
    "s": "strikethrough",
    "strike": "strikethrough",
    "del": "strikethrough",
    "u": "underline",
    "ins": "underline",
    "tg-spoiler": "spoiler",
    "span": "spoiler",
    "code": "code",
    "pre": "pre",
}
_NAMED_ENTITIES = {"lt": "<", "gt": ">", "amp": "&", "quot": '"'}


def _decode_html_entity(data: bytes, i: int) -> tuple[str, int] | None:
    """Decode `&name;` or `&#N;` / `&#xN;` at data[i]; None keeps the `&` as a literal character."""
    end = data.find(b";", i + 1, i + 12)
    if end == -1:
        return None
    body = data[i + 1 : end].decode("ascii", errors="replace")
    if body.startswith("#"):
        try:
            code = int(body[2:], 16) if body[1:2] in ("x", "X") else int(body[1:], 10)
        except ValueError:
            return None
        if not 0 < code < 0x110000 or 0xD800 <= code < 0xE000:
            return None
        return chr(code), end + 1
    if body in _NAMED_ENTITIES:
        return _NAMED_ENTITIES[body], end + 1
    return None


@dataclass
class _OpenTag:
    name: str
    argument: str
    utf16_offset: int
    result_pos: int
    expandable: bool = False


def _is_space(byte: int) -> bool:
    return byte in b" \t\r\n\f\v"


def parse_html(text: str) -> tuple[str, list[Entity]]:
    """Parse Telegram's HTML subset into plain text and MessageEntity dicts."""
    data = text.encode("utf-8") + b"\0"  # the terminator spares bounds checks, as in tdlib
    size = len(data) - 1
    out: list[str] = []
    utf16 = 0
    stack: list[_OpenTag] = []
    entities: list[Entity] = []
    i = 0
    while i < size:
        byte = data[i]
        if byte == ord("&"):
            decoded = _decode_html_entity(data, i)
            if decoded is not None:
                char, i = decoded
                out.append(char)
                utf16 += utf16_len(char)
                continue
        if byte != ord("<"):
            # Copy one whole UTF-8 character.
            length = 1
            if byte >= 0xF0:
                length = 4
            elif byte >= 0xE0:
                length = 3
            elif byte >= 0xC0:
                length = 2
            char = data[i : i + length].decode("utf-8", errors="replace")
            out.append(char)
            utf16 += utf16_len(char)
            i += length
            continue
        begin = i
        i += 1
        if data[i] != ord("/"):
            while data[i] != 0 and not _is_space(data[i]) and data[i] != ord(">"):
                i += 1
            if data[i] == 0:
                raise EntityParseError(f"Unclosed start tag at byte offset {begin}")
            tag = data[begin + 1 : i].decode("utf-8", errors="replace").lower()
            if tag not in _HTML_TAGS:
                raise EntityParseError(f'Unsupported start tag "{tag}" at byte offset {begin}')
            argument = ""
            expandable = False
            while data[i] != ord(">"):
                while data[i] != 0 and _is_space(data[i]):
                    i += 1
                if data[i] == ord(">"):
                    break
                attr_begin = i
                while data[i] != 0 and not _is_space(data[i]) and data[i] not in b"=>":
                    i += 1
                attr_name = data[attr_begin:i].decode("utf-8", errors="replace")
                if not attr_name:
                    raise EntityParseError(
                        f'Empty attribute name in the tag "{tag}" at byte offset {begin}'
                    )
                while data[i] != 0 and _is_space(data[i]):
                    i += 1
                if data[i] != ord("="):
                    if tag == "blockquote" and attr_name == "expandable":
                        expandable = True
                        continue
                    raise EntityParseError(
                        "Expected equal sign in declaration of an attribute of the tag "
                        f'"{tag}" at byte offset {begin}'
                    )
                i += 1
                while data[i] != 0 and _is_space(data[i]):
                    i += 1
                if data[i] == 0:
                    raise EntityParseError(f'Unclosed start tag "{tag}" at byte offset {begin}')
                value: str
                if data[i] not in b"'\"":
                    token_begin = i
                    while (chr(data[i]).isalnum() and data[i] < 0x80) or data[i] in b".-":
                        i += 1
                    value = data[token_begin:i].decode("ascii").lower()
                    if not _is_space(data[i]) and data[i] != ord(">"):
                        raise EntityParseError(
                            f"Unexpected end of name token at byte offset {token_begin}"
                        )
                else:
                    quote = data[i]
                    i += 1
                    chars: list[str] = []
                    raw = bytearray()
                    while data[i] != quote and data[i] != 0:
                        if data[i] == ord("&"):
                            decoded = _decode_html_entity(data, i)
                            if decoded is not None:
                                chars.append(raw.decode("utf-8", errors="replace"))
                                raw.clear()
                                chars.append(decoded[0])
                                i = decoded[1]
                                continue
                        raw.append(data[i])
                        i += 1
                    chars.append(raw.decode("utf-8", errors="replace"))
                    value = "".join(chars)
                    if data[i] == quote:
                        i += 1
                if data[i] == 0:
                    raise EntityParseError(f"Unclosed start tag at byte offset {begin}")
                if tag == "a" and attr_name == "href":
                    argument = value
                elif tag == "code" and attr_name == "class" and value.startswith("language-"):
                    argument = value[9:]
                elif tag == "span" and attr_name == "class" and value.startswith("tg-"):
                    argument = value[3:]
                elif tag == "tg-emoji" and attr_name == "emoji-id":
                    argument = value
                elif tag == "blockquote" and attr_name == "expandable":
                    expandable = True
            if tag == "span" and argument != "spoiler":
                raise EntityParseError(
                    f'Tag "span" must have class "tg-spoiler" at byte offset {begin}'
                )
            stack.append(_OpenTag(tag, argument, utf16, len(out), expandable))
            i += 1  # skip '>'
            continue
        # An end tag.
        if not stack:
            raise EntityParseError(f"Unexpected end tag at byte offset {begin}")
        while data[i] != 0 and not _is_space(data[i]) and data[i] != ord(">"):
            i += 1
        end_name = data[begin + 2 : i].decode("utf-8", errors="replace").lower()
        while data[i] != 0 and _is_space(data[i]):
            i += 1
        if data[i] != ord(">"):
            raise EntityParseError(f"Unclosed end tag at byte offset {begin}")
        i += 1
        opened = stack.pop()
        if end_name and end_name != opened.name:
            raise EntityParseError(
                f'Unmatched end tag at byte offset {begin}, expected "</{opened.name}>", '
                f'found "</{end_name}>"'
            )
        length = utf16 - opened.utf16_offset
        if length <= 0:
            continue
        entity: Entity = {"offset": opened.utf16_offset, "length": length, "_depth": len(stack)}
        if opened.name == "a":
            url = opened.argument or "".join(out[opened.result_pos :])
            entity.update(type="text_link", url=url)
        elif opened.name == "tg-emoji":
            if not opened.argument:
                continue
            entity.update(type="custom_emoji", custom_emoji_id=opened.argument)
        elif opened.name == "blockquote":
            entity["type"] = "expandable_blockquote" if opened.expandable else "blockquote"
        elif opened.name == "pre":
            entity["type"] = "pre"
            # <pre><code class="language-x">…</code></pre> is one pre entity with a language.
            if (
                entities
                and entities[-1]["type"] == "code"
                and (
                    entities[-1]["offset"] == entity["offset"]
                    and entities[-1]["length"] == entity["length"]
                )
            ):
                inner = entities.pop()
                if inner.get("language"):
                    entity["language"] = inner["language"]
        else:
            entity["type"] = _HTML_TYPES[opened.name]
            if opened.name == "code" and opened.argument:
                entity["language"] = opened.argument
        entities.append(entity)
    if stack:
        raise EntityParseError(f'Can\'t find end tag corresponding to start tag "{stack[-1].name}"')
    # A language only means something on pre; a lone <code class=…> is plain code.
    for entity in entities:
        if entity["type"] == "code":
            entity.pop("language", None)
    # Equal ranges keep the outer tag first: tdlib orders them by nesting.
    entities.sort(key=lambda e: (e["offset"], -e["length"], e.pop("_depth")))
    return "".join(out), entities


# --------------------------------------------------------------------------------- MarkdownV2

MARKDOWN_V2_RESERVED = "_*[]()~`>#+-=|{}.!"


@dataclass
class _MdOpen:
    type: str
    utf16_offset: int
    byte_offset: int
    result_pos: int
    argument: str = ""


# tdlib prints entity types with these names in "Can't find end of … entity" errors.
_MD_TYPE_NAMES = {
    "bold": "Bold",
    "italic": "Italic",
    "underline": "Underline",
    "strikethrough": "Strikethrough",
    "spoiler": "Spoiler",
    "code": "Code",
    "pre": "Pre",
    "pre_code": "PreCode",
    "text_link": "TextUrl",
    "custom_emoji": "CustomEmoji",
}


def _reserved_error(char: str) -> EntityParseError:
    return EntityParseError(
        f"Character '{char}' is reserved and must be escaped with the preceding '\\'"
    )


def parse_markdown_v2(text: str) -> tuple[str, list[Entity]]:
    """Parse MarkdownV2 into plain text and MessageEntity dicts, with tdlib's errors."""
    chars = [*text, "\0", "\0", "\0"]
    size = len(text)
    byte_offsets = [0]
    for char in text:
        byte_offsets.append(byte_offsets[-1] + len(char.encode("utf-8")))
    byte_offsets += [byte_offsets[-1]] * 3
    out: list[str] = []
    utf16 = 0
    stack: list[_MdOpen] = []
    entities: list[Entity] = []
    quote_start: int | None = None  # UTF-16 offset where the current `>` blockquote began
    i = 0

    def at_line_start(index: int) -> bool:
        return index == 0 or chars[index - 1] == "\n"

    def close_quote() -> None:
        nonlocal quote_start
        if quote_start is not None:
            end = utf16
            # The newline that ends the quote is not part of it.
            if out and out[-1] == "\n":
                end -= 1
            if end > quote_start:
                entities.append(
                    {"type": "blockquote", "offset": quote_start, "length": end - quote_start}
                )
            quote_start = None

    while i < size:
        c = chars[i]
        if at_line_start(i) and not stack:
            if c == ">":
                if quote_start is None:
                    quote_start = utf16
                i += 1
                continue
            close_quote()
        if c == "\\" and "\0" < chars[i + 1] <= "~":
            out.append(chars[i + 1])
            utf16 += 1
            i += 2
            continue
        reserved = MARKDOWN_V2_RESERVED
        if stack and stack[-1].type in ("code", "pre", "pre_code"):
            reserved = "`"
        if c not in reserved:
            out.append(c)
            utf16 += utf16_len(c)
            i += 1
            continue
        top = stack[-1].type if stack else None
        is_end = {
            "bold": c == "*",
            "italic": c == "_" and chars[i + 1] != "_",
            "code": c == "`",
            "pre": c == "`" and chars[i + 1] == "`" and chars[i + 2] == "`",
            "pre_code": c == "`" and chars[i + 1] == "`" and chars[i + 2] == "`",
            "text_link": c == "]",
            "custom_emoji": c == "]",
            "underline": c == "_" and chars[i + 1] == "_",
            "strikethrough": c == "~",
            "spoiler": c == "|" and chars[i + 1] == "|",
        }.get(top or "", False)
        if not is_end:
            start_byte = byte_offsets[i]
            argument = ""
            if c == "_":
                if chars[i + 1] == "_":
                    kind = "underline"
                    i += 1
                else:
                    kind = "italic"
            elif c == "*":
                kind = "bold"
            elif c == "~":
                kind = "strikethrough"
            elif c == "|":
                if chars[i + 1] != "|":
                    raise _reserved_error(c)
                kind = "spoiler"
                i += 1
            elif c == "[":
                kind = "text_link"
            elif c == "`":
                if chars[i + 1] == "`" and chars[i + 2] == "`":
                    i += 3
                    kind = "pre"
                    end = i
                    while end < size and not chars[end].isspace() and chars[end] != "`":
                        end += 1
                    if end != i and end < size and chars[end] != "`":
                        kind = "pre_code"
                        argument = "".join(chars[i:end])
                        i = end
                    if chars[i] in "\r\n":
                        if chars[i + 1] in "\r\n" and chars[i] != chars[i + 1]:
                            i += 2
                        else:
                            i += 1
                    i -= 1
                else:
                    kind = "code"
            elif c == "!":
                if chars[i + 1] != "[":
                    raise _reserved_error(c)
                kind = "custom_emoji"
                i += 1
            else:
                raise _reserved_error(c)
            stack.append(_MdOpen(kind, utf16, start_byte, len(out), argument))
            i += 1
            continue
        opened = stack.pop()
        skip = utf16 == opened.utf16_offset
        entity: Entity = {"offset": opened.utf16_offset, "length": utf16 - opened.utf16_offset}
        kind = opened.type
        if kind in ("underline", "spoiler"):
            i += 1
        elif kind in ("pre", "pre_code"):
            i += 2
        elif kind in ("text_link", "custom_emoji"):
            url = ""
            if chars[i + 1] != "(":
                url = "".join(out[opened.result_pos :])
            else:
                i += 2
                url_begin = byte_offsets[i]
                url_chars: list[str] = []
                while i < size and chars[i] != ")":
                    if chars[i] == "\\" and "\0" < chars[i + 1] <= "~":
                        url_chars.append(chars[i + 1])
                        i += 2
                        continue
                    url_chars.append(chars[i])
                    i += 1
                if chars[i] != ")":
                    raise EntityParseError(f"Can't find end of a URL at byte offset {url_begin}")
                url = "".join(url_chars)
            if kind == "custom_emoji":
                match = re.fullmatch(r"tg://emoji\?id=(\d+)", url)
                if not match:
                    raise EntityParseError("Custom emoji entity must contain a tg://emoji URL")
                entity["custom_emoji_id"] = match.group(1)
            elif not _valid_url(url):
                skip = True
            else:
                entity["url"] = url
        if kind == "pre_code":
            entity.update(type="pre", language=opened.argument)
        elif kind == "text_link":
            entity["type"] = "text_link"
        else:
            entity["type"] = kind
        if not skip:
            entities.append(entity)
        i += 1
    if stack:
        opened = stack[-1]
        raise EntityParseError(
            f"Can't find end of {_MD_TYPE_NAMES[opened.type]} entity at byte offset "
            f"{opened.byte_offset}"
        )
    close_quote()
    return "".join(out), sort_entities(entities)


def _valid_url(url: str) -> bool:
    """Roughly tdlib's check_link: an http(s)/tg/ton link or a bare domain-looking string."""
    return bool(re.match(r"^(?:(?:https?|tg|ton)://)?[\w.-]+\.?[\w-]*(?:[/?#:].*)?$", url)) and (
        "://" in url or "." in url or url.startswith("tg:")
    )


# ---------------------------------------------------------------------------- legacy Markdown


def parse_markdown(text: str) -> tuple[str, list[Entity]]:
    """Parse legacy Markdown (`*bold*`, `_italic_`, `` `code` ``, ```` ```pre``` ````, links)."""
    out: list[str] = []
    entities: list[Entity] = []
    utf16 = 0
    i = 0
    size = len(text)
    byte_pos = [0]
    for char in text:
        byte_pos.append(byte_pos[-1] + len(char.encode("utf-8")))
    while i < size:
        c = text[i]
        if c == "\\" and i + 1 < size and text[i + 1] in "_*`[":
            out.append(text[i + 1])
            utf16 += 1
            i += 2
            continue
        if c not in "_*`[":
            out.append(c)
            utf16 += utf16_len(c)
            i += 1
            continue
        begin = i
        if c == "`" and text.startswith("```", i):
            end = text.find("```", i + 3)
            if end == -1:
                raise EntityParseError(
                    f"Can't find end of the entity starting at byte offset {byte_pos[begin]}"
                )
            body = text[i + 3 : end]
            language = ""
            first_line, sep, rest = body.partition("\n")
            if sep and first_line and " " not in first_line:
                language, body = first_line, rest
            elif body.startswith("\n"):
                body = body[1:]
            if body:
                entity: Entity = {"type": "pre", "offset": utf16, "length": utf16_len(body)}
                if language:
                    entity["language"] = language
                entities.append(entity)
            out.append(body)
            utf16 += utf16_len(body)
            i = end + 3
            continue
        end_char = "]" if c == "[" else c
        end = text.find(end_char, i + 1)
        if end == -1:
            raise EntityParseError(
                f"Can't find end of the entity starting at byte offset {byte_pos[begin]}"
            )
        body = text[i + 1 : end]
        i = end + 1
        kind = {"_": "italic", "*": "bold", "`": "code", "[": "text_link"}[c]
        entity = {"type": kind, "offset": utf16, "length": utf16_len(body)}
        if c == "[":
            if i < size and text[i] == "(":
                close = text.find(")", i + 1)
                if close == -1:
                    raise EntityParseError(
                        f"Can't find end of a URL at byte offset {byte_pos[i + 1]}"
                    )
                entity["url"] = text[i + 1 : close]
                i = close + 1
            else:
                entity["url"] = body
        if body:
            entities.append(entity)
        out.append(body)
        utf16 += utf16_len(body)
    return "".join(out), sort_entities(entities)


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
