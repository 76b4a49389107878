"""`python3 -m bot`: answer --help or --version, else set up the environment on first use
and run the bot."""

from bot.cli import parse

parse()  # standard library only: before the first-run install, which it never needs

from bot._bootstrap import ensure_environment  # noqa: E402

ensure_environment("bot")

from bot.app import main  # noqa: E402

main()
