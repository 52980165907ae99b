"""bench.compare_releases compare: the byte-identity check behind issue 11's constraint."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench import compare_releases


def _record(root: Path, findings: dict[str, list[dict]], fixed: dict[str, dict[str, str]]) -> None:
    for version in compare_releases.VERSIONS:
        folder = root / version
        folder.mkdir(parents=True)
        (folder / "check.json").write_text(json.dumps(findings.get(version, [])))
        for path, text in fixed.get(version, {}).items():
            target = folder / "fixed" / path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text)


FINDING = {"path": "a.py", "line": 3, "code": "RTL001", "message": "m", "url": "u1"}


def test_identical_recordings_have_no_difference(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for side in ("old", "new"):
        _record(tmp_path / side, {"1.8.8": [FINDING]}, {"1.8.8": {"a.py": "x = 1\n"}})
    assert compare_releases.compare(tmp_path / "old", tmp_path / "new") == 0
    assert "0 differences" in capsys.readouterr().out


def test_changed_findings_and_files_are_listed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _record(tmp_path / "old", {"1.8.8": [FINDING]}, {"1.8.8": {"a.py": "x = 1\n"}})
    moved = dict(FINDING, line=4, url="u2")
    _record(tmp_path / "new", {"1.8.8": [moved]}, {"1.8.8": {"a.py": "x = 2\n", "b.py": "y\n"}})
    assert compare_releases.compare(tmp_path / "old", tmp_path / "new") == 1
    out = capsys.readouterr().out
    assert "1.8.8: only before: a.py:3 RTL001" in out and "1.8.8: only after: a.py:4 RTL001" in out
    assert "fixed output differs: a.py" in out and "fixed output only after: b.py" in out
    assert "4 differences" in out


def test_ignored_keys_are_set_aside(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _record(tmp_path / "old", {"1.8.8": [FINDING]}, {})
    _record(tmp_path / "new", {"1.8.8": [dict(FINDING, url="elsewhere")]}, {})
    assert compare_releases.compare(tmp_path / "old", tmp_path / "new") == 1
    capsys.readouterr()
    assert compare_releases.main(["compare", str(tmp_path / "old"), str(tmp_path / "new"), "--ignore", "url"]) == 0
