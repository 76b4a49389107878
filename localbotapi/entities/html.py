"""Telegram's HTML parse mode, after tdlib's parse_html: the same tags, entities, byte offsets
in the errors and wording."""

from __future__ import annotations

import re
from dataclasses import dataclass

from .text import Entity, EntityParseError, skip_match, utf16_len

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


def _html_quoted_value(data: bytes, i: int) -> tuple[str, int]:
    """Read the quoted attribute value at data[i] (the quote), decoding entities in it.

    Returns the value and the index after the closing quote (or of the NUL terminator).
    """
    quote = data[i]
    pattern = _HTML_QUOTED[quote]
    i += 1
    parts: list[str] = []
    while True:
        stop = skip_match(pattern, data, i)
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
    i = skip_match(_HTML_TAG_NAME, data, begin + 1)
    if data[i] == _NUL:
        raise EntityParseError(f"Unclosed start tag at byte offset {begin}")
    tag = data[begin + 1 : i].decode("utf-8", errors="replace").lower()
    if tag not in _HTML_TAGS:
        raise EntityParseError(f'Unsupported start tag "{tag}" at byte offset {begin}')
    argument = ""
    expandable = False
    while data[i] != _GT:
        i = skip_match(_HTML_SPACES, data, i)
        if data[i] == _GT:
            break
        attr_begin = i
        i = skip_match(_HTML_ATTR_NAME, data, i)
        attr_name = data[attr_begin:i].decode("utf-8", errors="replace")
        if not attr_name:
            raise EntityParseError(
                f'Empty attribute name in the tag "{tag}" at byte offset {begin}'
            )
        i = skip_match(_HTML_SPACES, data, i)
        if data[i] != ord("="):
            if tag == "blockquote" and attr_name == "expandable":
                expandable = True
                continue
            raise EntityParseError(
                "Expected equal sign in declaration of an attribute of the tag "
                f'"{tag}" at byte offset {begin}'
            )
        i = skip_match(_HTML_SPACES, data, i + 1)
        if data[i] == _NUL:
            raise EntityParseError(f'Unclosed start tag "{tag}" at byte offset {begin}')
        value: str
        if data[i] not in b"'\"":
            token_begin = i
            i = skip_match(_HTML_NAME_TOKEN, data, i)
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
