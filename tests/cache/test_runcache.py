"""The whole-run cache: a warm run replays the recorded output, and any change to an input
(a file, a folder's entries, the configuration, a .gitignore, rtlint itself) makes it run
again. Timestamps are moved into the past so the cache trusts them (it re-checks anything
changed within two seconds of the recording)."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

import rtlint
import rtlint.engine.runner as runner
from tests.support.cli import run_main
from tests.support.samples import BUGGY, TOKENLESS


def age(root: Path, seconds: float = 30) -> None:
    """Every file and folder under `root` (and `root` itself) last changed `seconds` ago."""
    when = time.time() - seconds
    for current, _, files in os.walk(root):
        for name in files:
            os.utime(os.path.join(current, name), (when, when), follow_symlinks=False)
        os.utime(current, (when, when))


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    (root / "pyproject.toml").write_text("[tool.rtlint]\n")
    (root / "pkg").mkdir()
    (root / "pkg" / "a.py").write_text(BUGGY)
    (root / "pkg" / "b.py").write_text(TOKENLESS)
    monkeypatch.chdir(root)
    return root


@pytest.fixture
def processed(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The files the engine really linted (a replayed run lints none)."""
    seen: list[str] = []
    original = runner.Runner.run

    def run(self, targets):
        seen.extend(t.path.name for t in targets)
        return original(self, targets)

    monkeypatch.setattr(runner.Runner, "run", run)
    return seen


def warm(project: Path, processed: list[str]) -> str:
    """Record a run, then check that the next one replays it; returns its output."""
    age(project)
    first = run_main("pkg")
    age(project)
    first = run_main("pkg")  # recorded with settled timestamps
    processed.clear()
    second = run_main("pkg")
    assert processed == [], "the warm run linted files instead of replaying"
    assert (second.stdout, second.stderr, second.exit_code) == (first.stdout, first.stderr, first.exit_code)
    return second.stdout


def test_replay_is_identical(project: Path, processed: list[str]) -> None:
    out = warm(project, processed)
    assert "RTL001" in out


def test_cache_dir_with_missing_parents_replays(project: Path, processed: list[str]) -> None:
    # a --cache-dir whose parent folders do not exist yet is created, like ruff's; it once
    # made every run go uncached, silently (the benchmark's warm runs never replayed)
    cache = project.parent / "caches" / "deeper" / "warm"
    age(project)
    first = run_main("pkg", "--cache-dir", str(cache))
    age(project)
    first = run_main("pkg", "--cache-dir", str(cache))
    processed.clear()
    second = run_main("pkg", "--cache-dir", str(cache))
    assert processed == [], "the warm run linted files instead of replaying"
    assert (second.stdout, second.exit_code) == (first.stdout, first.exit_code)
    assert (cache / "runs").is_dir()


def test_content_change_same_size_is_seen(project: Path, processed: list[str]) -> None:
    warm(project, processed)
    target = project / "pkg" / "a.py"
    target.write_text(BUGGY.replace("text", "word"))  # same size, new mtime
    assert run_main("pkg").exit_code == 1
    assert "a.py" in processed


def test_new_and_removed_files_are_seen(project: Path, processed: list[str]) -> None:
    warm(project, processed)
    (project / "pkg" / "c.py").write_text(BUGGY)
    run = run_main("pkg")
    assert "c.py" in processed and run.stdout.count("RTL001") == 2
    warm(project, processed)
    (project / "pkg" / "a.py").unlink()
    (project / "pkg" / "c.py").unlink()
    assert run_main("pkg").exit_code == 0


def test_configuration_change_is_seen(project: Path, processed: list[str]) -> None:
    warm(project, processed)
    (project / "pyproject.toml").write_text('[tool.rtlint]\nignore = ["RTL001"]\n')
    assert run_main("pkg").exit_code == 0


def test_gitignore_change_is_seen(project: Path, processed: list[str]) -> None:
    warm(project, processed)
    (project / "pkg" / ".gitignore").write_text("a.py\n")
    assert run_main("pkg").exit_code == 0


def test_new_configuration_above_is_seen(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, processed: list[str]) -> None:
    root = tmp_path / "outer" / "inner"
    root.mkdir(parents=True)
    (root / "a.py").write_text(BUGGY.replace("_rt_session", "_voice"))
    monkeypatch.chdir(root)
    (tmp_path / "outer" / "pyproject.toml").write_text("[tool.rtlint]\n")
    age(tmp_path / "outer")
    assert run_main("a.py").exit_code == 0
    age(tmp_path / "outer")
    assert run_main("a.py").exit_code == 0  # recorded, with settled timestamps
    (tmp_path / "outer" / "pyproject.toml").write_text('[tool.rtlint]\nsession-names = ["_voice"]\n')
    assert run_main("a.py").exit_code == 1


def test_rtlint_version_change_is_seen(project: Path, processed: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    warm(project, processed)
    monkeypatch.setattr(rtlint, "__version__", "999.0")
    run_main("pkg")
    assert processed


def test_fix_diff_and_no_cache_never_replay(project: Path, processed: list[str]) -> None:
    warm(project, processed)
    for args in (["--diff", "pkg"], ["--no-cache", "pkg"]):
        processed.clear()
        run_main(*args)
        assert processed, args
    processed.clear()
    run_main("--fix", "pkg")
    assert processed
    assert "async with self._rt_chat_ctx_lock" in (project / "pkg" / "a.py").read_text()


def test_errors_are_not_recorded(project: Path, processed: list[str]) -> None:
    age(project)
    run_main("pkg", "missing")
    age(project)
    processed.clear()
    second = run_main("pkg", "missing")
    assert second.exit_code == 2 and processed


# -- every input of what is replayed (issue 25, item 9) -----------------------------------------

LONG_FIX = BUGGY.replace(
    'ctx.add_message(role="user", content=text)',
    'ctx.add_message(role="user", content=text, interrupted=False, created_at=self.started_at)',
)


def _fix_texts(stdout: str) -> list[str]:
    import json

    return sorted(e["content"] for f in json.loads(stdout) for e in (f.get("fix") or {}).get("edits", []))


@pytest.mark.parametrize("where", ["ruff.toml", "pkg/ruff.toml", "pyproject.toml"])
def test_a_new_line_length_is_not_replayed(project: Path, processed: list[str], where: str) -> None:
    (project / "pkg" / "a.py").write_text(LONG_FIX)

    def configure(length: int) -> None:
        if where == "pyproject.toml":
            (project / where).write_text(f"[tool.rtlint]\nline-length = {length}\n")
        else:
            (project / where).write_text(f"line-length = {length}\n")

    configure(200)
    age(project)
    run_main("pkg", "--format", "json")
    age(project)
    wide = run_main("pkg", "--format", "json").stdout  # recorded: the run and each file's findings
    configure(60)
    age(project)
    narrow = run_main("pkg", "--format", "json").stdout
    fresh = run_main("pkg", "--format", "json", "--no-cache").stdout
    assert _fix_texts(narrow) == _fix_texts(fresh)
    assert _fix_texts(narrow) != _fix_texts(wide)  # the length changes what the fixes write
    assert max(len(line) for text in _fix_texts(narrow) for line in text.splitlines()) <= 60


def test_the_terminal_type_is_part_of_the_run_key(monkeypatch: pytest.MonkeyPatch, project: Path) -> None:
    from rtlint.cache import runcache

    monkeypatch.setenv("TERM", "xterm-256color")
    coloured = runcache.Run(["pkg"], interactive=True).name
    monkeypatch.setenv("TERM", "dumb")  # colour.wanted: no colour on a dumb terminal
    assert runcache.Run(["pkg"], interactive=True).name != coloured


# -- where the run cache is: where the configuration says (issue 25, item 12) --------------


@pytest.mark.parametrize(
    "layout",
    ["extend", "rtlint-toml", "cache-dir"],
)
def test_the_run_cache_is_where_the_configuration_puts_the_cache(
    project: Path, processed: list[str], layout: str
) -> None:
    """The manifest of a run goes into the cache folder the check itself uses, resolved by
    the configuration's one resolver (an `extend` followed): before, only the nearest
    pyproject.toml was read by its bytes, so an extended file's `cache-dir` was not seen
    (the manifests went beside the pyproject.toml) and a .rtlint.toml or a `cache-dir` of
    its own turned the run cache off."""
    if layout == "extend":
        (project / "shared").mkdir()
        (project / "shared" / "base.toml").write_text('[tool.rtlint]\ncache-dir = "made"\n')
        (project / "pyproject.toml").write_text('[tool.rtlint]\nextend = "shared/base.toml"\n')
        cache = project / "shared" / "made"
    elif layout == "rtlint-toml":
        (project / ".rtlint.toml").write_text('cache-dir = "elsewhere"\n')
        cache = project / "elsewhere"
    else:
        (project / "pyproject.toml").write_text('[tool.rtlint]\ncache-dir = "build/rtlint"\n')
        cache = project / "build" / "rtlint"
    warm(project, processed)
    assert (cache / "runs").is_dir() and list((cache / "runs").iterdir())
    assert not (project / ".rtlint_cache").exists()


def test_a_refused_cache_dir_is_not_replayed_around(project: Path, processed: list[str]) -> None:
    """A configured cache-dir outside the checkout is an error on every run (nothing cached
    to replay around it), unless --cache-dir replaces it."""
    (project / "pyproject.toml").write_text('[tool.rtlint]\ncache-dir = "../outside"\n')
    for _ in range(3):
        result = run_main("pkg")
        assert result.exit_code == 2 and "'cache-dir'" in result.stderr
    assert not (project.parent / "outside").exists() and not (project / ".rtlint_cache").exists()
    given = project.parent / "given"
    age(project)
    run_main("pkg", "--cache-dir", str(given))
    age(project)
    first = run_main("pkg", "--cache-dir", str(given))
    processed.clear()
    second = run_main("pkg", "--cache-dir", str(given))
    assert processed == [] and first.exit_code == second.exit_code == 1
    assert (given / "runs").is_dir() and not (project.parent / "outside").exists()
