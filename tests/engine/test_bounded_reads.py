"""Every file rtlint reads is a regular file read within a bound (issue 25, items 4 and 5):
a formatter file or configuration that is a FIFO or a link to /dev/zero, a .gitignore that
is one, standard input without end, and a file too costly to parse are each a message naming
the limit (RTL901 for a source), never a hang or an exhausted memory; the run goes on."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from rtlint.core import reading
from tests.support.cli import REPO
from tests.support.samples import BUGGY, BUGGY_COLUMN, BUGGY_LINE, clean_env


def rtlint(*args: str, cwd: Path, stdin: bytes | None = None, timeout: float = 60) -> subprocess.CompletedProcess:
    """A hang is the timeout (a failure); a peak of memory is bounded by the ulimit."""
    limit = "import resource; resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30));"
    probe = limit + "import sys; from rtlint.cli import main; sys.exit(main(sys.argv[1:]))"
    return subprocess.run(
        [sys.executable, "-c", probe, *args],
        cwd=cwd,
        input=stdin if stdin is not None else b"",
        capture_output=True,
        timeout=timeout,
        env=clean_env(PYTHONPATH=str(REPO)),
    )


def _odd(path: Path, kind: str) -> None:
    if kind == "fifo":
        os.mkfifo(path)
    else:
        path.symlink_to("/dev/zero")


@pytest.mark.parametrize("kind", ["fifo", "dev-zero"])
@pytest.mark.parametrize("name", ["ruff.toml", ".ruff.toml"])
@pytest.mark.parametrize("mode", [[], ["--fix"], ["--diff"], ["--format", "json"], ["--format", "sarif"]])
def test_a_formatter_file_that_never_ends(tmp_path: Path, kind: str, name: str, mode: list[str]) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool.rtlint]\n")
    (tmp_path / "agent.py").write_text(BUGGY)
    _odd(tmp_path / name, kind)
    process = rtlint("--no-cache", *mode, ".", cwd=tmp_path)
    assert process.returncode in (0, 1), process.stderr
    assert b"Traceback" not in process.stderr
    if mode in ([], ["--format", "json"]):
        assert b"RTL001" in process.stdout
    if mode == ["--fix"]:
        assert "async with" in (tmp_path / "agent.py").read_text()  # the default line length


@pytest.mark.parametrize("kind", ["fifo", "dev-zero"])
@pytest.mark.parametrize("name", ["pyproject.toml", ".rtlint.toml"])
@pytest.mark.parametrize("mode", [[], ["--fix"], ["--format", "sarif"]])
def test_a_configuration_that_never_ends(tmp_path: Path, kind: str, name: str, mode: list[str]) -> None:
    """Not a configuration (the walk takes regular files only), or refused with a message."""
    (tmp_path / "agent.py").write_text(BUGGY)
    _odd(tmp_path / name, kind)
    for cache in (["--no-cache"], []):  # the whole-run cache looks for pyproject.toml too
        process = rtlint(*cache, *mode, ".", cwd=tmp_path)
        assert b"Traceback" not in process.stderr
        assert process.returncode in (0, 1, 2), process.stderr  # 0: --fix fixed it
        if process.returncode == 2:
            assert b"not a regular file" in process.stderr, process.stderr


@pytest.mark.parametrize("kind", ["fifo", "dev-zero"])
def test_a_gitignore_that_never_ends(tmp_path: Path, kind: str) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool.rtlint]\n")
    (tmp_path / "agent.py").write_text(BUGGY)
    (tmp_path / ".git").mkdir()
    _odd(tmp_path / ".gitignore", kind)
    process = rtlint("--no-cache", ".", cwd=tmp_path)
    assert process.returncode == 1, process.stderr
    assert f"agent.py:{BUGGY_LINE}:{BUGGY_COLUMN}: RTL001".encode() in process.stdout


def test_standard_input_is_bounded(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool.rtlint]\n")
    big = b"x = 1\n" * (reading.MAX_SOURCE // 6 + 1)
    process = rtlint("--no-cache", "-", cwd=tmp_path, stdin=big)
    assert process.returncode == 2, process.stderr
    assert b"too large" in process.stderr and b"16 MiB" in process.stderr, process.stderr


def test_a_file_too_costly_to_parse_is_rtl901_and_the_run_goes_on(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool.rtlint]\n")
    (tmp_path / "dense.py").write_text(BUGGY + "x = 1\n" * (reading.MAX_PARSED + 1))  # 2.4 MB
    (tmp_path / "good.py").write_text(BUGGY)
    for mode in ([], ["--fix"]):
        process = rtlint("--no-cache", *mode, "dense.py", "good.py", cwd=tmp_path)
        stdout = process.stdout.decode()
        assert process.returncode == 1, process.stderr
        assert "dense.py:1:1: RTL901 [unreadable-file] cannot read file: too large to parse (" in stdout
        assert f"rtlint parses at most {reading.MAX_PARSED:,})" in stdout
    assert "async with" in (tmp_path / "good.py").read_text()


def test_the_reader_refuses_what_is_not_a_regular_file(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "fifo")
    with pytest.raises(OSError, match=r"not a regular file \(a FIFO\)"):
        reading.read_file(tmp_path / "fifo", 10)
    with pytest.raises(OSError, match=r"not a regular file \(a character device\)"):
        reading.load_toml("/dev/zero")
    (tmp_path / "big.toml").write_text("x = 1\n" * 1000)
    with pytest.raises(reading.TooLarge, match="rtlint reads at most 100 bytes"):
        reading.read_file(tmp_path / "big.toml", 100)
    (tmp_path / "deep.toml").write_text("x = " + "[" * 5000 + "]" * 5000 + "\n")
    with pytest.raises(reading.TomlError, match="nested too deeply"):
        reading.load_toml(tmp_path / "deep.toml")


# -- every error a message and a code (issue 25, item 11) -----------------------------------------


def test_a_memory_error_is_rtl901_for_that_file_and_the_run_goes_on(tmp_path: Path, monkeypatch) -> None:
    from rtlint.engine import runner
    from tests.support.cli import run_main

    (tmp_path / "pyproject.toml").write_text("[tool.rtlint]\n")
    (tmp_path / "huge.py").write_text(BUGGY)
    (tmp_path / "good.py").write_text(BUGGY)
    original = runner.Runner.process

    def process(self, job):
        if job.display == "huge.py":
            raise MemoryError
        return original(self, job)

    monkeypatch.setattr(runner.Runner, "process", process)
    monkeypatch.chdir(tmp_path)
    run = run_main("--no-cache", "huge.py", "good.py")  # two files: no pool, in this process
    assert "Traceback" not in run.stderr and "internal error" not in run.stderr, run.stderr
    assert "huge.py:1:1: RTL901 [unreadable-file] cannot lint the file: out of memory (MemoryError)" in run.stdout
    assert f"good.py:{BUGGY_LINE}:{BUGGY_COLUMN}: RTL001" in run.stdout


def test_system_errors_are_messages(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool.rtlint]\n")
    process = rtlint("--no-cache", "a" * 300 + ".py", cwd=tmp_path)
    # a name too long for the system is that file's RTL901, and the run goes on (exit 1)
    assert process.returncode == 1, process.stderr
    assert b"RTL901 [unreadable-file] cannot read file: File name too long" in process.stdout
    assert b"internal error" not in process.stderr
    closed = subprocess.run(
        [sys.executable, "-m", "rtlint", "check", "-"], cwd=tmp_path, stdin=subprocess.DEVNULL, capture_output=True
    )
    assert closed.returncode in (0, 1), closed.stderr  # an empty standard input: checked, nothing found
    gone = subprocess.run(
        [
            sys.executable,
            "-c",
            "import os, sys; os.close(0); sys.stdin = None; from rtlint.cli import main; "
            "sys.exit(main(['check', '-']))",
        ],
        cwd=tmp_path,
        capture_output=True,
        env=clean_env(PYTHONPATH=str(REPO)),
    )
    assert gone.returncode == 2 and b"standard input is closed" in gone.stderr, gone.stderr


# -- the lower items (issue 25, item 12) ---------------------------------------------------------


@pytest.mark.parametrize("where", ["/tmp/elsewhere", "../outside", "link/cache"])
def test_a_configured_cache_dir_stays_inside_the_checkout(tmp_path: Path, where: str) -> None:
    checkout = tmp_path / "checkout"
    checkout.mkdir()
    (tmp_path / "outside").mkdir()
    (checkout / "link").symlink_to(tmp_path / "outside")  # committed by a pull request
    (checkout / "pyproject.toml").write_text(f'[tool.rtlint]\ncache-dir = "{where}"\n')
    (checkout / "agent.py").write_text(BUGGY)
    process = rtlint(".", cwd=checkout)
    assert process.returncode == 2 and b"'cache-dir'" in process.stderr and b"--cache-dir" in process.stderr
    assert list((tmp_path / "outside").iterdir()) == []
    # the command line, which the user typed, may put it anywhere, and replaces the
    # configuration's (refused or not)
    given = rtlint("--cache-dir", str(tmp_path / "outside" / "c"), ".", cwd=checkout)
    assert given.returncode == 1, given.stderr
    assert sorted(p.name for p in (tmp_path / "outside").iterdir()) == ["c"]
    (checkout / "pyproject.toml").write_text("[tool.rtlint]\n")
    given = rtlint("--cache-dir", str(tmp_path / "outside" / "d"), ".", cwd=checkout)
    assert given.returncode == 1, given.stderr
    assert (tmp_path / "outside" / "d").is_dir()
    (checkout / "pyproject.toml").write_text('[tool.rtlint]\ncache-dir = "build/rtlint"\n')
    assert rtlint(".", cwd=checkout).returncode == 1
    assert (checkout / "build" / "rtlint").is_dir()


def test_fix_refuses_to_break_a_hard_link(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool.rtlint]\n")
    (tmp_path / "agent.py").write_text(BUGGY)
    os.link(tmp_path / "agent.py", tmp_path / "copy.txt")
    process = rtlint("--no-cache", "--fix", "agent.py", cwd=tmp_path)
    assert process.returncode == 2 and b"2 hard links" in process.stderr, process.stderr
    assert (tmp_path / "agent.py").read_text() == BUGGY == (tmp_path / "copy.txt").read_text()
    assert os.stat(tmp_path / "agent.py").st_nlink == 2
