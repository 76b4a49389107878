"""Telegram's MarkdownV2 and legacy Markdown parse modes, after tdlib's parse_markdown_v2 and
parse_markdown: the same reserved characters, escapes, byte offsets in the errors and wording."""

from __future__ import annotations

import re
from dataclasses import dataclass

from .text import Entity, EntityParseError, skip_match, sort_entities, utf16_len

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

# The entities two characters open, each a reserved character on its own: the second, the entity.
_MD_PAIRED = {"|": ("|", "spoiler"), "!": ("[", "custom_emoji")}


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
            end = i + 1 if c == "\n" else skip_match(plain, text, i + 1)
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
            elif c in _MD_PAIRED:
                second, kind = _MD_PAIRED[c]
                if chars[i + 1] != second:
                    raise _reserved_error(c)
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
            end = skip_match(_MD_LEGACY_PLAIN, text, i + 1)
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
