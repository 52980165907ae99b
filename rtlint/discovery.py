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

    def ignored(self, path: Path, is_dir: bool, top: Path) -> bool:
        """Whether git ignores `path`; .gitignore files between `top` and it are consulted,
        the deepest first, as git does."""
        directory = path.parent
        while True:
            spec = self._spec(directory)
            if spec is not None:
                try:
                    relative = path.relative_to(directory).as_posix() + ("/" if is_dir else "")
                except ValueError:
                    return False
                result = spec.check_file(relative)
                if result.include is not None:
                    return bool(result.include)
            if directory == top or directory.parent == directory:
                return False
            directory = directory.parent


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
        found: list[Path] = []
        stack = [path]
        while stack:
            directory = stack.pop()
            directories.append(directory)
            try:
                entries = sorted(os.scandir(directory), key=lambda e: e.name)
            except OSError as exc:
                errors.append(f"{directory}: {exc.strerror or exc}")
                continue
            for entry in entries:
                child = Path(entry.path)
                try:
                    is_dir = entry.is_dir(follow_symlinks=False)
                    is_file = entry.is_file()
                except OSError:
                    continue
                if is_dir:
                    if (child / "pyvenv.cfg").exists() or config.is_excluded(child):
                        continue
                    if gitignores.ignored(child.resolve(), True, top):
                        continue
                    stack.append(child)
                elif is_file and entry.name.endswith(".py"):
                    if config.is_excluded(child):
                        continue
                    # the link itself, not its target, is what git sees
                    if gitignores.ignored(child.parent.resolve() / child.name, False, top):
                        continue
                    found.append(child)
        for child in sorted(found):
            add(child, root)
    return Discovery(targets, errors, directories, gitignores.files)
