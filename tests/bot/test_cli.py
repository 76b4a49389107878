"""`ochko-bot --help` / `--version` (and `python -m bot`): they answer at once, exit 0, and need
neither a token nor settings; nothing is started, installed or written."""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib
from importlib import metadata
from pathlib import Path

import pytest

from bot import cli

ROOT = Path(__file__).resolve().parents[2]
VERSION = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]


def run_bot(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("BOT_", "OCHKO_"))}
    env |= {"PYTHONPATH": str(ROOT), "DATABASE_URL": f"sqlite:///{tmp_path}/never.sqlite3"}
    return subprocess.run(
        [sys.executable, "-m", "bot", *args],
        cwd=tmp_path,  # no .env here: no token anywhere
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )


@pytest.mark.parametrize("flag", ["--help", "-h"])
def test_help_needs_no_token(tmp_path: Path, flag: str) -> None:
    done = run_bot(tmp_path, flag)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    out = done.stdout
    assert out.startswith("usage: python -m bot")
    for needed in ("BOT_TOKEN", "@BotFather", ".env", ".env.example", "README.md", "--version"):
        assert needed in out, needed
    assert list(tmp_path.iterdir()) == []  # no database, nothing written


@pytest.mark.parametrize("flag", ["--version", "-V"])
def test_version_needs_no_token(tmp_path: Path, flag: str) -> None:
    done = run_bot(tmp_path, flag)
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"ochko-bot {VERSION}\n"
    assert list(tmp_path.iterdir()) == []


def test_an_unknown_argument_is_refused(tmp_path: Path) -> None:
    done = run_bot(tmp_path, "--token=123")
    assert done.returncode == 2
    assert "unrecognized arguments: --token=123" in done.stderr
    assert list(tmp_path.iterdir()) == []


def test_the_version_comes_from_the_package_else_the_checkout(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(metadata, "version", lambda name: "9.8.7")
    assert cli.version() == "9.8.7"

    def missing(name: str) -> str:
        raise metadata.PackageNotFoundError(name)

    monkeypatch.setattr(metadata, "version", missing)
    assert cli.version() == VERSION


def test_the_entry_point_is_the_command_line() -> None:
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    assert scripts == {"ochko-bot": "bot.cli:main"}
