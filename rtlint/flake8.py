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
def _finder(explicit: Path | None) -> config_module.Finder:
    """The configuration of each file, resolved as `rtlint check` resolves it (one Finder per
    process: a checkout of N files reads each configuration once, not N times)."""
    return config_module.Finder(explicit)


_RULESETS: dict[int, tuple[config_module.Config, RuleSet]] = {}


def _engine(path: Path, explicit: Path | None) -> tuple[config_module.Config, RuleSet]:
    """The configuration of `path` and its rules, built once per configuration."""
    try:
        config = _finder(explicit).for_path(path)
        if id(config) not in _RULESETS:
            _RULESETS[id(config)] = (config, RuleSet(config.enabled_rules(), config.settings()))
        return _RULESETS[id(config)]
    except (config_module.ConfigError, registry.RegistryError) as exc:
        # flake8 prints this as a critical error and exits non-zero, without a traceback
        raise ExecutionError(f"rtlint: {exc}") from None


def _unused_selected(select: list[str] | None) -> bool:
    """Whether flake8's own --select/--extend-select names RTL100 (or a prefix of it), as
    rtlint's --select does: `flake8 --select RTL` reports unused suppressions like `rtlint
    check --select RTL`; flake8's default selection (every plugin's prefix) does not."""
    return any("RTL100".startswith(code.strip().upper()) for code in select or () if code.strip())


class Plugin:
    name = "rtlint"
    version = __version__
    # set from --rtlint-config (or `rtlint-config =` in flake8's configuration)
    config_file: ClassVar[Path | None] = None
    # flake8's --select or --extend-select names RTL100
    report_unused: ClassVar[bool] = False

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
        selected = [*(getattr(options, "select", None) or ()), *(getattr(options, "extend_select", None) or ())]
        cls.report_unused = _unused_selected(selected)

    def run(self) -> Iterator[tuple[int, int, str, type]]:
        path = Path(self.filename)
        if self.filename in ("stdin", "-"):
            path = Path.cwd() / "-"
        config, ruleset = _engine(path, self.config_file)
        # the configured excludes cover the files flake8 is given inside the configuration's
        # folder, as they cover an editor's buffer (flake8 has no notion of a file named
        # explicitly: it is given them all)
        if config.excludes_buffer(path):
            return
        text = "".join(self.lines)
        ignored = config.ignored_in(path) if config.per_file_ignores else ()
        for_file = ruleset.without(ignored)
        unused_for = None
        if self.report_unused or config.selects("RTL100"):
            unused_for = [rule.code for rule in for_file.rules]
        # the pre-filter first: a file without the rules' tokens is never analysed
        rules = for_file.applicable(text.encode("utf-8", "surrogatepass"))
        if not rules and (unused_for is None or "RTL" not in text):
            return
        findings = lint_text(
            text, self.filename, rules, ruleset.settings, honour_noqa=False, tree=self.tree, unused_for=unused_for
        )
        for f in findings:
            if f.code not in _FLAKE8_OWN:
                yield f.line, f.column - 1, f"{f.code} [{f.name}] {f.message}", type(self)
