"""Configuration: for each file, `.rtlint.toml` or `[tool.rtlint]` of a pyproject.toml in the
nearest folder at or above it that has either, or a file given by --config."""

from __future__ import annotations

import fnmatch
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rtlint.core.rule import Rule, Settings
from rtlint.engine import registry

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

ENGINE_KEYS = {
    "select": "codes (or prefixes) of the rules to run",
    "ignore": "codes (or prefixes) of rules not to run",
    "per-file-ignores": "a table: file glob -> codes not reported in matching files",
    "exclude": "globs of files and folders not to lint (replaces the defaults)",
    "extend-exclude": "globs of files and folders not to lint, besides the defaults",
    "cache-dir": "folder for the cache (default .rtlint_cache beside the configuration)",
    "force-exclude": "apply the excludes to files named on the command line too (as pre-commit passes them)",
    "line-length": "longest line a fix may add (default: the formatter's, see rtlint/fix/linelength.py)",
}

DEFAULT_EXCLUDE = (
    ".git",
    ".hg",
    ".svn",
    ".bzr",
    "__pycache__",
    ".tox",
    ".nox",
    ".venv",
    "venv",
    ".mypy_cache",
    ".pytest_cache",
    ".ruff_cache",
    ".rtlint_cache",
    ".eggs",
    "*.egg-info",
    "build",
    "dist",
    "node_modules",
    "site-packages",
    "__pypackages__",
)


class ConfigError(Exception):
    pass


@dataclass
class Config:
    root: Path
    source: Path | None = None
    select: tuple[str, ...] | None = None
    ignore: tuple[str, ...] = ()
    per_file_ignores: dict[str, tuple[str, ...]] = field(default_factory=dict)
    exclude: tuple[str, ...] = DEFAULT_EXCLUDE
    cache_dir: Path | None = None
    force_exclude: bool = False
    line_length: int | None = None  # None: the nearest ruff or black configuration's
    options: dict[str, Any] = field(default_factory=dict)
    rule_classes: list = field(default_factory=list)  # chosen by the command line
    report_unused: bool = False  # RTL100, chosen by the command line

    def settings(self) -> Settings:
        values = {name: option.default for name, option in registry.all_options().items()}
        values.update(self.options)
        return Settings(values)

    def enabled_rules(self, select: Sequence[str] | None = None, ignore: Sequence[str] = ()) -> list[type[Rule]]:
        chosen = select if select is not None else self.select
        ignored = (*self.ignore, *ignore)
        check_codes(chosen or (), "select")
        check_codes(ignored, "ignore")
        rules = []
        for rule in registry.all_rules():
            if chosen is None:
                wanted = rule.default_enabled
            else:
                wanted = any(_matches(rule.code, c) for c in chosen)
            if wanted and not any(_matches(rule.code, c) for c in ignored):
                rules.append(rule)
        return rules

    def selects(self, code: str, select: Sequence[str] | None = None, ignore: Sequence[str] = ()) -> bool:
        """Whether an off-by-default code (the engine's RTL100) is selected."""
        chosen = select if select is not None else self.select
        wanted = chosen is not None and any(_matches(code, c) for c in chosen)
        return wanted and not any(_matches(code, c) for c in (*self.ignore, *ignore))

    def ignored_in(self, path: Path) -> tuple[str, ...]:
        if not self.per_file_ignores:
            return ()
        relative = _relative(path, self.root)
        codes: list[str] = []
        for pattern, pattern_codes in self.per_file_ignores.items():
            if _glob_match(relative, pattern):
                codes.extend(pattern_codes)
        return tuple(codes)

    def is_excluded(self, path: Path) -> bool:
        relative = _relative(path, self.root)
        return any(_glob_match(relative, pattern) for pattern in self.exclude)

    def excludes_buffer(self, path: Path) -> bool:
        """Whether the excludes cover a buffer named `path` (an editor's document, `check
        --stdin-filename`): only inside the configuration's folder, the one walk would
        reach. The language server and the command line ask this same question."""
        try:
            path.resolve().relative_to(self.root.resolve())
        except (ValueError, OSError, RuntimeError):
            return False
        return self.is_excluded(path)

    def excluder(self):
        """A fast test for a directory walk: `excluded(name, relative)` for an entry whose
        parents were tested already (bare-name patterns need only its own name; the others
        its path relative to the configuration's folder, or None outside it)."""
        import re

        names = [p.rstrip("/") for p in self.exclude if "/" not in p.rstrip("/")]
        paths = [p.rstrip("/") for p in self.exclude if "/" in p.rstrip("/")]
        name_pattern = re.compile("|".join(fnmatch.translate(p) for p in names)) if names else None

        def excluded(name: str, relative: str | None) -> bool:
            if name_pattern is not None and name_pattern.match(name):
                return True
            if relative is not None:
                return any(fnmatch.fnmatchcase(relative, p) or relative.startswith(p + "/") for p in paths)
            return False

        return excluded

    @property
    def cache_folder(self) -> Path:
        return self.cache_dir or self.root / ".rtlint_cache"


def _matches(code: str, selector: str) -> bool:
    return selector.upper() == "ALL" or code.startswith(selector.upper())


def check_codes(selectors: Iterable[str], where: str) -> None:
    known = registry.known_codes()
    unknown = [s for s in selectors if not any(_matches(code, s) for code in known)]
    if unknown:
        raise ConfigError(f"unknown rule code(s) in {where}: {', '.join(unknown)}")


def _relative(path: Path, root: Path) -> str:
    try:
        return path.resolve().relative_to(root.resolve()).as_posix()
    except (ValueError, OSError, RuntimeError):  # outside the root, or a symlink loop
        return path.as_posix()


def _glob_match(relative: str, pattern: str) -> bool:
    pattern = pattern.rstrip("/")
    if fnmatch.fnmatchcase(relative, pattern):
        return True
    if "/" not in pattern:  # a bare name matches any file or folder of that name
        return any(fnmatch.fnmatchcase(part, pattern) for part in relative.split("/"))
    return relative.startswith(pattern + "/")


CONFIG_NAMES = (".rtlint.toml", "pyproject.toml")  # in one folder, .rtlint.toml wins


def _is_config(candidate: Path) -> bool:
    if not candidate.is_file():
        return False
    if candidate.name != "pyproject.toml":
        return True
    return "rtlint" in _read_toml(candidate).get("tool", {})


def find_config_file(start: Path) -> Path | None:
    try:
        directory = start.resolve()
    except (OSError, RuntimeError):  # a symlink loop (RuntimeError before Python 3.13)
        directory = start.absolute()
    if not directory.is_dir():
        directory = directory.parent
    for candidate in (directory, *directory.parents):
        for name in CONFIG_NAMES:
            if _is_config(candidate / name):
                return candidate / name
    return None


def _table(path: Path, data: dict[str, Any]) -> Any:
    return data.get("tool", {}).get("rtlint", {}) if path.name == "pyproject.toml" else data


class Finder:
    """The configuration of each file and folder: the one given by --config, or the nearest
    one (memoised per folder, so a walk reads each configuration once). `prepare` applies the
    command line to every configuration loaded. `looked_at` maps every configuration file
    looked for to what was seen before it was read, for the whole-run cache."""

    def __init__(self, explicit: Path | None, prepare=None) -> None:
        self.explicit = explicit
        self.prepare = prepare or (lambda config: None)
        self._by_folder: dict[Path, Config] = {}
        self._by_file: dict[Path | None, Config] = {}
        self.looked_at: dict[str, Any] = {}

    def for_path(self, path: Path) -> Config:
        # a link to a file takes the configuration of the folder the link is in, as in a
        # walk and in flake8
        folder = path.absolute() if path.is_dir() else path.absolute().parent
        try:
            folder = folder.resolve()
        except (OSError, RuntimeError):
            pass
        return self.for_folder(folder)

    def for_folder(self, directory: Path) -> Config:
        """`directory` must be resolved (a real path)."""
        if self.explicit is not None:
            return self._load(self.explicit)
        found = self._by_folder.get(directory)
        if found is not None:
            return found
        for name in CONFIG_NAMES:
            candidate = directory / name
            self.looked_at[str(candidate)] = _probe(candidate)
            if _is_config(candidate):
                config = self._load(candidate)
                break
        else:
            if directory.parent == directory:
                config = self._load(None)
            else:
                config = self.for_folder(directory.parent)
        self._by_folder[directory] = config
        return config

    def _load(self, path: Path | None) -> Config:
        key = path.resolve() if path is not None else None
        if key not in self._by_file:
            if path is not None:
                self.looked_at[str(path.absolute())] = _probe(path)
            config = load(path, Path.cwd()) if path is not None else Config(root=Path.cwd())
            self.prepare(config)
            self._by_file[key] = config
        return self._by_file[key]


def _probe(path: Path) -> Any:
    """What a run saw of a file it looked for (the whole-run cache compares it again)."""
    import os

    try:
        info = os.stat(path)
    except OSError:
        return None
    return (info.st_size, info.st_mtime_ns, info.st_ctime_ns)


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        with open(path, "rb") as handle:
            return tomllib.load(handle)
    except OSError as exc:
        raise ConfigError(f"cannot read {path}: {exc.strerror or exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path} is not valid TOML: {exc}") from None


def load(explicit: Path | None, start: Path) -> Config:
    if explicit is not None:
        if not explicit.is_file():
            raise ConfigError(f"configuration file not found: {explicit}")
        data = _read_toml(explicit)
        # an rtlint TOML file holds the keys at its top, or (like pyproject.toml) in [tool.rtlint]
        nested = explicit.name == "pyproject.toml" or (set(data) == {"tool"} and isinstance(data["tool"], dict))
        table = data.get("tool", {}).get("rtlint", {}) if nested else data
        if nested and explicit.name != "pyproject.toml" and "rtlint" not in data["tool"]:
            raise ConfigError(f"{explicit} has no [tool.rtlint] table")
        return from_table(table, explicit.resolve().parent, explicit)
    found = find_config_file(start)
    if found is None:
        return Config(root=Path.cwd())
    return from_table(_table(found, _read_toml(found)), found.resolve().parent, found)


def _namespaces(table: dict[str, Any], options: dict[str, Any]) -> dict[str, Any]:
    """A sub-table of options named `<namespace>.<key>` (`[tool.rtlint.pipecat]`) read as those
    keys; its unknown keys are reported as `<namespace>.<key>`."""
    flat: dict[str, Any] = {}
    for key, value in table.items():
        if isinstance(value, dict) and key not in ENGINE_KEYS and any(n.startswith(key + ".") for n in options):
            flat.update({f"{key}.{sub}": v for sub, v in value.items()})
        else:
            flat[key] = value
    return flat


def from_table(table: dict[str, Any], root: Path, source: Path | None = None) -> Config:
    where = f" in {source}" if source else ""
    if not isinstance(table, dict):
        raise ConfigError(f"[tool.rtlint] must be a table{where}")
    options = registry.all_options()
    table = _namespaces(table, options)
    unknown = [key for key in table if key not in ENGINE_KEYS and key not in options]
    if unknown:
        raise ConfigError(f"unknown configuration key(s){where}: {', '.join(sorted(unknown))}")
    config = Config(root=root, source=source)

    def codes(key: str) -> tuple[str, ...]:
        value = table[key]
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise ConfigError(f"'{key}'{where} must be a list of rule codes")
        check_codes(value, f"'{key}'{where}")
        return tuple(v.upper() for v in value)

    def strings(key: str) -> tuple[str, ...]:
        value = table[key]
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise ConfigError(f"'{key}'{where} must be a list of strings")
        return tuple(value)

    if "select" in table:
        config.select = codes("select")
    if "ignore" in table:
        config.ignore = codes("ignore")
    if "exclude" in table:
        config.exclude = strings("exclude")
    if "extend-exclude" in table:
        config.exclude = (*config.exclude, *strings("extend-exclude"))
    if "per-file-ignores" in table:
        value = table["per-file-ignores"]
        if not isinstance(value, dict):
            raise ConfigError(f"'per-file-ignores'{where} must be a table of glob = [codes]")
        for pattern, pattern_codes in value.items():
            if not isinstance(pattern_codes, list) or not all(isinstance(c, str) for c in pattern_codes):
                raise ConfigError(f"'per-file-ignores' entry '{pattern}'{where} must be a list of codes")
            check_codes(pattern_codes, f"'per-file-ignores'{where}")
            config.per_file_ignores[pattern] = tuple(c.upper() for c in pattern_codes)
    if "force-exclude" in table:
        if not isinstance(table["force-exclude"], bool):
            raise ConfigError(f"'force-exclude'{where} must be true or false")
        config.force_exclude = table["force-exclude"]
    if "line-length" in table:
        value = table["line-length"]
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            raise ConfigError(f"'line-length'{where} must be a positive integer")
        config.line_length = value
    if "cache-dir" in table:
        if not isinstance(table["cache-dir"], str):
            raise ConfigError(f"'cache-dir'{where} must be a string")
        config.cache_dir = (root / table["cache-dir"]).resolve()
    for key, option in options.items():
        if key in table:
            try:
                config.options[key] = option.validate(table[key])
            except TypeError as exc:
                raise ConfigError(f"{exc}{where}") from None
    return config
