"""First-run setup of a source checkout: a private virtualenv with the project's dependencies.

`python3 -m bot` and `python3 -m tests` must work on a machine that has nothing but Python, so
both call :func:`ensure_environment` before importing anything third-party: it creates `.venv`
beside the sources, installs the project pinned by `.ci/constraints.txt` (the tests' flavour with
the test and lint tools too) and re-executes the command inside it. A stamp per flavour, written
last, marks a complete install, so later starts skip pip and an interrupted one is finished next
time; a lock makes two first starts take turns. An installed package (`pip install .`, Docker)
has no checkout around it and skips all of this. Standard library only.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import subprocess
import sys
import time
import venv
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VENV = ROOT / ".venv"
LOCK = ROOT / ".venv.lock"
DEPENDENCY_FILES = (ROOT / "pyproject.toml", ROOT / ".ci" / "constraints.txt")
# Docker images and other managed installs set this: their interpreter already has everything.
SKIP_VARIABLE = "OCHKO_NO_VENV"
# Installed by `python3 -m bot` with the runtime: /chart's matplotlib and PostgreSQL's asyncpg.
RUNTIME_EXTRAS = ("chart", "postgres")


def _say(message: str) -> None:
    print(f"ochko: {message}", file=sys.stderr, flush=True)


def _venv_python() -> Path:
    scripts = "Scripts" if os.name == "nt" else "bin"
    return VENV / scripts / ("python.exe" if os.name == "nt" else "python")


def _stamp(dev: bool) -> Path:
    return VENV / (".ochko-dev" if dev else ".ochko-runtime")


def _fingerprint() -> str:
    digest = hashlib.sha256()
    for path in DEPENDENCY_FILES:
        if path.exists():
            digest.update(path.read_bytes())
    return digest.hexdigest()


def _ready(dev: bool) -> bool:
    """The flavour asked for (or a superset: dev includes runtime) is completely installed."""
    stamps = [_stamp(True)] if dev else [_stamp(False), _stamp(True)]
    fingerprint = _fingerprint()
    return any(s.exists() and s.read_text() == fingerprint for s in stamps)


def _source_checkout() -> bool:
    """True when running from the project's sources, not from an installed package."""
    return (ROOT / "pyproject.toml").exists() and "site-packages" not in Path(__file__).parts


def _inside_venv() -> bool:
    return Path(sys.prefix).resolve() == VENV.resolve()


@contextlib.contextmanager
def _exclusive() -> Iterator[None]:
    """Holds a lock file while the environment is built, so two first starts take turns."""
    try:
        import fcntl
    except ImportError:  # Windows: no advisory locks in the standard library worth the trouble
        yield
        return
    with LOCK.open("a") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            _say("another first start is setting up .venv; waiting for it…")
            fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _usable(python: Path) -> bool:
    if not python.exists():
        return False
    check = subprocess.run(
        [str(python), "-m", "pip", "--version"], capture_output=True, check=False
    )
    return check.returncode == 0


def _install(python: Path, dev: bool) -> None:
    constraints = ROOT / ".ci" / "constraints.txt"
    command = [str(python), "-m", "pip", "install", "--disable-pip-version-check", "-q"]
    if constraints.exists():
        command += ["-c", str(constraints)]
    # The extras the sources document as working (/chart, PostgreSQL); a plain `pip install .`
    # leaves them out.
    command += ["-e", f"{ROOT}[{','.join((*RUNTIME_EXTRAS, 'dev') if dev else RUNTIME_EXTRAS)}]"]
    what = "the test and lint tools too" if dev else "the bot's runtime dependencies only"
    _say(f"installing into .venv: {what} (first run; about a minute on a fast network)…")
    started = time.monotonic()
    subprocess.run(command, check=True)
    _stamp(dev).write_text(_fingerprint())
    _say(f"dependencies ready in {time.monotonic() - started:.0f} s")


def ensure_environment(module: str, *, dev: bool = False) -> None:
    """Make sure this process runs inside the project's virtualenv with current dependencies
    (``dev``: with the test and lint tools).

    Returns only when the current interpreter is ready; otherwise replaces the process with
    `<venv python> -m <module> <same arguments>`.
    """
    if os.environ.get(SKIP_VARIABLE) or not _source_checkout():
        return
    if not _ready(dev):
        with _exclusive():
            if not _ready(dev):  # the other first start may have finished it meanwhile
                _build(dev)
    if _inside_venv():
        return
    python = _venv_python()
    os.execv(str(python), [str(python), "-m", module, *sys.argv[1:]])


def _build(dev: bool) -> None:
    python = _venv_python()
    if not _usable(python):
        if VENV.exists():
            _say("found a half-built .venv; starting it again")
            shutil.rmtree(VENV)
        _say("creating .venv beside the sources…")
        venv.EnvBuilder(with_pip=True).create(VENV)
    try:
        _install(python, dev)
    except subprocess.CalledProcessError as error:
        sys.exit(f"ochko: installing dependencies failed (exit {error.returncode}); run again")
