"""Test-only rules, loaded with RTLINT_EXTRA_RULES=tests.support.fault_rules: they let the
engine's fix runner and error handling be exercised independently of the real rules.

Each rule reports an expression statement calling one marker function, e.g.
`rtlint_marker(x)`; codes RTL801-RTL899 never collide with real or engine codes.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from typing import ClassVar

import libcst as cst

from rtlint.core.context import iter_statement_paths
from rtlint.core.findings import Finding
from rtlint.core.rule import Rule

MODULE = __name__


class _MarkerRule(Rule):
    marker: ClassVar[str]
    applicability: ClassVar[str | None] = "safe"
    fix_availability = "always"

    def required_tokens(self) -> list[tuple[str, ...]]:
        return [(self.marker,)]

    def check(self, file) -> Iterator[Finding]:
        for stmt, path in iter_statement_paths(file.tree):
            if (
                isinstance(stmt, ast.Expr)
                and isinstance(stmt.value, ast.Call)
                and isinstance(stmt.value.func, ast.Name)
                and stmt.value.func.id == self.marker
            ):
                yield self.report(file, stmt.value, f"call of {self.marker}()", fixable=self.applicability, data=path)


def _rename(line: cst.SimpleStatementLine, name: str) -> cst.SimpleStatementLine:
    expr = line.body[0]
    return line.with_changes(body=[expr.with_changes(value=expr.value.with_changes(func=cst.Name(name)))])


class GoodFix(_MarkerRule):
    """A fix that is correct: `rtlint_marker(...)` becomes `rtlint_fixed(...)`; only that
    statement changes (arguments, comments and whitespace kept)."""

    code = "RTL801"
    name = "test-good-fix"
    summary = "test rule with a correct fix"
    marker = "rtlint_marker"

    def fix(self, finding: Finding, file) -> None:
        editor = file.editor
        editor.rewrite(editor.locate(finding.data), lambda line: _rename(line, "rtlint_fixed"))


class BrokenFix(_MarkerRule):
    """A fix whose result does not parse: `rtlint_break_me()` becomes `rtlint_broken() = 1`."""

    code = "RTL802"
    name = "test-broken-fix"
    summary = "test rule whose fix produces invalid code"
    marker = "rtlint_break_me"

    def fix(self, finding: Finding, file) -> None:
        bad = cst.Assign(targets=[cst.AssignTarget(cst.Call(func=cst.Name("rtlint_broken")))], value=cst.Integer("1"))
        editor = file.editor
        editor.rewrite(editor.locate(finding.data), lambda line: line.with_changes(body=[bad]))


class CrashingCheck(_MarkerRule):
    """A rule whose detection raises."""

    code = "RTL803"
    name = "test-crashing-check"
    summary = "test rule that crashes"
    marker = "rtlint_crash_check"
    applicability = None
    fix_availability = "none"

    def check(self, file) -> Iterator[Finding]:
        if self.marker in file.text:  # (the API runs every rule, without the pre-filter)
            raise RuntimeError("the test rule crashed on purpose")
        return iter(())


class CrashingFix(_MarkerRule):
    """A rule whose fix raises."""

    code = "RTL804"
    name = "test-crashing-fix"
    summary = "test rule whose fix crashes"
    marker = "rtlint_crash_fix"

    def fix(self, finding: Finding, file) -> None:
        raise ZeroDivisionError("the test fix crashed on purpose")


class StubbornFix(_MarkerRule):
    """A fix that changes the file but not what was reported: re-linting still finds it."""

    code = "RTL805"
    name = "test-stubborn-fix"
    summary = "test rule whose fix does not remove the finding"
    marker = "rtlint_stubborn"

    def fix(self, finding: Finding, file) -> None:
        editor = file.editor
        comment = cst.TrailingWhitespace(whitespace=cst.SimpleWhitespace("  "), comment=cst.Comment("# touched"))
        editor.rewrite(editor.locate(finding.data), lambda line: line.with_changes(trailing_whitespace=comment))


class DyingWorker(_MarkerRule):
    """Kills the worker process that checks `rtlint_die_in_worker()` (as the OOM killer
    would); in the main process it reports nothing."""

    code = "RTL806"
    name = "test-dying-worker"
    summary = "test rule whose worker dies"
    marker = "rtlint_die_in_worker"
    applicability = None

    def check(self, file) -> Iterator[Finding]:
        import multiprocessing
        import os
        import signal

        if multiprocessing.parent_process() is not None and any(True for _ in super().check(file)):
            os.kill(os.getpid(), signal.SIGKILL)
        return iter(())


class QuotingRule(_MarkerRule):
    """Quotes the source of `rtlint_quote(...)` in its message, as RTL002's "(if ...)"
    clause quotes code: what the code holds reaches every output format."""

    code = "RTL807"
    name = "test-quoting"
    summary = "test rule that quotes source"
    marker = "rtlint_quote"
    applicability = None

    def check(self, file) -> Iterator[Finding]:
        for finding in super().check(file):
            line = file.lines[finding.line - 1].rstrip("\r\n")
            finding.message = f"quoted: {line}"
            yield finding
