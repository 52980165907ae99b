"""One version of rtlint over one unpacked package: `python -m rtlint check --format json
--select RTL --no-cache .` in the package's folder, in its own process with a timeout. Wall
time is measured around it and memory is the peak resident set of the largest process of its
tree (`os.wait4`, as bench/timing.py does). A run that times out, exits with a status other
than 0 or 1, or prints no JSON list is a crash; so is every RTL902 (an internal error)."""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from bench.ecosystem.versions import Version

LINT_TIMEOUT = 120.0  # seconds for one package
EMPTY_CONFIG = "# rtlint's defaults: a package's own pyproject.toml must not change what is checked\n"


@dataclass(frozen=True, order=True)
class Finding:
    path: str
    line: int
    code: str
    message: str
    column: int = 0

    @property
    def engine_error(self) -> bool:  # RTL900 syntax error, RTL901 unreadable, RTL902 internal error
        return self.code.startswith("RTL9")


@dataclass
class Outcome:
    findings: list[Finding] = field(default_factory=list)
    wall: float = 0.0
    rss_kib: int = 0
    crash: str = ""  # why the run failed, "" when it did not

    @property
    def crashed(self) -> bool:
        return bool(self.crash) or any(f.code == "RTL902" for f in self.findings)


def parse_findings(stdout: str) -> list[Finding]:
    data = json.loads(stdout)
    if not isinstance(data, list):
        raise ValueError("the JSON output is not a list")
    out = []
    for item in data:
        path = str(item["path"]).replace(os.sep, "/").removeprefix("./")
        out.append(
            Finding(path, int(item["line"]), str(item["code"]), str(item["message"]), int(item.get("column") or 0))
        )
    return sorted(out)


def lint(
    version: Version, tree: Path, config: Path, timeout: float = LINT_TIMEOUT, every_file: bool = False
) -> Outcome:
    """every_file: name each .py file on the command line, so that rtlint parses all of them
    (a file found by walking a folder is parsed only when it holds a rule's vocabulary)."""
    targets = python_files(tree) if every_file else ["."]
    argv = [
        version.python,
        "-m",
        "rtlint",
        "check",
        "--format",
        "json",
        "--select",
        "RTL",
        "--no-cache",
        "--config",
        str(config),
        *targets,
    ]
    env = {**os.environ, "PYTHONPATH": str(version.pythonpath), "PYTHONDONTWRITEBYTECODE": "1"}
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        process = subprocess.Popen(
            argv, cwd=tree, env=env, stdin=subprocess.DEVNULL, stdout=out, stderr=err, start_new_session=True
        )
        timer = threading.Timer(timeout, lambda: os.killpg(process.pid, 9))
        timer.start()
        try:
            _, status, usage = os.wait4(process.pid, 0)
        finally:
            timer.cancel()
        wall = time.perf_counter() - start
        process.returncode = code = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read().decode("utf-8", "replace"), err.read().decode("utf-8", "replace")
    outcome = Outcome(wall=wall, rss_kib=usage.ru_maxrss)
    if wall >= timeout and code < 0:
        outcome.crash = f"timed out after {timeout:.0f} s"
        return outcome
    try:
        outcome.findings = parse_findings(stdout)
    except (ValueError, KeyError, TypeError) as exc:
        outcome.crash = f"exit {code}, no JSON findings ({exc}): {stderr.strip()[-500:]}"
        return outcome
    if code not in (0, 1):
        outcome.crash = f"exit {code}: {stderr.strip()[-500:]}"
    return outcome


def python_files(tree: Path) -> list[str]:
    """The .py files of an unpacked package relative to it, sorted (its .git marker left out)."""
    found = []
    for folder, dirs, names in os.walk(tree):
        dirs[:] = [d for d in dirs if d != ".git"]
        found += [os.path.relpath(os.path.join(folder, n), tree) for n in names if n.endswith(".py")]
    return sorted(found)


def count(tree: Path) -> tuple[int, int]:
    """Python files and lines of an unpacked package."""
    files = python_files(tree)
    return len(files), sum((tree / f).read_bytes().count(b"\n") for f in files)
