"""Real corpora (issue 8): the running interpreter's standard library and the livekit-agents
1.8.8 wheel with its plugin wheels. No crash, no internal error (RTL902), and no finding at
all in the standard library: any finding there is a false positive, and the test lists it.

The pre-filter skips every standard library file (none pushes a chat context), so the
analysis itself is also run with the pre-filter defeated (`rtlint.api.check_source` runs
every rule on every file), on every file or on RTLINT_STDLIB_SAMPLE of them (default "all").
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import warnings
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pytest

from rtlint.api import check_source
from rtlint.core.source import Source, UnreadableSource
from tests.support import wheels

LIVEKIT = [
    "livekit-agents==1.8.8",
    # the plugins with realtime sessions first, then others of the same release
    "livekit-plugins-openai==1.8.8",
    "livekit-plugins-google==1.8.8",
    "livekit-plugins-aws==1.8.8",
    "livekit-plugins-azure==1.8.8",
    "livekit-plugins-anthropic==1.8.8",
    "livekit-plugins-deepgram==1.8.8",
    "livekit-plugins-silero==1.8.8",
    "livekit-plugins-elevenlabs==1.8.8",
    "livekit-plugins-cartesia==1.8.8",
    "livekit-plugins-turn-detector==1.8.8",
]


def _rtlint(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "rtlint", *args], cwd=cwd, capture_output=True, text=True, timeout=600)


def _cpython_rejects(path: Path) -> bool:
    """Whether this interpreter itself cannot compile the file (deliberately broken test data)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            compile(path.read_bytes(), str(path), "exec", dont_inherit=True)
            return False
        except (SyntaxError, ValueError):
            return True


def _lint_one(path: str) -> tuple[str, int, list[tuple[int, str, str]]]:
    """(path, lines, findings) with every rule run, pre-filter or not; (path, -1, []) when
    the file cannot be read as text."""
    try:
        source = Source.from_bytes(Path(path).read_bytes())
    except UnreadableSource:
        return path, -1, []
    findings = check_source(source.text, path)
    return path, source.text.count("\n"), [(f.line, f.code, f.message) for f in findings]


def _lint_all(paths: list[Path]) -> list[tuple[str, int, list[tuple[int, str, str]]]]:
    with ProcessPoolExecutor(max_workers=min(4, os.cpu_count() or 1)) as pool:
        return list(pool.map(_lint_one, [str(p) for p in paths], chunksize=8))


def _digest(root: Path) -> dict[str, str]:
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


# -- the standard library ------------------------------------------------------------------------


@pytest.fixture(scope="module")
def stdlib(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the standard library's Python files (without site-packages). A copy, because
    the interpreter may live in an ignored folder of a git checkout (pyenv's `versions/`),
    which rtlint, like git, would skip; the empty `.git` makes the copy a repository of its own."""
    source = Path(sysconfig.get_paths()["stdlib"])
    target = tmp_path_factory.mktemp("corpora") / "stdlib"

    def ignore(folder: str, names: list[str]) -> list[str]:
        return [
            n
            for n in names
            if n in ("site-packages", "__pycache__") or (Path(folder, n).is_file() and not n.endswith(".py"))
        ]

    shutil.copytree(source, target, ignore=ignore, symlinks=True)
    (target / ".git").mkdir()
    return target


def test_stdlib_command_line_no_crash_no_finding(stdlib: Path) -> None:
    files = sorted(stdlib.rglob("*.py"))
    lines = sum(p.read_bytes().count(b"\n") for p in files)
    run = _rtlint("--no-cache", "--format", "json", ".", cwd=stdlib)
    assert "Traceback" not in run.stderr and "internal error" not in run.stderr, run.stderr
    assert run.returncode in (0, 1), run.stderr
    findings = json.loads(run.stdout)
    assert [f for f in findings if f["code"] == "RTL902"] == []
    # engine findings only for files CPython itself refuses (test data broken on purpose)
    unreadable = [f for f in findings if f["code"] in ("RTL900", "RTL901")]
    assert all(_cpython_rejects(stdlib / f["path"]) for f in unreadable), unreadable
    false_positives = [f"{f['path']}:{f['line']}: {f['code']} {f['message']}" for f in findings if f not in unreadable]
    assert false_positives == [], "false positives in the standard library:\n" + "\n".join(false_positives)
    print(
        f"\nstdlib: {len(files)} files, {lines} lines; "
        f"findings: {len(false_positives)} (+{len(unreadable)} on files CPython refuses)"
    )
    assert len(files) > 500


def test_stdlib_fix_writes_nothing(stdlib: Path) -> None:
    """--fix on a tree with nothing to fix rewrites no file (not even byte-identically)."""
    before = _digest(stdlib)
    mtimes = {p: p.stat().st_mtime_ns for p in stdlib.rglob("*.py")}
    run = _rtlint("--no-cache", "--fix", ".", cwd=stdlib)
    assert run.returncode in (0, 1) and "error" not in run.stderr, run.stderr
    assert _digest(stdlib) == before
    assert {p: p.stat().st_mtime_ns for p in stdlib.rglob("*.py")} == mtimes


def test_stdlib_analysis_without_the_prefilter(stdlib: Path) -> None:
    files = sorted(stdlib.rglob("*.py"))
    wanted = os.environ.get("RTLINT_STDLIB_SAMPLE", "all")
    if wanted != "all" and int(wanted) < len(files):
        step = len(files) / int(wanted)
        files = [files[int(i * step)] for i in range(int(wanted))]
    results = _lint_all(files)
    crashes, false_positives, lines, analysed = [], [], 0, 0
    for path, count, findings in results:
        if count < 0:
            continue
        analysed += 1
        lines += count
        for line, code, message in findings:
            if code == "RTL902":
                crashes.append(f"{path}:{line}: {message}")
            elif code == "RTL900" and _cpython_rejects(Path(path)):
                continue
            else:
                false_positives.append(f"{path}:{line}: {code} {message}")
    assert crashes == [], "\n".join(crashes)
    assert false_positives == [], "false positives in the standard library:\n" + "\n".join(false_positives)
    print(f"\nstdlib, every rule on every file: {analysed} files, {lines} lines, 0 findings")
    assert analysed >= min(len(files), 300) - 5


# -- livekit-agents 1.8.8 and its plugins ---------------------------------------------------------


@pytest.fixture(scope="module")
def livekit() -> list[Path]:
    return [wheels.unpacked(requirement) for requirement in LIVEKIT]


def test_livekit_wheels_no_crash(livekit: list[Path], tmp_path: Path) -> None:
    paths = [str(p) for p in livekit]
    run = _rtlint("--no-cache", "--format", "json", *paths, cwd=tmp_path)
    assert "Traceback" not in run.stderr and "error" not in run.stderr, run.stderr
    assert run.returncode == 1  # agent_activity.py has the bugs of design.md
    findings = json.loads(run.stdout)
    assert [f for f in findings if f["code"].startswith("RTL9")] == []
    assert any(f["path"].endswith("voice/agent_activity.py") for f in findings)
    print("\nlivekit findings:\n" + "\n".join(f"{f['path']}:{f['line']}: {f['code']}" for f in findings))


def test_livekit_wheels_fixes_verify(livekit: list[Path], tmp_path: Path) -> None:
    """Every fix the wheels get is built and verified without a failure (--diff: nothing written)."""
    before = [_digest(p) for p in livekit]
    run = _rtlint("--no-cache", "--diff", "--unsafe-fixes", *[str(p) for p in livekit], cwd=tmp_path)
    assert "error" not in run.stderr and "Traceback" not in run.stderr, run.stderr
    assert run.returncode == 1 and "\n+++ " in run.stdout and "agent_activity.py" in run.stdout
    assert [_digest(p) for p in livekit] == before


def test_livekit_wheels_analysis_without_the_prefilter(livekit: list[Path]) -> None:
    files = sorted(p for root in livekit for p in root.rglob("*.py"))
    results = _lint_all(files)
    crashes = [
        f"{path}:{line}: {code} {message}"
        for path, _, found in results
        for line, code, message in found
        if code.startswith("RTL9")
    ]
    assert crashes == [], "\n".join(crashes)
    print(
        f"\nlivekit wheels, every rule on every file: {len(files)} files, "
        f"{sum(c for _, c, _ in results if c > 0)} lines"
    )
