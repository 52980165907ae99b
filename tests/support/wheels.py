"""Released packages downloaded at test time (never committed): `pip download --no-deps`,
unpacked once into the test cache."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

from tests.support.offline import unavailable


def cache_root() -> Path:
    env = os.environ.get("RTLINT_TEST_CACHE")
    return Path(env) if env else Path.home() / ".cache" / "rtlint-tests"


def unpacked(requirement: str) -> Path:
    """The folder a wheel such as "livekit-agents==1.8.8" unpacks to; a failed download
    fails the test (tests.support.offline)."""
    target = cache_root() / "wheels" / requirement.replace("==", "-")
    marker = target / ".complete"
    if marker.exists():
        return target
    download = target.with_name(target.name + ".download")
    download.mkdir(parents=True, exist_ok=True)
    process = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "download",
            "--no-deps",
            "--only-binary=:all:",
            "-q",
            "-d",
            str(download),
            requirement,
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    wheels = sorted(download.glob("*.whl"))
    if process.returncode != 0 or not wheels:
        unavailable(requirement, process.stderr.strip()[-300:])
    target.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(wheels[0]) as archive:
        archive.extractall(target)
    marker.write_text("ok\n")
    return target


def agent_activity(version: str) -> Path:
    return unpacked(f"livekit-agents=={version}") / "livekit" / "agents" / "voice" / "agent_activity.py"
