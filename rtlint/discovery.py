"""Which files to lint: explicit files always; Python files under directories, minus what
.gitignore files and the configured excludes leave out. Directory symlinks are not followed
(no loops); a file is only ever written inside the paths the user gave."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rtlint.config import Config


@dataclass(frozen=True)
class Target:
    path: Path  # as the user will see it
    root: Path  # resolved path given on the command line that led here


@dataclass
class Discovery:
    targets: list[Target]
    errors: list[str]
    # what the result depends on, for the whole-run cache
    directories: list[Path] = field(default_factory=list)
    ignore_files: list[Path] = field(default_factory=list)


class _GitIgnores:
    """.gitignore files from the repository root down to the folder being walked."""

    def __init__(self) -> None:
        self._cache: dict[Path, Any] = {}
        self._chains: dict[tuple[Path, Path], list[tuple[Path, Any]]] = {}
        self.files: list[Path] = []  # the .gitignore files read

    def _spec(self, directory: Path) -> Any:
        if directory not in self._cache:
            spec = None
            ignore_file = directory / ".gitignore"
            if ignore_file.is_file():
                self.files.append(ignore_file)
                try:
                    lines = ignore_file.read_text(encoding="utf-8", errors="replace").splitlines()
                except OSError:
                    lines = []
                import pathspec

                spec = pathspec.GitIgnoreSpec.from_lines(lines)
            self._cache[directory] = spec
        return self._cache[directory]

    def _chain(self, directory: Path, top: Path) -> list[tuple[Path, Any]]:
        """The .gitignore specs that apply in `directory`, deepest first (cached)."""
        key = (directory, top)
        if key not in self._chains:
            spec = self._spec(directory)
            above = [] if directory == top or directory.parent == directory else self._chain(directory.parent, top)
            self._chains[key] = ([(directory, spec)] if spec is not None else []) + above
        return self._chains[key]

    def ignored(self, path: Path, is_dir: bool, top: Path) -> bool:
        """Whether git ignores `path`; .gitignore files between `top` and it are consulted,
        the deepest first, as git does."""
        for directory, spec in self._chain(path.parent, top):
            try:
                relative = path.relative_to(directory).as_posix() + ("/" if is_dir else "")
            except ValueError:
                return False
            result = spec.check_file(relative)
            if result.include is not None:
                return bool(result.include)
        return False


def _relative_to(path: str, root: str) -> str | None:
    if path == root:
        return ""
    if path.startswith(root.rstrip("/") + "/"):
        return path[len(root.rstrip("/")) + 1 :]
    return None


def repository_top(directory: Path) -> Path:
    for candidate in (directory, *directory.parents):
        if (candidate / ".git").exists():
            return candidate
    return directory


def discover(paths: list[str], config: Config) -> Discovery:
    targets: list[Target] = []
    errors: list[str] = []
    directories: list[Path] = []
    seen: set[Path] = set()
    gitignores = _GitIgnores()

    def add(path: Path, root: Path) -> None:
        # one file reached under two names (a link to a file also given or found) is linted
        # and fixed once: fixing it twice would fail as "changed on disk" the second time
        try:
            key = path.resolve()
        except (OSError, RuntimeError):  # a symlink loop (RuntimeError before Python 3.13)
            key = path.absolute()
        if key not in seen:
            seen.add(key)
            targets.append(Target(path, root))

    for given in paths:
        path = Path(given)
        try:
            path.stat()
        except FileNotFoundError:
            errors.append(f"{given}: no such file or directory")
            continue
        except OSError as exc:  # a symlink loop, a permission problem
            errors.append(f"{given}: {exc.strerror or exc}")
            continue
        root = path.resolve()
        if not path.is_dir():
            if not (config.force_exclude and config.is_excluded(path)):
                add(path, root)
            continue
        top = repository_top(root)
        excluded = config.excluder()
        config_root = str(config.root.resolve())
        found: list[Path] = []
        # (the folder as the user will see it, its real path, its path from the config's folder)
        stack: list[tuple[Path, Path, str | None]] = [(path, root, _relative_to(str(root), config_root))]
        while stack:
            directory, real, relative = stack.pop()
            directories.append(directory)
            try:
                entries = sorted(os.scandir(directory), key=lambda e: e.name)
            except OSError as exc:
                errors.append(f"{directory}: {exc.strerror or exc}")
                continue
            for entry in entries:
                name = entry.name
                try:
                    is_dir = entry.is_dir(follow_symlinks=False)
                    is_file = not is_dir and name.endswith(".py") and entry.is_file()
                except OSError:
                    continue
                if not (is_dir or is_file):
                    continue
                child_relative = None if relative is None else (f"{relative}/{name}" if relative else name)
                if excluded(name, child_relative):
                    continue
                # the entry itself, not a link's target, is what git sees
                if gitignores.ignored(real / name, is_dir, top):
                    continue
                if is_dir:
                    if os.path.exists(os.path.join(entry.path, "pyvenv.cfg")):
                        continue
                    stack.append((Path(entry.path), real / name, child_relative))
                else:
                    found.append(Path(entry.path))
        for child in sorted(found):
            add(child, root)
    return Discovery(targets, errors, directories, gitignores.files)
