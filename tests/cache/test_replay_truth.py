"""The whole-run cache replays only what is still true (issue 15): stamps are taken before
reading and include ctime, folders skipped as virtual envs are recorded, and a run that hit
a resource limit is never recorded. Each scenario's next run gives the true result."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

import rtlint.engine.runner as runner
from rtlint.core import parsing
from tests.cache.test_runcache import age
from tests.support.cli import run_main
from tests.support.samples import BUGGY, TOKENLESS

CLEAN = BUGGY.replace("ctx = self._rt_session.chat_ctx.copy()", "ctx = self.other.chat_ctx.copy()")


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "project"
    (root / "pkg").mkdir(parents=True)
    (root / "pyproject.toml").write_text("[tool.rtlint]\n")
    (root / "pkg" / "a.py").write_text(CLEAN)
    (root / "pkg" / "b.py").write_text(TOKENLESS)
    monkeypatch.chdir(root)
    return root


def truth(*args: str):
    run = run_main("--no-cache", *args)
    return run.stdout, run.exit_code


def during_the_run(monkeypatch: pytest.MonkeyPatch, action) -> None:
    """Run `action()` once, after the first file has been read, as a long run would see an
    edit; the timestamps it leaves are old (the run 'took' more than two seconds)."""
    real = runner.Runner._prepare
    done = []

    def prepare(self, target, *rest):
        result = real(self, target, *rest)
        if not done:
            done.append(True)
            action()
        return result

    monkeypatch.setattr(runner.Runner, "_prepare", prepare)


def test_an_edit_during_a_run_is_not_replayed(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert CLEAN != BUGGY and truth("pkg")[1] == 0
    age(project)
    target = project / "pkg" / "a.py"

    def edit() -> None:
        target.write_text(BUGGY)
        old = time.time() - 20
        os.utime(target, (old, old))

    during_the_run(monkeypatch, edit)
    run_main("pkg")  # saw the old content (it read it before the edit)
    monkeypatch.undo()
    monkeypatch.chdir(project)
    second = run_main("pkg")
    assert (second.stdout, second.exit_code) == truth("pkg") and second.exit_code == 1


def test_a_new_file_during_a_run_is_not_replayed(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    age(project)

    def create() -> None:
        (project / "pkg" / "c.py").write_text(BUGGY)
        age(project)

    during_the_run(monkeypatch, create)
    run_main("pkg")
    monkeypatch.undo()
    monkeypatch.chdir(project)
    second = run_main("pkg")
    assert (second.stdout, second.exit_code) == truth("pkg") and "c.py" in second.stdout


def test_touch_r_after_a_same_size_edit_is_seen(project: Path) -> None:
    target = project / "pkg" / "a.py"
    target.write_text(BUGGY)
    age(project)
    run_main("pkg")
    run_main("pkg")  # recorded and replayed
    before = target.stat()
    target.write_text(BUGGY.replace("text", "word"))  # same size: RTL001 stays, the message moves
    target.write_text(CLEAN + " " * (len(BUGGY) - len(CLEAN)) if len(CLEAN) < len(BUGGY) else CLEAN)
    assert target.stat().st_size == before.st_size
    os.utime(target, ns=(before.st_atime_ns, before.st_mtime_ns))  # touch -r: the old mtime
    run = run_main("pkg")
    assert (run.stdout, run.exit_code) == truth("pkg") and run.exit_code == 0


def test_a_removed_pyvenv_cfg_is_seen(project: Path) -> None:
    (project / "tools").mkdir()
    (project / "tools" / "pyvenv.cfg").write_text("home = /usr\n")
    (project / "tools" / "x.py").write_text(BUGGY)
    age(project)
    run_main(".")  # creates the cache folder (the walked folder changed: not recorded)
    age(project)
    run_main(".")  # recorded
    replayed = run_main(".")
    assert replayed.exit_code == 0  # tools/ skipped as a virtual env
    (project / "tools" / "pyvenv.cfg").unlink()  # changes tools/, which was never listed
    run = run_main(".")
    assert (run.stdout, run.exit_code) == truth(".") and "tools/x.py" in run.stdout


def test_a_parse_out_of_memory_is_not_cached(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (project / "pkg" / "a.py").write_text(BUGGY)
    age(project)

    def no_memory(text: str, filename: str):
        raise MemoryError

    monkeypatch.setattr(parsing, "_ast_parse", no_memory)
    low = run_main("pkg")  # a low memory limit
    assert "RTL900" in low.stdout
    monkeypatch.undo()
    monkeypatch.chdir(project)
    for _ in range(2):  # then normal: the real findings, from neither cache's memory of that run
        run = run_main("pkg")
        assert (run.stdout, run.exit_code) == truth("pkg") and "RTL001" in run.stdout and "RTL900" not in run.stdout
