"""`python3 -m tests`: set up the environment (with the test and lint tools) on first use, then run
the whole test suite."""

from bot._bootstrap import ensure_environment

ensure_environment("tests", dev=True)

import sys  # noqa: E402

import pytest  # noqa: E402

sys.exit(pytest.main(sys.argv[1:]))
