"""First-run setup: a private virtualenv with the project's dependencies.

`python3 -m bot` and `python3 -m tests` must work on a machine that has nothing but Python, so
both entry points call :func:`ensure_environment` before importing anything third-party. It creates
`.venv` beside the sources, installs the project (with the `dev` extra) pinned by
`.ci/constraints.txt`, and re-executes the same command inside it. A stamp of the dependency files
makes later starts skip pip entirely. Standard library only.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VENV = ROOT / ".venv"
STAMP = VENV / ".ochko-installed"
DEPENDENCY_FILES = (ROOT / "pyproject.toml", ROOT / ".ci" / "constraints.txt")
# Docker images and other managed installs set this: their interpreter already has everything.
SKIP_VARIABLE = "OCHKO_NO_VENV"


def _venv_python() -> Path:
    scripts = "Scripts" if os.name == "nt" else "bin"
    return VENV / scripts / ("python.exe" if os.name == "nt" else "python")


def _fingerprint() -> str:
    digest = hashlib.sha256()
    for path in DEPENDENCY_FILES:
        if path.exists():
            digest.update(path.read_bytes())
    return digest.hexdigest()


def _inside_venv() -> bool:
    return Path(sys.prefix).resolve() == VENV.resolve()


def _install(python: Path) -> None:
    constraints = ROOT / ".ci" / "constraints.txt"
    command = [str(python), "-m", "pip", "install", "--disable-pip-version-check", "-q"]
    if constraints.exists():
        command += ["-c", str(constraints)]
    command += ["-e", f"{ROOT}[dev]"]
    print("ochko: installing dependencies into .venv (first run only)…", file=sys.stderr)
    subprocess.run(command, check=True)
    STAMP.write_text(_fingerprint())


def ensure_environment(module: str) -> None:
    """Make sure this process runs inside the project's virtualenv with current dependencies.

    Returns only when the current interpreter is ready; otherwise replaces the process with
    `<venv python> -m <module> <same arguments>`.
    """
    if os.environ.get(SKIP_VARIABLE):
        return
    python = _venv_python()
    if not python.exists():
        print("ochko: creating .venv…", file=sys.stderr)
        venv.EnvBuilder(with_pip=True).create(VENV)
    if not STAMP.exists() or STAMP.read_text() != _fingerprint():
        try:
            _install(python)
        except subprocess.CalledProcessError as error:
            sys.exit(f"ochko: installing dependencies failed (exit {error.returncode})")
    if _inside_venv():
        return
    os.execv(str(python), [str(python), "-m", module, *sys.argv[1:]])
