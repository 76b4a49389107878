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
import hashlib
import importlib
import os
import re
import secrets
import shlex
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import IO

from .models import Chat, FakeBot, FakeUser, Message
from .server import BotApiServer, ServerThread
from .webapp import init_data, launch_url, parse_direct_link
from .world import ServerEvent

# (first name, username, has opened the private chat with the bot)
PEOPLE = (
    ("Аня", "anya", True),
    ("Борис", "boris", True),
    ("Вика", "vika", True),
    ("Гоша", "gosha", True),
    ("Дима", "dima", False),
)
ROOT = Path(__file__).resolve().parents[2]
CLEAR_LINE = "\033[K"
TABLE_MARK = "🃏"  # the lobby and the table both start with it, in every language
# How a Telegram client recognises a link that opens a bot's private chat with a start parameter.
DEEP_LINK = re.compile(
    r"(?:https?://)?t\.me/(?P<bot>\w+)\?start=(?P<start>[\w-]+)"
    r"|tg://resolve\?domain=(?P<bot2>\w+)&start=(?P<start2>[\w-]+)"
)
# A Mini App's direct link (localbotapi/webapp.py parse_direct_link checks it in full).
DIRECT_LINK = re.compile(r"(?:https?://)?t\.me/\w+/\w+/?(?:\?[\w=&%-]*)?")

HELP = """\
  text            send as the current person, where they are (group or private chat)
  N               press button [N] of the latest message with buttons here
  :t              show the game's table (the latest «🃏» message in the group)
  :t N            press button [N] of the table, from wherever you are
  :b ID [N]       show message #ID here / press its button [N]
  :r ID TEXT      send TEXT as a reply to message #ID here (e.g. :r 12 /chart)
  :o [LINK]       follow a t.me link to the bot (default: the last one offered to you):
                  opens the private chat and presses START (/start <parameter>); a Mini
                  App link (t.me/<bot>/<app>?startapp=…) prints its address to open instead
  :app [NAME]     the address of your (or NAME's) Mini App of the group, to open in a browser
  :u N | :u NAME  switch person ({people})
  :p  :g          go to the private chat with the bot / back to the group
  :l [N]          show the last N (8) messages here again
  :who            who is who, and who has opened the private chat
  :w TEXT         wait (≤15 s) for a bot message containing TEXT here
  :sleep S        pause for S seconds
  :h              this help
  :q              quit (stops the bot with SIGTERM)"""


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


def readline_prompt(prompt: str) -> str:
    """The prompt for readline: colour codes marked as taking no room (\\001…\\002), or readline
    would count them as characters and misplace the cursor when it redraws the line."""
    return re.sub(r"(\033\[[0-9;]*m)", "\001\\1\002", prompt)


class Terminal:
    """The screen, shared by the prompt (main thread) and the bot's messages (server thread).

    While a person is typing, a message must not land in the middle of their line: it clears
    the prompt line, prints the message, and draws the prompt again with what was typed so far
    (readline's buffer), so the typing goes on where it was.
    """

    def __init__(
        self, out: IO[str], *, interactive: bool, line_editor: ModuleType | None = None
    ) -> None:
        self.out = out
        self.interactive = interactive
        self.editor = line_editor
        self._lock = threading.Lock()
        self._shown_prompt: str | None = None  # the prompt on screen while a line is read
        self._pending_prompt = ""
        self._holding = False  # the main thread holds _lock until readline has drawn the prompt
        if self.editor is not None:
            self.editor.set_pre_input_hook(self._prompt_drawn)

    @classmethod
    def open(cls, out: IO[str], interactive: bool) -> Terminal:
        editor: ModuleType | None = None
        if interactive:
            try:  # line editing and history; absent on Windows, where input() still works
                editor = importlib.import_module("readline")
            except ImportError:
                editor = None
        return cls(out, interactive=interactive, line_editor=editor)

    def write(self, text: str) -> None:
        with self._lock:
            if self._shown_prompt is None:
                self.out.write(text + "\n")
            else:
                typed = self.editor.get_line_buffer() if self.editor is not None else ""
                self.out.write(f"\r{CLEAR_LINE}{text}\n{self._shown_prompt}{typed}")
            self.out.flush()

    def read(self, prompt: str) -> str:
        """One line from the keyboard (or from a pipe); EOFError at the end of the input."""
        if not self.interactive:
            return input()
        if self.editor is None:
            with self._lock:
                self.out.write(prompt)
                self.out.flush()
                self._shown_prompt = prompt
            try:
                return input()
            finally:
                with self._lock:
                    self._shown_prompt = None
        # readline draws the prompt itself; writers wait until it has (the pre-input hook), so
        # a message can't squeeze in between the prompt and the moment it is known as shown.
        self._lock.acquire()
        self._holding = True
        self._pending_prompt = prompt
        try:
            return input(readline_prompt(prompt))
        finally:
            if self._holding:
                self._holding = False
                self._lock.release()
            with self._lock:
                self._shown_prompt = None

    def _prompt_drawn(self) -> None:
        self._shown_prompt = self._pending_prompt
        if self._holding:
            self._holding = False
            self._lock.release()


@dataclass(frozen=True)
class MiniApp:
    """The bot's Mini App as the sandbox turns it on: where the bot serves its page."""

    url: str
    """WEBAPP_URL: the page's public address (here a local one)."""
    short_name: str
    listen: str
    port: int
    telegram_js: str
    """The URL of telegram-web-app.js: the local server's stand-in."""

    @classmethod
    def on_free_port(cls, server: BotApiServer, short_name: str = "table") -> MiniApp:
        host = "127.0.0.1"
        port = free_port(host)
        return cls(
            url=f"http://{host}:{port}/app/",
            short_name=short_name,
            listen=host,
            port=port,
            telegram_js=server.web_app_js_url,
        )

    def env(self) -> dict[str, str]:
        """The bot's settings that turn its Mini App on."""
        return {
            "WEBAPP_URL": self.url,
            "WEBAPP_SHORT_NAME": self.short_name,
            "WEBAPP_LISTEN": self.listen,
            "WEBAPP_PORT": str(self.port),
            "WEBAPP_TELEGRAM_JS": self.telegram_js,
        }


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port nobody listens on now (the bot binds it a moment later)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind((host, 0))
        return int(probe.getsockname()[1])


class Sandbox:
    """The terminal side: who you are, where you are, and how messages are printed."""

    def __init__(
        self,
        thread: ServerThread,
        bot: FakeBot,
        group: Chat,
        users: list[FakeUser],
        out: IO[str] | Terminal,
        style: Style,
        mini_app: MiniApp | None = None,
    ) -> None:
        self.thread = thread
        self.server: BotApiServer = thread.server
        self.bot = bot
        self.group = group
        self.users = users
        self.user = users[0]
        self.in_private = False
        self.term = out if isinstance(out, Terminal) else Terminal(out, interactive=False)
        self.style = style
        self.echo = False
        self.offered: dict[int, str] = {}
        """The last link the bot offered each person (a button's answer that opens a chat)."""
        self.mini_app = mini_app
        """The bot's Mini App, when the sandbox turned it on."""

    # Printing ---------------------------------------------------------------------------

    def say(self, text: str) -> None:
        self.term.write(text)

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
        if message.reply_to is not None:
            head += style.dim(f" ↩ #{message.reply_to.message_id}")
        body = message.content
        if message.photo is not None:
            body = f"🖼 photo {message.photo[-1]['width']}×{message.photo[-1]['height']} " + body
        lines = [f"{head} {who}: {body}"]
        entities = message.entities if message.text is not None else message.caption_entities
        mentioned = [e["user"]["first_name"] for e in entities if e["type"] == "text_mention"]
        if mentioned:
            lines.append(style.dim("    🔔 mentions " + ", ".join(mentioned)))
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
            person = event.query.user
            if answer is not None and answer.text:
                kind = self.style.alert("⚠ alert") if answer.show_alert else "ⓘ"
                self.say(f"    {kind} {person.first_name}: {answer.text}")
            if answer is not None and answer.url:
                # Telegram opens the link at once; here it waits for :o, so it can be seen.
                self.offered[person.id] = answer.url
                follow = ":o" if person is self.user else f":u {self.number(person)}, :o"
                self.say(f"    ↗ {person.first_name}: opens {answer.url} ({follow} follows it)")
            return
        message = event.message
        if message is None:
            return
        chat = message.chat
        if chat.is_private and chat.user is not self.user:
            if message.from_bot and event.kind == "new" and chat.user is not None:
                self.say(
                    self.style.dim(
                        f"    ✉ new private message for {chat.user.first_name} "
                        f"(:u {self.number(chat.user)}, :p)"
                    )
                )
            return
        if event.kind == "new":
            self.say(self.render(message))
        elif event.kind == "edit":
            self.say(self.render(message, " ✎"))
        elif event.kind == "delete":
            self.say(self.style.dim(f"[{chat.title or '✉'}] #{message.message_id} deleted"))

    def number(self, user: FakeUser) -> str:
        return str(self.users.index(user) + 1) if user in self.users else "?"

    def people(self) -> str:
        return "  ".join(f"{i}:{u.first_name}" for i, u in enumerate(self.users, 1))

    def help(self) -> str:
        return HELP.format(people=f"1–{len(self.users)} or a name")

    def banner(self) -> None:
        style = self.style
        self.say(
            style.bot("Очко sandbox") + " — a local Telegram with the real bot, no token needed."
        )
        self.say(
            f"People: {self.people()}.  You are {style.user(self.user.first_name)} "
            f"in «{self.group.title}»."
        )
        strangers = [u.first_name for u in self.users if not self.opened(u)]
        if strangers:
            self.say(
                style.dim(
                    ", ".join(strangers) + " never opened the private chat with the bot: "
                    "the bot reaches them in the group (a mention, a deep link; :o follows it)."
                )
            )
        if self.mini_app is not None:
            self.say(
                f"Mini App of «{self.group.title}» ({self.mini_app.url}), "
                "as each person's Telegram would open it (open one in a browser; :app prints the "
                "whole address):"
            )
            for user in self.users:
                self.say(f"  {style.user(user.first_name)}: {self.short_address(user)}")
        self.say(
            style.dim(
                "Type text to send it; a number presses a button; :t N presses the table's; "
                ":r ID TEXT replies; :u N switches person; :p/:g private/group; :h help; :q quit."
            )
        )

    # The Mini App ------------------------------------------------------------------------

    def chat_instance(self, private_with: FakeUser | None = None) -> str:
        """A stable stand-in of Telegram's chat_instance (a signed 64-bit id) of the group, or
        of the private chat with `private_with`."""
        chat = self.group.id if private_with is None else private_with.id
        digest = hashlib.sha256(f"{self.bot.id}:{chat}".encode()).digest()
        return str(int.from_bytes(digest[:8], "big", signed=True))

    def app_address(self, user: FakeUser) -> str:
        """The address `user`'s Telegram loads to open the bot's Mini App from the group: the
        page for the group (`?chat=<id>`), with initData signed as Telegram signs it and the
        start parameter `c<group id>` (what the bot's links carry)."""
        if self.mini_app is None:
            raise RuntimeError("the Mini App is off in this sandbox")
        base = self.mini_app.url
        page = f"{base}{'&' if '?' in base else '?'}chat={self.group.id}"
        return self.launch(user, page, f"c{self.group.id}", private=False)

    def short_address(self, user: FakeUser) -> str:
        """A short local address that opens `user`'s Mini App (`app_address`, signed anew at
        each open): the local server redirects there."""
        name = self.number(user)
        self.server.launchers[name] = lambda: self.app_address(user)
        return f"{self.server.url}/open/{name}"

    def launch(self, user: FakeUser, page: str, start_param: str | None, *, private: bool) -> str:
        """The address of `page` opened as a Mini App by `user` from the group, or from their
        private chat with the bot."""
        data = init_data(
            self.bot.token,
            user,
            start_param=start_param,
            chat_type="private" if private else self.group.type,
            chat_instance=self.chat_instance(user if private else None),
        )
        return launch_url(page, data, start_param=start_param)

    def show_app(self, who: str = "") -> None:
        if self.mini_app is None:
            self.say("the bot's Mini App is off in this sandbox")
            return
        user = self.find_user(who) if who else self.user
        if user is None:
            self.say(f"no such person: {who!r}")
            return
        self.say(f"{self.style.user(user.first_name)}'s Mini App: {self.app_address(user)}")

    def open_direct_link(self, link: str) -> bool:
        """A Mini App direct link (t.me/<bot>/<app>?startapp=…): the address it opens for the
        current person. False when `link` is not one."""
        found = parse_direct_link(link)
        if found is None:
            return False
        username, short_name, start = found
        if username.lower() != (self.bot.username or "").lower():
            self.say(f"{link} opens a Mini App of @{username}, not of this bot")
        elif self.mini_app is None:
            self.say(f"{link} opens the bot's Mini App, which is off in this sandbox")
        elif short_name.lower() != self.mini_app.short_name.lower():
            self.say(f"{link}: @{username} has no Mini App {short_name!r}")
        else:
            address = self.launch(self.user, self.mini_app.url, start, private=self.in_private)
            self.say(f"{self.style.user(self.user.first_name)} opens the Mini App: {address}")
        return True

    def open_web_app_button(self, url: str) -> None:
        """A web_app button (private chats only): the page opened with initData for the current
        person, as from an inline button (a query_id, no chat)."""
        data = init_data(self.bot.token, self.user, query_id="AA" + secrets.token_urlsafe(16))
        address = launch_url(url, data)
        self.say(f"{self.style.user(self.user.first_name)} opens the Mini App: {address}")

    def opened(self, user: FakeUser) -> bool:
        return bool(self.thread.run(lambda: user.private_chat(self.bot).started))

    # Commands ---------------------------------------------------------------------------

    def prompt(self) -> str:
        place = "✉" if self.in_private else self.group.title
        return f"{self.user.first_name}@{place}> "

    def show_recent(self, count: int = 8) -> None:
        messages = self.thread.run(lambda: self.chat().messages[-count:])
        self.say(self.style.dim(f"— {self.where()} —"))
        for message in messages:
            self.say(self.render(message))

    def table(self) -> Message | None:
        """The game's table: the newest bot message in the group that is the lobby or a table."""

        def find() -> Message | None:
            for message in reversed(self.group.messages):
                if message.from_bot and message.content.startswith(TABLE_MARK):
                    return message
            return None

        return self.thread.run(find)

    def press(self, message: Message | None, number: int) -> None:
        if message is None:
            self.say("no message with buttons here")
            return
        buttons = message.flat_buttons
        if not 1 <= number <= len(buttons):
            self.say(f"message #{message.message_id} has buttons 1–{len(buttons)}")
            return
        text, target = buttons[number - 1]
        raw = [button for row in message.inline_keyboard for button in row][number - 1]
        web_app = raw.get("web_app")
        if isinstance(web_app, dict) and isinstance(web_app.get("url"), str):
            self.say(self.style.dim(f"{self.user.first_name} presses [{number}] {text}"))
            self.open_web_app_button(web_app["url"])
            return
        if target and "://" in target:
            self.say(self.style.dim(f"{self.user.first_name} presses [{number}] {text}"))
            self.follow(target)
            return
        self.say(self.style.dim(f"{self.user.first_name} presses [{number}] {text}"))
        self.thread.call(self.user.press(message, index=number - 1))

    def follow(self, link: str) -> None:
        """Open a link as a Telegram client does: a deep link to the bot opens its private chat,
        and START sends `/start <parameter>`; a Mini App's direct link gives the address the
        Mini App opens at."""
        if self.open_direct_link(link):
            return
        found = DEEP_LINK.fullmatch(link.strip())
        if found is None:
            self.say(f"{link} opens outside Telegram (nothing to do here)")
            return
        username = found.group("bot") or found.group("bot2")
        parameter = found.group("start") or found.group("start2")
        if username.lower() != (self.bot.username or "").lower():
            self.say(f"{link} opens @{username}, not this bot")
            return
        self.in_private = True
        self.show_recent()
        self.say(self.style.dim(f"{self.user.first_name} presses START"))
        self.thread.call(self.user.send(self.chat(), f"/start {parameter}"))

    def reply(self, rest: str) -> None:
        target, _, text = rest.partition(" ")
        if not target.isdigit() or not text.strip():
            self.say("usage: :r <message id> <text>")
            return
        message = self.thread.run(lambda: self.chat().message(int(target)))
        if message is None:
            self.say(f"no message #{target} in the {self.where()}")
            return
        self.thread.call(self.user.send(self.chat(), text.strip(), reply_to=message))

    def find_user(self, who: str) -> FakeUser | None:
        """A person by number (from 1), first name or username."""
        if who.isdigit() and 1 <= int(who) <= len(self.users):
            return self.users[int(who) - 1]
        for user in self.users:
            if who.lower() in (user.first_name.lower(), (user.username or "").lower()):
                return user
        return None

    def switch_user(self, who: str) -> None:
        chosen = self.find_user(who)
        if chosen is None:
            self.say(f"no such person: {who!r}")
            return
        self.user = chosen
        self.say(f"You are now {self.style.user(chosen.first_name)} in the {self.where()}.")
        if not self.opened(chosen):
            self.say(self.style.dim(f"{chosen.first_name} has not opened the private chat yet."))

    def who(self) -> None:
        for index, user in enumerate(self.users, 1):
            state = "private chat open" if self.opened(user) else "never opened the private chat"
            you = "  ← you" if user is self.user else ""
            self.say(f"  {index}: {user.first_name} (@{user.username}) — {state}{you}")

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
            self.say(self.help())
        elif word in (":u", ":user"):
            self.switch_user(rest)
        elif word == ":who":
            self.who()
        elif word == ":p":
            self.in_private = True
            self.show_recent()
        elif word == ":g":
            self.in_private = False
            self.show_recent()
        elif word == ":l":
            if rest and not rest.isdigit():
                self.say("usage: :l [how many]")
            else:
                self.show_recent(int(rest) if rest else 8)
        elif word == ":t":
            table = self.table()
            if not rest:
                self.say(self.render(table) if table else "no table in the group yet (/newgame)")
            elif not rest.isdigit():
                self.say("usage: :t [button number]")
            else:
                self.press(table, int(rest))
        elif word == ":b":
            parts = rest.split()
            if not 1 <= len(parts) <= 2 or not all(p.isdigit() for p in parts):
                self.say("usage: :b <message id> [button number]")
            else:
                message = self.thread.run(lambda: self.chat().message(int(parts[0])))
                if len(parts) == 2:
                    self.press(message, int(parts[1]))
                elif message is None:
                    self.say(f"no message #{parts[0]} in the {self.where()}")
                else:
                    self.say(self.render(message))
        elif word == ":r":
            self.reply(rest)
        elif word == ":o":
            link = rest or self.offered.get(self.user.id) or self.latest_link()
            if link is None:
                self.say(f"no link offered to {self.user.first_name}; usage: :o <link>")
            else:
                self.follow(link)
        elif word == ":app":
            self.show_app(rest)
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

    def latest_link(self) -> str | None:
        """The newest deep link to the bot shown where you are, in a button or in the text."""

        def find() -> str | None:
            for message in reversed(self.chat().messages):
                if not message.from_bot:
                    continue
                targets = [target or "" for _, target in message.flat_buttons]
                links = [e.get("url", "") for e in message.entities if e["type"] == "text_link"]
                for candidate in [*targets, *links, message.content]:
                    found = DEEP_LINK.search(candidate)
                    if found is not None:
                        return found.group()
                    for app_link in DIRECT_LINK.finditer(candidate):
                        if parse_direct_link(app_link.group()) is not None:
                            return app_link.group()
            return None

        return self.thread.run(find)


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
