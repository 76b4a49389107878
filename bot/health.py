"""`python -m bot.health`: exit 0 while the running bot keeps touching its heartbeat file.

The Docker HEALTHCHECK runs this; a stuck event loop stops the heartbeat and marks the container
unhealthy. Standard library only, so it starts fast."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

DEFAULT_FILE = "/tmp/ochko.heartbeat"
MAX_AGE = 90.0  # three missed beats


def heartbeat_path() -> Path:
    return Path(os.environ.get("HEARTBEAT_FILE", DEFAULT_FILE))


def beat() -> None:
    heartbeat_path().write_text(str(time.time()))


def check(max_age: float = MAX_AGE) -> str | None:
    """None when healthy, else the reason."""
    path = heartbeat_path()
    try:
        age = time.time() - path.stat().st_mtime
    except FileNotFoundError:
        return f"no heartbeat at {path}"
    if age > max_age:
        return f"heartbeat is {age:.0f} s old"
    return None


if __name__ == "__main__":
    problem = check()
    if problem:
        print(f"unhealthy: {problem}", file=sys.stderr)
        sys.exit(1)
    print("healthy")
