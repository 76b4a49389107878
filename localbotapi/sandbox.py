"""Play with the bot offline: `python3 -m localbotapi.sandbox`.

Starts the local Bot API server (flood limits on), the real bot against it as a subprocess
(`python -m bot` with BOT_TOKEN, BOT_API_BASE_URL and a temporary DATABASE_URL), and a terminal
chat in which you are any of five people in the group «Очко». The first four have opened the
private chat with the bot, so their cards arrive there; the fifth, Дима, never has, so the bot
has to reach him in the group (a mention on his turn, a deep link when he joins) until he
follows such a link (`:o`).

Plain text is sent where you are; a number presses that button on the latest message with
buttons; `:t N` presses a button of the game's table, `:b ID N` of any message; `:r ID TEXT`
replies to a message (a `/chart` about another person is a reply to their message); `:h` lists
every command. While you type, the bot's messages are printed above the prompt, never into it.

The sandbox also turns on the bot's Mini App (WEBAPP_URL and the rest, on a free local port,
with the server's stand-in of telegram-web-app.js): the banner prints, for each person, the
address a Telegram client would open for them from the group (signed initData in its
fragment), `:app [NAME]` prints it again, and `:o` given a Mini App direct link
(t.me/<bot>/<app>?startapp=…) prints the address for that start parameter.

`--script FILE` reads the same commands from a file (plus `:w TEXT` to wait for a bot message
containing TEXT in the current chat, and `:sleep S`), which is how the smoke test drives it.
"""

from __future__ import annotations

if __name__ == "__main__":
    # Before anything third-party: a bare `python3` re-executes inside the project's .venv.
    from bot._bootstrap import ensure_environment

    ensure_environment("localbotapi.sandbox")

import argparse
import os
import shlex
import signal
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

# Here the program (what it starts, and the loop that reads the commands); the person at the
# terminal and their commands are sandbox_session.py's, the screen sandbox_screen.py's.
from .models import Chat, FakeBot, FakeUser
from .sandbox_screen import Style, Terminal
from .sandbox_session import MiniApp, Sandbox
from .server import BotApiServer, ServerThread

# (first name, username, has opened the private chat with the bot)
PEOPLE = (
    ("Аня", "anya", True),
    ("Борис", "boris", True),
    ("Вика", "vika", True),
    ("Гоша", "gosha", True),
    ("Дима", "dima", False),
)
ROOT = Path(__file__).resolve().parents[2]


class BotProcess:
    """The bot under test, with its output kept in a file so a crash can be explained."""

    def __init__(self, command: list[str], env: dict[str, str], log_path: Path) -> None:
        self.log_path = log_path
        self._log = log_path.open("wb")
        self.process = subprocess.Popen(
            command, env=env, stdout=self._log, stderr=subprocess.STDOUT, cwd=ROOT
        )
        self.stopping = False

    def tail(self, lines: int = 15) -> str:
        text = self.log_path.read_text(encoding="utf-8", errors="replace")
        return "\n".join(text.splitlines()[-lines:])

    def watch(self, sandbox: Sandbox) -> None:
        """Report an unexpected exit with the end of the bot's output."""
        code = self.process.wait()
        if not self.stopping:
            sandbox.say(sandbox.style.alert(f"the bot exited with code {code}; its last output:"))
            sandbox.say(self.tail() or "(nothing)")
            sandbox.say(sandbox.style.dim("The server is still running; :q quits."))

    def stop(self) -> None:
        self.stopping = True
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self._log.close()


async def populate(server: BotApiServer) -> tuple[FakeBot, Chat, list[FakeUser]]:
    """The bot, the five people and their group; everyone but Дима says /start to the bot once,
    as real players would (those updates wait for the bot to start polling)."""
    bot = server.add_bot(username="ochko_sandbox_bot", first_name="Очко")
    users = [server.create_user(name, username=login) for name, login, _ in PEOPLE]
    group = server.create_group("Очко", members=users, admins=users[:1])
    for user, (_, _, opened) in zip(users, PEOPLE, strict=True):
        if opened:
            await user.send_private(bot, "/start")
    return bot, group, users


def lines_from(script: Path | None, sandbox: Sandbox) -> Iterator[str]:
    if script is not None:
        yield from script.read_text(encoding="utf-8").splitlines()
        return
    while True:
        try:
            yield sandbox.term.read(sandbox.style.user(sandbox.prompt()))
        except EOFError:
            return


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python3 -m localbotapi.sandbox",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--script", type=Path, help="read commands from this file, then quit")
    parser.add_argument(
        "--bot-command",
        default=f"{shlex.quote(sys.executable)} -m bot",
        help="how to start the bot (default: %(default)s)",
    )
    parser.add_argument("--no-color", action="store_true", help="plain output even on a terminal")
    parser.add_argument(
        "--database-url",
        help="the bot's DATABASE_URL (default: a new SQLite file in the sandbox's folder), "
        "e.g. an empty PostgreSQL database to try the bot on it",
    )
    args = parser.parse_args(argv)
    style = Style(sys.stdout.isatty() and not args.no_color and not os.environ.get("NO_COLOR"))

    workdir = Path(tempfile.mkdtemp(prefix="ochko-sandbox-"))
    thread = ServerThread(lambda: BotApiServer(flood_limits=True))
    thread.start()

    bot, group, users = thread.call(populate(thread.server))
    terminal = Terminal.open(
        sys.stdout, args.script is None and sys.stdin.isatty() and sys.stdout.isatty()
    )
    mini_app = MiniApp.on_free_port(thread.server)
    sandbox = Sandbox(thread, bot, group, users, terminal, style, mini_app)
    sandbox.echo = args.script is not None or not sys.stdin.isatty()
    thread.run(lambda: thread.server.add_listener(sandbox.on_event))
    sandbox.banner()

    env = {
        **os.environ,
        "BOT_TOKEN": bot.token,
        "BOT_API_BASE_URL": thread.server.base_url,
        "DATABASE_URL": args.database_url or f"sqlite:///{workdir / 'sandbox.sqlite3'}",
        "OCHKO_NO_VENV": "1",
        "PYTHONUNBUFFERED": "1",
        **mini_app.env(),
    }
    process = BotProcess(shlex.split(args.bot_command), env, workdir / "bot.log")
    threading.Thread(target=process.watch, args=(sandbox,), daemon=True).start()
    try:
        for line in lines_from(args.script, sandbox):
            try:
                if not sandbox.handle(line):
                    break
            except ValueError as error:  # e.g. pressing a button that is gone
                sandbox.say(style.alert(str(error)))
    except KeyboardInterrupt:
        sandbox.say("")
    finally:
        sandbox.say(style.dim("stopping the bot…"))
        process.stop()
        thread.stop()
    sandbox.say(f"bye (the bot's log and database are in {workdir})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
