"""One version of one document, linted as `rtlint check PATH` lints that file: its nearest
configuration, its per-file ignores and the configured excludes; and the edits of its
fixes (the engine's fix runner, verified as `--fix` verifies) and of its `# noqa` comments.
Nothing here writes to disk."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lsprotocol import types

from rtlint.core.findings import Finding
from rtlint.core.rule import Rule, Settings
from rtlint.engine import config as config_module
from rtlint.engine import registry
from rtlint.engine.adoption import fix_with_suppressions
from rtlint.engine.fixer import FixOutcome, fix_text
from rtlint.engine.linter import RuleSet, lint_text
from rtlint.fix.edits import diff_edits
from rtlint.lsp.document import Document
from rtlint.report.docs import rule_url

SOURCE = "rtlint"


def document_path(uri: str) -> Path | None:
    """The file of a `file:` URI (None for an unsaved buffer and other schemes, and for a
    URI no file can have: a NUL byte (`%00`) is in no path, so it is linted as a buffer)."""
    from pygls.uris import to_fs_path

    if not uri.startswith("file:"):
        return None
    path = to_fs_path(uri)
    return Path(path) if path and "\0" not in path else None


@dataclass
class Analysis:
    document: Document  # the text as it was linted (positions are computed on it)
    findings: list[Finding] = field(default_factory=list)
    rules: list[Rule] = field(default_factory=list)
    settings: Settings | None = None
    display: str = ""
    problem: str | None = None  # why nothing was linted (a configuration error)
    unused_for: list[str] | None = None  # the codes RTL100 judges, when it is selected
    line_length: int | None = None  # what the fixes' added lines are broken to, as --fix does
    allowed: Any = None  # the codes the configuration lets be fixed (`unfixable`); None: all
    _fixes: dict[int | None, FixOutcome] = field(default_factory=dict, repr=False)
    _noqa: dict[int, list[types.TextEdit]] = field(default_factory=dict, repr=False)

    @property
    def version(self) -> int | None:
        return self.document.version

    def lint(self, text: str) -> list[Finding]:
        return lint_text(text, self.display, self.rules, self.settings, parse_always=True, unused_for=self.unused_for)

    def fix(self, finding: Finding | None) -> FixOutcome:
        """The verified result of fixing `finding` (a rule's) alone (one pass, its unsafe
        fix too when it has only that), or of every safe fix as `--fix` applies them (None),
        the removal of unused suppressions (RTL100) included."""
        key = None if finding is None else id(finding)
        if key not in self._fixes:
            text = self.document.text
            if finding is None:  # what the runner does for --fix
                outcome = fix_with_suppressions(
                    text,
                    self.display,
                    self.rules,
                    self.settings,
                    self.findings,
                    unsafe=False,
                    unused_for=self.unused_for,
                    relint=self.lint,
                    line_length=self.line_length,
                    allowed=self.allowed,
                )
            else:
                outcome = fix_text(
                    text,
                    self.display,
                    self.rules,
                    self.settings,
                    unsafe=finding.fixable == "unsafe",
                    findings=self.findings,
                    only=finding,
                    line_length=self.line_length,
                    allowed=self.allowed,
                )
            self._fixes[key] = outcome
        return self._fixes[key]

    def fix_edits(self, finding: Finding | None) -> tuple[list[types.TextEdit], str | None]:
        """(the text edits of `fix(finding)`, None) or ([], why there are none)."""
        outcome = self.fix(finding)
        if outcome.failure:
            return [], outcome.failure
        if outcome.text == self.document.text:
            return [], "the fix changes nothing"
        return text_edits(self.document, diff_edits(self.document.text, outcome.text)), None

    def noqa_edits(self, finding: Finding) -> list[types.TextEdit]:
        """The edit that adds `finding.code` to the `# noqa` flake8 and rtlint read for its
        line ([] when no comment can suppress it there)."""
        from rtlint.suppress.comments import NoqaError
        from rtlint.suppress.noqa import noqa_edits

        if finding.code in registry.ENGINE_CODES:
            return []  # a syntax error or an unreadable file is not suppressed by a comment
        if id(finding) not in self._noqa:  # it tokenizes the file: once per finding
            try:
                edits = text_edits(self.document, noqa_edits(self.document.text, [(finding.line, finding.code)]))
            except NoqaError:
                edits = []
            self._noqa[id(finding)] = edits
        return self._noqa[id(finding)]


def analyse(document: Document, fallback_root: Path) -> Analysis:
    """Lint a snapshot of `document` with the configuration `rtlint check` would use for
    its file (an unsaved buffer: the one of `fallback_root`, the workspace)."""
    path = document_path(document.uri)
    analysis = Analysis(document, display=_display(document.uri, path))
    try:
        # resolved as `rtlint check` resolves it: the nearest configuration to the file's real
        # path, with whatever it extends (read anew for each analysis: the editor may change it)
        config = config_module.for_path(path if path is not None else fallback_root)
        ruleset = RuleSet(config.enabled_rules(), config.settings())
    except (config_module.ConfigError, registry.RegistryError) as exc:
        analysis.problem = f"rtlint: configuration error: {exc}"
        return analysis
    if path is not None and config.excludes_buffer(path):
        return analysis
    from rtlint.fix.linelength import line_length

    analysis.line_length = line_length(config.line_length, path if path is not None else fallback_root / "-")
    ignored = config.ignored_in(path) if path is not None else ()
    text = document.text
    from rtlint.core import reading

    costly = "too large" if len(text) > reading.MAX_SOURCE else reading.too_costly(text)
    if costly is not None:  # as `rtlint check` reports it: not parsed, so no lint holds the server up
        from rtlint.engine.linter import engine_finding

        analysis.findings = [engine_finding("RTL901", analysis.display, f"cannot read file: {costly}")]
        return analysis
    # the rules `rtlint check FILE` runs: those the file's per-file ignores leave, past the
    # pre-filter; a file named explicitly is always parsed, so a syntax error is reported
    for_file = ruleset.without(ignored)
    rules = for_file.applicable(text.encode("utf-8", "surrogatepass"))
    # RTL100 (off unless the configuration selects it) judges the rules enabled for the file
    unused_for = [r.code for r in for_file.rules] if config.selects("RTL100") else None
    analysis.rules, analysis.settings, analysis.unused_for = rules, ruleset.settings, unused_for
    findings = analysis.lint(text)
    if ignored:  # per-file ignores cover the engine's codes too, as in the runner
        findings = [f for f in findings if not f.code.startswith(tuple(ignored))]
    if config.fixability:  # `unfixable`: reported, never fixed (as the runner does)
        analysis.allowed = config.fix_allowed
        for finding in findings:
            if finding.fixable and not config.fix_allowed(finding.code):
                finding.fixable, finding.fix = None, None
    analysis.findings = findings
    return analysis


def _display(uri: str, path: Path | None) -> str:
    if path is None:
        return uri
    from rtlint.engine.runner import display_path

    return display_path(path)


# As ruff's server decides it: an Error is code that fails at run time (ruff: an undefined
# name, a syntax error, an unreadable file), which every rule's finding is here (an item
# lost or kept against the user's turn), as are RTL900 and RTL901. A Warning is the rest:
# rtlint's own failure on a file (RTL902), and a suppression that suppresses nothing
# (RTL100), tagged Unnecessary so that editors fade the comment instead of underlining it.
_WARNINGS = {"RTL100", "RTL902"}
_UNNECESSARY = {"RTL100"}


def diagnostic(document: Document, finding: Finding) -> types.Diagnostic:
    warning = finding.code in _WARNINGS
    return types.Diagnostic(
        range=document.range(finding.line, finding.column, finding.end_line, finding.end_column),
        message=f"[{finding.name}] {finding.message}",
        severity=types.DiagnosticSeverity.Warning if warning else types.DiagnosticSeverity.Error,
        tags=[types.DiagnosticTag.Unnecessary] if finding.code in _UNNECESSARY else None,
        code=finding.code,
        code_description=types.CodeDescription(href=rule_url(finding.code)),
        source=SOURCE,
        data={"name": finding.name, "fixable": finding.fixable},
    )


def text_edits(document: Document, edits) -> list[types.TextEdit]:
    """Engine edits (1-based, columns in characters) as LSP text edits on `document`."""
    return [
        types.TextEdit(range=document.range(e.line, e.column, e.end_line, e.end_column), new_text=e.content)
        for e in sorted(edits, key=lambda e: (e.line, e.column))
    ]
