"""Play with the bot offline: `python3 -m tests.botapi.sandbox`.

Starts the local Bot API server (flood limits on), the real bot against it as a subprocess
(`python -m bot` with BOT_TOKEN, BOT_API_BASE_URL and a temporary DATABASE_URL), and a terminal
chat in which you are any of four people in the group «Очко». Everyone has already opened the
private chat with the bot, so private cards arrive.

Keys: plain text is sent where you are; a number presses that button on the latest message with
buttons; `:u 2` / `:user Борис` switches person; `:p` / `:g` switch between the private chat and
the group; `:b <message id> <n>` presses a button of an older message; `:l` shows the last
messages again; `:h` help; `:q` quits (the bot gets SIGTERM).

`--script FILE` reads the same commands from a file (plus `:w TEXT` to wait for a bot message
containing TEXT in the current chat, and `:sleep S`), which is how the smoke test drives it.
"""

from __future__ import annotations

if __name__ == "__main__":
    # Before anything third-party: a bare `python3` re-executes inside the project's .venv.
    from bot._bootstrap import ensure_environment

    ensure_environment("tests.botapi.sandbox")

import argparse
import os
import shlex
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import IO

from .models import Chat, FakeBot, FakeUser, Message
from .server import BotApiServer, ServerEvent, ServerThread

PEOPLE = (("Аня", "anya"), ("Борис", "boris"), ("Вика", "vika"), ("Гоша", "gosha"))
ROOT = Path(__file__).resolve().parents[2]

HELP = """\
  text          send as the current person, where they are (group or private chat)
  N             press button [N] of the latest message with buttons
  :b ID N       press button [N] of message #ID
  :u N | :user NAME   switch person (1–4 or a name)
  :p  :g        go to the private chat with the bot / back to the group
  :l            show the last messages here again
  :w TEXT       wait (≤15 s) for a bot message containing TEXT here
  :sleep S      pause for S seconds
  :h            this help
  :q            quit (stops the bot with SIGTERM)"""


class Style:
    """ANSI colours when writing to a terminal, plain text otherwise."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled

    def __call__(self, text: str, code: str) -> str:
        return f"\033[{code}m{text}\033[0m" if self.enabled else text

    def bot(self, text: str) -> str:
        return self(text, "1;36")

    def user(self, text: str) -> str:
        return self(text, "1;33")

    def dim(self, text: str) -> str:
        return self(text, "2")

    def button(self, text: str) -> str:
        return self(text, "1;32")

    def alert(self, text: str) -> str:
        return self(text, "1;31")


class Sandbox:
    """The terminal side: who you are, where you are, and how messages are printed."""

    def __init__(
        self,
        thread: ServerThread,
        bot: FakeBot,
        group: Chat,
        users: list[FakeUser],
        out: IO[str],
        style: Style,
    ) -> None:
        self.thread = thread
        self.server: BotApiServer = thread.server
        self.bot = bot
        self.group = group
        self.users = users
        self.user = users[0]
        self.in_private = False
        self.out = out
        self.style = style
        self.echo = False
        self._lock = threading.Lock()

    # Printing ---------------------------------------------------------------------------

    def say(self, text: str) -> None:
        with self._lock:
            print(text, file=self.out, flush=True)

    def chat(self) -> Chat:
        return self.user.private_chat(self.bot) if self.in_private else self.group

    def where(self) -> str:
        if self.in_private:
            return f"private chat with @{self.bot.username}"
        return f"group «{self.group.title}»"

    def render(self, message: Message, mark: str = "") -> str:
        style = self.style
        if message.chat.is_private and message.chat.user is not None:
            place = f"✉ {message.chat.user.first_name}"
        else:
            place = message.chat.title or str(message.chat.id)
        sender = message.sender.get("first_name", "?")
        who = style.bot(sender) if message.from_bot else style.user(sender)
        head = style.dim(f"[{place}] #{message.message_id}{mark}")
        body = message.content
        if message.photo is not None:
            body = f"🖼 photo {message.photo[-1]['width']}×{message.photo[-1]['height']} " + body
        lines = [f"{head} {who}: {body}"]
        number = 0
        for row in message.buttons:
            cells = []
            for text, target in row:
                number += 1
                label = style.button(f"[{number}]")
                cells.append(
                    f"{label} {text}" + (f" ({target})" if target and "://" in target else "")
                )
            lines.append("    " + "  ".join(cells))
        return "\n".join(lines)

    def on_event(self, event: ServerEvent) -> None:
        """Called on the server's thread for every change; prints what the person would see."""
        if event.kind == "answer" and event.query is not None:
            answer = event.query.answer
            if answer is not None and answer.text:
                kind = self.style.alert("⚠ alert") if answer.show_alert else "ⓘ"
                self.say(f"    {kind} {event.query.user.first_name}: {answer.text}")
            return
        message = event.message
        if message is None:
            return
        chat = message.chat
        if chat.is_private and chat.user is not self.user:
            if message.from_bot and event.kind == "new" and chat.user is not None:
                index = self.users.index(chat.user) + 1 if chat.user in self.users else "?"
                self.say(
                    self.style.dim(
                        f"    ✉ new private message for {chat.user.first_name} (:u {index}, :p)"
                    )
                )
            return
        if event.kind == "new":
            self.say(self.render(message))
        elif event.kind == "edit":
            self.say(self.render(message, " ✎"))
        elif event.kind == "delete":
            self.say(self.style.dim(f"[{chat.title or '✉'}] #{message.message_id} deleted"))

    def banner(self) -> None:
        style = self.style
        names = "  ".join(f"{i}:{u.first_name}" for i, u in enumerate(self.users, 1))
        self.say(
            style.bot("Очко sandbox") + " — a local Telegram with the real bot, no token needed."
        )
        self.say(
            f"People: {names}.  You are {style.user(self.user.first_name)} in «{self.group.title}»."
        )
        self.say(
            style.dim(
                "Type text to send it; a number presses a button; :u N switches person; "
                ":p/:g private/group; :h help; :q quit."
            )
        )

    # Commands ---------------------------------------------------------------------------

    def prompt(self) -> str:
        place = "✉" if self.in_private else self.group.title
        return f"{self.user.first_name}@{place}> "

    def show_recent(self, count: int = 8) -> None:
        messages = self.thread.run(lambda: self.chat().messages[-count:])
        self.say(self.style.dim(f"— {self.where()} —"))
        for message in messages:
            self.say(self.render(message))

    def press(self, message: Message | None, number: int) -> None:
        if message is None:
            self.say("no message with buttons here")
            return
        buttons = message.flat_buttons
        if not 1 <= number <= len(buttons):
            self.say(f"message #{message.message_id} has buttons 1–{len(buttons)}")
            return
        text, target = buttons[number - 1]
        if target and "://" in target:
            self.say(f"[{number}] {text} opens {target}")
            return
        self.say(self.style.dim(f"{self.user.first_name} presses [{number}] {text}"))
        self.thread.call(self.user.press(message, index=number - 1))

    def switch_user(self, who: str) -> None:
        chosen: FakeUser | None = None
        if who.isdigit() and 1 <= int(who) <= len(self.users):
            chosen = self.users[int(who) - 1]
        else:
            for user in self.users:
                if who.lower() in (user.first_name.lower(), (user.username or "").lower()):
                    chosen = user
        if chosen is None:
            self.say(f"no such person: {who!r}")
            return
        self.user = chosen
        self.say(f"You are now {self.style.user(chosen.first_name)} in the {self.where()}.")

    def handle(self, line: str) -> bool:
        """Run one command; False means quit."""
        line = line.strip()
        if not line or line.startswith("#"):
            return True
        if self.echo:  # a transcript should show what was typed
            self.say(self.style.dim(f"{self.prompt()}{line}"))
        word, _, rest = line.partition(" ")
        rest = rest.strip()
        if word in (":q", ":quit"):
            return False
        if word in (":h", ":help"):
            self.say(HELP)
        elif word in (":u", ":user"):
            self.switch_user(rest)
        elif word == ":p":
            self.in_private = True
            self.show_recent()
        elif word == ":g":
            self.in_private = False
            self.show_recent()
        elif word == ":l":
            self.show_recent()
        elif word == ":b":
            parts = rest.split()
            if len(parts) != 2 or not all(p.isdigit() for p in parts):
                self.say("usage: :b <message id> <button number>")
            else:
                message = self.thread.run(lambda: self.chat().message(int(parts[0])))
                self.press(message, int(parts[1]))
        elif word == ":w":
            chat = self.chat()
            try:
                self.thread.call(chat.wait_for(rest, timeout=15), timeout=20)
            except TimeoutError:
                self.say(self.style.alert(f"timed out waiting for {rest!r}"))
        elif word == ":sleep":
            time.sleep(float(rest or 1))
        elif line.isdigit():
            self.press(self.thread.run(lambda: self.chat().last_with_buttons()), int(line))
        elif word.startswith(":"):
            self.say(f"unknown command {word}; :h for help")
        else:
            self.thread.call(self.user.send(self.chat(), line))
        return True


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


def lines_from(script: Path | None, sandbox: Sandbox) -> Iterator[str]:
    if script is not None:
        yield from script.read_text(encoding="utf-8").splitlines()
        return
    while True:
        try:
            yield input(sandbox.style.user(sandbox.prompt()) if sys.stdin.isatty() else "")
        except EOFError:
            return


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python3 -m tests.botapi.sandbox",
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
    args = parser.parse_args(argv)
    style = Style(sys.stdout.isatty() and not args.no_color and not os.environ.get("NO_COLOR"))

    workdir = Path(tempfile.mkdtemp(prefix="ochko-sandbox-"))
    thread = ServerThread(lambda: BotApiServer(flood_limits=True))
    thread.start()

    def setup() -> tuple[FakeBot, Chat, list[FakeUser]]:
        server = thread.server
        bot = server.add_bot(username="ochko_sandbox_bot", first_name="Очко")
        users = [server.create_user(name, username=login) for name, login in PEOPLE]
        group = server.create_group("Очко", members=users, admins=users[:1])
        return bot, group, users

    bot, group, users = thread.run(setup)

    async def introduce() -> None:
        # Everyone has opened the private chat with the bot once, as real players would.
        for user in users:
            await user.send_private(bot, "/start")

    thread.call(introduce())
    sandbox = Sandbox(thread, bot, group, users, sys.stdout, style)
    sandbox.echo = args.script is not None or not sys.stdin.isatty()
    thread.run(lambda: thread.server.add_listener(sandbox.on_event))
    sandbox.banner()

    env = {
        **os.environ,
        "BOT_TOKEN": bot.token,
        "BOT_API_BASE_URL": thread.server.base_url,
        "DATABASE_URL": f"sqlite:///{workdir / 'sandbox.sqlite3'}",
        "OCHKO_NO_VENV": "1",
        "PYTHONUNBUFFERED": "1",
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
