"""The sandbox end to end: server thread, a real PTB bot subprocess, a scripted terminal; and
in-process, a Sandbox on a server thread driven command by command, with the test as the bot."""

from __future__ import annotations

import hashlib
import hmac
import io
import json
import os
import re
import select
import shlex
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import pytest

from localbotapi.models import FakeUser
from localbotapi.sandbox import populate
from localbotapi.sandbox_screen import Style, Terminal
from localbotapi.sandbox_session import HELP, MiniApp, Sandbox
from localbotapi.server import BotApiServer, ServerThread
from localpg.cluster import PostgresCluster, PostgresUnavailable, database_of

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = """\
# Аня greets the echo bot in the group and presses its first button.
hello table
:w echo: hello table
1
:w Аня pressed again
:u Борис
:p
привет
:w echo: привет
:b 999 1
# Дима, who never opened the private chat, presses Stop: the bot answers with a deep link.
:u 5
:g
:r 1 about Аня
:w a reply to Аня #1
2
:w Дима pressed stop
:o
:w hi stopped
:h
:q
"""
# The real bot: Борис opens a lobby, Дима joins from the group and follows the bot's deep link
# into the private chat, Аня asks for Борис's chart by replying to his message.
GAME_SCRIPT = """\
:u 2
/newgame
:w 🃏
:u 5
:t 1
:w Дима
:sleep 1
:o
:w ✉
:u 1
:g
:r 1 /chart
:p
:w 📈 Борис
:q
"""


@pytest.mark.timeout(60)
def test_sandbox_script_with_echo_bot(tmp_path: Path) -> None:
    script = tmp_path / "script.txt"
    script.write_text(SCRIPT, encoding="utf-8")
    bot_command = f"{shlex.quote(sys.executable)} -m localbotapi.echo_bot"
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "localbotapi.sandbox",
            "--script",
            str(script),
            "--bot-command",
            bot_command,
        ],
        cwd=ROOT,
        env={**os.environ, "OCHKO_NO_VENV": "1"},
        capture_output=True,
        text=True,
        timeout=50,
    )
    out = result.stdout
    assert result.returncode == 0, out + result.stderr
    assert "Очко sandbox" in out
    assert "echo: hello table" in out
    assert "[1] Again  [2] Stop" in out
    assert "ⓘ Аня: pressed again" in out
    assert "Аня pressed again" in out
    assert "You are now Борис" in out
    assert "[✉ Борис]" in out and "echo: привет" in out
    assert "Дима has not opened the private chat yet." in out
    assert "↩ #1 Дима: about Аня" in out and "echo: about Аня (a reply to Аня #1)" in out
    assert "↗ Дима: opens https://t.me/ochko_sandbox_bot?start=stopped" in out
    assert "[✉ Дима] #1 Дима: /start stopped" in out and "[✉ Дима] #2 Очко: hi stopped" in out
    assert ":t N" in out and ":r ID TEXT" in out and ":o [LINK]" in out  # the help
    assert "the bot exited" not in out  # it was stopped, not crashed
    assert "timed out" not in out


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: object, **kwargs: object) -> None:
        return None


def launch_parameters(address: str) -> tuple[dict[str, str], dict[str, str], dict[str, str]]:
    """A Mini App address's query, launch parameters (its fragment) and initData fields."""
    parts = urlsplit(address)
    launch = dict(parse_qsl(parts.fragment, strict_parsing=True))
    return dict(parse_qsl(parts.query)), launch, dict(parse_qsl(launch["tgWebAppData"]))


def signed(fields: dict[str, str], token: str) -> bool:
    """Telegram's check of initData's hash (see tests/botapi/test_webapp.py)."""
    rest = {k: v for k, v in fields.items() if k != "hash"}
    check = "\n".join(f"{k}={rest[k]}" for k in sorted(rest))
    key = hmac.new(b"WebAppData", token.encode(), hashlib.sha256).digest()
    return hmac.new(key, check.encode(), hashlib.sha256).hexdigest() == fields["hash"]


@pytest.mark.timeout(60)
def test_sandbox_turns_the_mini_app_on_and_prints_each_address(tmp_path: Path) -> None:
    script = tmp_path / "script.txt"
    script.write_text(
        "hi\n:w echo: hi\n:app\n:u 2\n:app Дима\n"
        ":o https://t.me/ochko_sandbox_bot/table?startapp=c-77\n:q\n",
        encoding="utf-8",
    )
    dump = tmp_path / "env.json"
    # The echo bot, after writing down the settings the sandbox gave it.
    bot_command = shlex.join(
        [
            sys.executable,
            "-c",
            "import json, os, runpy, sys; "
            f"open({str(dump)!r}, 'w').write(json.dumps(dict(os.environ))); "
            "runpy.run_module('localbotapi.echo_bot', run_name='__main__')",
        ]
    )
    result = subprocess.run(
        [*SANDBOX, "--script", str(script), "--bot-command", bot_command],
        cwd=ROOT,
        env={**os.environ, "OCHKO_NO_VENV": "1"},
        capture_output=True,
        text=True,
        timeout=50,
    )
    out = result.stdout
    assert result.returncode == 0, out + result.stderr
    assert "the bot exited" not in out, out
    env = json.loads(dump.read_text(encoding="utf-8"))
    port = int(env["WEBAPP_PORT"])
    assert env["WEBAPP_URL"] == f"http://127.0.0.1:{port}/app/"
    assert env["WEBAPP_SHORT_NAME"] == "table" and env["WEBAPP_LISTEN"] == "127.0.0.1"
    base = env["BOT_API_BASE_URL"].removesuffix("/bot")
    assert env["WEBAPP_TELEGRAM_JS"] == f"{base}/js/telegram-web-app.js"
    token = env["BOT_TOKEN"]
    banner = out.split("Type text to send it")[0]
    short = dict(re.findall(r"^  (\w+): (http://\S+)$", banner, flags=re.M))
    assert list(short) == ["Аня", "Борис", "Вика", "Гоша", "Дима"], banner
    assert list(short.values()) == [f"{base}/open/{n}" for n in range(1, 6)], banner
    again = re.findall(r"^(?:Аня@Очко> |Борис@Очко> )?(\w+)'s Mini App: (\S+)$", out, flags=re.M)
    addresses = dict(again)
    assert list(addresses) == ["Аня", "Дима"], out
    users = set()
    for name, address in addresses.items():
        assert address.startswith(env["WEBAPP_URL"] + "?chat=-100"), address
        query, launch, fields = launch_parameters(address)
        group = query["chat"]
        assert query["tgWebAppStartParam"] == fields["start_param"] == f"c{group}"
        assert launch["tgWebAppVersion"] and launch["tgWebAppPlatform"] == "weba"
        assert signed(fields, token), name
        user = json.loads(fields["user"])
        assert user["first_name"] == name
        users.add(user["id"])
        assert fields["chat_type"] == "supergroup" and fields["chat_instance"]
    assert len(users) == 2
    opened = re.search(r"Борис opens the Mini App: (\S+)", out)
    assert opened is not None, out
    query, _, fields = launch_parameters(opened.group(1))
    assert fields["start_param"] == query["tgWebAppStartParam"] == "c-77"
    assert json.loads(fields["user"])["first_name"] == "Борис" and signed(fields, token)


@pytest.mark.timeout(120)
def test_sandbox_with_the_real_bot_a_stranger_and_a_reply(tmp_path: Path) -> None:
    script = tmp_path / "script.txt"
    script.write_text(GAME_SCRIPT, encoding="utf-8")
    result = subprocess.run(
        [sys.executable, "-m", "localbotapi.sandbox", "--script", str(script)],
        cwd=ROOT,
        env={**os.environ, "OCHKO_NO_VENV": "1"},
        capture_output=True,
        text=True,
        timeout=110,
    )
    out = result.stdout
    assert result.returncode == 0, out + result.stderr
    assert "timed out" not in out and "the bot exited" not in out, out
    # The lobby offers the stranger the private chat, and the press answers with the link.
    assert "(https://t.me/ochko_sandbox_bot?start=g1)" in out, out
    assert "Дима presses START" in out and "[✉ Дима] #1 Дима: /start g1" in out, out
    assert re.search(r"\[✉ Дима\] #2 Очко: .+", out), out
    # /chart as a reply is about the author of the replied-to message, not the one asking.
    assert "↩ #1 Аня: /chart" in out, out
    assert re.search(r"\[✉ Аня\] #\d+ Очко: (🖼 photo \S+ )?📈 Борис", out), out


SANDBOX = (sys.executable, "-m", "localbotapi.sandbox")


@pytest.mark.timeout(120)
def test_sandbox_on_a_postgresql_database(tmp_path: Path) -> None:
    """--database-url: the same game, played on PostgreSQL."""
    if os.environ.get("OCHKO_TEST_POSTGRES") == "0":
        pytest.skip("OCHKO_TEST_POSTGRES=0: PostgreSQL tests skipped")
    try:
        cluster = PostgresCluster.shared()
    except PostgresUnavailable as error:
        pytest.fail(str(error))
    url = cluster.new_database()
    script = tmp_path / "script.txt"
    script.write_text(GAME_SCRIPT, encoding="utf-8")
    result = subprocess.run(
        [*SANDBOX, "--script", str(script), "--database-url", url],
        cwd=ROOT,
        env={**os.environ, "OCHKO_NO_VENV": "1"},
        capture_output=True,
        text=True,
        timeout=110,
    )
    out = result.stdout
    assert result.returncode == 0, out + result.stderr
    assert "timed out" not in out and "the bot exited" not in out, out
    assert "Дима presses START" in out, out
    games = cluster.psql("SELECT count(*) FROM games", database_of(url)).strip()
    assert int(games) >= 1, games
    cluster.drop_database(url)


@pytest.mark.timeout(60)
def test_sandbox_reports_a_bot_that_cannot_start(tmp_path: Path) -> None:
    script = tmp_path / "script.txt"
    script.write_text(":sleep 1.5\n:q\n", encoding="utf-8")
    crash = f"{shlex.quote(sys.executable)} -c \"import sys; sys.exit('no bot here')\""
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "localbotapi.sandbox",
            "--script",
            str(script),
            "--bot-command",
            crash,
        ],
        cwd=ROOT,
        env={**os.environ, "OCHKO_NO_VENV": "1"},
        capture_output=True,
        text=True,
        timeout=50,
    )
    assert result.returncode == 0, result.stderr
    assert "the bot exited with code 1" in result.stdout
    assert "no bot here" in result.stdout


# ----------------------------------------------------------------------- in-process driving


class Driven:
    """A Sandbox on a running server thread; the test plays the bot through the Bot API."""

    def __init__(self, thread: ServerThread, sandbox: Sandbox, out: io.StringIO) -> None:
        self.thread = thread
        self.sandbox = sandbox
        self.out = out

    def run(self, *lines: str) -> str:
        """Run sandbox commands; returns what they (and the server meanwhile) printed."""
        start = len(self.out.getvalue())
        for line in lines:
            assert self.sandbox.handle(line)
        return self.out.getvalue()[start:]

    def api(self, method: str, **values: Any) -> Any:
        token = self.sandbox.bot.token
        status, body = self.thread.call(self.thread.server.dispatch(token, method, values))
        assert status == 200, body
        return body["result"]

    def send(
        self, chat_id: int, text: str, buttons: list[list[dict[str, str]]] | None = None
    ) -> int:
        values: dict[str, Any] = {"chat_id": chat_id, "text": text, "parse_mode": "HTML"}
        if buttons is not None:
            values["reply_markup"] = json.dumps({"inline_keyboard": buttons})
        return int(self.api("sendMessage", **values)["message_id"])

    def updates(self) -> list[dict[str, Any]]:
        """What the bot would receive, oldest first (nothing is consumed)."""
        return self.thread.run(lambda: [dict(u) for u in self.sandbox.bot.pending])

    def person(self, name: str) -> FakeUser:
        return next(u for u in self.sandbox.users if u.first_name == name)


@pytest.fixture
def driven() -> Iterator[Driven]:
    thread = ServerThread(BotApiServer)
    thread.start()
    try:
        bot, group, users = thread.call(populate(thread.server))
        out = io.StringIO()
        sandbox = Sandbox(thread, bot, group, users, out, Style(False))
        thread.run(lambda: thread.server.add_listener(sandbox.on_event))
        yield Driven(thread, sandbox, out)
    finally:
        thread.stop()


def callback(update: dict[str, Any]) -> tuple[str, int, str]:
    query = update["callback_query"]
    return query["from"]["first_name"], query["message"]["message_id"], query["data"]


def test_a_fifth_person_has_never_opened_the_private_chat(driven: Driven) -> None:
    sandbox = driven.sandbox
    opened = driven.thread.run(lambda: [u.private_chat(sandbox.bot).started for u in sandbox.users])
    assert opened == [True, True, True, True, False]
    starts = [u["message"]["from"]["first_name"] for u in driven.updates() if "message" in u]
    assert starts == ["Аня", "Борис", "Вика", "Гоша"]
    out = driven.run(":who", ":u 5")
    assert "5: Дима (@dima) — never opened the private chat" in out
    assert "1: Аня (@anya) — private chat open  ← you" in out
    assert "You are now Дима" in out and "Дима has not opened the private chat yet." in out
    # Telegram refuses a bot's first message to him: nothing can reach him privately.
    status, body = driven.thread.call(
        driven.thread.server.dispatch(
            sandbox.bot.token, "sendMessage", {"chat_id": driven.person("Дима").id, "text": "hi"}
        )
    )
    assert status == 403, body


def test_a_mention_in_the_group_is_marked(driven: Driven) -> None:
    dima = driven.person("Дима")
    driven.send(driven.sandbox.group.id, f'👉 <a href="tg://user?id={dima.id}">Дима</a>, ваш ход')
    out = driven.out.getvalue()
    assert "Очко: 👉 Дима, ваш ход" in out
    assert "🔔 mentions Дима" in out


def test_the_table_is_pressed_from_anywhere_not_only_the_last_message(driven: Driven) -> None:
    group = driven.sandbox.group.id
    table = driven.send(
        group,
        "🃏 <b>Очко</b> · раунд 1",
        [
            [
                {"text": "Ещё", "callback_data": "g:1:5:hit"},
                {"text": "Хватит", "callback_data": "g:1:5:stand"},
            ]
        ],
    )
    later = driven.send(
        group, "🏁 something newer", [[{"text": "Next", "callback_data": "g:1:6:next"}]]
    )
    out = driven.run(":t")
    assert f"#{table} Очко: 🃏 Очко · раунд 1" in out and "[1] Ещё  [2] Хватит" in out
    driven.run(":u 2", ":p", ":t 2")  # Борис, from his private chat
    assert callback(driven.updates()[-1]) == ("Борис", table, "g:1:5:stand")
    driven.run(":g", "1")  # a bare number is the latest message with buttons
    assert callback(driven.updates()[-1]) == ("Борис", later, "g:1:6:next")
    out = driven.run(f":b {table}", f":b {table} 1")
    assert f"#{table} Очко: 🃏" in out
    assert callback(driven.updates()[-1]) == ("Борис", table, "g:1:5:hit")
    assert "has buttons 1–2" in driven.run(":t 3")
    assert "usage" in driven.run(":b x 1")


def test_replying_to_a_message(driven: Driven) -> None:
    sandbox = driven.sandbox
    driven.run(":u 2", "I am Борис")
    boris_message = driven.thread.run(lambda: sandbox.group.messages[-1].message_id)
    out = driven.run(":u 1", f":r {boris_message} /chart")
    update = driven.updates()[-1]["message"]
    assert update["text"] == "/chart" and update["from"]["first_name"] == "Аня"
    assert update["reply_to_message"]["message_id"] == boris_message
    assert update["reply_to_message"]["from"]["first_name"] == "Борис"
    assert f"↩ #{boris_message} Аня: /chart" in out
    assert "no message #999" in driven.run(":r 999 /chart")
    assert "usage" in driven.run(":r 5")


def test_a_deep_link_answer_is_followed_into_the_private_chat(driven: Driven) -> None:
    sandbox = driven.sandbox
    lobby = driven.send(
        sandbox.group.id, "🃏 lobby", [[{"text": "Сесть", "callback_data": "g:7:1:join"}]]
    )
    driven.run(":u Дима", ":o")
    assert "no link offered to Дима" in driven.out.getvalue()
    driven.run(":t 1")
    query = driven.updates()[-1]["callback_query"]
    assert query["message"]["message_id"] == lobby
    link = f"https://t.me/{sandbox.bot.username}?start=g7"
    driven.api("answerCallbackQuery", callback_query_id=query["id"], url=link)
    assert f"↗ Дима: opens {link} (:o follows it)" in driven.out.getvalue()
    out = driven.run(":o")
    assert "Дима presses START" in out
    dima = driven.person("Дима")
    assert driven.thread.run(lambda: dima.private_chat(sandbox.bot).started)
    update = driven.updates()[-1]["message"]
    assert update["text"] == "/start g7" and update["chat"]["id"] == dima.id
    assert sandbox.in_private and sandbox.prompt() == "Дима@✉> "


def test_a_url_button_to_the_bot_opens_the_private_chat(driven: Driven) -> None:
    sandbox = driven.sandbox
    link = f"https://t.me/{sandbox.bot.username}?start=g3"
    driven.send(sandbox.group.id, "🃏 lobby", [[{"text": "✉ Карты в личку", "url": link}]])
    assert f"[1] ✉ Карты в личку ({link})" in driven.out.getvalue()
    out = driven.run(":u 5", "1")
    assert "Дима presses [1] ✉ Карты в личку" in out and "Дима presses START" in out
    assert driven.updates()[-1]["message"]["text"] == "/start g3"
    assert "opens outside Telegram" in driven.run(":o https://example.org/")
    assert "opens @other_bot, not this bot" in driven.run(":o https://t.me/other_bot?start=x")


def test_every_command_in_the_help_is_understood(driven: Driven) -> None:
    out = driven.run(":h")
    assert out.strip() == HELP.format(people="1–5 or a name").strip()
    commands = sorted(set(re.findall(r"(?<![\w:]):[a-z]+", HELP)))
    assert {":t", ":b", ":r", ":o", ":u", ":p", ":g", ":l", ":who", ":h", ":q"} <= set(commands)
    for command in commands:
        if command in (":q", ":w", ":sleep"):  # quits or waits; the scripts cover them
            continue
        assert "unknown command" not in driven.run(command), command
    assert "unknown command :nope" in driven.run(":nope")
    assert not driven.sandbox.handle(":q")


def test_mini_app_addresses_in_process(driven: Driven) -> None:
    sandbox = driven.sandbox
    assert "Mini App is off" in driven.run(":app")
    link = f"https://t.me/{sandbox.bot.username}/table?startapp=c-5"
    assert "which is off in this sandbox" in driven.run(f":o {link}")
    sandbox.mini_app = MiniApp(
        url="http://127.0.0.1:9/app/",
        short_name="table",
        listen="127.0.0.1",
        port=9,
        telegram_js=driven.thread.server.web_app_js_url,
    )
    out = driven.run(":app")
    assert out.startswith("Аня's Mini App: http://127.0.0.1:9/app/?chat=")
    address = out.split(": ", 1)[1].strip()
    query, _, fields = launch_parameters(address)
    assert query["chat"] == str(sandbox.group.id)
    assert fields["start_param"] == f"c{sandbox.group.id}" and signed(fields, sandbox.bot.token)
    assert fields["chat_instance"] == sandbox.chat_instance()  # stable
    assert "Вика's Mini App: http" in driven.run(":app 3")
    # The banner's short address redirects to the same page, freshly signed for that person.
    vika = driven.person("Вика")
    short = sandbox.short_address(vika)
    assert short == f"{driven.thread.server.url}/open/3"
    request = urllib.request.Request(short)
    opener = urllib.request.build_opener(NoRedirect)
    with pytest.raises(urllib.error.HTTPError) as redirected:
        opener.open(request, timeout=5)
    assert redirected.value.code == 302
    _, _, fields = launch_parameters(redirected.value.headers["Location"])
    assert json.loads(fields["user"])["first_name"] == "Вика" and signed(fields, sandbox.bot.token)
    with pytest.raises(urllib.error.HTTPError) as missing:
        opener.open(f"{driven.thread.server.url}/open/9", timeout=5)
    assert missing.value.code == 404
    assert "no such person" in driven.run(":app Nobody")
    # A direct link prints the address with its start parameter; it opens no chat.
    out = driven.run(":u 5", f":o {link}")
    assert "Дима opens the Mini App: http://127.0.0.1:9/app/" in out
    _, _, fields = launch_parameters(out.split("opens the Mini App: ", 1)[1].split()[0])
    assert fields["start_param"] == "c-5" and not sandbox.in_private
    assert "not of this bot" in driven.run(":o https://t.me/other_bot/table?startapp=x")
    assert "no Mini App 'chart'" in driven.run(f":o https://t.me/{sandbox.bot.username}/chart")
    # The latest direct link shown in the group is what a bare :o opens.
    driven.send(sandbox.group.id, "🃏 lobby", [[{"text": "Стол", "url": link}]])
    assert "Дима opens the Mini App" in driven.run(":o")
    assert "Дима opens the Mini App" in driven.run("1")  # pressing that url button
    # A web_app button in a private chat opens its page with initData and a query_id.
    anya = driven.person("Аня")
    driven.send(anya.id, "🃏", [[{"text": "Открыть", "web_app": {"url": "https://x.org/a"}}]])
    out = driven.run(":u 1", ":p", "1")
    assert "Аня presses [1] Открыть" in out and "Аня opens the Mini App: https://x.org/a#" in out
    _, _, fields = launch_parameters(out.split("opens the Mini App: ", 1)[1].split()[0])
    assert fields["query_id"] and signed(fields, sandbox.bot.token)
    assert not any("callback_query" in u for u in driven.updates())


class FakeLineEditor:
    """readline's part the Terminal uses: the pre-input hook and the line typed so far."""

    def __init__(self) -> None:
        self.hook: Any = None
        self.typed = ""

    def set_pre_input_hook(self, hook: Any) -> None:
        self.hook = hook

    def get_line_buffer(self) -> str:
        return self.typed


def test_output_while_typing_is_printed_above_the_prompt(monkeypatch: pytest.MonkeyPatch) -> None:
    out = io.StringIO()
    editor = FakeLineEditor()
    terminal = Terminal(out, interactive=True, line_editor=editor)  # type: ignore[arg-type]
    terminal.write("before the prompt")

    def typing(prompt: str) -> str:
        out.write(prompt.replace("\001", "").replace("\002", ""))  # readline draws the prompt
        editor.hook()
        editor.typed = "/be"
        terminal.write("[Очко] #5 Очко: new table")  # the server thread, mid-typing
        return "/bet 50"

    monkeypatch.setattr("builtins.input", typing)
    assert terminal.read("Аня@Очко> ") == "/bet 50"
    terminal.write("after the line")
    assert out.getvalue() == (
        "before the prompt\n"
        "Аня@Очко> \r\033[K[Очко] #5 Очко: new table\nАня@Очко> /be"
        "after the line\n"
    )


def screen(raw: str) -> list[str]:
    """The lines a terminal shows for this output (only what readline and the sandbox emit)."""
    lines = [""]
    column = 0
    for token in re.findall(r"\x1b\[[0-9;?]*[A-Za-z]|.", raw, flags=re.S):
        line = lines[-1]
        if token == "\r":
            column = 0
        elif token == "\n":
            lines.append("")
            column = 0
        elif token == "\b":
            column = max(column - 1, 0)
        elif token == "\x1b[K":
            lines[-1] = line[:column]
        elif token.startswith("\x1b") or token in "\x07":
            continue
        else:
            lines[-1] = line[:column].ljust(column) + token + line[column + 1 :]
            column += 1
    return lines


@pytest.mark.timeout(60)
@pytest.mark.skipif(sys.platform == "win32", reason="a pseudo-terminal is POSIX")
def test_the_bot_never_writes_into_the_typed_line() -> None:
    import pty  # POSIX only

    master, slave = pty.openpty()
    bot_command = f"{shlex.quote(sys.executable)} -m localbotapi.echo_bot"
    process = subprocess.Popen(
        [sys.executable, "-m", "localbotapi.sandbox", "--no-color", "--bot-command", bot_command],
        cwd=ROOT,
        env={**os.environ, "OCHKO_NO_VENV": "1", "TERM": "xterm"},
        stdin=slave,
        stdout=slave,
        stderr=slave,
    )
    os.close(slave)
    raw = b""

    def read_until(wanted: bytes, timeout: float = 20) -> None:
        nonlocal raw
        deadline = time.monotonic() + timeout
        while wanted not in raw and time.monotonic() < deadline:
            if select.select([master], [], [], 0.1)[0]:
                try:
                    raw += os.read(master, 65536)
                except OSError:  # the other side is closed
                    return

    try:
        read_until("Аня@Очко> ".encode())
        # Enter sends the line; "/be" is typed at once, before the echo comes back.
        os.write(master, b"hello\r/be")
        read_until(b"echo: hello")
        read_until(b"[2] Stop\r\n")
        time.sleep(0.3)
        read_until(b"\0", timeout=0.3)  # whatever follows the echo
        shown = screen(raw.decode(errors="replace"))
        os.write(master, b"\x15:q\r")  # clear the line, quit
        read_until(b"bye", timeout=20)
        process.wait(20)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        os.close(master)
    echo = next(i for i, line in enumerate(shown) if "echo: hello" in line)
    assert shown[echo].startswith("[Очко] #2 ↩ #1 Очко: echo: hello"), shown
    assert all("/be" not in line for line in shown[:-1]), shown
    assert shown[-1] == "Аня@Очко> /be", shown
    assert process.returncode == 0
