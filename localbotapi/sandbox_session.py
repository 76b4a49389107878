"""The sandbox's side of the terminal: who you are (`Sandbox.user`), where you are (the group or
your private chat with the bot), what you type (`Sandbox.handle`: text, button numbers, the
`:` commands of `HELP`) and what the bot's messages look like as they come (`on_event`); and the
bot's Mini App as the sandbox turns it on (`MiniApp`), with the address each person's Telegram
opens it at. `python3 -m localbotapi.sandbox` (localbotapi/sandbox.py) starts it all."""

from __future__ import annotations

import hashlib
import re
import secrets
import socket
import time
from dataclasses import dataclass
from typing import IO

from .models import Chat, FakeBot, FakeUser, Message
from .sandbox_screen import Style, Terminal, render
from .server import BotApiServer, ServerThread
from .webapp import init_data, launch_url, parse_direct_link
from .world import ServerEvent

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
            self.say(render(message, self.style))
        elif event.kind == "edit":
            self.say(render(message, self.style, " ✎"))
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
            self.say(render(message, self.style))

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
        self.say(self.style.dim(f"{self.user.first_name} presses [{number}] {text}"))
        if isinstance(web_app, dict) and isinstance(web_app.get("url"), str):
            self.open_web_app_button(web_app["url"])
        elif target and "://" in target:
            self.follow(target)
        else:
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
                self.say(
                    render(table, self.style) if table else "no table in the group yet (/newgame)"
                )
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
                    self.say(render(message, self.style))
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
