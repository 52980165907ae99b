"""A path the system cannot open because a name in it is too long (ENAMETOOLONG: a
component over 255 bytes, or a path over PATH_MAX below deep folders) is RTL901 for that
path, and the run goes on (issue 25, the follow-up of item 11). Before, it was a run-level error
(exit 2) and the other files went unreported."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.support.cli import run_main
from tests.support.samples import BUGGY


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "pyproject.toml").write_text("[tool.rtlint]\n")
    (tmp_path / "agent.py").write_text(BUGGY)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _codes(stdout: str) -> list[tuple[str, str]]:
    return sorted((f["code"], f["path"]) for f in json.loads(stdout))


def test_a_component_too_long_on_the_command_line_is_rtl901_for_it(project: Path) -> None:
    long = "x" * 300 + ".py"
    result = run_main("--no-cache", "--format", "json", "agent.py", long)
    assert result.exit_code == 1, result.stderr
    codes = _codes(result.stdout)
    assert ("RTL901", long) in codes and ("RTL001", "agent.py") in codes
    found = next(f for f in json.loads(result.stdout) if f["code"] == "RTL901")
    assert "File name too long" in found["message"]
    assert "error" not in result.stderr


def _deep(root: Path) -> str:
    """A file below folders whose path is longer than PATH_MAX (made with dir_fd, since the
    whole path cannot be opened); its path relative to `root`."""
    name = "y" * 250
    fd = os.open(root, os.O_RDONLY)
    try:
        for _ in range(18):  # 18 * 251 bytes > 4096
            os.mkdir(name, dir_fd=fd)
            inner = os.open(name, os.O_RDONLY, dir_fd=fd)
            os.close(fd)
            fd = inner
        with open(os.open("agent.py", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd), "w") as out:
            out.write(BUGGY)
    finally:
        os.close(fd)
    return "/".join([name] * 18 + ["agent.py"])


def test_a_path_too_long_in_a_walk_is_rtl901_and_the_walk_goes_on(project: Path) -> None:
    (project / "deep").mkdir()
    _deep(project / "deep")
    result = run_main("--no-cache", "--format", "json", ".")
    assert result.exit_code == 1, result.stderr
    codes = _codes(result.stdout)
    assert ("RTL001", "agent.py") in codes
    unreadable = [path for code, path in codes if code == "RTL901"]
    assert len(unreadable) == 1 and unreadable[0].startswith("deep/yyy"), codes
    assert "error" not in result.stderr
    # --fix fixes what it can read, and says the same of the deep path
    fixed = run_main("--no-cache", "--fix", ".")
    assert fixed.exit_code == 1 and "RTL901" in fixed.stdout, fixed.stderr
    assert (project / "agent.py").read_text() != BUGGY
