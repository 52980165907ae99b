"""The line length fixed code must respect, so that it passes the project's own formatter.

Precedence, first found wins:
1. `line-length` in `[tool.rtlint]` (rtlint's configuration in use);
2. the nearest formatter configuration, from the file's folder upwards; in one folder
   `.ruff.toml`, then `ruff.toml` (their top-level `line-length`), then `pyproject.toml`:
   its `[tool.ruff]` table (`line-length`; `[tool.ruff.format]` is part of that table and
   uses the same length), then its `[tool.black]` table (`line-length`). A table without
   `line-length` means that tool's default, 88; a folder with none of these is passed;
3. 88, the default of black and ruff.

The same walk says which formatter the project uses (`nearest`), for rtlint.fix.formatting:
the tool whose configuration was found first, in the order above.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

DEFAULT = 88


@dataclass(frozen=True)
class Nearest:
    """The nearest formatter configuration: which tool, its line length, the file that says
    it and (for black, whose settings rtlint passes itself) the tool's table."""

    tool: str  # "ruff" or "black"
    length: int
    source: Path
    table: dict = field(default_factory=dict, compare=False, hash=False)


def line_length(configured: int | None, path: Path) -> int:
    if configured is not None:
        return configured
    found = nearest(path)
    return found.length if found is not None else DEFAULT


def nearest(path: Path) -> Nearest | None:
    """The formatter configuration nearest to the file `path`, or None (no folder above it has one)."""
    try:
        folder = path.resolve().parent
    except (OSError, RuntimeError):
        folder = path.absolute().parent
    while True:
        found = _in_folder(folder, _stamps(folder))
        if found is not None:
            return found
        if folder.parent == folder:
            return None
        folder = folder.parent


_CANDIDATES = (".ruff.toml", "ruff.toml", "pyproject.toml")


def _stamps(folder: Path) -> tuple:
    """What the folder's answer depends on: a file edited while the language server runs
    is read again (the answer is cached per folder and these stamps)."""
    stamps = []
    for name in _CANDIDATES:
        try:
            info = (folder / name).stat()
            stamps.append((info.st_mtime_ns, info.st_size, info.st_ino))
        except OSError:
            stamps.append(None)
    return tuple(stamps)


@lru_cache(maxsize=256)
def _in_folder(folder: Path, stamps: tuple) -> Nearest | None:
    if not any(stamps):
        return None
    for name in (".ruff.toml", "ruff.toml"):
        data = _read(folder / name)
        if data is not None:
            return Nearest("ruff", _length(data), folder / name)
    data = _read(folder / "pyproject.toml")
    if data is None:
        return None
    tool = data.get("tool", {})
    if isinstance(tool.get("ruff"), dict):
        return Nearest("ruff", _length(tool["ruff"]), folder / "pyproject.toml")
    if isinstance(tool.get("black"), dict):
        return Nearest("black", _length(tool["black"]), folder / "pyproject.toml", tool["black"])
    return None


def _length(table: dict) -> int:
    value = table.get("line-length", table.get("line_length"))
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else DEFAULT


def _read(path: Path) -> dict | None:
    from rtlint.core import reading

    try:
        return reading.load_toml(path)  # a regular file, bounded: never /dev/zero or a FIFO
    except (OSError, reading.TomlError):  # absent, or not ours to report
        return None
