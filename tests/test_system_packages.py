"""`python3 -m tests` installs the system packages the suite needs (tests/system_packages.py):
only what is missing and switched on, only as root with apt-get, retrying after an update."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests import system_packages


@pytest.fixture
def fake_apt(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An apt-get on PATH that writes down its arguments; its first install fails (stale lists)."""
    calls = tmp_path / "calls"
    script = tmp_path / "apt-get"
    script.write_text(
        "#!/bin/sh\n"
        f'echo "$@" >> {calls}\n'
        f'if [ "$1" = install ] && [ ! -e {tmp_path}/updated ]; then exit 100; fi\n'
        f'if [ "$1" = update ]; then touch {tmp_path}/updated; fi\n'
    )
    script.chmod(0o755)
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setattr(
        system_packages,
        "NEEDED",
        (
            ("OCHKO_TEST_PG_FAKE", ("pg-fake",), lambda: False),
            ("OCHKO_TEST_BROWSER_FAKE", ("browser-fake", "font-fake"), lambda: False),
            ("OCHKO_TEST_THERE", ("there",), lambda: True),
        ),
    )
    return calls


def test_what_is_missing_and_switched_on_is_installed_as_root(
    fake_apt: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OCHKO_TEST_BROWSER_FAKE", "0")
    assert system_packages.missing() == ["pg-fake"]
    monkeypatch.setattr(os, "geteuid", lambda: 0)
    system_packages.install_missing()
    calls = fake_apt.read_text().splitlines()
    install = "install -y -qq --no-install-recommends pg-fake"
    assert calls == [install, "update -qq", install]


def test_nothing_is_installed_without_root(
    fake_apt: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    system_packages.install_missing()
    assert not fake_apt.exists()
    assert "not installed: pg-fake, browser-fake, font-fake" in capsys.readouterr().err
