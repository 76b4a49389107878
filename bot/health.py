"""`python -m bot.health`: exit 0 while the running bot is healthy.

The Docker HEALTHCHECK runs this. When the bot runs a web server (the Mini App's, WEBAPP_URL; or
its own for the metrics, METRICS_ENABLED) it asks that server's ``/healthz`` (`bot.monitor`: the
event loop turns); otherwise it reads the heartbeat file the bot's loop touches every 30 s. A
stuck event loop fails either. Standard library only, so it starts fast; the settings are read
from the environment (as the image passes them).
"""

from __future__ import annotations

import os
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Mapping
from pathlib import Path

DEFAULT_FILE = "/tmp/ochko.heartbeat"
MAX_AGE = 90.0  # three missed beats
TIMEOUT = 4.0
ALL_INTERFACES = ("", "0.0.0.0", "::", "[::]")


def heartbeat_path() -> Path:
    return Path(os.environ.get("HEARTBEAT_FILE", DEFAULT_FILE))


def beat() -> None:
    heartbeat_path().write_text(str(time.time()))


def check(max_age: float = MAX_AGE) -> str | None:
    """None when the heartbeat is fresh, else the reason."""
    path = heartbeat_path()
    try:
        age = time.time() - path.stat().st_mtime
    except FileNotFoundError:
        return f"no heartbeat at {path}"
    if age > max_age:
        return f"heartbeat is {age:.0f} s old"
    return None


def health_url(env: Mapping[str, str]) -> str | None:
    """The bot's /healthz when it runs a web server (the settings' defaults as bot.settings
    has them), else None."""
    if env.get("WEBAPP_URL"):
        host, port = env.get("WEBAPP_LISTEN", "127.0.0.1"), env.get("WEBAPP_PORT", "8081")
    elif env.get("METRICS_ENABLED", "").strip().lower() in ("1", "true", "yes", "on"):
        host, port = env.get("METRICS_LISTEN", "127.0.0.1"), env.get("METRICS_PORT", "9102")
    else:
        return None
    if host in ALL_INTERFACES:
        host = "127.0.0.1"
    elif ":" in host and not host.startswith("["):
        host = f"[{host}]"
    return f"http://{host}:{port}/healthz"


def check_url(url: str) -> str | None:
    """None when ``url`` answers 200, else the reason."""
    try:
        with urllib.request.urlopen(url, timeout=TIMEOUT) as response:
            response.read()
    except urllib.error.HTTPError as error:
        return f"{url}: {error.code} {error.read().decode(errors='replace').strip()}"
    except (OSError, ValueError) as error:
        return f"{url}: {error}"
    return None


def main() -> int:
    url = health_url(os.environ)
    problem = check() if url is None else check_url(url)
    if problem:
        print(f"unhealthy: {problem}", file=sys.stderr)
        return 1
    print("healthy")
    return 0


if __name__ == "__main__":
    sys.exit(main())
