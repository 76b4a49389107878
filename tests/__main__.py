"""`python3 -m tests`: set up the environment (with the test and lint tools) on first use, install
the system packages the suite needs when they are missing and it may (`tests.system_packages`:
PostgreSQL's server, headless Chromium), then run the whole test suite."""

from bot._bootstrap import ensure_environment

ensure_environment("tests", dev=True)

import sys  # noqa: E402

import pytest  # noqa: E402

from tests.system_packages import install_missing  # noqa: E402

install_missing()
sys.exit(pytest.main(sys.argv[1:]))
