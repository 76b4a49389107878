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


@dataclass(slots=True)
class _OpenTag:
    name: str
    argument: str
    utf16_offset: int
    result_pos: int
    expandable: bool = False


_AMP, _SLASH, _GT, _NUL = b"&/>\0"

# parse_html works on NUL-terminated UTF-8 and reads the common tokens with one match each: a run
# of text, a well-formed end tag, a start tag without attributes. Everything else (`&`, a start
# tag with attributes, a malformed tag) goes through the general code, which words the errors.
_HTML_TOKEN = re.compile(
    rb"(?P<text>[^<&]+)"
    rb"|</(?P<end>[^\0 \t\r\n\f\v>]*)[ \t\r\n\f\v]*>"
    rb"|<(?P<start>[^\0 \t\r\n\f\v>/][^\0 \t\r\n\f\v>]*)[ \t\r\n\f\v]*>"
)
_HTML_SPACES = re.compile(rb"[ \t\r\n\f\v]*")
_HTML_TAG_NAME = re.compile(rb"[^\0 \t\r\n\f\v>]*")
_HTML_ATTR_NAME = re.compile(rb"[^\0 \t\r\n\f\v=>]*")
_HTML_NAME_TOKEN = re.compile(rb"[A-Za-z0-9.-]*")
_HTML_QUOTED = {quote: re.compile(rb"[^&\0" + bytes([quote]) + rb"]*") for quote in b"'\""}


def _is_space(byte: int) -> bool:
    return byte in b" \t\r\n\f\v"


def _skip(pattern: re.Pattern[AnyStr], data: AnyStr, i: int) -> int:
    """The index after what `pattern` (which may match nothing) matches at data[i]."""
    match = pattern.match(data, i)
    return match.end() if match else i


def _html_quoted_value(data: bytes, i: int) -> tuple[str, int]:
    """Read the quoted attribute value at data[i] (the quote), decoding entities in it.

    Returns the value and the index after the closing quote (or of the NUL terminator).
    """
    quote = data[i]
    pattern = _HTML_QUOTED[quote]
    i += 1
    parts: list[str] = []
    while True:
        stop = _skip(pattern, data, i)
        parts.append(data[i:stop].decode("utf-8", errors="replace"))
        i = stop
        if data[i] != _AMP:
            break
        decoded = _decode_html_entity(data, i)
        if decoded is None:
            parts.append("&")
            i += 1
        else:
            parts.append(decoded[0])
            i = decoded[1]
    if data[i] == quote:
        i += 1
    return "".join(parts), i


def _html_start_tag(data: bytes, begin: int) -> tuple[str, str, bool, int]:
    """Parse the start tag at data[begin] (a `<`) with its attributes, or raise tdlib's error.

    Returns the tag name, its argument (URL, language, …), whether it is an expandable
    blockquote, and the index after the closing `>`.
    """
    i = _skip(_HTML_TAG_NAME, data, begin + 1)
    if data[i] == _NUL:
        raise EntityParseError(f"Unclosed start tag at byte offset {begin}")
    tag = data[begin + 1 : i].decode("utf-8", errors="replace").lower()
    if tag not in _HTML_TAGS:
        raise EntityParseError(f'Unsupported start tag "{tag}" at byte offset {begin}')
    argument = ""
    expandable = False
    while data[i] != _GT:
        i = _skip(_HTML_SPACES, data, i)
        if data[i] == _GT:
            break
        attr_begin = i
        i = _skip(_HTML_ATTR_NAME, data, i)
        attr_name = data[attr_begin:i].decode("utf-8", errors="replace")
        if not attr_name:
            raise EntityParseError(
                f'Empty attribute name in the tag "{tag}" at byte offset {begin}'
            )
        i = _skip(_HTML_SPACES, data, i)
        if data[i] != ord("="):
            if tag == "blockquote" and attr_name == "expandable":
                expandable = True
                continue
            raise EntityParseError(
                "Expected equal sign in declaration of an attribute of the tag "
                f'"{tag}" at byte offset {begin}'
            )
        i = _skip(_HTML_SPACES, data, i + 1)
        if data[i] == _NUL:
            raise EntityParseError(f'Unclosed start tag "{tag}" at byte offset {begin}')
        value: str
        if data[i] not in b"'\"":
            token_begin = i
            i = _skip(_HTML_NAME_TOKEN, data, i)
            value = data[token_begin:i].decode("ascii").lower()
            if not _is_space(data[i]) and data[i] != _GT:
                raise EntityParseError(f"Unexpected end of name token at byte offset {token_begin}")
        else:
            value, i = _html_quoted_value(data, i)
        if data[i] == _NUL:
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
        raise EntityParseError(f'Tag "span" must have class "tg-spoiler" at byte offset {begin}')
    return tag, argument, expandable, i + 1


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
        token = _HTML_TOKEN.match(data, i, size)
        kind = token.lastgroup if token else None
        if token and kind == "text":
            chunk = token[0].decode("utf-8")
            out.append(chunk)
            utf16 += utf16_len(chunk)
            i = token.end()
            continue
        if token and kind == "start":
            tag = token["start"].decode("utf-8", errors="replace").lower()
            if tag in _HTML_TAGS and tag != "span":  # span needs its class attribute
                stack.append(_OpenTag(tag, "", utf16, len(out)))
                i = token.end()
                continue
        begin = i
        if data[i] == _AMP:
            decoded = _decode_html_entity(data, i)
            char, i = decoded if decoded is not None else ("&", i + 1)
            out.append(char)
            utf16 += utf16_len(char)
            continue
        if data[i + 1] != _SLASH:
            tag, argument, expandable, i = _html_start_tag(data, i)
            stack.append(_OpenTag(tag, argument, utf16, len(out), expandable))
            continue
        # An end tag.
        if not stack:
            raise EntityParseError(f"Unexpected end tag at byte offset {begin}")
        if not token or kind != "end":
            raise EntityParseError(f"Unclosed end tag at byte offset {begin}")
        end_name = token["end"].decode("utf-8", errors="replace").lower()
        i = token.end()
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

# Plain text that parse_markdown_v2 copies in one piece: up to a backslash, a reserved character
# (only "`" inside code) or the start of the next line, where a `>` may begin a quote.
_MD_PLAIN = re.compile(rf"[^\\\n{re.escape(MARKDOWN_V2_RESERVED)}]*\n?")
_MD_PLAIN_CODE = re.compile(r"[^\\\n`]*\n?")


@dataclass
class _MdOpen:
    type: str
    utf16_offset: int
    char_offset: int
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


def _check_utf8(text: str) -> None:
    """Reject a lone surrogate with the encoder's error for that one character (position 0)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as error:
        raise UnicodeEncodeError("utf-8", text[error.start], 0, 1, error.reason) from None


def _byte_offset(text: str, index: int) -> int:
    """The UTF-8 byte offset of text[index], as tdlib reports positions in errors."""
    return len(text[:index].encode("utf-8"))


def _reserved_error(char: str) -> EntityParseError:
    return EntityParseError(
        f"Character '{char}' is reserved and must be escaped with the preceding '\\'"
    )


def parse_markdown_v2(text: str) -> tuple[str, list[Entity]]:
    """Parse MarkdownV2 into plain text and MessageEntity dicts, with tdlib's errors."""
    _check_utf8(text)
    chars = text + "\0\0\0"  # the padding spares bounds checks on look-ahead
    size = len(text)
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
            if out and out[-1].endswith("\n"):
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
        reserved, plain = MARKDOWN_V2_RESERVED, _MD_PLAIN
        if stack and stack[-1].type in ("code", "pre", "pre_code"):
            reserved, plain = "`", _MD_PLAIN_CODE
        if c not in reserved:
            # Copy c and the plain text after it; a newline ends the piece (a quote may follow).
            end = i + 1 if c == "\n" else _skip(plain, text, i + 1)
            chunk = text[i:end]
            out.append(chunk)
            utf16 += utf16_len(chunk)
            i = end
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
            start = i
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
                        argument = chars[i:end]
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
            stack.append(_MdOpen(kind, utf16, start, len(out), argument))
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
                url_begin = i
                url_chars: list[str] = []
                while i < size and chars[i] != ")":
                    if chars[i] == "\\" and "\0" < chars[i + 1] <= "~":
                        url_chars.append(chars[i + 1])
                        i += 2
                        continue
                    url_chars.append(chars[i])
                    i += 1
                if chars[i] != ")":
                    raise EntityParseError(
                        f"Can't find end of a URL at byte offset {_byte_offset(text, url_begin)}"
                    )
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
            f"{_byte_offset(text, opened.char_offset)}"
        )
    close_quote()
    return "".join(out), sort_entities(entities)


def _valid_url(url: str) -> bool:
    """Roughly tdlib's check_link: an http(s)/tg/ton link or a bare domain-looking string."""
    return bool(re.match(r"^(?:(?:https?|tg|ton)://)?[\w.-]+\.?[\w-]*(?:[/?#:].*)?$", url)) and (
        "://" in url or "." in url or url.startswith("tg:")
    )


# ---------------------------------------------------------------------------- legacy Markdown

_MD_LEGACY_PLAIN = re.compile(r"[^_*`\[\\]*")  # text up to a markup character or a backslash


def parse_markdown(text: str) -> tuple[str, list[Entity]]:
    """Parse legacy Markdown (`*bold*`, `_italic_`, `` `code` ``, ```` ```pre``` ````, links)."""
    _check_utf8(text)
    out: list[str] = []
    entities: list[Entity] = []
    utf16 = 0
    i = 0
    size = len(text)
    while i < size:
        c = text[i]
        if c == "\\" and i + 1 < size and text[i + 1] in "_*`[":
            out.append(text[i + 1])
            utf16 += 1
            i += 2
            continue
        if c not in "_*`[":
            end = _skip(_MD_LEGACY_PLAIN, text, i + 1)
            chunk = text[i:end]
            out.append(chunk)
            utf16 += utf16_len(chunk)
            i = end
            continue
        begin = i
        if c == "`" and text.startswith("```", i):
            end = text.find("```", i + 3)
            if end == -1:
                raise EntityParseError(
                    "Can't find end of the entity starting at byte offset "
                    f"{_byte_offset(text, begin)}"
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
                f"Can't find end of the entity starting at byte offset {_byte_offset(text, begin)}"
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
                        f"Can't find end of a URL at byte offset {_byte_offset(text, i + 1)}"
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
