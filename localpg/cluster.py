"""A throwaway PostgreSQL cluster for the tests: initdb'd into a temp folder (in RAM where there
is room), listening on a unix socket in that folder only, stopped and removed when the test
session ends (atexit; a session killed outright leaves it to the next one to remove).

    cluster = PostgresCluster.shared()   # started on first use, once per process
    url = cluster.new_database()         # postgresql:///t_1?host=/dev/shm/...&user=postgres
    cluster.drop_database(url)

Standard library only (the admin statements go through psql), so any test package can use it, and
`python3 -m localpg.cluster` tells whether the server binaries are installed (`python3 -m tests`
installs them when it may: tests/system_packages.py).
"""

from __future__ import annotations

import atexit
import contextlib
import glob
import itertools
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import ClassVar
from urllib.parse import parse_qs, urlsplit

INSTALL_HINT = (
    "PostgreSQL's server binaries (initdb, pg_ctl) were not found: install Debian's `postgresql` "
    "package (apt-get install postgresql), or set OCHKO_TEST_POSTGRES=0 to skip the PostgreSQL "
    "tests"
)
# The folders of this module's clusters: the reaper of abandoned clusters touches no other.
PREFIX = "ochko-pgtest-"
SUPERUSER = "postgres"
SETTINGS = {
    # Nothing but the unix socket in the cluster's own folder: no port clashes, nobody else.
    "listen_addresses": "''",
    # The crash tests kill the client, not the server: server durability is not under test.
    "fsync": "off",
    "synchronous_commit": "off",
    "full_page_writes": "off",
    # Every test's Storage objects, the crash workers and the bot's pools at once.
    "max_connections": "200",
    # Bounds the WAL kept between checkpoints (1 GB by default), in RAM when on tmpfs.
    "max_wal_size": "'96MB'",
    "min_wal_size": "'32MB'",
}
# In RAM where there is room: CREATE DATABASE writes hundreds of files, and on a disk busy with
# other processes' fsyncs that took ten times as long.
RAM_FOLDER = Path("/dev/shm")
RAM_NEEDED = 1 << 30


class PostgresUnavailable(RuntimeError):
    """The cluster cannot be started; the message says why and what to install."""


def _version_key(path: str) -> tuple[int, ...]:
    return tuple(int(part) for part in re.findall(r"\d+", path))


def find_bindir() -> Path | None:
    """The folder of initdb and pg_ctl: pg_config's, else the newest Debian one, else PATH's."""
    candidates: list[Path] = []
    pg_config = shutil.which("pg_config")
    if pg_config:
        with contextlib.suppress(OSError, subprocess.SubprocessError):
            out = subprocess.run(
                [pg_config, "--bindir"], capture_output=True, text=True, timeout=10, check=True
            ).stdout.strip()
            if out:
                candidates.append(Path(out))
    # pg_config may be libpq-dev's alone, naming a folder without a server in it.
    candidates += [
        Path(p) for p in sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=_version_key)[::-1]
    ]
    initdb = shutil.which("initdb")
    if initdb:
        candidates.append(Path(initdb).resolve().parent)
    for folder in candidates:
        if all(os.access(folder / tool, os.X_OK) for tool in ("initdb", "pg_ctl", "psql")):
            return folder
    return None


def _base_folder() -> Path:
    """Where clusters go: tmpfs if it has room, else the temp folder."""
    try:
        room = os.statvfs(RAM_FOLDER)
        if os.access(RAM_FOLDER, os.W_OK) and room.f_bavail * room.f_frsize >= RAM_NEEDED:
            return RAM_FOLDER
    except OSError:
        pass
    return Path(tempfile.gettempdir())


def _run_as() -> list[str]:
    """The prefix that runs the server's tools: the server refuses to run as root, so as root
    they run as Debian's `postgres` user (util-linux's runuser, else its setpriv)."""
    if os.geteuid() != 0:
        return []
    if shutil.which("runuser"):
        return ["runuser", "-u", SUPERUSER, "--"]
    if shutil.which("setpriv"):
        return ["setpriv", f"--reuid={SUPERUSER}", f"--regid={SUPERUSER}", "--init-groups", "--"]
    raise PostgresUnavailable("running as root, but neither runuser nor setpriv is installed")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class PostgresCluster:
    """One running cluster; `shared()` is the one a test session uses."""

    _shared: ClassVar[PostgresCluster | None] = None
    _shared_error: ClassVar[PostgresUnavailable | None] = None
    _lock: ClassVar = threading.Lock()

    def __init__(self, bindir: Path) -> None:
        self.bindir = bindir
        self._owner_pid = os.getpid()
        self._numbers = itertools.count(1)
        self._running = False
        self._run_as = _run_as()
        _reap_abandoned(bindir, self._run_as)
        self.folder = Path(tempfile.mkdtemp(prefix=PREFIX, dir=_base_folder()))
        (self.folder / "owner.pid").write_text(f"{self._owner_pid}\n")
        try:
            if self._run_as:
                try:
                    shutil.chown(self.folder, SUPERUSER, SUPERUSER)
                except LookupError as error:
                    raise PostgresUnavailable(
                        f"running as root, but there is no {SUPERUSER!r} user to run the server "
                        f"as ({error}): {INSTALL_HINT}"
                    ) from error
            self._start()
        except BaseException:
            self._remove()
            raise

    @property
    def data(self) -> Path:
        return self.folder / "data"

    @property
    def socket_dir(self) -> Path:
        return self.folder

    @classmethod
    def shared(cls) -> PostgresCluster:
        """This process's cluster, started on the first call; raises PostgresUnavailable (the same
        error again on every later call, so that a missing install fails fast)."""
        with cls._lock:
            if cls._shared_error is not None:
                raise cls._shared_error
            if cls._shared is None or not cls._shared._running:
                try:
                    cls._shared = cls.start_new()
                except PostgresUnavailable as error:
                    cls._shared_error = error
                    raise
                atexit.register(cls._shared.stop)
            return cls._shared

    @classmethod
    def start_new(cls) -> PostgresCluster:
        bindir = find_bindir()
        if bindir is None:
            raise PostgresUnavailable(INSTALL_HINT)
        return cls(bindir)

    def _tool(self, name: str, *args: str, timeout: float = 60) -> str:
        command = [*self._run_as, str(self.bindir / name), *args]
        try:
            done = subprocess.run(
                command,
                cwd=self.folder,  # the server's user may not enter the caller's folder
                capture_output=True,
                text=True,
                timeout=timeout,
                check=False,
            )
        except (OSError, subprocess.TimeoutExpired) as error:
            raise PostgresUnavailable(f"{name} failed: {error}") from error
        if done.returncode != 0:
            raise PostgresUnavailable(
                f"{' '.join(command)} exited with {done.returncode}: "
                f"{(done.stderr or done.stdout).strip()}{self._log_tail()}"
            )
        return done.stdout

    def _log_tail(self) -> str:
        try:
            lines = (self.folder / "server.log").read_text(errors="replace").splitlines()
        except OSError:
            return ""
        return "\nserver log:\n" + "\n".join(lines[-15:]) if lines else ""

    def _start(self) -> None:
        self._tool(
            "initdb",
            "-D",
            str(self.data),
            "-A",
            "trust",
            "-U",
            SUPERUSER,
            "-E",
            "UTF8",
            "--locale=C.UTF-8",
            "--no-sync",  # a throwaway cluster: nothing to flush to disk
        )
        settings = {**SETTINGS, "unix_socket_directories": f"'{self.socket_dir}'"}
        with (self.data / "postgresql.conf").open("a") as conf:
            conf.writelines(f"{name} = {value}\n" for name, value in settings.items())
        self._tool(
            "pg_ctl", "-D", str(self.data), "-l", str(self.folder / "server.log"), "-w", "start"
        )
        self._running = True

    def url(self, database: str) -> str:
        return f"postgresql:///{database}?host={self.socket_dir}&user={SUPERUSER}"

    def psql(self, sql: str, database: str = "postgres") -> str:
        """Runs SQL as the superuser; returns the unaligned, tuples-only output."""
        # psql runs as the caller: a client needs no privileges but the socket's.
        command = [
            str(self.bindir / "psql"),
            "-X",
            "-q",
            "-A",
            "-t",
            "-v",
            "ON_ERROR_STOP=1",
            "-h",
            str(self.socket_dir),
            "-U",
            SUPERUSER,
            "-d",
            database,
            "-c",
            sql,
        ]
        done = subprocess.run(command, capture_output=True, text=True, timeout=60, check=False)
        if done.returncode != 0:
            raise RuntimeError(f"psql: {sql}: {done.stderr.strip()}")
        return done.stdout

    def new_database(self, template: str = "template0") -> str:
        """A new database, a copy of ``template`` (by default empty); returns its URL."""
        name = f"t_{next(self._numbers)}"
        # FILE_COPY: with fsync off, copying the files beats WAL-logging every block of them.
        self.psql(f"CREATE DATABASE {name} TEMPLATE {template} STRATEGY FILE_COPY")
        return self.url(name)

    def drop_database(self, url: str) -> None:
        name = database_of(url)
        # FORCE: a killed client's session may still be on its way out.
        self.psql(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")

    def stop(self) -> None:
        """Stops the server and removes the folder; only the process that started it does."""
        if os.getpid() != self._owner_pid or not self.folder.exists():
            return
        if self._running:
            self._running = False
            try:
                self._tool("pg_ctl", "-D", str(self.data), "-m", "fast", "-w", "stop")
            except PostgresUnavailable:
                with contextlib.suppress(PostgresUnavailable):
                    self._tool("pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "stop")
        self._remove()

    def _remove(self) -> None:
        shutil.rmtree(self.folder, ignore_errors=True)


def database_of(url: str) -> str:
    name = urlsplit(url).path.lstrip("/")
    if not re.fullmatch(r"[a-z_][a-z0-9_]*", name):
        raise ValueError(f"not a test database URL: {url}")
    return name


def socket_of(url: str) -> str:
    return parse_qs(urlsplit(url).query)["host"][0]


def _reap_abandoned(bindir: Path, run_as: list[str]) -> None:
    """Stops and removes the clusters of sessions that died without their atexit (kill -9)."""
    bases = {RAM_FOLDER, Path(tempfile.gettempdir())}
    for folder in (f for base in bases for f in base.glob(f"{PREFIX}*")):
        try:
            owner = int((folder / "owner.pid").read_text())
        except (OSError, ValueError):
            # A folder being set up this very moment has no owner file for a few microseconds.
            try:
                if time.time() - folder.stat().st_mtime < 60:
                    continue
            except OSError:
                continue
            owner = 0
        if owner and _alive(owner):
            continue
        if (folder / "data" / "postmaster.pid").exists():
            stop = ["-D", str(folder / "data"), "-m", "immediate", "-w", "stop"]
            subprocess.run(
                [*run_as, str(bindir / "pg_ctl"), *stop],
                cwd=folder,
                capture_output=True,
                timeout=60,
                check=False,
            )
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    # Whether the server binaries are installed (exit status 1: they are not).
    found = find_bindir()
    print(found if found else INSTALL_HINT, file=sys.stdout if found else sys.stderr)
    sys.exit(0 if found else 1)
