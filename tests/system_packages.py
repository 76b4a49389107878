"""The system packages the suite needs beyond Python: PostgreSQL's server (the storage tests
start a throwaway cluster, localpg/), headless Chromium (the Mini App's browser tests,
tests/e2e/browser.py) and Prometheus' promtool (tests/test_deploy.py). `python3 -m tests`
installs what is missing from Debian's packages when it may (root, apt-get), so the README's
test command works on a bare machine; elsewhere the tests that need a package fail with what to
install. `OCHKO_TEST_POSTGRES=0`, `OCHKO_TEST_BROWSER=0` and `OCHKO_TEST_PROMTOOL=0` switch
those tests off, and nothing is installed for them. Standard library only: it runs before the
suite, in the tests' virtualenv.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable

from localpg.cluster import find_bindir
from tests.e2e.browser import chromium_path

# (switch, Debian packages, whether it is installed)
NEEDED: tuple[tuple[str, tuple[str, ...], Callable[[], bool]], ...] = (
    ("OCHKO_TEST_POSTGRES", ("postgresql",), lambda: find_bindir() is not None),
    # The emoji font only makes the screenshots legible; the tests pass without it.
    ("OCHKO_TEST_BROWSER", ("chromium", "fonts-noto-color-emoji"), lambda: bool(chromium_path())),
    # promtool checks deploy/monitoring's Prometheus configs and runs the alerts' unit tests.
    ("OCHKO_TEST_PROMTOOL", ("prometheus",), lambda: shutil.which("promtool") is not None),
)


def _say(message: str) -> None:
    print(f"tests: {message}", file=sys.stderr, flush=True)


def missing() -> list[str]:
    """The Debian packages the suite would need and that are not installed."""
    packages: list[str] = []
    for switch, names, installed in NEEDED:
        if os.environ.get(switch, "").strip() != "0" and not installed():
            packages.extend(names)
    return packages


def _apt(*args: str, log: str) -> bool:
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    with open(log, "a") as out:
        return subprocess.run(["apt-get", *args], stdout=out, stderr=out, env=env).returncode == 0


def install_missing() -> None:
    packages = missing()
    if not packages:
        return
    if not (hasattr(os, "geteuid") and os.geteuid() == 0 and shutil.which("apt-get")):
        _say(f"not installed: {', '.join(packages)} (the tests that need them will say so)")
        return
    _say(f"installing {', '.join(packages)} from Debian's packages (first run only)…")
    with tempfile.NamedTemporaryFile("w", suffix=".log", delete=False) as handle:
        log = handle.name
    install = ("install", "-y", "-qq", "--no-install-recommends", *packages)
    if not _apt(*install, log=log) and not (
        _apt("update", "-qq", log=log) and _apt(*install, log=log)
    ):
        with open(log) as failed:
            sys.stderr.write(failed.read()[-3000:])
        _say(f"could not install {', '.join(packages)}; the tests that need them will fail")
        return
    os.unlink(log)
    _say(f"installed {', '.join(packages)}")
