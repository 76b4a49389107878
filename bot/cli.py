"""The command line of `ochko-bot` and `python -m bot`: `--help` and `--version` answer at once
(standard library only: no token, no settings, no first-run install, nothing started); without
arguments the bot runs (`bot.app.main`)."""

from __future__ import annotations

import argparse
import sys
import tomllib
from collections.abc import Sequence
from importlib import metadata
from pathlib import Path

DISTRIBUTION = "ochko-bot"
PYPROJECT = Path(__file__).resolve().parent.parent / "pyproject.toml"

DESCRIPTION = """\
Ochko (Очко, «21»), the Russian card game, for Telegram group chats: runs the bot until it
is stopped (Ctrl-C or SIGTERM).

Every setting comes from the environment or from a .env file in the working folder
(.env.example documents each one). BOT_TOKEN, the token from @BotFather, is required;
DATABASE_URL (default sqlite:///ochko.sqlite3), WEBHOOK_URL (empty: long polling),
WEBAPP_URL (the Mini App) and the others are optional. From a source checkout on a terminal,
`python3 -m bot` without a token starts the offline sandbox instead."""

EPILOG = """\
More: README.md (settings, commands, Docker) and docs/deployment.md (webhook, Mini App,
PostgreSQL and replicas, backups) in the sources."""


def version() -> str:
    """The installed package's version, or the checkout's (pyproject.toml) when it is run
    from the sources without being installed."""
    try:
        return metadata.version(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        pass
    try:
        with PYPROJECT.open("rb") as handle:
            return str(tomllib.load(handle)["project"]["version"])
    except (OSError, KeyError, tomllib.TOMLDecodeError):
        return "unknown"


def parser(prog: str) -> argparse.ArgumentParser:
    found = argparse.ArgumentParser(
        prog=prog,
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    found.add_argument("-V", "--version", action="version", version=f"{DISTRIBUTION} {version()}")
    return found


def parse(argv: Sequence[str] | None = None, *, prog: str | None = None) -> None:
    """Answers `--help` and `--version` (exit 0) and refuses anything else it does not know
    (exit 2, one usage line); returns when the bot should run."""
    if prog is None:
        name = Path(sys.argv[0]).name
        prog = "python -m bot" if name in ("__main__.py", "-m", "-c", "") else name
    parser(prog).parse_args(sys.argv[1:] if argv is None else list(argv))


def main() -> None:
    """The `ochko-bot` command."""
    parse()
    from bot.app import main as run  # the bot itself: third-party imports from here on

    run()
