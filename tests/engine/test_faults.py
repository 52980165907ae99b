"""Fault injection for --fix (issues 2 and 8): a fix that breaks the code, a file changed
or removed while it is being fixed, read-only files and folders, a full disk, a failed
rename, signals in the middle of a run, symlinks out of the given paths. In every case the
file on disk is either exactly what it was or exactly the fixed version, no temporary file
is left behind, the failure is reported (with the rule's code where a rule is at fault) and
the run goes on with the other files.

The test-only rules of tests/support/fault_rules.py exercise the fix runner without the
real rules: RTL801 (a correct fix), RTL802 (its result does not parse), RTL803 (detection
crashes), RTL804 (the fix crashes), RTL805 (the fix does not remove its finding).
"""

from __future__ import annotations

import errno
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from rtlint.api import fix_source
from rtlint.engine import writing
from rtlint.engine.runner import Runner
from tests.support.cli import run_main
from tests.support.samples import BUGGY, BUGGY_COLUMN, BUGGY_LINE

FIXED = fix_source(BUGGY, "agent.py").text
TEMP_SUFFIX = ".rtlint-tmp"


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.fixture
def test_rules(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RTLINT_EXTRA_RULES", "tests.support.fault_rules")


def temp_files(root: Path) -> list[Path]:
    return [p for p in root.rglob("*") if p.name.endswith(TEMP_SUFFIX)]


def test_the_samples() -> None:
    assert FIXED != BUGGY and "async with self._rt_chat_ctx_lock:" in FIXED
    assert fix_source(FIXED, "agent.py").text == FIXED


# -- rules at fault --------------------------------------------------------------------------------


def test_fix_producing_invalid_code_leaves_the_file_untouched(project: Path, test_rules: None) -> None:
    broken = b"import os\r\n\r\nrtlint_marker(1)  # \xc3\xa9\r\nrtlint_break_me()\r\n"
    (project / "broken.py").write_bytes(broken)
    (project / "fine.py").write_text("rtlint_marker(2)\n")
    run = run_main("--no-cache", "--fix", "broken.py", "fine.py")
    assert run.exit_code == 2
    assert (project / "broken.py").read_bytes() == broken  # the good fix in it is not applied either
    assert "rtlint: error: broken.py: RTL802 fix not applied: the result does not parse (line 4: " in run.stderr
    assert "RTL801" not in run.stderr  # the rule at fault is named, not every rule of the pass
    # still reported, at their lines
    assert "broken.py:3:1: RTL801 [test-good-fix]" in run.stdout
    assert "broken.py:4:1: RTL802 [test-broken-fix]" in run.stdout
    # the run went on
    assert (project / "fine.py").read_text() == "rtlint_fixed(2)\n"


def test_crashing_fix_leaves_the_file_untouched(project: Path, test_rules: None) -> None:
    (project / "crash.py").write_text("rtlint_marker(1)\nrtlint_crash_fix()\n")
    run = run_main("--no-cache", "--fix", "crash.py")
    assert run.exit_code == 2
    assert (project / "crash.py").read_text() == "rtlint_marker(1)\nrtlint_crash_fix()\n"
    assert (
        "rtlint: error: crash.py: RTL804 fix crashed: ZeroDivisionError: the test fix crashed on purpose" in run.stderr
    )


def test_fix_that_does_not_remove_its_finding_is_refused(project: Path, test_rules: None) -> None:
    (project / "stubborn.py").write_text("rtlint_stubborn()\n")
    run = run_main("--no-cache", "--fix", "stubborn.py")
    assert run.exit_code == 2
    assert (project / "stubborn.py").read_text() == "rtlint_stubborn()\n"
    assert "RTL805 fix not applied: re-linting the result still reports RTL805" in run.stderr


def test_crashing_rule_is_an_internal_error_and_the_others_still_run(project: Path, test_rules: None) -> None:
    (project / "a.py").write_text("rtlint_crash_check()\nrtlint_marker(1)\n")
    (project / "b.py").write_text(BUGGY)
    run = run_main("--no-cache", "a.py", "b.py")
    assert run.exit_code == 2
    assert (
        "a.py:1:1: RTL902 [internal-error] RTL803 crashed: RuntimeError: the test rule crashed on purpose" in run.stdout
    )
    assert "a.py:2:1: RTL801 [test-good-fix]" in run.stdout
    assert f"b.py:{BUGGY_LINE}:{BUGGY_COLUMN}: RTL001" in run.stdout
    assert "Traceback" not in run.stderr


def test_broken_fix_through_the_api_changes_nothing(test_rules: None) -> None:
    text = "rtlint_marker(1)\nrtlint_break_me()\n"
    result = fix_source(text, "x.py")
    assert result.text == text and result.applied == []
    assert result.failure.startswith("RTL802 fix not applied: the result does not parse")
    assert [(f.line, f.code) for f in result.remaining] == [(1, "RTL801"), (2, "RTL802")]


# -- the file changes under our feet ---------------------------------------------------------------


def _after_processing(monkeypatch: pytest.MonkeyPatch, action) -> None:
    """Run `action(path)` once a file has been read and fixed in memory, before it is written."""
    real_process = Runner.process

    def process(self, job):
        report = real_process(self, job)
        action(job.target.path)
        return report

    monkeypatch.setattr(Runner, "process", process)


def test_file_modified_between_read_and_write_is_not_overwritten(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (project / "agent.py").write_text(BUGGY)
    (project / "other.py").write_text(BUGGY)
    edited = BUGGY + "# the user's edit\n"

    def edit(path: Path) -> None:
        if path.name == "agent.py":
            path.write_text(edited)

    _after_processing(monkeypatch, edit)
    run = run_main("--no-cache", "--jobs", "1", "--fix", "agent.py", "other.py")
    assert run.exit_code == 2
    assert (project / "agent.py").read_text() == edited
    assert "agent.py changed on disk while it was being fixed; not written" in run.stderr
    assert (project / "other.py").read_text() == FIXED
    assert temp_files(project) == []


def test_file_deleted_between_read_and_write_is_not_recreated(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (project / "agent.py").write_text(BUGGY)
    _after_processing(monkeypatch, lambda path: path.unlink())
    run = run_main("--no-cache", "--fix", "agent.py")
    assert run.exit_code == 2
    assert not (project / "agent.py").exists()
    # (the reason given is "it links to a file outside the given paths": rtlint/commands/check.py works out
    # the writable paths after the run, when the file is gone; what matters is that it is not
    # recreated)
    assert "rtlint: error: agent.py: not written: " in run.stderr
    assert temp_files(project) == []


def test_a_file_not_written_still_reports_its_findings(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (project / "agent.py").write_text(BUGGY)
    _after_processing(monkeypatch, lambda path: path.write_text(BUGGY + "# edit\n"))
    run = run_main("--no-cache", "--fix", "agent.py")
    assert f"agent.py:{BUGGY_LINE}:{BUGGY_COLUMN}: RTL001" in run.stdout


def test_write_atomically_refuses_changed_content(tmp_path: Path) -> None:
    path = tmp_path / "a.py"
    path.write_bytes(b"new content\n")
    with pytest.raises(writing.FileChanged):
        writing.write_atomically(path, b"fixed\n", b"old content\n")
    assert path.read_bytes() == b"new content\n"
    assert temp_files(tmp_path) == []


def test_file_modified_while_the_temporary_file_is_written(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The check is made again just before the rename: an edit saved during the write wins."""
    path = tmp_path / "a.py"
    path.write_bytes(b"old\n")
    real_fsync = os.fsync

    def fsync(fd: int) -> None:
        real_fsync(fd)
        path.write_bytes(b"the user's edit\n")

    monkeypatch.setattr(os, "fsync", fsync)
    with pytest.raises(writing.FileChanged):
        writing.write_atomically(path, b"fixed\n", b"old\n")
    assert path.read_bytes() == b"the user's edit\n"
    assert temp_files(tmp_path) == []


# -- permissions -------------------------------------------------------------------------------------


def test_read_only_file_is_reported_and_the_run_goes_on(project: Path) -> None:
    (project / "locked.py").write_text(BUGGY)
    (project / "locked.py").chmod(0o444)
    (project / "open.py").write_text(BUGGY)
    run = run_main("--no-cache", "--fix", "locked.py", "open.py")
    assert run.exit_code == 2
    assert "rtlint: error: locked.py: not written: the file is read-only" in run.stderr
    assert (project / "locked.py").read_text() == BUGGY
    assert (project / "locked.py").stat().st_mode & 0o777 == 0o444
    assert (project / "open.py").read_text() == FIXED
    assert temp_files(project) == []


@pytest.mark.skipif(os.geteuid() == 0, reason="root may create files in a read-only folder")
def test_read_only_folder_is_reported_and_the_run_goes_on(project: Path) -> None:
    (project / "frozen").mkdir()
    (project / "frozen" / "agent.py").write_text(BUGGY)
    (project / "open.py").write_text(BUGGY)
    (project / "frozen").chmod(0o555)
    try:
        run = run_main("--no-cache", "--fix", "frozen", "open.py")
    finally:
        (project / "frozen").chmod(0o755)
    assert run.exit_code == 2
    assert "frozen/agent.py: not written: Permission denied" in run.stderr
    assert (project / "frozen" / "agent.py").read_text() == BUGGY
    assert (project / "open.py").read_text() == FIXED


def test_read_only_folder_simulated(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Whoever runs the tests: creating the temporary file in the folder fails with EACCES."""
    (project / "frozen").mkdir()
    (project / "frozen" / "agent.py").write_text(BUGGY)
    (project / "open.py").write_text(BUGGY)
    real_mkstemp = tempfile.mkstemp

    def mkstemp(*args, dir=None, **kwargs):
        if dir is not None and Path(dir).name == "frozen":
            raise PermissionError(errno.EACCES, "Permission denied", str(dir))
        return real_mkstemp(*args, dir=dir, **kwargs)

    monkeypatch.setattr(tempfile, "mkstemp", mkstemp)
    run = run_main("--no-cache", "--fix", "frozen", "open.py")
    assert run.exit_code == 2
    assert "frozen/agent.py: not written: Permission denied" in run.stderr
    assert (project / "frozen" / "agent.py").read_text() == BUGGY
    assert (project / "open.py").read_text() == FIXED


# -- the disk fails ----------------------------------------------------------------------------------


class _FailingWrite:
    """A file object that writes half of what it is given, then reports a full disk."""

    def __init__(self, handle):
        self.handle = handle

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.handle.close()
        return False

    def write(self, data: bytes) -> int:
        self.handle.write(data[: len(data) // 2])
        self.handle.flush()
        raise OSError(errno.ENOSPC, "No space left on device")

    def __getattr__(self, name):
        return getattr(self.handle, name)


def _temporary_fds(monkeypatch: pytest.MonkeyPatch) -> set[int]:
    """The descriptors of temporary files rtlint creates from now on."""
    created: set[int] = set()
    real_mkstemp = tempfile.mkstemp

    def mkstemp(*args, **kwargs):
        fd, name = real_mkstemp(*args, **kwargs)
        if name.endswith(TEMP_SUFFIX):
            created.add(fd)
        return fd, name

    monkeypatch.setattr(tempfile, "mkstemp", mkstemp)
    return created


FAULTS = [
    "disk-full-on-write",
    "disk-full-on-fsync",
    "chmod-fails",
    "rename-fails",
    "rename-interrupted",
    "fsync-interrupted",
]


@pytest.mark.parametrize("fault", FAULTS)
def test_failed_write_keeps_the_original_and_removes_the_temporary_file(
    project: Path, monkeypatch: pytest.MonkeyPatch, fault: str
) -> None:
    (project / "first.py").write_text(BUGGY)
    (project / "second.py").write_text(BUGGY)
    fds = _temporary_fds(monkeypatch)
    failures = {"left": 1}  # only the first file's write fails: the run goes on with the second

    def once(exception: BaseException, real):
        def fake(*args, **kwargs):
            if failures["left"]:
                failures["left"] -= 1
                raise exception
            return real(*args, **kwargs)

        return fake

    if fault == "disk-full-on-write":
        real_fdopen = os.fdopen

        def fdopen(fd, *args, **kwargs):
            handle = real_fdopen(fd, *args, **kwargs)
            if fd in fds and failures["left"]:
                failures["left"] -= 1
                return _FailingWrite(handle)
            return handle

        monkeypatch.setattr(os, "fdopen", fdopen)
    elif fault == "disk-full-on-fsync":
        monkeypatch.setattr(os, "fsync", once(OSError(errno.ENOSPC, "No space left on device"), os.fsync))
    elif fault == "chmod-fails":
        monkeypatch.setattr(os, "chmod", once(OSError(errno.EPERM, "Operation not permitted"), os.chmod))
    elif fault == "rename-fails":
        monkeypatch.setattr(os, "replace", once(OSError(errno.EXDEV, "Invalid cross-device link"), os.replace))
    elif fault == "rename-interrupted":  # a Ctrl-C at the worst moment
        monkeypatch.setattr(os, "replace", once(KeyboardInterrupt(), os.replace))
    elif fault == "fsync-interrupted":
        monkeypatch.setattr(os, "fsync", once(KeyboardInterrupt(), os.fsync))

    run = run_main("--no-cache", "--jobs", "1", "--fix", "first.py", "second.py")
    assert (project / "first.py").read_text() == BUGGY
    assert temp_files(project) == []
    if "interrupted" in fault:
        assert run.exit_code == 130 and "rtlint: interrupted" in run.stderr
        assert (project / "second.py").read_text() == BUGGY  # the run stopped there
    else:
        expected = {
            "disk-full-on-write": "No space left on device",
            "disk-full-on-fsync": "No space left on device",
            "chmod-fails": "Operation not permitted",
            "rename-fails": "Invalid cross-device link",
        }[fault]
        assert run.exit_code == 2
        assert f"rtlint: error: first.py: not written: {expected}" in run.stderr
        assert (project / "second.py").read_text() == FIXED


# -- signals in the middle of a run -------------------------------------------------------------------


def _wait_for_the_first_write(folder: Path, process: subprocess.Popen, timeout: float = 60) -> None:
    """Return as soon as rtlint starts writing into `folder` (its mtime changes when the first
    temporary file is created), or when the process ends."""
    before = folder.stat().st_mtime_ns
    deadline = time.monotonic() + timeout
    while folder.stat().st_mtime_ns == before and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.002)  # polling for the moment to interrupt: the test's subject is the timing


@pytest.mark.parametrize(
    "signum, target, moment",
    [
        (signal.SIGINT, "group", "first-write"),  # Ctrl-C in a terminal: the whole process group
        (signal.SIGTERM, "process", "writing"),  # a CI runner cancelling the job
        (signal.SIGINT, "process", "analysis"),
        (signal.SIGTERM, "group", "analysis"),
    ],
    ids=["sigint-group-first-write", "sigterm-writing", "sigint-analysis", "sigterm-group-analysis"],
)
def test_signal_during_fix_leaves_every_file_whole(tmp_path: Path, signum: int, target: str, moment: str) -> None:
    folder = tmp_path / "agents"
    folder.mkdir()
    for i in range(300):
        (folder / f"agent_{i:03d}.py").write_text(BUGGY)
    process = subprocess.Popen(
        [sys.executable, "-m", "rtlint", "--no-cache", "--fix", "agents"],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its own process group, to signal it as a terminal would
    )
    try:
        if moment == "first-write":
            _wait_for_the_first_write(folder, process)
        elif moment == "writing":
            _wait_for_the_first_write(folder, process)
            time.sleep(0.02)  # some files written, some not (a delay: the assertions hold for any)
        else:
            time.sleep(0.3)  # a delay, whatever the process is doing by then
        if process.poll() is None:
            if target == "group":
                os.killpg(process.pid, signum)
            else:
                os.kill(process.pid, signum)
        stdout, stderr = process.communicate(timeout=120)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
    states = {"original": 0, "fixed": 0}
    for path in folder.iterdir():
        content = path.read_text()
        assert content in (BUGGY, FIXED), f"{path.name} is neither the original nor the fixed version"
        states["original" if content == BUGGY else "fixed"] += 1
    assert temp_files(tmp_path) == []
    assert sum(states.values()) == 300
    # 130 for Ctrl-C, 143 for SIGTERM (-signum: the signal came before rtlint could catch it)
    assert process.returncode in (0, 130 if signum == signal.SIGINT else 143, -signum), (process.returncode, stderr)
    if process.returncode in (130, 143):
        assert "rtlint: interrupted" in stderr
        assert "Traceback" not in stderr, stderr
    if process.returncode == 0:
        assert states["fixed"] == 300
    # whatever was interrupted, the next run finishes the job
    again = subprocess.run(
        [sys.executable, "-m", "rtlint", "--no-cache", "--fix", "agents"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert again.returncode == 0, again.stderr
    assert all(path.read_text() == FIXED for path in folder.iterdir())


# -- symlinks and the given paths ---------------------------------------------------------------------


def _snapshot(root: Path, skip: Path | None = None) -> dict[str, tuple[bytes, int]]:
    """Every file under `root` (not following folder links), with its content and mtime."""
    result = {}
    for directory, folders, files in os.walk(root):
        if skip is not None and Path(directory) == skip:
            folders[:] = []
            continue
        for name in files:
            path = Path(directory) / name
            if path.is_symlink():
                result[str(path)] = (os.readlink(path).encode(), 0)
            else:
                result[str(path)] = (path.read_bytes(), path.stat().st_mtime_ns)
    return result


def test_symlink_to_a_file_outside_the_given_paths_is_not_written(project: Path) -> None:
    (project / "outside").mkdir()
    (project / "outside" / "target.py").write_text(BUGGY)
    (project / "proj").mkdir()
    (project / "proj" / "own.py").write_text(BUGGY)
    (project / "proj" / "link.py").symlink_to("../outside/target.py")
    for args in (["proj"], ["proj/link.py", "proj/own.py"]):
        (project / "proj" / "own.py").write_text(BUGGY)
        run = run_main("--no-cache", "--fix", *args)
        assert run.exit_code == 2
        assert "rtlint: error: proj/link.py: not written: it links to a file outside the given paths" in run.stderr
        assert (project / "outside" / "target.py").read_text() == BUGGY
        assert (project / "proj" / "link.py").is_symlink()
        assert (project / "proj" / "own.py").read_text() == FIXED


def test_a_file_and_a_link_to_it_are_fixed_once(project: Path) -> None:
    (project / "proj").mkdir()
    (project / "proj" / "agent.py").write_text(BUGGY)
    (project / "proj" / "alias.py").symlink_to("agent.py")
    run = run_main("--no-cache", "--fix", "proj")
    assert run.exit_code == 0, run.stderr
    assert (project / "proj" / "agent.py").read_text() == FIXED
    assert (project / "proj" / "alias.py").is_symlink()
    assert "Fixed 1 finding in 1 file." in run.stderr


def test_fix_never_writes_outside_the_given_paths(project: Path) -> None:
    given = project / "repo" / "src"
    given.mkdir(parents=True)
    (given / "agent.py").write_text(BUGGY)
    (project / "repo" / "sibling.py").write_text(BUGGY)  # beside the given folder
    (project / "elsewhere").mkdir()
    (project / "elsewhere" / "shared.py").write_text(BUGGY)
    (given / "to_sibling.py").symlink_to("../sibling.py")  # a file link out of the given folder
    (given / "to_elsewhere").symlink_to("../../elsewhere", target_is_directory=True)  # a folder link
    (given / "pkg").mkdir()
    (given / "pkg" / "deep.py").write_text(BUGGY)
    before = _snapshot(project, skip=given)
    run = run_main("--fix", "repo/src")  # the cache is on by default: --fix must not write it either
    assert run.exit_code == 2  # the link to sibling.py is reported
    assert _snapshot(project, skip=given) == before
    assert (given / "agent.py").read_text() == FIXED and (given / "pkg" / "deep.py").read_text() == FIXED
    assert sorted(p.name for p in given.rglob("*")) == ["agent.py", "deep.py", "pkg", "to_elsewhere", "to_sibling.py"]


def test_fixes_run_in_a_subprocess_too(project: Path) -> None:
    """The engine-level faults above run in-process; the command itself behaves the same."""
    (project / "locked.py").write_text(BUGGY)
    (project / "locked.py").chmod(0o444)
    process = subprocess.run(
        [sys.executable, "-m", "rtlint", "--no-cache", "--fix", "locked.py"],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert process.returncode == 2
    assert "locked.py: not written: the file is read-only" in process.stderr
    assert (project / "locked.py").read_text() == BUGGY
