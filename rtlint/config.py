"""Configuration: `[tool.rtlint]` in the nearest pyproject.toml, or a file given by --config."""

from __future__ import annotations

import fnmatch
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Sequence

from rtlint import registry
from rtlint.rule import Rule, Settings

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
    "line-length": "longest line a fix may add (default: the formatter's, see rtlint/linelength.py)",
}

DEFAULT_EXCLUDE = (
    ".git", ".hg", ".svn", ".bzr", "__pycache__", ".tox", ".nox", ".venv", "venv",
    ".mypy_cache", ".pytest_cache", ".ruff_cache", ".rtlint_cache", ".eggs", "*.egg-info",
    "build", "dist", "node_modules", "site-packages", "__pypackages__",
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

    def settings(self) -> Settings:
        values = {name: option.default for name, option in registry.all_options().items()}
        values.update(self.options)
        return Settings(values)

    def enabled_rules(
        self, select: Sequence[str] | None = None, ignore: Sequence[str] = ()
    ) -> list[type[Rule]]:
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


def find_config_file(start: Path) -> Path | None:
    try:
        directory = start.resolve()
    except (OSError, RuntimeError):  # a symlink loop (RuntimeError before Python 3.13)
        directory = start.absolute()
    if not directory.is_dir():
        directory = directory.parent
    for candidate in (directory, *directory.parents):
        pyproject = candidate / "pyproject.toml"
        if pyproject.is_file():
            try:
                data = _read_toml(pyproject)
            except ConfigError:
                raise
            if "rtlint" in data.get("tool", {}):
                return pyproject
    return None


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
        table = data.get("tool", {}).get("rtlint", {}) if explicit.name == "pyproject.toml" else data
        return from_table(table, explicit.resolve().parent, explicit)
    found = find_config_file(start)
    if found is None:
        return Config(root=Path.cwd())
    return from_table(_read_toml(found)["tool"]["rtlint"], found.resolve().parent, found)


def from_table(table: dict[str, Any], root: Path, source: Path | None = None) -> Config:
    where = f" in {source}" if source else ""
    if not isinstance(table, dict):
        raise ConfigError(f"[tool.rtlint] must be a table{where}")
    options = registry.all_options()
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
