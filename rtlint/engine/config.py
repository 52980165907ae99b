"""Configuration: for each file, `.rtlint.toml` or `[tool.rtlint]` of a pyproject.toml in the
nearest folder at or above the file's real path that has either, or a file given by --config.

One resolution for every entry point: the command line, the flake8 plugin and the language
server all ask a `Finder` (`for_path`), so a file gets the same settings whichever of them
lints it. As in ruff:

- the nearest configuration is used alone: one in a subfolder replaces the ones above it,
  unless it says `extend = "path"` (relative to its own folder), which reads that file first
  and lays this one over it (any depth; a cycle is an error);
- over an extended configuration, a key replaces the extended value, except the `extend-*`
  keys (`extend-exclude`, `extend-per-file-ignores`), which add to it, and rule selection,
  which is applied file by file, the extended one first: `select` starts again from its
  codes, `extend-select` adds codes, `ignore` and `extend-ignore` remove them (an ignore
  wins over a select of the same file); `fixable`, `unfixable` and `extend-fixable` the same;
- globs (`exclude`, `per-file-ignores`) are relative to the folder of the file that gives them;
- a table inside `[tool.rtlint]` (`[tool.rtlint.pipecat]`) holds the options declared with
  that prefix (`pipecat.frame-types`): validated by whoever declares them, merged key by key.
"""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rtlint.core.rule import Rule, Settings
from rtlint.engine import registry

ENGINE_KEYS = {
    "extend": "path of a configuration to read first; this file's keys are laid over it (as ruff's extend)",
    "select": "codes (or prefixes) of the rules to run",
    "extend-select": "codes (or prefixes) of rules to run besides those selected (by select, or the defaults)",
    "ignore": "codes (or prefixes) of rules not to run",
    "extend-ignore": "the same as ignore (codes not to run), for configurations that spell it so",
    "per-file-ignores": "a table: file glob -> codes not reported in matching files",
    "extend-per-file-ignores": "per-file ignores added to those of the extended configuration",
    "fixable": "codes (or prefixes) whose fixes --fix may apply (default: all)",
    "extend-fixable": "codes (or prefixes) whose fixes may be applied, besides fixable",
    "unfixable": "codes (or prefixes) whose fixes are never applied (the findings are still reported)",
    "exclude": "globs of files and folders not to lint (replaces the defaults)",
    "extend-exclude": "globs of files and folders not to lint, besides the defaults",
    "cache-dir": "folder for the cache (default .rtlint_cache beside the configuration)",
    "force-exclude": "apply the excludes to files named on the command line too (as pre-commit passes them)",
    "line-length": "longest line a fix may add (default: the formatter's, see rtlint/fix/linelength.py)",
    "fix-formatter": 'formats the lines --fix adds: "auto" (the configured ruff or black), "ruff", "black", "none"',
}
_CODE_LISTS = ("select", "extend-select", "ignore", "extend-ignore", "fixable", "extend-fixable", "unfixable")

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


@dataclass(frozen=True)
class Selection:
    """One configuration file's rule selection (or fixability); applied in order, the
    extended file first (as ruff applies them)."""

    select: tuple[str, ...] | None = None
    extend_select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    source: Path | None = field(default=None, compare=False)  # the file that gave it

    def apply(self, code: str, on: bool) -> bool:
        if self.select is not None:
            on = any(_matches(code, c) for c in self.select)
        if any(_matches(code, c) for c in self.extend_select):
            on = True
        if any(_matches(code, c) for c in self.ignore):
            on = False
        return on


@dataclass
class Config:
    root: Path
    source: Path | None = None
    select: tuple[str, ...] | None = None  # a configuration of one layer (the API's, tests')
    ignore: tuple[str, ...] = ()
    # pattern -> codes; a pattern from another folder (an extended file's) is kept as
    # (folder, pattern)
    per_file_ignores: dict[Any, tuple[str, ...]] = field(default_factory=dict)
    exclude: tuple[Any, ...] = DEFAULT_EXCLUDE  # patterns, or (folder, pattern) as above
    cache_dir: Path | None = None
    # why the configuration's `cache-dir` is refused (outside its folder): an error unless
    # the command line gives --cache-dir, which replaces it (see Finder._load)
    cache_dir_refused: str | None = None
    force_exclude: bool = False
    line_length: int | None = None  # None: the nearest ruff or black configuration's
    fix_formatter: str = "auto"  # rtlint.fix.formatting.CHOICES
    options: dict[str, Any] = field(default_factory=dict)
    rule_classes: list = field(default_factory=list)  # chosen by the command line
    report_unused: bool = False  # RTL100, chosen by the command line
    # RTL100 judges a suppression by the rules the configuration enables for the file, even
    # when the command line selects fewer (`--select RTL100` alone): chosen by the command line
    judged_classes: list = field(default_factory=list)
    # the layers of rule selection and of fixability, the extended files' first (when empty:
    # `select` and `ignore` above are the only layer)
    selections: tuple[Selection, ...] = ()
    fixability: tuple[Selection, ...] = ()
    chain: tuple[Path, ...] = ()  # the files read: this one, then the ones it extends
    origins: dict[str, Path] = field(default_factory=dict)  # key -> the file that set it
    # the nearest configuration above this one's folder, when this one does not extend it:
    # used alone, as ruff does, and said so in the summary
    shadows: Path | None = None

    def settings(self) -> Settings:
        values = {name: option.default for name, option in registry.all_options().items()}
        values.update(self.options)
        return Settings(values)

    def _layers(self) -> tuple[Selection, ...]:
        return self.selections or (Selection(self.select, (), self.ignore),)

    def _enabled(
        self, code: str, default: bool, select: Sequence[str] | None = None, ignore: Sequence[str] = ()
    ) -> bool:
        layers = self._layers()
        if select is not None:
            # the command line's --select replaces the configuration's selection; the ignores
            # of the configuration still apply (those after its last `select`)
            on = any(_matches(code, c) for c in select)
            last = max((i for i, layer in enumerate(layers) if layer.select is not None), default=0)
            if any(_matches(code, c) for layer in layers[last:] for c in layer.ignore):
                on = False
        else:
            on = default
            for layer in layers:
                on = layer.apply(code, on)
        return on and not any(_matches(code, c) for c in ignore)

    def enabled_rules(self, select: Sequence[str] | None = None, ignore: Sequence[str] = ()) -> list[type[Rule]]:
        check_codes(select or (), "select")
        check_codes(ignore, "ignore")
        for layer in self._layers():
            check_codes(layer.select or (), "select")
            check_codes((*layer.extend_select, *layer.ignore), "ignore")
        return [rule for rule in registry.all_rules() if self._enabled(rule.code, rule.default_enabled, select, ignore)]

    def selects(self, code: str, select: Sequence[str] | None = None, ignore: Sequence[str] = ()) -> bool:
        """Whether an off-by-default code (the engine's RTL100) is selected."""
        return self._enabled(code, False, select, ignore)

    def fix_allowed(self, code: str) -> bool:
        """Whether `fixable`/`unfixable` let a fix of `code` be applied."""
        on = True
        for layer in self.fixability:
            on = layer.apply(code, on)
        return on

    def ignored_in(self, path: Path) -> tuple[str, ...]:
        if not self.per_file_ignores:
            return ()
        codes: list[str] = []
        for pattern, pattern_codes in self.per_file_ignores.items():
            anchor, glob = pattern if isinstance(pattern, tuple) else (self.root, pattern)
            if _glob_match(_relative(path, anchor), glob):
                codes.extend(pattern_codes)
        return tuple(codes)

    def is_excluded(self, path: Path) -> bool:
        for pattern in self.exclude:
            anchor, glob = pattern if isinstance(pattern, tuple) else (self.root, pattern)
            if _glob_match(_relative(path, anchor), glob):
                return True
        return False

    def excludes_buffer(self, path: Path) -> bool:
        """Whether the excludes cover a buffer named `path` (an editor's document, `check
        --stdin-filename`, a file flake8 was given): only inside the configuration's folder,
        the one walk would reach. The language server, flake8 and the command line ask this
        same question."""
        try:
            path.resolve().relative_to(self.root.resolve())
        except (ValueError, OSError, RuntimeError):
            return False
        return self.is_excluded(path)

    def excluder(self):
        """A fast test for a directory walk: `excluded(name, relative)` for an entry whose
        parents were tested already (bare-name patterns need only its own name; the others
        its path relative to their folder, found from its path relative to the
        configuration's folder, or None outside it)."""
        import re

        names, paths = [], []
        root = self.root.resolve()
        for pattern in self.exclude:
            anchor, glob = pattern if isinstance(pattern, tuple) else (root, pattern)
            glob = glob.rstrip("/")
            if "/" not in glob:
                names.append(glob)
                continue
            anchor = anchor.resolve()
            try:  # the configuration's folder seen from the pattern's
                prefix = root.relative_to(anchor).as_posix()
            except ValueError:
                prefix = None
            paths.append((glob, "" if prefix == "." else prefix))
        name_pattern = re.compile("|".join(fnmatch.translate(p) for p in names)) if names else None

        def excluded(name: str, relative: str | None) -> bool:
            if name_pattern is not None and name_pattern.match(name):
                return True
            if relative is not None:
                for glob, prefix in paths:
                    if prefix is None:
                        continue
                    seen = f"{prefix}/{relative}" if prefix else relative
                    if fnmatch.fnmatchcase(seen, glob) or seen.startswith(glob + "/"):
                        return True
            return False

        return excluded

    def fingerprint(self) -> str:
        """What of the configuration the findings of a file depend on (besides the settings)."""
        return repr((sorted(map(repr, self.per_file_ignores.items())), self.fixability))

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


def _real_folder(path: Path) -> Path:
    """The real folder of `path` (a folder itself, or the folder of a file): a link to a file
    takes the configuration of its target's folder, as in ruff."""
    try:
        real = path.resolve()
    except (OSError, RuntimeError):  # a symlink loop (RuntimeError before Python 3.13)
        real = path.absolute()
    try:
        return real if real.is_dir() else real.parent
    except OSError:
        return real.parent


class Finder:
    """The configuration of each file and folder: the one given by --config, or the nearest
    one to its real path (memoised per folder, so a walk reads each configuration once).
    `prepare` applies the command line to every configuration loaded. `looked_at` maps every
    configuration file looked for to what was seen before it was read, for the whole-run
    cache. The one resolution of the command line, the flake8 plugin and the server."""

    def __init__(self, explicit: Path | None, prepare=None) -> None:
        self.explicit = explicit
        self.prepare = prepare or (lambda config: None)
        self._by_folder: dict[Path, Config] = {}
        self._by_file: dict[Path | None, Config] = {}
        self.looked_at: dict[str, Any] = {}

    def for_path(self, path: Path) -> Config:
        return self.for_folder(_real_folder(path))

    def for_folder(self, directory: Path) -> Config:
        """`directory` must be resolved (a real path)."""
        if self.explicit is not None:
            return self._load(self.explicit, explicit=True)
        found = self._by_folder.get(directory)
        if found is not None:
            return found
        for name in CONFIG_NAMES:
            candidate = directory / name
            self.looked_at[str(candidate)] = _probe(candidate)
            if _is_config(candidate):
                config = self._load(candidate)
                if directory.parent != directory and config.shadows is None:
                    above = self.for_folder(directory.parent).source
                    if above is not None and above.resolve() not in config.chain:
                        config.shadows = above
                break
        else:
            if directory.parent == directory:
                config = self._load(None)
            else:
                config = self.for_folder(directory.parent)
        self._by_folder[directory] = config
        return config

    def _load(self, path: Path | None, explicit: bool = False) -> Config:
        key = path.resolve() if path is not None else None
        if key not in self._by_file:
            if path is None:
                config = Config(root=Path.cwd())
            else:
                config = _build(path, explicit, self.looked_at)
            self.prepare(config)
            if config.cache_dir_refused is not None:  # not replaced by the command line's --cache-dir
                raise ConfigError(config.cache_dir_refused)
            self._by_file[key] = config
        return self._by_file[key]


def for_path(path: Path, explicit: Path | None = None) -> Config:
    """The configuration of one file or folder (a Finder of its own: nothing memoised)."""
    return Finder(explicit).for_path(path)


def load(explicit: Path | None, start: Path) -> Config:
    """The configuration `rtlint check` uses for `start` (the file given, or the nearest)."""
    if explicit is not None and not explicit.is_file():
        raise ConfigError(f"configuration file not found: {explicit}")
    return for_path(start, explicit)


def _probe(path: Path) -> Any:
    """What a run saw of a file it looked for (the whole-run cache compares it again)."""
    try:
        info = os.stat(path)
    except OSError:
        return None
    return (info.st_size, info.st_mtime_ns, info.st_ctime_ns)


def _cache_inside(folder: Path, value: str, where: str) -> Path:
    """A `cache-dir` from a configuration file: it must stay inside the configuration's
    folder, its real path included (a repository's configuration, a pull request's, must not
    make rtlint write elsewhere: absolute, `..` or through a committed link); elsewhere needs
    the command line (--cache-dir), which the user typed."""
    resolved = (folder / value).resolve()
    try:
        resolved.relative_to(folder.resolve())
    except ValueError:
        raise ConfigError(
            f"'cache-dir'{where} must be inside {folder} (it resolves to {resolved}); "
            "a cache elsewhere is given with --cache-dir"
        ) from None
    return resolved


def _read_toml(path: Path) -> dict[str, Any]:
    from rtlint.core import reading

    try:
        return reading.load_toml(path)
    except OSError as exc:
        raise ConfigError(f"cannot read {path}: {exc.strerror or exc}") from None
    except reading.TomlError as exc:
        raise ConfigError(f"{path} is not valid TOML: {exc}") from None


def _rtlint_table(path: Path, anywhere: bool) -> dict[str, Any]:
    """The rtlint keys of a configuration file: `[tool.rtlint]` of a pyproject.toml, the top
    of an `.rtlint.toml`; a file given by --config or `extend` (`anywhere`) of another name
    holds them at its top or in a `[tool.rtlint]` table."""
    data = _read_toml(path)
    if path.name == "pyproject.toml":
        tool = data.get("tool", {})
        if anywhere and "rtlint" not in tool:
            raise ConfigError(f"{path} has no [tool.rtlint] table")
        table = tool.get("rtlint", {})
    elif anywhere and set(data) == {"tool"} and isinstance(data["tool"], dict):
        if "rtlint" not in data["tool"]:
            raise ConfigError(f"{path} has no [tool.rtlint] table")
        table = data["tool"]["rtlint"]
    else:
        table = data
    if not isinstance(table, dict):
        raise ConfigError(f"[tool.rtlint] must be a table in {path}")
    return table


def _chain(path: Path, anywhere: bool, looked_at: dict[str, Any]) -> list[tuple[Path, dict[str, Any]]]:
    """The file and the ones it extends, the last extended first."""
    chain: list[tuple[Path, dict[str, Any]]] = []
    seen: list[Path] = []
    while True:
        real = path.resolve()
        if real in seen:
            cycle = " -> ".join(str(p) for p in [*seen, real])
            raise ConfigError(f"configuration extends itself: {cycle}")
        seen.append(real)
        looked_at[str(path.absolute())] = _probe(path)
        table = _rtlint_table(path, anywhere)
        chain.append((path, table))
        target = table.get("extend")
        if target is None:
            return chain[::-1]
        if not isinstance(target, str):
            raise ConfigError(f"'extend' in {path} must be a path")
        extended = Path(os.path.normpath(real.parent / os.path.expanduser(target)))
        if not extended.is_file():
            raise ConfigError(f"'extend' in {path}: configuration file not found: {extended}")
        path, anywhere = extended, True


def _build(path: Path, explicit: bool, looked_at: dict[str, Any]) -> Config:
    if explicit and not path.is_file():
        raise ConfigError(f"configuration file not found: {path}")
    chain = _chain(path, explicit, looked_at)
    return from_layers(chain, path.resolve().parent, path)


def from_table(table: dict[str, Any], root: Path, source: Path | None = None) -> Config:
    """A configuration of one table (no `extend` followed), for tests and tools."""
    return from_layers([(source or root / "<table>", table)], root, source)


def _flatten(table: dict[str, Any], where: str, options: dict) -> dict[str, Any]:
    """The table with sub-tables of options spelt as dotted keys (`[tool.rtlint.pipecat]`
    `frame-types` -> `pipecat.frame-types`); unknown keys are errors."""
    flat: dict[str, Any] = {}
    for key, value in table.items():
        if key in ENGINE_KEYS or key in options:
            flat[key] = value
        elif isinstance(value, dict) and any(name.startswith(key + ".") for name in options):
            for inner, inner_value in _flatten_namespace(key, value, options, where).items():
                flat[inner] = inner_value
        else:
            flat[key] = value  # reported below as unknown
    unknown = [key for key in flat if key not in ENGINE_KEYS and key not in options]
    if unknown:
        raise ConfigError(f"unknown configuration key(s){where}: {', '.join(sorted(unknown))}")
    return flat


def _flatten_namespace(prefix: str, table: dict[str, Any], options: dict, where: str) -> dict[str, Any]:
    flat: dict[str, Any] = {}
    for key, value in table.items():
        name = f"{prefix}.{key}"
        if name not in options and isinstance(value, dict) and any(o.startswith(name + ".") for o in options):
            flat.update(_flatten_namespace(name, value, options, where))
        else:
            flat[name] = value
    return flat


def from_layers(chain: Sequence[tuple[Path, dict[str, Any]]], root: Path, source: Path | None) -> Config:
    """The configuration of `chain` (the extended files first, the file itself last)."""
    options = registry.all_options()
    config = Config(root=root, source=source, chain=tuple(p.resolve() for p, _ in reversed(chain)))
    selections, fixability = [], []
    exclude: tuple[Any, ...] = DEFAULT_EXCLUDE
    extend_exclude: list[Any] = []
    per_file: dict[Any, tuple[str, ...]] = {}
    extend_per_file: dict[Any, tuple[str, ...]] = {}
    for path, raw_table in chain:
        where = f" in {path}"
        table = _flatten(raw_table, where, options)
        folder = path.resolve().parent
        own = folder == root.resolve()

        def anchored(pattern: str, folder: Path = folder, own: bool = own) -> Any:
            return pattern if own else (folder, pattern)

        def codes(key: str, table: dict = table, where: str = where) -> tuple[str, ...]:
            value = table[key]
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise ConfigError(f"'{key}'{where} must be a list of rule codes")
            check_codes(value, f"'{key}'{where}")
            return tuple(v.upper() for v in value)

        def strings(key: str, table: dict = table, where: str = where) -> tuple[str, ...]:
            value = table[key]
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise ConfigError(f"'{key}'{where} must be a list of strings")
            return tuple(value)

        def file_codes(key: str, table: dict = table, where: str = where) -> dict[Any, tuple[str, ...]]:
            value = table[key]
            if not isinstance(value, dict):
                raise ConfigError(f"'{key}'{where} must be a table of glob = [codes]")
            found = {}
            for pattern, pattern_codes in value.items():
                if not isinstance(pattern_codes, list) or not all(isinstance(c, str) for c in pattern_codes):
                    raise ConfigError(f"'{key}' entry '{pattern}'{where} must be a list of codes")
                check_codes(pattern_codes, f"'{key}'{where}")
                found[anchored(pattern)] = tuple(c.upper() for c in pattern_codes)
            return found

        lists = {key: codes(key) for key in _CODE_LISTS if key in table}
        if any(key in lists for key in ("select", "extend-select", "ignore", "extend-ignore")):
            selections.append(
                Selection(
                    lists.get("select"),
                    lists.get("extend-select", ()),
                    (*lists.get("ignore", ()), *lists.get("extend-ignore", ())),
                    path,
                )
            )
        if any(key in lists for key in ("fixable", "extend-fixable", "unfixable")):
            fixability.append(
                Selection(lists.get("fixable"), lists.get("extend-fixable", ()), lists.get("unfixable", ()), path)
            )
        if "exclude" in table:
            exclude = tuple(anchored(p) for p in strings("exclude"))
        if "extend-exclude" in table:
            extend_exclude.extend(anchored(p) for p in strings("extend-exclude"))
        if "per-file-ignores" in table:
            per_file = file_codes("per-file-ignores")
        if "extend-per-file-ignores" in table:
            extend_per_file.update(file_codes("extend-per-file-ignores"))
        if "force-exclude" in table:
            if not isinstance(table["force-exclude"], bool):
                raise ConfigError(f"'force-exclude'{where} must be true or false")
            config.force_exclude = table["force-exclude"]
        if "line-length" in table:
            value = table["line-length"]
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise ConfigError(f"'line-length'{where} must be a positive integer")
            config.line_length = value
        if "fix-formatter" in table:
            if table["fix-formatter"] not in ("auto", "ruff", "black", "none"):
                raise ConfigError(f'\'fix-formatter\'{where} must be one of "auto", "ruff", "black", "none"')
            config.fix_formatter = table["fix-formatter"]
        if "cache-dir" in table:
            if not isinstance(table["cache-dir"], str):
                raise ConfigError(f"'cache-dir'{where} must be a string")
            try:
                config.cache_dir, config.cache_dir_refused = _cache_inside(folder, table["cache-dir"], where), None
            except ConfigError as exc:
                config.cache_dir, config.cache_dir_refused = None, str(exc)
        for key, option in options.items():
            if key in table:
                try:
                    config.options[key] = option.validate(table[key])
                except TypeError as exc:
                    raise ConfigError(f"{exc}{where}") from None
        for key in table:
            config.origins[key] = path
    config.selections = tuple(selections)
    config.fixability = tuple(fixability)
    config.exclude = (*exclude, *extend_exclude)
    config.per_file_ignores = {**per_file, **extend_per_file}
    if len(selections) == 1 and selections[0].extend_select == ():  # the fields say it alone
        config.select, config.ignore = selections[0].select, selections[0].ignore
    return config


def _formatter_described(config: Config, path: Path) -> str:
    from rtlint.fix.formatting import describe

    return describe(config.fix_formatter, path, config.line_length)


def describe(config: Config, path: Path) -> list[tuple[str, Any, str]]:
    """(key, value, where it came from) for every setting that applies to `path`, as
    `--show-settings` prints them; `where` is a configuration file or "default"."""
    origin = {key: str(source) for key, source in config.origins.items()}
    rows: list[tuple[str, Any, str]] = []
    for key in ENGINE_KEYS:
        if key == "extend":
            continue
        value: Any = None
        if key in ("exclude", "extend-exclude"):
            if key == "extend-exclude":
                continue
            value = [p if isinstance(p, str) else f"{p[0]}/{p[1]}" for p in config.exclude]
            where = ", ".join(sorted({origin[k] for k in ("exclude", "extend-exclude") if k in origin})) or "default"
            rows.append(("exclude", value, where))
            continue
        if key in ("per-file-ignores", "extend-per-file-ignores"):
            if key == "extend-per-file-ignores":
                continue
            value = {
                (p if isinstance(p, str) else f"{p[0]}/{p[1]}"): list(c) for p, c in config.per_file_ignores.items()
            }
            keys = ("per-file-ignores", "extend-per-file-ignores")
            where = ", ".join(sorted({origin[k] for k in keys if k in origin})) or "default"
            rows.append(("per-file-ignores", value, where))
            continue
        if key in _CODE_LISTS:
            continue  # the layers and their outcome are shown below
        value = {
            "cache-dir": str(config.cache_folder),
            "force-exclude": config.force_exclude,
            "line-length": config.line_length if config.line_length is not None else "the formatter's (or 88)",
            "fix-formatter": _formatter_described(config, path),
        }[key]
        rows.append((key, value, origin.get(key, "default")))
    for layer in config.selections:
        for name, value in (("select", layer.select), ("extend-select", layer.extend_select), ("ignore", layer.ignore)):
            if value:
                rows.append((name, list(value), str(layer.source)))
    for layer in config.fixability:
        pairs = (("fixable", layer.select), ("extend-fixable", layer.extend_select), ("unfixable", layer.ignore))
        for name, value in pairs:
            if value:
                rows.append((name, list(value), str(layer.source)))
    for name, option in registry.all_options().items():
        value = config.options.get(name, option.default)
        rows.append((name, list(value) if isinstance(value, tuple) else value, origin.get(name, "default")))
    return rows
