"""The smaller surprises of a new user's first day (issue 24, "Why" 8): what the summary
says when no rule is enabled, and what the rule pages, the README and the editor guide tell
about configuration, installing and the test cache."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from rtlint.engine import registry
from rtlint.report import docs
from tests.support import wheels
from tests.support.cli import REPO, run_main
from tests.support.samples import BUGGY


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "pyproject.toml").write_text("[tool.rtlint]\n")
    (tmp_path / "a.py").write_text(BUGGY)
    monkeypatch.chdir(tmp_path)
    return tmp_path


NO_RULE = "rtlint: warning: no rule is enabled for 1 file (--select, --ignore and the configuration leave none)"


@pytest.mark.parametrize("given", [".", "a.py"])
def test_ignoring_every_rule_says_so(project: Path, given: str) -> None:
    """Not "1 file holds no realtime vocabulary" (a file full of it), nor "All checks passed"."""
    run = run_main("--no-cache", "--ignore", "RTL", given)
    assert run.exit_code == 0 and run.stdout == ""
    assert run.stderr == f"{NO_RULE}: it was not checked\n"
    assert "vocabulary" not in run.stderr and "passed" not in run.stderr


def test_no_rule_enabled_by_the_configuration(project: Path) -> None:
    (project / "pyproject.toml").write_text('[tool.rtlint]\nignore = ["RTL0"]\n')
    (project / "b.py").write_text(BUGGY)
    run = run_main("--no-cache", ".")
    assert (run.exit_code, run.stderr) == (0, NO_RULE.replace("1 file", "2 files") + ": they were not checked\n")


def test_a_file_named_is_still_parsed_when_no_rule_is_enabled(project: Path) -> None:
    (project / "broken.py").write_text("def (:\n")
    run = run_main("--no-cache", "--ignore", "RTL", "broken.py")
    assert run.exit_code == 1 and "RTL900" in run.stdout  # a syntax error is no rule's
    assert run.stderr.startswith(f"{NO_RULE}: it was not checked\n")


def test_rule_pages_and_the_editor_guide_name_both_configuration_files() -> None:
    for rule in registry.all_rules():
        if rule.options:
            configuration = docs.page(rule).split("## Configuration", 1)[1]
            assert "`.rtlint.toml`" in configuration and "`[tool.rtlint]`" in configuration
    editors = (REPO / "docs" / "editors.md").read_text(encoding="utf-8")
    assert ".rtlint.toml" in editors
    assert ".rtlint.toml" in run_main("server", "--help").stdout


def test_no_page_says_to_install_from_the_index() -> None:
    """rtlint is not on the package index: `pip install rtlint` installs someone else's
    package, if any; the pages say how to install from a checkout or a built wheel."""
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    for page in (readme, (REPO / "docs" / "editors.md").read_text(encoding="utf-8")):
        assert not re.search(r"pip install\s+rtlint\b", page)
    assert "pip install ." in readme and "python -m build" in readme


def test_readme_says_where_the_test_cache_is_and_how_to_move_or_remove_it(monkeypatch: pytest.MonkeyPatch) -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    monkeypatch.delenv("RTLINT_TEST_CACHE", raising=False)
    assert wheels.cache_root() == Path.home() / ".cache" / "rtlint-tests"  # what the README names
    monkeypatch.setenv("RTLINT_TEST_CACHE", "/elsewhere")
    assert wheels.cache_root() == Path("/elsewhere")
    assert "`~/.cache/rtlint-tests`" in readme
    assert "RTLINT_TEST_CACHE" in readme and "rm -rf ~/.cache/rtlint-tests" in readme
