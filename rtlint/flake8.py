"""The flake8 plugin: `flake8 --select RTL` runs rtlint's rules through the same engine.

A thin adapter: flake8 has already read and parsed the file, so the plugin reuses its
lines and tree, applies the same pre-filter, configuration and suppression as `rtlint
check`, and leaves `# noqa` to flake8 (which honours it for every plugin alike).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any, ClassVar

from flake8.exceptions import ExecutionError

from rtlint import __version__
from rtlint.engine import config as config_module
from rtlint.engine import registry
from rtlint.engine.linter import RuleSet, lint_text

# findings flake8 reports itself (E999 for a file it cannot parse); never repeated as RTL9xx
_FLAKE8_OWN = {"RTL900", "RTL901"}


@cache
def _config_file_in(directory: Path) -> Path | None:
    """The nearest .rtlint.toml, or pyproject.toml with [tool.rtlint], at or above
    `directory` (as rtlint itself finds it), memoised per folder so a checkout of N files
    reads each pyproject.toml once, not N times."""
    if (directory / ".rtlint.toml").is_file():
        return directory / ".rtlint.toml"
    candidate = directory / "pyproject.toml"
    if candidate.is_file():
        try:
            data = config_module._read_toml(candidate)
        except config_module.ConfigError as exc:
            raise ExecutionError(f"rtlint: {exc}") from None
        if "rtlint" in data.get("tool", {}):
            return candidate
    if directory.parent == directory:
        return None
    return _config_file_in(directory.parent)


@cache
def _engine(config_file: Path | None) -> tuple[config_module.Config, RuleSet]:
    """Config and instantiated rules, built once per configuration file."""
    try:
        if config_file is None:
            config = config_module.Config(root=Path.cwd())
        else:
            config = config_module.load(config_file, config_file.parent)
        return config, RuleSet(config.enabled_rules(), config.settings())
    except (config_module.ConfigError, registry.RegistryError) as exc:
        # flake8 prints this as a critical error and exits non-zero, without a traceback
        raise ExecutionError(f"rtlint: {exc}") from None


class Plugin:
    name = "rtlint"
    version = __version__
    # set from --rtlint-config (or `rtlint-config =` in flake8's configuration)
    config_file: ClassVar[Path | None] = None

    def __init__(self, tree: ast.Module, filename: str, lines: list[str]) -> None:
        self.tree = tree
        self.filename = filename
        self.lines = lines

    @classmethod
    def add_options(cls, manager: Any) -> None:
        manager.add_option(
            "--rtlint-config",
            default=None,
            parse_from_config=True,
            normalize_paths=True,
            help="pyproject.toml or rtlint TOML file to use (default: the nearest "
            "pyproject.toml with a [tool.rtlint] table, searched from each file)",
        )

    @classmethod
    def parse_options(cls, options: Any) -> None:
        value = getattr(options, "rtlint_config", None)
        cls.config_file = Path(value).resolve() if value else None

    def _config_file(self, path: Path) -> Path | None:
        if self.config_file is not None:
            return self.config_file
        return _config_file_in(path.absolute().parent)

    def run(self) -> Iterator[tuple[int, int, str, type]]:
        path = Path(self.filename)
        config, ruleset = _engine(self._config_file(path))
        text = "".join(self.lines)
        ignored = config.ignored_in(path) if config.per_file_ignores else ()
        # the pre-filter first: a file without the rules' tokens is never analysed
        rules = ruleset.without(ignored).applicable(text.encode("utf-8", "surrogatepass"))
        if not rules:
            return
        findings = lint_text(text, self.filename, rules, ruleset.settings, honour_noqa=False, tree=self.tree)
        for f in findings:
            if f.code not in _FLAKE8_OWN:
                yield f.line, f.column - 1, f"{f.code} [{f.name}] {f.message}", type(self)
