"""Downloads and unpacks the wheels of the package list, cached under
bench/.corpora/ecosystem/ (git-ignored): `pip download --no-deps --only-binary=:all: NAME==VER`,
one package a process with its own timeout. A package pip cannot give a wheel for is skipped,
and the reason (pip's own last line) is remembered in skipped.json, so a warm run asks pip
nothing; `--retry-skipped` asks again."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from bench.ecosystem.packages import Package

ROOT = Path(__file__).resolve().parent.parent / ".corpora" / "ecosystem"
DOWNLOAD_TIMEOUT = 180  # seconds for one package's `pip download`


@dataclass
class Fetched:
    package: Package
    tree: Path | None  # the unpacked wheel, None when skipped
    reason: str = ""  # why skipped


def _wheel_name(package: Package) -> str:
    return package.name.replace("-", "_").lower()


def _find_wheel(downloads: Path, package: Package) -> Path | None:
    stem = _wheel_name(package)
    for wheel in sorted(downloads.glob("*.whl")):
        name, _, rest = wheel.name.partition("-")
        if name.lower().replace(".", "_") == stem and rest.split("-", 1)[0] == package.version:
            return wheel
    return None


# a wheel is only read, never installed: one made for a newer Python is linted all the same
NEWER_PYTHONS = ("3.13", "3.12")


def _reason(stderr: str) -> str:
    lines = [line.strip().removeprefix("ERROR: ") for line in stderr.splitlines() if line.startswith("ERROR")]
    reason = " / ".join(lines)[:400] or "pip download failed"
    if "(from versions: none)" in reason and "Requires-Python" not in reason:
        reason = "no wheel for this platform (an sdist is never built): " + reason
    return reason


def _pip_download(package: Package, downloads: Path, timeout: float, python_version: str | None) -> str:
    argv = [
        sys.executable,
        "-m",
        "pip",
        "download",
        "--no-deps",
        "--only-binary=:all:",
        "-q",
        "--disable-pip-version-check",
        "-d",
        str(downloads),
        package.pin,
    ]
    if python_version:
        argv[4:4] = ["--python-version", python_version]
    try:
        process = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        return f"pip download timed out after {timeout:.0f} s"
    if process.returncode != 0:
        return _reason(process.stderr)
    return "" if _find_wheel(downloads, package) else "pip downloaded no wheel of that version"


def _download(package: Package, downloads: Path, timeout: float) -> str:
    """Returns "" when the wheel is there, else the reason (pip's error lines)."""
    reason = _pip_download(package, downloads, timeout, None)
    for version in NEWER_PYTHONS:
        if not reason or "Requires-Python" not in reason:
            break
        reason = _pip_download(package, downloads, timeout, version) and reason
    return reason


def _unpack(wheel: Path, tree: Path) -> None:
    partial = tree.with_name(tree.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(partial)
    # a repository of its own: otherwise rtlint applies this repository's .gitignore
    # (which ignores bench/.corpora/) and skips every file
    (partial / ".git").mkdir(exist_ok=True)
    shutil.rmtree(tree, ignore_errors=True)
    os.replace(partial, tree)


def fetch(
    packages: list[Package],
    root: Path = ROOT,
    retry_skipped: bool = False,
    timeout: float = DOWNLOAD_TIMEOUT,
    workers: int = 4,
    log=print,
) -> list[Fetched]:
    downloads, trees = root / "downloads", root / "packages"
    downloads.mkdir(parents=True, exist_ok=True)
    trees.mkdir(parents=True, exist_ok=True)
    skipped_file = root / "skipped.json"
    skipped: dict[str, str] = json.loads(skipped_file.read_text()) if skipped_file.exists() else {}
    if retry_skipped:
        skipped = {}
    todo = [p for p in packages if p.pin not in skipped and not _find_wheel(downloads, p)]
    if todo:
        log(f"downloading {len(todo)} wheels ({workers} at a time, {timeout:.0f} s each at most)")
        with ThreadPoolExecutor(workers) as pool:  # network-bound: pip waits, it does not compute
            for package, reason in zip(todo, pool.map(lambda p: _download(p, downloads, timeout), todo)):
                if reason:
                    skipped[package.pin] = reason
                    log(f"  skipped {package.pin}: {reason}")
        skipped_file.write_text(json.dumps(dict(sorted(skipped.items())), indent=1) + "\n")
    out = []
    for package in sorted(packages):
        wheel = _find_wheel(downloads, package)
        if wheel is None:
            out.append(Fetched(package, None, skipped.get(package.pin, "no wheel downloaded")))
            continue
        tree = trees / package.pin
        stamp = tree / ".git" / "unpacked-from"
        if not stamp.exists() or stamp.read_text() != wheel.name:
            _unpack(wheel, tree)
            stamp.write_text(wheel.name)
        out.append(Fetched(package, tree))
    return out
