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


def pytest_terminal_summary(terminalreporter, exitstatus, config) -> None:
    """With RTLINT_OFFLINE=1 the tests that need a download are skipped, not failed: say so."""
    from tests.support.offline import SKIP_PREFIX, offline

    if not offline():
        return
    skipped = [
        report
        for report in terminalreporter.stats.get("skipped", [])
        if isinstance(report.longrepr, tuple) and SKIP_PREFIX in str(report.longrepr[2])
    ]
    terminalreporter.write_line(
        f"RTLINT_OFFLINE=1: {len(skipped)} test(s) skipped for want of a download "
        "(real code, behaviour, formatters); without it they fail",
        yellow=True,
    )
