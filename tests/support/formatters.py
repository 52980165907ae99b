"""ruff and black, installed at test time into a cached venv of their own (never a
dependency of rtlint): the judges of whether fixed code passes a project's formatter."""

from __future__ import annotations

import subprocess
import sys
import venv
from pathlib import Path

from tests.support.offline import unavailable
from tests.support.wheels import cache_root

# pinned so that a new formatter release cannot change what the tests expect (ruff as bench/)
REQUIREMENTS = ["ruff==0.17.6", "black==26.10.1"]


def formatter_bin(name: str) -> Path:
    """The path of `ruff` or `black`; a failed install fails the test (tests.support.offline)."""
    py = f"py{sys.version_info.major}{sys.version_info.minor}"
    folder = cache_root() / f"formatters-{'-'.join(r.replace('==', '') for r in REQUIREMENTS)}-{py}"
    marker = folder / ".complete"
    if not marker.exists():
        venv.EnvBuilder(clear=True, with_pip=True).create(folder)
        process = subprocess.run(
            [str(folder / "bin" / "python"), "-m", "pip", "install", "-q", *REQUIREMENTS],
            capture_output=True,
            text=True,
            timeout=600,
        )
        if process.returncode != 0:
            unavailable(" ".join(REQUIREMENTS), process.stderr.strip()[-300:])
        marker.write_text("ok\n")
    return folder / "bin" / name
