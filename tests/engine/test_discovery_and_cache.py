"""Which files are linted, the pre-filter's soundness, and the cache."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from rtlint.api import check_source
from rtlint.engine.config import Config
from rtlint.engine.linter import RuleSet
from tests.support.cli import FIXTURES, run_main
from tests.support.samples import BUGGY, TOKENLESS


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "pyproject.toml").write_text("[tool.rtlint]\n")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def reported(run) -> list[str]:
    return sorted(line.split(":")[0] for line in run.stdout.splitlines())


def test_gitignore_venvs_and_build_folders_are_skipped(project: Path) -> None:
    (project / ".git").mkdir()
    (project / ".gitignore").write_text("ignored/\n*_gen.py\n!keep_gen.py\n")
    for relative in [
        "src/a.py",
        "ignored/b.py",
        "src/x_gen.py",
        "src/keep_gen.py",
        "build/c.py",
        ".venv/lib/d.py",
        "env/lib/e.py",
        "node_modules/f.py",
        "src/nested/g.py",
    ]:
        path = project / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(BUGGY)
    (project / "env" / "pyvenv.cfg").write_text("home = /usr\n")
    (project / "src" / "nested" / ".gitignore").write_text("g.py\n")
    run = run_main("--no-cache", ".")
    assert reported(run) == ["src/a.py", "src/keep_gen.py"]


def test_explicit_files_are_always_linted(project: Path) -> None:
    (project / ".gitignore").write_text("*.txt\nignored.py\n")
    (project / "notes.txt").write_text(BUGGY)
    (project / "ignored.py").write_text(BUGGY)
    assert reported(run_main("--no-cache", "notes.txt", "ignored.py")) == ["ignored.py", "notes.txt"]


def test_directory_symlink_loop_terminates(project: Path) -> None:
    (project / "pkg").mkdir()
    (project / "pkg" / "a.py").write_text(BUGGY)
    os.symlink(project / "pkg", project / "pkg" / "loop")
    run = run_main("--no-cache", ".")
    assert reported(run) == ["pkg/a.py"]


def test_prefilter_skips_files_without_tokens(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A tokenless file is not parsed at all (directory runs), so even invalid code there
    costs nothing; a file named explicitly is always parsed."""
    import rtlint.engine.linter as linter

    parsed = []
    original = linter.parse
    monkeypatch.setattr(linter, "parse", lambda text, name="": parsed.append(name) or original(text, name))
    (project / "plain.py").write_text(TOKENLESS)
    (project / "buggy.py").write_text(BUGGY)
    run_main("--no-cache", ".")
    assert parsed == ["buggy.py"]


def _all_samples() -> list[Path]:
    return sorted(p for p in FIXTURES.glob("RTL*/*.py"))


@pytest.mark.parametrize("sample", _all_samples(), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_prefilter_is_sound(sample: Path) -> None:
    """Every file with a finding contains the tokens of the rule that reports it."""
    text = sample.read_text(encoding="utf-8")
    ruleset = RuleSet(Config(root=Path.cwd()).enabled_rules(), Config(root=Path.cwd()).settings())
    applicable = {rule.code for rule in ruleset.applicable(text.encode())}
    for finding in check_source(text, sample.name):
        assert finding.code in applicable, (sample.name, finding.code)


def test_cache_hit_and_invalidation(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import rtlint
    import rtlint.cache.cache
    import rtlint.engine.runner as runner

    target = project / "a.py"
    target.write_text(BUGGY)
    processed = []
    original = runner.Runner.process
    monkeypatch.setattr(
        runner.Runner, "process", lambda self, job: processed.append(job.display) or original(self, job)
    )

    first = run_main("a.py")
    second = run_main("a.py")
    assert first.stdout == second.stdout and first.exit_code == second.exit_code == 1
    assert processed == ["a.py"]  # the second run came from the cache
    assert (project / ".rtlint_cache" / ".gitignore").read_text().strip().endswith("*")

    target.write_text(BUGGY.replace("text", "words"))  # content change
    run_main("a.py")
    assert processed == ["a.py", "a.py"]

    (project / "pyproject.toml").write_text(
        '[tool.rtlint]\nsession-names = ["_rt_session", "_voice"]\n'
    )  # config change
    run_main("a.py")
    assert processed == ["a.py"] * 3

    monkeypatch.setattr(rtlint, "__version__", "999.0")  # version change
    run_main("a.py")
    assert processed == ["a.py"] * 4

    run_main("--no-cache", "a.py")
    assert processed == ["a.py"] * 5


def test_cache_keeps_fix_edits_for_json(project: Path) -> None:
    (project / "a.py").write_text(BUGGY)
    first = json.loads(run_main("--format", "json", "a.py").stdout)
    second = json.loads(run_main("--format", "json", "a.py").stdout)
    assert first == second and first[0]["fix"]["edits"]


def test_corrupt_cache_entries_are_ignored(project: Path) -> None:
    (project / "a.py").write_text(BUGGY)
    run_main("a.py")
    for entry in (project / ".rtlint_cache").rglob("*"):
        if entry.is_file() and entry.name != ".gitignore":
            entry.write_text("{not json")
    run = run_main("a.py")
    assert run.exit_code == 1 and "RTL001" in run.stdout
