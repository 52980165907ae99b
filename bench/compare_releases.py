"""Record rtlint's findings and fixes on released livekit-agents wheels, and compare two
recordings: a refactoring of the rules must leave both byte-identical.

    python -m bench.compare_releases record OUT     # OUT/<version>/check.json, fixed/, unsafe/
    python -m bench.compare_releases record OUT --line-length 10000
    python -m bench.compare_releases compare OLD NEW
    python -m bench.compare_releases compare OLD NEW --ignore url,fix   # set JSON keys aside

`--line-length N` fixes with `[tool.rtlint] line-length = N` (a very large N turns off the
breaking of long lines that fixes got in 0.2, to compare fixed files with 0.1's).

Wheels are downloaded with `pip download --no-deps --only-binary=:all:` into the test cache
(`RTLINT_TEST_CACHE`, default ~/.cache/rtlint-tests), never into the repository.
"""

from __future__ import annotations

import filecmp
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from tests.support.wheels import cache_root

VERSIONS = ("1.6.5", "1.7.0", "1.8.0", "1.8.5", "1.8.8", "1.8.9", "2.0.0b1")


def unpack(version: str) -> Path:
    import zipfile

    target = cache_root() / "wheels" / f"livekit-agents-{version}"
    if (target / ".complete").exists():
        return target
    download = target.with_name(target.name + ".download")
    download.mkdir(parents=True, exist_ok=True)
    subprocess.run(
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
            f"livekit-agents=={version}",
        ],
        check=True,
    )
    target.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(sorted(download.glob("*.whl"))[0]) as archive:
        archive.extractall(target)
    (target / ".complete").write_text("ok\n")
    return target


def rtlint(*args: str, cwd: Path) -> str:
    command = [sys.executable, "-m", "rtlint", "--no-cache", "--exit-zero", "-q", *args]
    return subprocess.run(command, cwd=cwd, capture_output=True, text=True, check=True).stdout


def record_version(version: str, out: Path, line_length: int | None = None) -> None:
    root = unpack(version) / "livekit"
    out.mkdir(parents=True, exist_ok=True)
    report = rtlint("--format", "json", ".", cwd=root)
    (out / "check.json").write_text(report)
    paths = sorted({f["path"] for f in json.loads(report)})
    for flags, folder in ((["--fix"], "fixed"), (["--fix", "--unsafe-fixes"], "unsafe")):
        with tempfile.TemporaryDirectory() as work:
            if line_length is not None:
                (Path(work) / ".git").mkdir()  # the configuration's root: none above it is read
                (Path(work) / "pyproject.toml").write_text(f"[tool.rtlint]\nline-length = {line_length}\n")
            for path in paths:
                target = Path(work) / path
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(root / path, target)
            if paths:
                rtlint(*flags, *paths, cwd=Path(work))
            for path in paths:
                destination = out / folder / path
                destination.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(Path(work) / path, destination)


def compare(old: Path, new: Path, ignore: frozenset[str] = frozenset()) -> int:
    differences = 0
    for version in VERSIONS:
        a, b = old / version, new / version
        left = [{k: v for k, v in f.items() if k not in ignore} for f in json.loads((a / "check.json").read_text())]
        right = [{k: v for k, v in f.items() if k not in ignore} for f in json.loads((b / "check.json").read_text())]
        for finding in left:
            if finding not in right:
                differences += 1
                print(
                    f"{version}: only before: {finding['path']}:{finding['line']} "
                    f"{finding['code']} {finding['message']}"
                )
        for finding in right:
            if finding not in left:
                differences += 1
                print(
                    f"{version}: only after: {finding['path']}:{finding['line']} {finding['code']} {finding['message']}"
                )
        for folder in ("fixed", "unsafe"):
            files = {p.relative_to(a / folder) for p in (a / folder).rglob("*.py")}
            files |= {p.relative_to(b / folder) for p in (b / folder).rglob("*.py")}
            for path in sorted(files):
                x, y = a / folder / path, b / folder / path
                if not (x.exists() and y.exists()):
                    differences += 1
                    print(f"{version}: {folder} output only {'after' if y.exists() else 'before'}: {path}")
                elif not filecmp.cmp(x, y, shallow=False):
                    differences += 1
                    print(f"{version}: {folder} output differs: {path}")
        print(f"{version}: {len(right)} findings")
    print(f"{differences} differences")
    return 1 if differences else 0


def main(argv: list[str]) -> int:
    if argv[:1] == ["record"] and (len(argv) == 2 or (len(argv) == 4 and argv[2] == "--line-length")):
        line_length = int(argv[3]) if len(argv) == 4 else None
        for version in VERSIONS:
            record_version(version, Path(argv[1]) / version, line_length)
            print(f"recorded {version}")
        return 0
    if argv[:1] == ["compare"] and (len(argv) == 3 or (len(argv) == 5 and argv[3] == "--ignore")):
        ignore = frozenset(argv[4].split(",")) if len(argv) == 5 else frozenset()
        return compare(Path(argv[1]), Path(argv[2]), ignore)
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
