"""What a test does when something it downloads cannot be had: it fails (an offline CI must
not pass without the real-code, behaviour and formatter tests), unless RTLINT_OFFLINE=1
says the run is offline on purpose; then it is skipped, and the summary says how many."""

from __future__ import annotations

import os
from typing import NoReturn

import pytest

SKIP_PREFIX = "RTLINT_OFFLINE=1:"


def offline() -> bool:
    return os.environ.get("RTLINT_OFFLINE") == "1"


def unavailable(what: str, why: str) -> NoReturn:
    if offline():
        pytest.skip(f"{SKIP_PREFIX} {what} not available: {why}")
    pytest.fail(f"cannot get {what}: {why} (RTLINT_OFFLINE=1 skips the tests that need it)", pytrace=False)
