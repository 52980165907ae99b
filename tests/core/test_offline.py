"""A download the tests need that fails fails the test, unless RTLINT_OFFLINE=1 (issue 25,
item 13): an offline CI cannot pass without the real-code, behaviour and formatter tests."""

from __future__ import annotations

import subprocess

import pytest

from tests.support import wheels
from tests.support.offline import SKIP_PREFIX


def _failing_pip(*args, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.CompletedProcess(args, 1, "", "ERROR: Could not find a version (no network)")


def test_a_failed_download_fails(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    monkeypatch.delenv("RTLINT_OFFLINE", raising=False)
    monkeypatch.setenv("RTLINT_TEST_CACHE", str(tmp_path))
    monkeypatch.setattr(wheels.subprocess, "run", _failing_pip)
    with pytest.raises(pytest.fail.Exception, match="no network"):
        wheels.unpacked("livekit-agents==1.8.8")


def test_offline_on_purpose_skips(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    monkeypatch.setenv("RTLINT_OFFLINE", "1")
    monkeypatch.setenv("RTLINT_TEST_CACHE", str(tmp_path))
    monkeypatch.setattr(wheels.subprocess, "run", _failing_pip)
    with pytest.raises(pytest.skip.Exception, match=SKIP_PREFIX):
        wheels.unpacked("livekit-agents==1.8.8")


def test_the_summary_counts_the_offline_skips(tmp_path) -> None:
    import os
    import sys
    from pathlib import Path

    (tmp_path / "test_one.py").write_text(
        "from tests.support.offline import unavailable\n\n\n"
        "def test_needs_download():\n    unavailable('a wheel', 'no network')\n"
    )
    (tmp_path / "conftest.py").write_text("from tests.conftest import pytest_terminal_summary  # noqa: F401\n")
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2]), "RTLINT_OFFLINE": "1"}
    command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:randomly", str(tmp_path)]
    offline = subprocess.run(command, env=env, capture_output=True, text=True, cwd=tmp_path)
    assert "1 skipped" in offline.stdout and "RTLINT_OFFLINE=1: 1 test(s) skipped" in offline.stdout, offline.stdout
    env.pop("RTLINT_OFFLINE")
    online = subprocess.run(command, env=env, capture_output=True, text=True, cwd=tmp_path)
    assert "1 failed" in online.stdout and "skipped for want of a download" not in online.stdout, online.stdout
