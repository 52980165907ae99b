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
    release_metadata(zipfile.ZipFile(wheel), names)


def release_metadata(wheel: zipfile.ZipFile, names: list[str]) -> None:
    """What a user (and an index) reads before installing: the license the package declares
    and its text, where the project lives, which Pythons it supports (issue 24: MIT was
    declared with no LICENSE file, and there were no URLs, authors or Python classifiers)."""
    import email

    [metadata] = [n for n in names if n.endswith(".dist-info/METADATA")]
    message = email.message_from_bytes(wheel.read(metadata))
    assert message["License-Expression"] == "MIT"
    assert message.get_all("License-File") == ["LICENSE"]
    [license_text] = [n for n in names if n.endswith(".dist-info/licenses/LICENSE")]
    assert wheel.read(license_text).decode().startswith("MIT License\n")
    assert message["Author"]
    urls = dict(u.split(", ", 1) for u in message.get_all("Project-URL"))
    assert {"Homepage", "Repository", "Issues", "Changelog"} <= set(urls)
    assert urls["Changelog"].endswith("/CHANGELOG.md")
    classifiers = message.get_all("Classifier")
    minimum = message["Requires-Python"].removeprefix(">=")
    assert f"Programming Language :: Python :: {minimum}" in classifiers
    assert not [c for c in classifiers if c.startswith("License ::")]  # the expression says it (PEP 639)


def test_release_files_exist() -> None:
    """The files a release is read by: the license, the changelog naming this version."""
    from rtlint import __version__

    assert (REPO / "LICENSE").read_text(encoding="utf-8").startswith("MIT License\n")
    changelog = (REPO / "CHANGELOG.md").read_text(encoding="utf-8")
    assert "## Unreleased\n" in changelog and f"\n## {__version__}\n" in changelog
