"""Running the real CLI, in-process and as a subprocess; the repository's folders."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

# the cache key lives in the user's cache home: the tests (and the rtlint processes they
# start) use one of their own, not the real one
if "RTLINT_TEST_CACHE_HOME" not in os.environ:
    import tempfile

    os.environ["RTLINT_TEST_CACHE_HOME"] = os.environ["XDG_CACHE_HOME"] = tempfile.mkdtemp(prefix="rtlint-test-home-")
FIXTURES = REPO / "fixtures"


@dataclass
class Run:
    exit_code: int
    stdout: str
    stderr: str


def run_cli(*args: str, cwd: Path | None = None, env: dict | None = None) -> Run:
    """`rtlint ARGS` in a subprocess, as a user runs it."""
    full_env = {**os.environ, **(env or {})}
    process = subprocess.run(
        [sys.executable, "-m", "rtlint", *args],
        cwd=cwd,
        env=full_env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    return Run(process.returncode, process.stdout, process.stderr)


def run_main(*args: str, stdin: bytes | None = None) -> Run:
    """`rtlint ARGS` in this process (faster; same code path as the console script);
    `stdin` is what `rtlint check -` reads."""
    from rtlint.cli import main

    out, err = io.StringIO(), io.StringIO()
    code = main(list(args), stdout=out, stderr=err, stdin=io.BytesIO(stdin) if stdin is not None else None)
    return Run(code, out.getvalue(), err.getvalue())
