"""Rendering: texts and keyboards of every message, on real engine games."""

from __future__ import annotations

from bot import i18n


def test_every_key_has_both_languages() -> None:
    for key, texts in i18n.STRINGS.items():
        assert set(texts) == {"ru", "en"}, key
