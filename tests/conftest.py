"""Shared fixtures; the helpers behind them are in tests/support/cli.py (imported first: it
gives the tests, and the rtlint processes they start, a cache home of their own)."""

from __future__ import annotations

import pytest

from tests.support.cli import run_cli, run_main


@pytest.fixture
def cli():
    return run_cli


@pytest.fixture
def main_cli():
    return run_main
