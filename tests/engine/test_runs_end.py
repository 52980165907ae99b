"""Runs that end and one configuration per file (issue 15): a dead worker costs its own file
only; FIFOs, devices and links to them are refused before they are opened; every file gets
its nearest configuration whichever way it is reached; and the smaller items (python -m
rtlint's sys.path, --select=, temporary files, owner, xattrs, codecs)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from rtlint.api import fix_source
from rtlint.engine import writing
from tests.distribution.test_flake8 import flake8_lines
from tests.support.cli import REPO, run_cli, run_main
from tests.support.samples import BUGGY, BUGGY_COLUMN, BUGGY_LINE, clean_env

FIXED = fix_source(BUGGY, "agent.py").text


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "pyproject.toml").write_text("[tool.rtlint]\n")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def python_m_rtlint(*args: str, cwd: Path, timeout: float = 120) -> subprocess.CompletedProcess:
    env = clean_env(RTLINT_EXTRA_RULES="tests.support.fault_rules", PYTHONPATH=str(REPO))
    return subprocess.run(
        [sys.executable, "-m", "rtlint", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout
    )


# -- a dead worker -------------------------------------------------------------------------------


def test_a_dead_worker_is_an_error_for_its_file_only(project: Path) -> None:
    for i in range(20):
        (project / f"agent_{i:02d}.py").write_text(BUGGY)
    (project / "agent_07.py").write_text(BUGGY + "rtlint_die_in_worker()\n")
    process = python_m_rtlint("--no-cache", "--jobs", "2", ".", cwd=project)
    assert process.returncode == 2
    assert (
        "rtlint: error: agent_07.py: not linted: the worker process linting it died (killed by SIGKILL)"
        in process.stderr
    )
    reported = {line.split(":")[0] for line in process.stdout.splitlines()}
    assert reported == {f"agent_{i:02d}.py" for i in range(20) if i != 7}
    assert "Traceback" not in process.stderr


def test_a_dead_worker_during_fix_leaves_its_file_and_fixes_the_others(project: Path) -> None:
    for i in range(12):
        (project / f"agent_{i:02d}.py").write_text(BUGGY)
    dying = BUGGY + "rtlint_die_in_worker()\n"
    (project / "agent_03.py").write_text(dying)
    process = python_m_rtlint("--no-cache", "--jobs", "2", "--fix", ".", cwd=project)
    assert process.returncode == 2, process.stderr
    assert (project / "agent_03.py").read_text() == dying
    assert all((project / f"agent_{i:02d}.py").read_text() == FIXED for i in range(12) if i != 3)


# -- files that are not regular files ------------------------------------------------------------


@pytest.mark.parametrize("kind", ["fifo", "dev-zero-link", "device"])
def test_non_regular_files_are_refused_and_the_run_goes_on(project: Path, kind: str) -> None:
    odd = project / "x.py"
    if kind == "fifo":
        os.mkfifo(odd)
    elif kind == "dev-zero-link":
        odd.symlink_to("/dev/zero")
    else:
        odd = Path("/dev/null")
    (project / "good.py").write_text(BUGGY)
    run = run_cli("--no-cache", str(odd), "good.py", cwd=project)  # a hang would be the timeout
    assert run.exit_code == 1, run.stderr
    what = {"fifo": "a FIFO", "dev-zero-link": "a character device", "device": "a character device"}[kind]
    assert f"RTL901 [unreadable-file] cannot read file: not a regular file ({what})" in run.stdout
    assert f"good.py:{BUGGY_LINE}:{BUGGY_COLUMN}: RTL001" in run.stdout


# -- one configuration per file ------------------------------------------------------------------


def nested(root: Path) -> None:
    """a.py under the top configuration; sub/ ignores RTL001 in its pyproject.toml; other/
    in an .rtlint.toml; plain/ has a pyproject.toml without [tool.rtlint] (not a config)."""
    (root / "pyproject.toml").write_text("[tool.rtlint]\n")
    for folder, config in {
        "sub": ("pyproject.toml", '[tool.rtlint]\nignore = ["RTL001"]\n'),
        "other": (".rtlint.toml", 'ignore = ["RTL001"]\n'),
        "plain": ("pyproject.toml", "[project]\nname = 'x'\n"),
    }.items():
        (root / folder / "deep").mkdir(parents=True)
        (root / folder / config[0]).write_text(config[1])
        (root / folder / "b.py").write_text(BUGGY)
        (root / folder / "deep" / "c.py").write_text(BUGGY)
    (root / "a.py").write_text(BUGGY)


def reported_files(run) -> set[str]:
    return {line.split(":")[0] for line in run.stdout.splitlines()}


def test_a_walk_a_file_list_and_flake8_agree_on_nested_configurations(project: Path) -> None:
    nested(project)
    expected = {"a.py", "plain/b.py", "plain/deep/c.py"}
    assert reported_files(run_main("--no-cache", ".")) == expected
    files = ["a.py", "sub/b.py", "sub/deep/c.py", "other/b.py", "other/deep/c.py", "plain/b.py", "plain/deep/c.py"]
    assert reported_files(run_main("--no-cache", *files)) == expected
    for single in files:  # one file at a time, as pre-commit may pass them
        assert reported_files(run_main("--no-cache", single)) == ({single} & expected)
    assert reported_files(run_main("--no-cache", "sub", "other/deep")) == set()
    by_flake8 = {os.path.relpath(r[0], project) for r in flake8_lines(".", cwd=project)}
    assert by_flake8 == expected


def test_a_file_reached_twice_is_linted_and_fixed_once(project: Path) -> None:
    nested(project)
    run = run_main("--no-cache", "plain/b.py", ".")
    assert run.stdout.count("plain/b.py:") == 1
    fixed = run_main("--no-cache", "--fix", "plain/b.py", "a.py", ".")
    assert fixed.exit_code == 0, fixed.stderr
    assert (project / "plain" / "b.py").read_text() == FIXED


def test_a_broken_nested_configuration_is_an_error(project: Path) -> None:
    (project / "sub").mkdir()
    (project / "sub" / ".rtlint.toml").write_text("unknown-key = 1\n")
    (project / "sub" / "b.py").write_text(BUGGY)
    run = run_main("--no-cache", ".")
    assert run.exit_code == 2 and "unknown configuration key(s)" in run.stderr


# -- the smaller items ---------------------------------------------------------------------------


def test_python_m_rtlint_does_not_import_from_the_linted_folder(project: Path) -> None:
    (project / "agent.py").write_text(BUGGY)
    for name in ("json", "typing", "argparse", "tomllib"):
        (project / f"{name}.py").write_text(f"open({str(project / 'ran')!r} + '-{name}', 'w').close()\n")
    process = python_m_rtlint("--no-cache", "--format", "json", "agent.py", cwd=project)
    assert process.returncode == 1, process.stderr
    assert json.loads(process.stdout)[0]["code"] == "RTL001"
    assert not list(project.glob("ran-*"))


def test_empty_select_is_a_usage_error(project: Path) -> None:
    (project / "agent.py").write_text(BUGGY)
    for args in (["--select="], ["--select", ""], ["--select", " , "]):
        run = run_main(*args, "agent.py")
        assert run.exit_code == 2 and "expected one or more rule codes" in run.stderr, args


def test_stale_temporary_files_of_ours_are_removed(project: Path) -> None:
    (project / "agent.py").write_text(BUGGY)
    dead = project / ".agent.py.999999999.abcd_123.rtlint-tmp"  # no such process
    old_style = project / ".agent.py.k2j4h5g6.rtlint-tmp"
    alive = project / ".agent.py.1.abcd_123.rtlint-tmp"  # pid 1 runs
    someone_elses = project / ".agent.py.notours"
    for path in (dead, old_style, alive, someone_elses):
        path.write_text("partial")
    os.utime(old_style, (1, 1))
    writing._cleaned.clear()
    assert run_main("--no-cache", "--fix", "agent.py").exit_code == 0
    assert not dead.exists() and not old_style.exists()
    assert alive.exists() and someone_elses.exists()


def test_owner_group_and_xattrs_are_kept(project: Path) -> None:
    target = project / "agent.py"
    target.write_text(BUGGY)
    try:
        os.setxattr(target, "user.rtlint-test", b"kept")
    except OSError:
        pytest.skip("no user xattrs on this filesystem")
    if os.geteuid() == 0:
        os.chown(target, 4321, 4321)
    before = target.stat()
    assert run_main("--no-cache", "--fix", "agent.py").exit_code == 0
    after = target.stat()
    assert target.read_text() == FIXED and after.st_ino != before.st_ino  # really rewritten
    assert (after.st_uid, after.st_gid) == (before.st_uid, before.st_gid)
    assert os.getxattr(target, "user.rtlint-test") == b"kept"


@pytest.mark.parametrize(
    "cookie, untouched",
    [
        ("cp932", b"# \x87\x90\n"),  # NEC's U+2252; cp932 writes 81 E0
        ("utf-7", b"# +AGEAYgBj-\n"),  # "abc" shifted; utf-7 would write it plain
    ],
)
def test_bytes_outside_the_edits_are_kept_in_any_codec(project: Path, cookie: str, untouched: bytes) -> None:
    original = f"# -*- coding: {cookie} -*-\n".encode() + untouched + BUGGY.encode("ascii")
    assert original.decode(cookie).encode(cookie) != original  # the codec would re-encode it
    (project / "agent.py").write_bytes(original)
    assert run_main("--no-cache", "--fix", "agent.py").exit_code == 0
    result = (project / "agent.py").read_bytes()
    assert result.startswith(f"# -*- coding: {cookie} -*-\n".encode() + untouched)
    assert result.decode(cookie).endswith(FIXED)
