"""Excludes for a buffer (`check --stdin-filename`, the language server's documents) are
one question, Config.excludes_buffer: they cover a name inside the configuration's folder,
not one outside it (there a bare-name pattern used to match the absolute path's folders on
the command line, while the editor linted the same file)."""

from __future__ import annotations

from pathlib import Path

import pytest

from rtlint.engine import config as config_module
from tests.support.cli import run_main
from tests.support.samples import BUGGY


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    (root / "pyproject.toml").write_text('[tool.rtlint]\nexclude = ["generated"]\n')
    return root


def test_inside_the_folder_a_pattern_excludes(project: Path) -> None:
    config = config_module.load(None, project / "generated" / "agent.py")
    assert config.excludes_buffer(project / "generated" / "agent.py")
    assert not config.excludes_buffer(project / "src" / "agent.py")
    run = run_main("--no-cache", "--stdin-filename", str(project / "generated" / "agent.py"), "-", stdin=BUGGY.encode())
    assert "RTL001" not in run.stdout and "excluded" in run.stderr + run.stdout


def test_outside_the_folder_nothing_excludes(project: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "generated" / "agent.py"  # `generated` is a folder above, outside the project
    config = config_module.load(project / "pyproject.toml", elsewhere)
    assert config.is_excluded(elsewhere)  # the walk's test, on the absolute path
    assert not config.excludes_buffer(elsewhere)
    run = run_main(
        "--no-cache",
        "--config",
        str(project / "pyproject.toml"),
        "--stdin-filename",
        str(elsewhere),
        "-",
        stdin=BUGGY.encode(),
    )
    assert "RTL001" in run.stdout
