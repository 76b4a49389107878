"""The sandbox's screen: ANSI colours on a terminal (`Style`), a prompt the bot's messages never
land in (`Terminal`: they are printed above it, and the line being typed is drawn again), and
how a message is printed (`render`)."""

from __future__ import annotations

import importlib
import re
import threading
from types import ModuleType
from typing import IO

from .models import Message

CLEAR_LINE = "\033[K"


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


def render(message: Message, style: Style, mark: str = "") -> str:
    """A message as the sandbox prints it: where, its number, who, the text, the people it
    mentions and its buttons, numbered as `N` presses them."""
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
            cells.append(f"{label} {text}" + (f" ({target})" if target and "://" in target else ""))
        lines.append("    " + "  ".join(cells))
    return "\n".join(lines)
