"""What a plain install carries and what the extras add: the chart stack (matplotlib) and
PostgreSQL's driver (asyncpg) are extras, PTB's unused rate-limiter extra is gone, and the
quick start (`python3 -m bot`) and the Docker image still install what they document."""

from __future__ import annotations

import ast
import re
import tomllib
from pathlib import Path

from bot import _bootstrap

ROOT = Path(__file__).resolve().parents[2]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]


def names(requirements: list[str]) -> dict[str, str]:
    """Requirement name (lowercase) → the requirement."""
    return {re.split(r"[\[<>=!~; ]", r, maxsplit=1)[0].lower(): r for r in requirements}


def test_the_runtime_leaves_the_heavy_and_the_unused_out() -> None:
    runtime = names(PROJECT["dependencies"])
    assert "matplotlib" not in runtime and "asyncpg" not in runtime
    assert "rate-limiter" not in runtime["python-telegram-bot"]
    assert "job-queue" not in runtime["python-telegram-bot"]  # one scheduler: bot/scheduler.py
    extras = PROJECT["optional-dependencies"]
    assert set(names(extras["chart"])) == {"matplotlib"}
    assert set(names(extras["postgres"])) == {"asyncpg"}
    # The tests cover both extras, and compare the bot's pacing with PTB's AIORateLimiter.
    dev = names(extras["dev"])
    assert {"matplotlib", "asyncpg"} <= set(dev)
    assert "rate-limiter" in dev["python-telegram-bot"]


def test_the_product_never_imports_aiolimiter() -> None:
    for package in ("bot", "storage", "rules"):
        for path in (ROOT / package).rglob("*.py"):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for node in ast.walk(tree):
                if isinstance(node, ast.Import):
                    found = [alias.name for alias in node.names]
                elif isinstance(node, ast.ImportFrom):
                    found = [node.module or ""]
                else:
                    continue
                assert not any(n.split(".")[0] == "aiolimiter" for n in found), path
                assert "AIORateLimiter" not in ast.dump(node), path


def test_the_quick_start_and_the_image_install_the_extras() -> None:
    assert set(_bootstrap.RUNTIME_EXTRAS) == {"chart", "postgres"}
    dockerfile = (ROOT / "Dockerfile").read_text()
    default = re.search(r"^ARG EXTRAS=\[([a-z,]+)\]$", dockerfile, re.MULTILINE)
    assert default is not None and set(default.group(1).split(",")) == {"chart", "postgres"}
    assert 'pip install -c constraints.txt ".${EXTRAS}"' in dockerfile


def test_every_requirement_is_pinned() -> None:
    pins = {
        line.split("==")[0].lower().replace("_", "-")
        for line in (ROOT / ".ci" / "constraints.txt").read_text().splitlines()
        if "==" in line
    }
    every = [
        *PROJECT["dependencies"],
        *(r for e in PROJECT["optional-dependencies"].values() for r in e),
    ]
    for name in names(every):
        assert name.replace("_", "-") in pins, name
    assert "aiolimiter" in pins  # still needed: the dev extra's PTB rate-limiter
