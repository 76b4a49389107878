"""The bot's words: Fluent message catalogs per language, loaded once, and locale formats.

The texts live in ``bot/locales/<lang>/*.ftl`` (Project Fluent). Fluent was chosen over gettext
because Russian needs more than one plural per message (players and cards in one) and the plural
choice belongs to the translator, inside the message, with CLDR's categories (one/few/many/other
in Russian): gettext's ``ngettext`` carries one count per message and puts the choice in the code.
Numbers passed as ``int`` are formatted per locale by Babel through Fluent (``1 944`` in Russian,
``1,944`` in English); pass identifiers (user ids, seeds) as ``str`` so they stay as they are.

The texts are HTML for Telegram's HTML parse mode: whoever fills a placeholder with user-supplied
text escapes it first (``bot.render`` does).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction
from functools import cache, lru_cache
from importlib import resources

from babel.numbers import format_decimal
from fluent.runtime import FluentBundle, FluentResource
from fluent.syntax import ast as fluent_ast
from fluent.syntax.visitor import Visitor

DEFAULT_LANGUAGE = "ru"
LANGUAGES = ("ru", "en")
_LOCALES = {"ru": "ru_RU", "en": "en_US"}


def _catalog_files(lang: str) -> Iterator[str]:
    folder = resources.files("bot") / "locales" / lang
    for entry in sorted(folder.iterdir(), key=lambda item: item.name):
        if entry.name.endswith(".ftl"):
            yield entry.read_text(encoding="utf-8")


@cache
def bundle(lang: str) -> FluentBundle:
    """The catalog of ``lang`` (one of :data:`LANGUAGES`), parsed on first use and kept."""
    # Isolation marks (U+2068/U+2069) would show up as stray characters in Telegram clients.
    loaded = FluentBundle([_LOCALES[lang]], use_isolating=False)
    for source in _catalog_files(lang):
        loaded.add_resource(FluentResource(source))
    return loaded


@cache
def _variables_by_key(lang: str) -> dict[str, frozenset[str]]:
    """Every message id of the ``lang`` catalog with the ``$variables`` it refers to."""
    found: dict[str, frozenset[str]] = {}
    for source in _catalog_files(lang):
        for entry in FluentResource(source).body:
            if isinstance(entry, fluent_ast.Message):
                collect = _Variables()
                collect.visit(entry)
                found[entry.id.name] = frozenset(collect.names)
    return found


class _Variables(Visitor):
    def __init__(self) -> None:
        super().__init__()
        self.names: set[str] = set()

    def visit_VariableReference(self, node: fluent_ast.VariableReference) -> None:
        self.names.add(node.id.name)


def keys(lang: str = DEFAULT_LANGUAGE) -> frozenset[str]:
    """Every message id of the ``lang`` catalog."""
    return frozenset(_variables_by_key(lang))


def variables(key: str, lang: str) -> frozenset[str]:
    """The ``$variables`` message ``key`` refers to in ``lang`` (selectors included)."""
    return _variables_by_key(lang).get(key, frozenset())


def language(lang: str | None) -> str:
    """``lang`` when the bot speaks it, else the default."""
    return lang if lang in LANGUAGES else DEFAULT_LANGUAGE


def has(key: str) -> bool:
    return key in _variables_by_key(DEFAULT_LANGUAGE)


def t(key: str, lang: str, **params: object) -> str:
    """The text of ``key`` in ``lang`` (Russian when that language lacks it), formatted with
    ``params``; an unknown key comes back as itself."""
    return t_map(key, lang, params)


def t_map(key: str, lang: str, params: Mapping[str, object], *, missing: str | None = None) -> str:
    """:func:`t` with the parameters as a mapping; ``missing`` fills placeholders nobody passed
    (by default they stay visible as ``{name}``, which the catalog test catches)."""
    lang = language(lang)
    # Each value with its type: 1, 1.0 and True are equal keys but may be written differently.
    frozen = tuple((name, type(value), value) for name, value in sorted(params.items()))
    try:
        return _formatted(key, lang, frozen, missing)
    except TypeError:  # a parameter that cannot be a key (none of ours today)
        return _format(key, lang, params, missing)


# Formatting is pure, and a table, a hand or a toast formats a dozen messages, mostly the same
# ones with the same values as the version before (about 6 % of the bot's CPU under load).
@lru_cache(maxsize=16384)
def _formatted(
    key: str, lang: str, frozen: tuple[tuple[str, type, object], ...], missing: str | None
) -> str:
    return _format(key, lang, {name: value for name, _, value in frozen}, missing)


def _format(key: str, lang: str, params: Mapping[str, object], missing: str | None) -> str:
    chosen = bundle(lang)
    if not chosen.has_message(key):
        lang = DEFAULT_LANGUAGE
        chosen = bundle(lang)
        if not chosen.has_message(key):
            return key
    message = chosen.get_message(key)
    args = dict(params)
    for name in variables(key, lang) - args.keys():
        args[name] = "{" + name + "}" if missing is None else missing
    text, _errors = chosen.format_pattern(message.value, args)  # type: ignore[arg-type]
    return str(text)


# Babel's format_decimal takes some 18 µs a call, and a table or a hand writes a dozen amounts:
# the same few hundred amounts are written again and again, and formatting is pure.
@lru_cache(maxsize=4096)
def number(value: int | float | Fraction | Decimal, lang: str, *, decimals: int = 0) -> str:
    """``value`` written the way ``lang`` writes numbers, rounded half up to ``decimals``."""
    exact = (
        Decimal(value.numerator) / Decimal(value.denominator)
        if isinstance(value, Fraction)
        else Decimal(value)
    )
    rounded = exact.quantize(Decimal(1).scaleb(-decimals), rounding=ROUND_HALF_UP)
    pattern = "#,##0" + ("." + "0" * decimals if decimals else "")
    return format_decimal(rounded, format=pattern, locale=_LOCALES[language(lang)])
