"""The Mini App page holds no words of its own: every word it shows comes from the catalogs
through the server, in the person's language (``LABELS`` of bot/webapp/view.py), so the page
never shows text in a language the person does not read — not even before its first state.

``static/app.js`` asks for its words by key (``L("players")``): those keys are exactly the
server's :data:`~bot.webapp.view.LABELS`, each is a message of both catalogs, and every other
string literal of app.js is a name the machine reads (an id or class of the page, an act, a
DOM or HTTP name), never a person's word. index.html has no text either."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from bot import i18n
from bot.callbacks import Act
from bot.webapp.view import LABELS, labels, page_state

STATIC = Path(__file__).resolve().parents[2] / "bot" / "webapp" / "static"
APP_JS = (STATIC / "app.js").read_text(encoding="utf-8")
APP_CSS = (STATIC / "app.css").read_text(encoding="utf-8")
INDEX = (STATIC / "index.html").read_text(encoding="utf-8")
LANGS = ("ru", "en")
CYRILLIC = re.compile(r"[\u0400-\u04FF]")
# A name in JS or CSS: a word with its dashes and underscores ("act-row", "dark_card"), never
# one starting inside another ("1s").
NAME = re.compile(r"(?<![\w-])[A-Za-z][\w-]*")
# The names app.js uses that the page's own files do not define: the web platform's (tags,
# events, HTTP, ARIA, media queries, Telegram's WebApp API and its haptics), the API's paths and
# parameters. Not a person's word among them.
PLATFORM = frozenset(
    {
        *("use", "strict", "function", "object", "number"),
        *("div", "span", "li", "ul", "h2", "p", "b", "button", "section"),
        *("click", "change", "resize", "visibilitychange", "visible", "online", "themeChanged"),
        *("POST", "Content-Type", "application", "json", "no-store", "tma"),
        *("role", "img", "alertdialog", "aria-label"),
        *("prefers-color-scheme", "prefers-reduced-motion", "reduce", "smooth", "nearest"),
        *("notify", "impact", "error", "warning", "light"),
        *("api", "state", "act", "chat", "thread", "amount", "scope"),
        *("ms", "px"),
    }
)
# The classes and ids app.js gives its nodes that no rule of app.css names (hooks for scripts
# and tests, a card's color, a row of other buttons).
HOOKS = frozenset({"black", "my-turn", "other", "tl", "w-label", "waiting"})


def _js_strings(source: str) -> list[str]:
    """The string literals of a script ('…', "…", `…`), its comments and regular expressions
    left out (a regular expression matches the server's texts, it shows nothing)."""
    found: list[str] = []
    i, n = 0, len(source)
    before = ""  # the last token: a "/" after a value divides, anywhere else starts a regex
    while i < n:
        c = source[i]
        if source.startswith("//", i):
            end = source.find("\n", i)
            i = n if end < 0 else end
        elif source.startswith("/*", i):
            i = source.index("*/", i) + 2
        elif c in "\"'`":
            j, text = i + 1, []
            while source[j] != c:
                step = 2 if source[j] == "\\" else 1
                text.append(source[j : j + step])
                j += step
            found.append("".join(text))
            i, before = j + 1, "value"
        elif c == "/" and before not in ("value", ")", "]"):
            j, in_class = i + 1, False
            while in_class or source[j] != "/":
                if source[j] == "\\":
                    j += 1
                elif source[j] in "[]":
                    in_class = source[j] == "["
                j += 1
            i = j + 1
            while i < n and source[i].isalpha():  # flags
                i += 1
            before = "value"
        elif c.isspace():
            i += 1
        else:
            word = re.match(r"[\w$]+", source[i:])
            if word:
                i += len(word[0])
                before = "return" if word[0] == "return" else "value"
            else:
                i, before = i + 1, c
    return found


def _page_names() -> set[str]:
    """The names the page itself defines: ids, classes, attributes and keywords of index.html
    and app.css."""
    markup = re.sub(r"<script[^>]*>.*?</script>", "", INDEX, flags=re.S)
    return set(NAME.findall(APP_CSS)) | set(NAME.findall(markup))


def _asked_keys() -> list[str]:
    return re.findall(r"\bL\(\"([a-z_]+)\"\)", APP_JS)


def test_the_scanner_sees_strings_and_not_regexes_or_comments() -> None:
    source = 'a = "x" + 1 / 2; /* "c" */ b = /"r"/u.test(s); // "d"\nc = `t` + \'q\' / k[1] / 3;'
    assert _js_strings(source) == ["x", "t", "q"]
    assert len(_js_strings(APP_JS)) > 150  # the scan reads the page's script


def test_the_page_asks_for_exactly_the_labels_the_server_sends() -> None:
    asked = _asked_keys()
    # Every call names its key as a literal, so this list is the page's whole vocabulary.
    assert len(re.findall(r"\bL\(", APP_JS)) == len(asked) > 10
    assert set(asked) == set(LABELS)
    assert len(set(LABELS)) == len(LABELS)


@pytest.mark.parametrize("lang", LANGS)
def test_every_label_is_a_message_of_the_catalog(lang: str) -> None:
    keys = i18n.keys(lang)
    words = labels(lang)
    assert list(words) == list(LABELS)
    for key, text in words.items():
        assert f"app-{key}" in keys, (lang, key)
        assert text.strip() and text != f"app-{key}", (lang, key)
        assert "<" not in text, (lang, key)  # put in with textContent: no markup
    assert page_state(lang, 0.0, None)["labels"] == words
    # In the person's language: the Russian words are Russian, the English ones are not.
    other = [key for key, text in words.items() if bool(CYRILLIC.search(text)) != (lang == "ru")]
    assert other == []


def test_app_js_holds_no_human_text() -> None:
    assert not CYRILLIC.search(APP_JS)
    known = _page_names() | HOOKS | set(LABELS) | {act.value for act in Act} | PLATFORM
    words = {
        (name, literal)
        for literal in _js_strings(APP_JS)
        for name in NAME.findall(literal)
        if name.rstrip("-") not in known
    }
    assert not words, sorted(words)


def test_the_old_words_of_the_page_are_gone() -> None:
    """What app.js held before its words came from the server, in both languages."""
    for word in ("Очко", "Соединяемся", "Ваши карты", "Игроки", "втёмную", "фишки"):
        assert word not in APP_JS and word not in INDEX, word
    literals = _js_strings(APP_JS)
    for word in ("Ochko", "Connecting", "Your cards", "Players", "Banker", "Round", "chips"):
        assert not any(word in literal for literal in literals), word


class _Text(HTMLParser):
    """The text and the human-facing attributes of a page."""

    def __init__(self) -> None:
        super().__init__()
        self.text: list[str] = []
        self._skip = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._skip += tag in ("script", "style")
        for name, value in attrs:
            if name in ("title", "alt", "placeholder", "aria-label") and value:
                self.text.append(value)

    def handle_endtag(self, tag: str) -> None:
        self._skip -= tag in ("script", "style")

    def handle_data(self, data: str) -> None:
        if not self._skip:
            self.text.append(data)


def test_index_html_holds_no_human_text() -> None:
    parser = _Text()
    parser.feed(INDEX)
    words = [text for text in parser.text if re.search(r"[^\W\d_]", text)]
    assert words == []
