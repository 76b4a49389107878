"""The docs say how long a stopping bot sends what is pending, as the code does (bot/app.py)."""

from __future__ import annotations

import re
from pathlib import Path

from bot.app import DRAIN_SECONDS, SHARED_DRAIN_SECONDS

ROOT = Path(__file__).resolve().parents[2]


def test_every_mention_of_the_drain_matches_the_code() -> None:
    drain, shared = f"{DRAIN_SECONDS:g}", f"{SHARED_DRAIN_SECONDS:g}"
    deployment = (ROOT / "docs" / "deployment.md").read_text()
    architecture = (ROOT / "docs" / "architecture.md").read_text()
    stop = re.search(r"`docker stop` sends SIGTERM: (.+?)\n- ", deployment, re.DOTALL)
    assert stop is not None
    assert re.findall(r"up to (\d+(?:\.\d+)?) s", stop.group(1)) == [drain, shared]
    replica = re.search(r"\*\*Stopping\*\*.+?\(up to (\d+(?:\.\d+)?) s\)", deployment, re.DOTALL)
    assert replica is not None and replica.group(1) == shared
    post_stop = re.search(
        r"At SIGTERM, `post_stop`[^.]+?up to\s+(\d+(?:\.\d+)?)\s+s[^.]+?up to (\d+) s",
        architecture,
        re.DOTALL,
    )
    assert post_stop is not None and post_stop.groups() == (drain, shared)
    # No other figure for it anywhere in the docs.
    for path in [ROOT / "README.md", *(ROOT / "docs").glob("*.md")]:
        for found in re.finditer(r"pending[^.]*?up to (\d+(?:\.\d+)?) s", path.read_text()):
            assert found.group(1) in (drain, shared), (path.name, found.group(0))
