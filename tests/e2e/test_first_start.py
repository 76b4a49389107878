"""The first start of a checkout, on the real `python -m bot` and the real bootstrap:

* no BOT_TOKEN without a terminal (Docker, systemd, CI): one line naming BotFather, .env.example and
  the sandbox command, exit 1; with a terminal: that says so in one line and the sandbox starts;
* a malformed token is named once, not «BOT_TOKEN: BOT_TOKEN …»;
* the bootstrap of a copy of the sources installs the runtime dependencies only, finishes a
  half-built .venv, and lets two first starts at once take turns (pip itself is replaced by a stub
  that records what it was asked, so no network and no minute-long install is needed).
"""

from __future__ import annotations

import os
import pty
import select
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.slow


def _run_bot(env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "bot"],
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def _clean_env(tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("BOT_TOKEN", "PYTHONPATH")}
    env["OCHKO_NO_VENV"] = "1"
    env["DATABASE_URL"] = f"sqlite:///{tmp_path / 'db.sqlite3'}"
    return env


def test_no_token_without_a_terminal_is_one_line_and_exit_1(tmp_path: Path) -> None:
    done = _run_bot(_clean_env(tmp_path), tmp_path)
    assert done.returncode == 1
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, done.stderr
    for needed in ("BOT_TOKEN", "@BotFather", ".env.example", "python3 -m localbotapi.sandbox"):
        assert needed in lines[0]


def test_a_malformed_token_is_named_once(tmp_path: Path) -> None:
    done = _run_bot({**_clean_env(tmp_path), "BOT_TOKEN": "not-a-token"}, tmp_path)
    assert done.returncode == 1
    assert done.stderr.count("BOT_TOKEN") == 1, done.stderr
    assert "not-a-token" not in done.stderr


def test_no_token_on_a_terminal_starts_the_sandbox(tmp_path: Path) -> None:
    pid, fd = pty.fork()
    if pid == 0:  # the child: the bot on a terminal, from an unrelated directory
        os.chdir(tmp_path)
        os.execve(sys.executable, [sys.executable, "-m", "bot"], _clean_env(tmp_path))
    seen = b""
    deadline = time.monotonic() + 60
    try:
        while b"sandbox" not in seen.lower() or b"/newgame" not in seen:
            assert time.monotonic() < deadline, seen.decode(errors="replace")
            ready, _, _ = select.select([fd], [], [], 1)
            if ready:
                try:
                    seen += os.read(fd, 4096)
                except OSError:
                    break
        first = seen.decode(errors="replace").splitlines()[0]
        assert "BOT_TOKEN" in first and "sandbox" in first
    finally:
        os.write(fd, b":q\n")
        for _ in range(100):
            finished, _status = os.waitpid(pid, os.WNOHANG)
            if finished:
                break
            time.sleep(0.1)
        else:
            os.kill(pid, 9)
            os.waitpid(pid, 0)
        os.close(fd)


# ---------------------------------------------------------------------- the bootstrap

PIP_STUB = """\
import json, os, sys
from pathlib import Path
log = Path(os.environ["PIP_LOG"])
with log.open("a") as out:
    out.write(json.dumps(sys.argv[1:]) + "\\n")
if sys.argv[1:2] == ["install"] and os.environ.get("PIP_FAIL"):
    sys.exit(3)
if sys.argv[1:2] == ["install"]:
    import time; time.sleep(float(os.environ.get("PIP_SLEEP", "0")))
"""


def _copy_of_sources(tmp_path: Path) -> Path:
    """The bootstrap with its dependency files in a directory of its own (no .venv yet)."""
    root = tmp_path / "checkout"
    (root / "bot").mkdir(parents=True)
    (root / ".ci").mkdir()
    shutil.copy(ROOT / "bot" / "_bootstrap.py", root / "bot" / "_bootstrap.py")
    (root / "bot" / "__init__.py").write_text("")
    shutil.copy(ROOT / "pyproject.toml", root / "pyproject.toml")
    shutil.copy(ROOT / ".ci" / "constraints.txt", root / ".ci" / "constraints.txt")
    return root


def _bootstrap(root: Path, tmp_path: Path, dev: bool = False, **env: str) -> subprocess.Popen[str]:
    """Runs ensure_environment in the copy, with venv creation and pip replaced by stubs: the
    venv's "python" is a script that runs the stub as `-m pip` and otherwise exits."""
    stub = tmp_path / "pip_stub.py"
    stub.write_text(PIP_STUB)
    program = f"""
import sys, venv, os
from pathlib import Path
sys.path.insert(0, {str(root)!r})
from bot import _bootstrap as b

class FakeBuilder:
    def __init__(self, **kw): pass
    def create(self, where):
        bin_ = Path(where) / "bin"; bin_.mkdir(parents=True, exist_ok=True)
        py = bin_ / "python"
        py.write_text("#!/bin/sh\\nif [ \\"$1\\" = -m ] && [ \\"$2\\" = pip ]; then shift 2; "
                      "exec {sys.executable} {stub} \\"$@\\"; fi\\necho ran \\"$@\\"\\n")
        py.chmod(0o755)
b.venv.EnvBuilder = FakeBuilder
os.execv = lambda *a: print("EXEC", a[1][1:])
b.ensure_environment("bot", dev={dev!r})
print("READY")
"""
    full_env = {**_clean_env(tmp_path), "PIP_LOG": str(tmp_path / "pip.log"), **env}
    full_env.pop("OCHKO_NO_VENV")
    return subprocess.Popen(
        [sys.executable, "-c", program],
        env=full_env,
        text=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


def _installs(tmp_path: Path) -> list[str]:
    log = tmp_path / "pip.log"
    if not log.exists():
        return []
    return [line for line in log.read_text().splitlines() if '"install"' in line]


def test_the_bot_installs_runtime_dependencies_only_and_says_so(tmp_path: Path) -> None:
    root = _copy_of_sources(tmp_path)
    out, err = _bootstrap(root, tmp_path).communicate(timeout=60)
    assert "EXEC" in out, (out, err)
    (install,) = _installs(tmp_path)
    # The runtime with the extras the quick start documents (/chart, PostgreSQL), no dev tools.
    assert install.endswith(f'"{root}[chart,postgres]"]') and "dev" not in install, install
    assert "runtime dependencies only" in err and "creating .venv" in err
    # The second start finds the stamp and runs no pip at all.
    out, err = _bootstrap(root, tmp_path).communicate(timeout=60)
    assert len(_installs(tmp_path)) == 1 and err == "", err
    # The tests' start adds the dev tools.
    _bootstrap(root, tmp_path, dev=True).communicate(timeout=60)
    assert f'"{root}[chart,postgres,dev]"' in _installs(tmp_path)[-1]


def test_a_failed_install_is_finished_by_the_next_start(tmp_path: Path) -> None:
    root = _copy_of_sources(tmp_path)
    failed = _bootstrap(root, tmp_path, PIP_FAIL="1")
    _out, err = failed.communicate(timeout=60)
    assert failed.returncode != 0 and "installing dependencies failed" in err
    out, err = _bootstrap(root, tmp_path).communicate(timeout=60)
    assert "EXEC" in out and len(_installs(tmp_path)) == 2, err


def test_a_venv_without_python_is_built_again(tmp_path: Path) -> None:
    root = _copy_of_sources(tmp_path)
    (root / ".venv" / "lib").mkdir(parents=True)  # a creation interrupted before bin/python
    out, err = _bootstrap(root, tmp_path).communicate(timeout=60)
    assert "EXEC" in out and "half-built" in err, err
    assert (root / ".venv" / "bin" / "python").exists()


def test_two_first_starts_at_once_install_once(tmp_path: Path) -> None:
    root = _copy_of_sources(tmp_path)
    first = _bootstrap(root, tmp_path, PIP_SLEEP="2")
    time.sleep(0.5)
    second = _bootstrap(root, tmp_path, PIP_SLEEP="2")
    _, err_first = first.communicate(timeout=60)
    out_second, err_second = second.communicate(timeout=60)
    assert len(_installs(tmp_path)) == 1, (err_first, err_second)
    assert "waiting" in err_second and "EXEC" in out_second


def test_an_installed_package_skips_the_bootstrap(tmp_path: Path) -> None:
    root = _copy_of_sources(tmp_path)
    (root / "pyproject.toml").unlink()  # what site-packages looks like: no project around it
    out, _err = _bootstrap(root, tmp_path).communicate(timeout=60)
    assert "READY" in out and "EXEC" not in out and _installs(tmp_path) == []
