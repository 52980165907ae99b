"""Which files to lint: explicit files always; Python files under directories, minus what
.gitignore files and the configured excludes leave out. Directory symlinks are not followed
(no loops); a file is only ever written inside the paths the user gave. Each file gets the
configuration nearest to its real path (a folder with its own configuration uses it below;
a link to a file takes its target's), so a walk, a list of files, flake8 and the server
agree; a file reached twice is listed once, under the first name found."""

from __future__ import annotations

import errno
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rtlint.engine.config import Config, Finder


@dataclass(frozen=True)
class Target:
    path: Path  # as the user will see it
    root: Path  # resolved path given on the command line that led here
    config: Config | None = field(default=None, compare=False)  # the file's own configuration


@dataclass
class Discovery:
    targets: list[Target]
    errors: list[str]
    # what the result depends on, for the whole-run cache: each folder listed with its
    # (mtime, ctime) taken before listing, and files looked for (.gitignore, pyvenv.cfg of
    # the folders skipped as virtual envs) with what was seen of them before reading
    directories: list[Path] = field(default_factory=list)
    directory_stamps: list[tuple[int, int] | None] = field(default_factory=list)
    probes: dict[str, object] = field(default_factory=dict)


class _GitIgnores:
    """.gitignore files from the repository root down to the folder being walked."""

    def __init__(self) -> None:
        self._cache: dict[Path, Any] = {}
        self._chains: dict[tuple[Path, Path], list[tuple[Path, Any]]] = {}
        self.probes: dict[str, object] = {}

    def _spec(self, directory: Path) -> Any:
        if directory not in self._cache:
            spec = None
            ignore_file = directory / ".gitignore"
            self.probes[str(ignore_file)] = _probe(ignore_file)
            if ignore_file.is_file():
                from rtlint.core import reading

                try:
                    raw = reading.read_file(ignore_file, reading.MAX_LINES_FILE)[0]
                    lines = raw.decode("utf-8", errors="replace").splitlines()
                except OSError:
                    lines = []
                import pathspec

                spec = pathspec.GitIgnoreSpec.from_lines(lines)
                for pattern in spec.patterns:
                    if pattern.regex is not None:
                        linear = linear_stars(pattern.regex.pattern)
                        if linear != pattern.regex.pattern:
                            pattern.regex = re.compile(linear)
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


_STAR = "[^/]*"
# what may stand between two stars for the rewrite: one character each (a literal, an escape,
# `?` as `[^/]`, a bracket class that is not negated), so every piece has a fixed length
_PIECE = re.compile(r"(?:\\.|[^\\\[\]()*+?{}|^$.]|\[\^/\]|\[[^\]^/][^\]/]*\])+")


def linear_stars(regex: str) -> str:
    """A .gitignore pattern's regular expression (pathspec's translation) that matches in
    linear time. `a*a*a*a*a*a*a*a*a*a*a*a*b` becomes `a[^/]*a[^/]*...b`, whose backtracking
    takes exponential time on a long name of `a`s (seconds at 30 characters, hours at 60;
    git's own matcher is slow on it too). Every star but a segment's last is made atomic and
    lazy, `(?=(?P<g>[^/]*?piece))(?P=g)` (a lookahead does not backtrack, in Python 3.10 as
    well): it takes the first place where the fixed-length piece after it matches, which is
    always as good as a later one, because the next star can take whatever lies between.
    The same names match; a pattern with anything else between its stars is left as it is."""
    parts = regex.split(_STAR)
    if len(parts) < 3:
        return regex
    out = [parts[0]]
    for index, piece in enumerate(parts[1:-1], start=1):
        if not _PIECE.fullmatch(piece):
            return regex
        out.append(f"(?=(?P<_rt{index}>[^/]*?{piece}))(?P=_rt{index})")
    out.append(_STAR + parts[-1])
    return "".join(out)


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


def _probe(path: Path | str) -> object:
    try:
        info = os.stat(path)
    except OSError:
        return None
    return (info.st_size, info.st_mtime_ns, info.st_ctime_ns)


def _stamp(directory: Path) -> tuple[int, int] | None:
    try:
        info = os.stat(directory)
    except OSError:
        return None
    return (info.st_mtime_ns, info.st_ctime_ns)


def discover(paths: list[str], configs: Finder | Config) -> Discovery:
    finder = configs if isinstance(configs, Finder) else _Fixed(configs)
    targets: list[Target] = []
    errors: list[str] = []
    directories: list[Path] = []
    stamps: list[tuple[int, int] | None] = []
    probes: dict[str, object] = {}
    seen: set[Path] = set()
    gitignores = _GitIgnores()

    def add(path: Path, root: Path, config: Config, real: Path | None = None) -> None:
        # one file reached under two names (a link to a file also given or found, a file
        # given and inside a folder given) is linted and fixed once: fixing it twice would
        # fail as "changed on disk" the second time. `real`: its real path when the walk
        # knows it (an entry that is no link, in a folder whose real path is known)
        key = real
        if key is None:
            try:
                key = path.resolve()
            except (OSError, RuntimeError):  # a symlink loop (RuntimeError before Python 3.13)
                key = path.absolute()
        if key not in seen:
            seen.add(key)
            targets.append(Target(path, root, config))

    for given in paths:
        path = Path(given)
        try:
            path.stat()
        except FileNotFoundError:
            errors.append(f"{given}: no such file or directory")
            continue
        except OSError as exc:  # a symlink loop, a permission problem
            if exc.errno == errno.ENAMETOOLONG:  # RTL901 for this file (the runner cannot read it)
                add(path, path.absolute(), _nearest_config(finder, path))
            else:
                errors.append(f"{given}: {exc.strerror or exc}")
            continue
        root = path.resolve()
        if not path.is_dir():
            config = finder.for_path(path)
            if not (config.force_exclude and config.is_excluded(path)):
                add(path, root, config)
            continue
        top = repository_top(root)
        found: list[tuple[Path, Config]] = []
        config = finder.for_folder(root)
        # (the folder as the user will see it, its real path, its configuration and its
        # path from that configuration's folder)
        stack = [(path, root, config, config.excluder(), _relative_to(str(root), str(config.root.resolve())))]
        while stack:
            directory, real, config, excluded, relative = stack.pop()
            directories.append(directory)
            stamps.append(_stamp(directory))  # before listing: an entry added later changes it
            try:
                entries = sorted(os.scandir(directory), key=lambda e: e.name)
            except OSError as exc:
                if exc.errno == errno.ENAMETOOLONG:  # RTL901 for the folder, as for a file below
                    found.append((directory, config, None))
                else:
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
                try:
                    child_relative = None if relative is None else (f"{relative}/{name}" if relative else name)
                    if excluded(name, child_relative):
                        continue
                    # the entry itself, not a link's target, is what git sees
                    if gitignores.ignored(real / name, is_dir, top):
                        continue
                    if is_dir:
                        marker = os.path.join(entry.path, "pyvenv.cfg")
                        probes[marker] = _probe(marker)
                        if probes[marker] is not None:
                            continue
                        child_config = finder.for_folder(real / name)
                        if child_config is config:
                            stack.append((Path(entry.path), real / name, config, excluded, child_relative))
                        else:  # a folder with its own configuration: its excludes apply below it
                            below = _relative_to(str(real / name), str(child_config.root.resolve()))
                            stack.append((Path(entry.path), real / name, child_config, child_config.excluder(), below))
                    elif entry.is_symlink():
                        # one file, one configuration: a link takes its target's (the nearest to
                        # the real path, as ruff does), excludes included; its own folder only
                        # decides whether the walk reaches it
                        target_config = finder.for_path(Path(entry.path))
                        if target_config is not config and target_config.is_excluded(Path(entry.path)):
                            continue
                        found.append((Path(entry.path), target_config, None))
                    else:
                        # resolving every file cost the standard library's walk ~0.1 s
                        found.append((Path(entry.path), config, real / name))
                except OSError as exc:
                    if exc.errno != errno.ENAMETOOLONG:
                        raise
                    # a path too long for the system to open (deep folders): RTL901 for it
                    # (the runner cannot read it), and the walk goes on
                    found.append((Path(entry.path), config, None))
        for child, child_config, child_real in sorted(found, key=lambda item: item[0]):
            add(child, root, child_config, child_real)
    probes.update(gitignores.probes)
    return Discovery(targets, errors, directories, stamps, probes)


def _nearest_config(finder: Finder | _Fixed, path: Path) -> Config:
    """The configuration of `path`, or of its nearest folder the system can open."""
    try:
        return finder.for_path(path)
    except OSError as exc:
        if exc.errno != errno.ENAMETOOLONG:
            raise
    for folder in path.absolute().parents:
        try:
            return finder.for_folder(folder.resolve())
        except OSError as exc:
            if exc.errno != errno.ENAMETOOLONG:
                raise
    return finder.for_folder(Path(path.absolute().anchor))


class _Fixed:
    """One configuration for everything (a caller that gives a Config, not a Finder)."""

    def __init__(self, config: Config) -> None:
        self.config = config

    def for_path(self, path: Path) -> Config:
        return self.config

    def for_folder(self, directory: Path) -> Config:
        return self.config
