"""The sandbox end to end: server thread, a real PTB bot subprocess, a scripted terminal."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

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
:h
:q
"""


@pytest.mark.timeout(60)
def test_sandbox_script_with_echo_bot(tmp_path: Path) -> None:
    script = tmp_path / "script.txt"
    script.write_text(SCRIPT, encoding="utf-8")
    bot_command = f"{shlex.quote(sys.executable)} -m tests.botapi.echo_bot"
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "tests.botapi.sandbox",
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
    assert "the bot exited" not in out  # it was stopped, not crashed
    assert "timed out" not in out


@pytest.mark.timeout(60)
def test_sandbox_reports_a_bot_that_cannot_start(tmp_path: Path) -> None:
    script = tmp_path / "script.txt"
    script.write_text(":sleep 1.5\n:q\n", encoding="utf-8")
    crash = f"{shlex.quote(sys.executable)} -c \"import sys; sys.exit('no bot here')\""
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "tests.botapi.sandbox",
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
