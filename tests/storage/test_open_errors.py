"""A database path that cannot be opened says what is wrong — the folder does not exist, no
permission to the file or its folder, a folder where the file should be — and is never called
corrupt: «restore a backup» is for a damaged database file alone.

Permissions do not stop root, so the permission cases run the check as an unprivileged user
(``setpriv``, when the tests run as root) as well as on the classification of the error."""

from __future__ import annotations

import errno
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from storage import CorruptDatabase, SqliteStorage, UnopenableDatabase
from storage.sqlite.connection import open_problem

ROOT = Path(__file__).resolve().parents[2]
NOBODY = 65534


async def unopenable(path: Path | str) -> str:
    with pytest.raises(UnopenableDatabase) as raised:
        await SqliteStorage(path).start()
    message = str(raised.value)
    assert "corrupt" not in message and "backup" not in message, message
    assert "\n" not in message
    return message


async def test_a_missing_folder_is_named(tmp_path: Path) -> None:
    message = await unopenable(tmp_path / "data" / "deeper" / "ochko.sqlite3")
    assert f"the folder {str(tmp_path / 'data')!r} does not exist" in message


async def test_a_folder_where_the_file_should_be(tmp_path: Path) -> None:
    folder = tmp_path / "ochko.sqlite3"
    folder.mkdir(mode=0o755)
    folder.chmod(0o755)
    message = await unopenable(folder)
    assert "is a folder, not a database file" in message
    assert str(folder / "ochko.sqlite3") in message
    assert folder.stat().st_mode & 0o777 == 0o755  # left as it was


async def test_a_file_where_a_folder_should_be(tmp_path: Path) -> None:
    (tmp_path / "data").write_text("")
    message = await unopenable(tmp_path / "data" / "ochko.sqlite3")
    assert "a part of the path is a file, not a folder" in message


async def test_a_damaged_file_is_still_corrupt(tmp_path: Path) -> None:
    path = tmp_path / "ochko.sqlite3"
    path.write_bytes(b"not a database at all" * 100)
    with pytest.raises(CorruptDatabase, match="restore a backup"):
        await SqliteStorage(path).start()


def test_permission_errors_are_classified(tmp_path: Path) -> None:
    existing = tmp_path / "ochko.sqlite3"
    existing.write_bytes(b"")
    existing.chmod(0o600)
    denied = PermissionError(errno.EACCES, "Permission denied", str(existing))
    message = open_problem(str(existing), denied)
    assert message.startswith("permission denied: the file cannot be read and written")
    assert f"uid {os.geteuid()}" in message and "mode 0600" in message
    new = tmp_path / "new.sqlite3"
    denied = PermissionError(errno.EACCES, "Permission denied", str(new))
    message = open_problem(str(new), denied)
    assert message.startswith(f"permission denied: the folder {str(tmp_path)!r} is not writable")
    read_only = OSError(errno.EROFS, "Read-only file system", str(new))
    assert "read-only" in open_problem(str(new), read_only)


def _can_drop_privileges() -> bool:
    return os.geteuid() == 0 and shutil.which("setpriv") is not None


CHECK = """
import asyncio, sys
from storage import SqliteStorage, UnopenableDatabase
async def main():
    storage = SqliteStorage(sys.argv[1])
    try:
        await storage.start()
    except UnopenableDatabase as error:
        print(error)
    else:
        await storage.stop()
        print("opened")
asyncio.run(main())
"""


def as_nobody(path: Path) -> str:
    """The message of opening ``path`` as an unprivileged user (uid 65534)."""
    done = subprocess.run(
        [
            "setpriv",
            f"--reuid={NOBODY}",
            f"--regid={NOBODY}",
            "--clear-groups",
            sys.executable,
            "-c",
            CHECK,
            str(path),
        ],
        cwd=ROOT,
        env={"PATH": os.environ.get("PATH", ""), "PYTHONPATH": str(ROOT), "HOME": "/nonexistent"},
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return done.stdout.strip()


@pytest.mark.skipif(not _can_drop_privileges(), reason="needs root and setpriv (Linux)")
def test_permissions_as_an_unprivileged_user() -> None:
    top = Path(tempfile.mkdtemp(prefix="ochko-perm-"))  # under /tmp: reachable by everyone
    try:
        top.chmod(0o755)
        # A database file of another user's, 0600 as the bot creates them.
        owned = top / "theirs.sqlite3"
        owned.write_bytes(b"")
        owned.chmod(0o600)
        message = as_nobody(owned)
        assert "permission denied: the file cannot be read and written" in message, message
        assert f"uid {NOBODY}" in message and "owned by uid 0, mode 0600" in message
        # A new database in a folder the bot may not write to.
        message = as_nobody(top / "new.sqlite3")
        assert f"permission denied: the folder {str(top)!r} is not writable" in message, message
        # A writable file in a folder the bot may not write to (no room for -wal and -shm).
        writable = top / "shared.sqlite3"
        writable.write_bytes(b"")
        os.chown(writable, NOBODY, NOBODY)
        message = as_nobody(writable)
        assert f"the folder {str(top)!r} is not writable" in message, message
        # A folder the bot cannot even enter.
        closed = top / "closed"
        closed.mkdir(mode=0o700)
        message = as_nobody(closed / "ochko.sqlite3")
        assert message.startswith("cannot open database") and "permission denied" in message
        assert "corrupt" not in message
        # And the bot's own folder opens.
        mine = top / "mine"
        mine.mkdir()
        os.chown(mine, NOBODY, NOBODY)
        assert as_nobody(mine / "ochko.sqlite3") == "opened"
    finally:
        shutil.rmtree(top, ignore_errors=True)
