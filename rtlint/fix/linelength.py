"""The line length fixed code must respect, so that it passes the project's own formatter.

Precedence, first found wins:
1. `line-length` in `[tool.rtlint]` (rtlint's configuration in use);
2. the nearest formatter configuration, from the file's folder upwards; in one folder
   `.ruff.toml`, then `ruff.toml` (their top-level `line-length`), then `pyproject.toml`:
   its `[tool.ruff]` table (`line-length`; `[tool.ruff.format]` is part of that table and
   uses the same length), then its `[tool.black]` table (`line-length`). A table without
   `line-length` means that tool's default, 88; a folder with none of these is passed;
3. 88, the default of black and ruff.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

DEFAULT = 88


def line_length(configured: int | None, path: Path) -> int:
    if configured is not None:
        return configured
    try:
        folder = path.resolve().parent
    except (OSError, RuntimeError):
        folder = path.absolute().parent
    return _for_folder(folder)


def _for_folder(folder: Path) -> int:
    while True:
        found = _in_folder(folder, _stamps(folder))
        if found is not None:
            return found
        if folder.parent == folder:
            return DEFAULT
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
def _in_folder(folder: Path, stamps: tuple) -> int | None:
    if not any(stamps):
        return None
    for name in (".ruff.toml", "ruff.toml"):
        data = _read(folder / name)
        if data is not None:
            return _length(data)
    data = _read(folder / "pyproject.toml")
    if data is None:
        return None
    tool = data.get("tool", {})
    for name in ("ruff", "black"):
        if isinstance(tool.get(name), dict):
            return _length(tool[name])
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
