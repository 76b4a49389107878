"""The Docker image's promise, checked without a Docker engine: with the root file system
read-only and the image's environment (the Dockerfile's ENV, its /data volume), the bot runs as
the image's unprivileged uid, plays a round, draws a /chart (matplotlib's cache included) and
keeps its heartbeat — nothing is written outside /data.

A mount namespace (``unshare -m``) remounts ``/`` read-only for the bot's process alone, with a
directory standing in for the /data volume bind-mounted writable; ``setpriv`` drops to uid 10001.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import tempfile
from pathlib import Path

import pytest

from tests.e2e.conftest import E2E, Database, Table

ROOT = Path(__file__).resolve().parents[2]
IMAGE_UID = 10001
WRITE_ERRORS = re.compile(r"Read-only file system|Permission denied|not a writable directory")


def dockerfile_env() -> dict[str, str]:
    """The ENV instruction of the Dockerfile (`KEY=value` pairs across continuation lines)."""
    text = (ROOT / "Dockerfile").read_text().replace("\\\n", " ")
    found: dict[str, str] = {}
    for line in text.splitlines():
        if line.startswith("ENV "):
            for pair in shlex.split(line[4:]):
                key, _, value = pair.partition("=")
                found[key] = value
    return found


def _can_isolate() -> bool:
    return os.geteuid() == 0 and all(shutil.which(tool) for tool in ("unshare", "setpriv"))


def _check_data(env: dict[str, str], data: Path) -> None:
    """The heartbeat and matplotlib's cache are in the /data stand-in, owned by the image's uid."""
    assert Path(env["HEARTBEAT_FILE"]).exists()
    assert any(Path(env["MPLCONFIGDIR"]).iterdir()), "matplotlib's cache is not in /data"
    assert {p.stat().st_uid for p in data.iterdir()} == {IMAGE_UID}


@pytest.mark.skipif(not _can_isolate(), reason="needs root, unshare and setpriv (Linux)")
async def test_the_image_runs_with_a_read_only_root(e2e: E2E) -> None:
    data = Path(tempfile.mkdtemp(prefix="ochko-data-"))  # under /tmp: uid 10001 can reach it
    try:
        os.chown(data, IMAGE_UID, IMAGE_UID)
        env = {k: v.replace("/data", str(data)) for k, v in dockerfile_env().items()}
        assert env["DATABASE_URL"].endswith("ochko.sqlite3")
        e2e.db_path = Path(env["DATABASE_URL"].removeprefix("sqlite:///"))
        e2e.db = Database(e2e.db_path)
        isolate = (
            "unshare", "-m", "--propagation", "private", "sh", "-c",
            'mount --bind "$0" "$0" && mount -o remount,bind,ro / && cd "$0" && '
            f'exec setpriv --reuid {IMAGE_UID} --regid {IMAGE_UID} --clear-groups "$@"',
            str(data),
        )  # fmt: skip
        overrides = {k: v for k, v in env.items() if k != "OCHKO_NO_VENV"}
        process = await e2e.start_bot(prefix=isolate, HOME="/nonexistent", **overrides)

        group, users = e2e.group_with_players("Read-only", 3)
        await e2e.open_private(users)
        table = Table(e2e, group, users, preset="classic36")
        await table.open_and_start()
        await table.play_round()
        asker = users[1]
        chat = asker.private_chat(e2e.bot)
        before = len(chat.all_messages)
        await asker.send(group, "/chart")  # the answer goes to the asker's private chat
        await e2e.wait_until(
            lambda: any(m.photo_bytes for m in chat.all_messages[before:] if m.from_bot),
            "the chart in the private chat",
            timeout=60,
        )
        code, _ = await process.terminate()
        assert code == 0
        log = process.log()
        assert not WRITE_ERRORS.search(log), log[-3000:]
        _check_data(env, data)
    finally:
        shutil.rmtree(data, ignore_errors=True)
