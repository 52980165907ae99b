"""A small Python API over the engine, for tests and for tools embedding rtlint."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from rtlint.core.findings import Finding
from rtlint.engine.config import Config
from rtlint.engine.linter import RuleSet, lint_text


def _rules(config: Config | None, select: Sequence[str] | None) -> tuple[RuleSet, Config]:
    config = config or Config(root=Path.cwd())
    return RuleSet(config.enabled_rules(select), config.settings()), config


def check_source(
    text: str, path: str = "<source>", *, config: Config | None = None, select: Sequence[str] | None = None
) -> list[Finding]:
    """Findings in `text` (every enabled rule runs: no pre-filter, syntax errors reported)."""
    ruleset, config = _rules(config, select)
    return lint_text(text, path, ruleset.rules, ruleset.settings, parse_always=True)


@dataclass
class FixResult:
    text: str
    remaining: list[Finding]
    applied: list[Finding]
    failure: str | None


def fix_source(
    text: str,
    path: str = "<source>",
    *,
    config: Config | None = None,
    select: Sequence[str] | None = None,
    unsafe: bool = False,
) -> FixResult:
    """`text` with every applicable fix applied and verified (the text is unchanged on failure)."""
    from rtlint.engine.fixer import fix_text
    from rtlint.fix.formatting import choose
    from rtlint.fix.linelength import line_length

    ruleset, config = _rules(config, select)
    width = line_length(config.line_length, Path(path))
    formatter = choose(config.fix_formatter, Path(path), config.line_length)
    outcome = fix_text(
        text, path, ruleset.rules, ruleset.settings, unsafe=unsafe, line_length=width, formatter=formatter
    )
    return FixResult(outcome.text, outcome.findings, outcome.applied, outcome.failure)
