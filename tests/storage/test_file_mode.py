"""The SQLite files hold the live round's deck order and salts: only their owner may read them."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from storage import open_storage


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def _modes(folder: Path) -> dict[str, int]:
    return {p.name: _mode(p) for p in folder.iterdir() if p.name.startswith("ochko.sqlite3")}


async def test_a_new_database_and_its_wal_files_are_0600(tmp_path: Path) -> None:
    path = tmp_path / "ochko.sqlite3"
    old = os.umask(0o022)  # the usual umask, under which files come out 0644
    try:
        storage = open_storage(f"sqlite:///{path}")
        await storage.start()
        try:
            async with storage.transaction() as tx:  # a write: the WAL file exists now
                await tx.ensure_player(-100, 1, "Аня", 1000)
            modes = _modes(tmp_path)
            assert modes.keys() >= {"ochko.sqlite3", "ochko.sqlite3-wal"}
            assert set(modes.values()) == {0o600}, modes
        finally:
            await storage.stop()
    finally:
        os.umask(old)


async def test_an_existing_readable_database_is_made_owner_only(tmp_path: Path) -> None:
    path = tmp_path / "ochko.sqlite3"
    storage = open_storage(f"sqlite:///{path}")
    await storage.start()
    await storage.stop()
    path.chmod(0o644)
    storage = open_storage(f"sqlite:///{path}")
    await storage.start()
    await storage.stop()
    assert _modes(tmp_path) == {"ochko.sqlite3": 0o600}
