"""The formatting parsers against tdlib's behaviour and wording."""

from __future__ import annotations

import pytest

from localbotapi.entities import (
    EntityParseError,
    detect_entities,
    parse_html,
    parse_markdown,
    parse_markdown_v2,
    strip_text,
    utf16_len,
)


def test_html_entities_and_utf16_offsets() -> None:
    text, entities = parse_html('😀 <b>Hi</b> &lt;3 <a href="https://x.org">x</a> &#1046; A & B')
    assert text == "😀 Hi <3 x Ж A & B"
    assert entities == [
        {"type": "bold", "offset": 3, "length": 2},
        {"type": "text_link", "offset": 9, "length": 1, "url": "https://x.org"},
    ]


def test_html_nested_spoiler_blockquote_and_pre_language() -> None:
    text, entities = parse_html(
        '<blockquote><i>q <span class="tg-spoiler">s</span></i></blockquote>'
        '<pre><code class="language-python">x = 1</code></pre>'
    )
    assert text == "q sx = 1"
    kinds = [(e["type"], e["offset"], e["length"], e.get("language")) for e in entities]
    assert kinds == [
        ("blockquote", 0, 3, None),
        ("italic", 0, 3, None),
        ("spoiler", 2, 1, None),
        ("pre", 3, 5, "python"),
    ]


@pytest.mark.parametrize(
    ("source", "error"),
    [
        ("hello <foo>x</foo>", 'Unsupported start tag "foo" at byte offset 6'),
        ("Привет <foo>", 'Unsupported start tag "foo" at byte offset 13'),
        ("<b>bold", 'Can\'t find end tag corresponding to start tag "b"'),
        ("a < b", 'Unsupported start tag "" at byte offset 2'),
        ("<b>x</i>", 'Unmatched end tag at byte offset 4, expected "</b>", found "</i>"'),
        ("x</b>", "Unexpected end tag at byte offset 1"),
        ("<span>x</span>", 'Tag "span" must have class "tg-spoiler" at byte offset 0'),
        ("<b", "Unclosed start tag at byte offset 0"),
        ("<br/>", 'Unsupported start tag "br/" at byte offset 0'),
    ],
)
def test_html_errors(source: str, error: str) -> None:
    with pytest.raises(EntityParseError) as caught:
        parse_html(source)
    assert str(caught.value) == error


def test_markdown_v2_entities() -> None:
    text, entities = parse_markdown_v2(r"*b* _i_ __u__ ~s~ ||sp|| `c.` [l](https://a.b) 2\+2\=4\.")
    assert text == "b i u s sp c. l 2+2=4."
    assert [e["type"] for e in entities] == [
        "bold",
        "italic",
        "underline",
        "strikethrough",
        "spoiler",
        "code",
        "text_link",
    ]


def test_markdown_v2_custom_emoji() -> None:
    text, entities = parse_markdown_v2("![👍](tg://emoji?id=5368324170671202286) x")
    assert text == "👍 x"
    assert entities == [
        {"offset": 0, "length": 2, "custom_emoji_id": "5368324170671202286", "type": "custom_emoji"}
    ]


@pytest.mark.parametrize(
    ("source", "error"),
    [
        ("Ставка 50.", "Character '.' is reserved and must be escaped with the preceding '\\'"),
        ("a-b", "Character '-' is reserved and must be escaped with the preceding '\\'"),
        ("(x)", "Character '(' is reserved and must be escaped with the preceding '\\'"),
        # "|" and "!" open an entity only as "||" (a spoiler) and "![" (a custom emoji).
        ("a | b", "Character '|' is reserved and must be escaped with the preceding '\\'"),
        ("||s|| !", "Character '!' is reserved and must be escaped with the preceding '\\'"),
        ("*bold", "Can't find end of Bold entity at byte offset 0"),
        ("ok _it", "Can't find end of Italic entity at byte offset 3"),
        ("[a](http://x", "Can't find end of a URL at byte offset 4"),
    ],
)
def test_markdown_v2_errors(source: str, error: str) -> None:
    with pytest.raises(EntityParseError) as caught:
        parse_markdown_v2(source)
    assert str(caught.value) == error


def test_detect_commands_mentions() -> None:
    entities = detect_entities("/bet@ochko_test_bot 50 to @alice")
    assert entities == [
        {"type": "bot_command", "offset": 0, "length": 19},
        {"type": "mention", "offset": 26, "length": 6},
    ]
    assert detect_entities("not/a command") == []


def test_strip_shifts_entities() -> None:
    assert strip_text("  ab  ", [{"type": "bold", "offset": 1, "length": 3}]) == (
        "ab",
        [{"type": "bold", "offset": 0, "length": 2}],
    )
    assert utf16_len("😀a") == 3


def test_html_text_runs_utf16_offsets_and_nul() -> None:
    # Text between tags is copied in runs: astral characters still count twice, NUL is text.
    text, entities = parse_html("😀<b>Жё 😀</b>\0x<i >y</i >&#x1F600;<u>&amp;</u>")
    assert text == "😀Жё 😀\0xy😀&"
    assert entities == [
        {"offset": 2, "length": 5, "type": "bold"},
        {"offset": 9, "length": 1, "type": "italic"},
        {"offset": 12, "length": 1, "type": "underline"},
    ]


@pytest.mark.parametrize(
    ("source", "error"),
    [
        ("<b>x</b", "Unclosed end tag at byte offset 4"),
        ("😀 <b>x</ b>", "Unclosed end tag at byte offset 9"),
        ("</b", "Unexpected end tag at byte offset 0"),
        ("<b>x<\0/b>", "Unclosed start tag at byte offset 4"),
        ("<B>x</I>", 'Unmatched end tag at byte offset 4, expected "</b>", found "</i>"'),
        ("Ж <a href=x_y>", "Unexpected end of name token at byte offset 11"),
    ],
)
def test_html_malformed_tags(source: str, error: str) -> None:
    with pytest.raises(EntityParseError) as caught:
        parse_html(source)
    assert str(caught.value) == error


def test_markdown_v2_quote_and_offsets_after_astral_text() -> None:
    text, entities = parse_markdown_v2(">Цитата 😀\n>ещё\nпосле *жирный* `a.b`")
    assert text == "Цитата 😀\nещё\nпосле жирный a.b"
    assert entities == [
        {"type": "blockquote", "offset": 0, "length": 13},
        {"offset": 20, "length": 6, "type": "bold"},
        {"offset": 27, "length": 3, "type": "code"},
    ]
    with pytest.raises(EntityParseError, match=r"Bold entity at byte offset 7$"):
        parse_markdown_v2("Ж😀 *x")
    with pytest.raises(EntityParseError, match=r"end of a URL at byte offset 11$"):
        parse_markdown_v2("Ж😀 [a](http://x")


def test_markdown_legacy_offsets() -> None:
    assert parse_markdown("a\\*b 😀 *Ж*") == (
        "a*b 😀 Ж",
        [{"type": "bold", "offset": 7, "length": 1}],
    )
    with pytest.raises(EntityParseError, match=r"starting at byte offset 7$"):
        parse_markdown("Ж😀 *x")
