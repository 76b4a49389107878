"""asyncpg is the postgres extra (`pip install 'ochko-bot[postgres]'`): without it the package
still imports and runs on SQLite, and a PostgreSQL DATABASE_URL is refused at start in one line
naming the extra."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from storage import MissingDriver, SqliteStorage, open_storage
from storage.postgres import driver

ROOT = Path(__file__).resolve().parents[2]
TOKEN = "123456:" + "A" * 35
HINT = "pip install 'ochko-bot[postgres]'"


def test_a_postgres_url_without_asyncpg_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(driver, "asyncpg", None)
    assert not driver.available()
    with pytest.raises(MissingDriver) as raised:
        open_storage("postgresql://bot:s3cret@db:5432/ochko")
    message = str(raised.value)
    assert HINT in message and "asyncpg" in message
    assert "s3cret" not in message and "\n" not in message
    assert isinstance(open_storage("sqlite:///x.sqlite3"), SqliteStorage)  # SQLite needs none


# The bot's start with asyncpg made unimportable, as in a plain `pip install ochko-bot`.
WITHOUT_ASYNCPG = """
import sys
sys.modules["asyncpg"] = None  # import asyncpg raises ImportError
import storage  # the package imports without it
sys.argv = ["ochko-bot"]
from bot.app import main
main()
"""


def test_the_bot_refuses_postgres_without_asyncpg_in_one_line(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("BOT_", "OCHKO_"))}
    env |= {
        "PYTHONPATH": str(ROOT),
        "BOT_TOKEN": TOKEN,
        "DATABASE_URL": "postgresql://bot:s3cret@db.invalid/ochko",
        "BOT_API_BASE_URL": "http://127.0.0.1:9/bot",  # never reached
    }
    done = subprocess.run(
        [sys.executable, "-c", WITHOUT_ASYNCPG],
        cwd=tmp_path,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 1, done.stderr
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("ochko: ") and HINT in lines[0]
    assert "s3cret" not in done.stderr
