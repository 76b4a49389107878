"""`python3 -m bot`: set up the environment on first use, then run the bot."""

from bot._bootstrap import ensure_environment

ensure_environment("bot")

from bot.app import main  # noqa: E402

main()
