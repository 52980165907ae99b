"""What `pip install` puts in site-packages: rtlint and rtlint.rules, no top-level `rules`."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

from tests.support.cli import REPO


def test_wheel_ships_rules_as_rtlint_rules(tmp_path: Path) -> None:
    build = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(tmp_path),
            str(REPO),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    if build.returncode != 0 and "setuptools" in build.stderr:
        build = subprocess.run(  # no setuptools in this environment: let pip fetch it
            [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp_path), str(REPO)],
            capture_output=True,
            text=True,
            timeout=300,
        )
    assert build.returncode == 0, build.stderr
    [wheel] = tmp_path.glob("rtlint-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    tops = {name.split("/")[0] for name in names}
    assert "rules" not in tops and "tests" not in tops and "fixtures" not in tops
    for module in (
        "rtl001_stale_mirror_snapshot",
        "rtl002_late_local_commit",
        "rtl003_abandoned_items_guard",
        "rtl004_unserialized_push",
    ):
        assert f"rtlint/rules/{module}.py" in names
    metadata = next(n for n in names if n.endswith("entry_points.txt"))
    entry_points = zipfile.ZipFile(wheel).read(metadata).decode()
    assert "rtlint = rtlint.cli:main" in entry_points
    assert "RTL = rtlint.flake8:Plugin" in entry_points
