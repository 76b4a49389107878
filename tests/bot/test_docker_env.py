"""The documented Docker start, `cp .env.example .env` then `docker compose up` (or `docker run
--env-file .env`), checked without a Docker engine: the example's lines are applied on top of the
Dockerfile's ENV the way Docker applies an env file, and the settings the bot builds from that
environment must still put the database in the /data volume and listen on every interface of
the container."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from bot.settings import Settings
from tests.e2e.test_read_only import dockerfile_env

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / ".env.example"
TOKEN = "123456:" + "A" * 35


def env_file(text: str, host: dict[str, str] | None = None) -> dict[str, str]:
    """An env file as `docker run --env-file` reads it: leading blanks dropped, `#` lines and
    blank lines skipped, `KEY=VALUE` taken literally (`KEY=` sets an empty value, which
    overrides the image's as much as any other), a bare `KEY` copied from the host if set."""
    found: dict[str, str] = {}
    for raw in text.splitlines():
        line = raw.lstrip()
        if not line or line.startswith("#"):
            continue
        key, has_value, value = line.partition("=")
        assert not re.search(r"\s", key), f"a variable name with blanks: {raw!r}"
        if has_value:
            found[key] = value
        elif host is not None and key in host:
            found[key] = host[key]
    return found


def test_the_env_file_parser_follows_docker() -> None:
    text = "# comment\n\n  A=1\nB=\nC=x # not a comment\nD\nE\n"
    assert env_file(text, {"D": "host"}) == {
        "A": "1",
        "B": "",
        "C": "x # not a comment",
        "D": "host",
    }


def settings_of(env: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> Settings:
    for key in list(os.environ):
        monkeypatch.delenv(key)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    return Settings(_env_file=None)  # type: ignore[call-arg]


def test_env_example_keeps_the_images_paths_and_listeners(monkeypatch: pytest.MonkeyPatch) -> None:
    image = dockerfile_env()
    example = env_file(EXAMPLE.read_text(encoding="utf-8"))
    assert "BOT_TOKEN" in example  # the one line a newcomer must fill in
    env = {**image, **example, "BOT_TOKEN": TOKEN}
    settings = settings_of(env, monkeypatch)
    assert settings.database_url == image["DATABASE_URL"]
    assert settings.database_url.startswith("sqlite:////data/"), settings.database_url
    assert (settings.webhook_listen, settings.webhook_port) == ("0.0.0.0", 8443)
    assert (settings.webapp_listen, settings.webapp_port) == ("0.0.0.0", 8081)
    assert (settings.metrics_listen, settings.metrics_port) == ("0.0.0.0", 9102)
    # The ports the image listens on are the ones it exposes.
    exposed = re.search(r"^EXPOSE (.+)$", (ROOT / "Dockerfile").read_text(), re.MULTILINE)
    assert exposed is not None
    assert set(exposed.group(1).split()) == {
        str(settings.webhook_port),
        str(settings.webapp_port),
        str(settings.metrics_port),
    }
    # Neither a webhook nor a Mini App is switched on by the example's empty lines.
    assert settings.webhook_url is None and settings.webapp_url is None
    assert not settings.metrics_enabled
    # Nothing the image sets for its own sake is overridden by the example.
    assert not set(example) & (set(image) - {"BOT_TOKEN"})


def test_env_example_names_only_known_settings() -> None:
    """Settings ignores unknown variables: a misspelt one in the example would do nothing."""
    known = {name.upper() for name in Settings.model_fields}
    text = EXAMPLE.read_text(encoding="utf-8")
    named = set(env_file(text))
    # The commented-out lines are settings too, meant to be uncommented.
    named |= set(re.findall(r"^#\s?([A-Z][A-Z0-9_]+)=", text, re.MULTILINE))
    assert named - known == set()
    assert "DATABASE_URL" in named and "WEBHOOK_LISTEN" in named


def test_env_example_reads_the_same_in_compose() -> None:
    """compose's env_file also understands quotes and ` #` comments: the example uses neither,
    so `docker run --env-file` and `docker compose` read the same values."""
    for key, value in env_file(EXAMPLE.read_text(encoding="utf-8")).items():
        assert not value.startswith(("'", '"')) and " #" not in value, key
        assert value == value.strip(), key
