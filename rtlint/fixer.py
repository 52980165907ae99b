"""The safe fix runner: fixes are applied together, iterated to a fixpoint, and verified
(the result parses, and re-linting does not report again what was fixed) before anything
is written. Writing is atomic, and never happens to a file that changed meanwhile."""

from __future__ import annotations

import os
import stat
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

from rtlint.context import FixContext
from rtlint.edits import diff_edits
from rtlint.findings import Finding, Fix
from rtlint.linter import lint_text
from rtlint.parsing import ParseError, parse
from rtlint.rule import Rule, Settings

MAX_PASSES = 10


@dataclass
class FixOutcome:
    text: str
    findings: list[Finding]  # what remains to report
    applied: list[Finding] = field(default_factory=list)
    failure: str | None = None  # why nothing was written


def _libcst_module(text: str):
    from rtlint import cstedit

    try:
        return cstedit.parse(text)
    except Exception:  # LibCST cannot parse it (or recursion); no fix can be built
        return None


def build_fix(rule: Rule, finding: Finding, text: str, module, settings: Settings) -> Fix | None:
    """The edits of one finding's fix against `text`, or None when the rule cannot build it."""
    from rtlint.cstedit import CannotFix, Editor

    if finding.fixable is None or module is None:
        return None
    editor = Editor(module)
    editor.begin()
    try:
        rule.fix(finding, FixContext(text, settings, editor))
    except CannotFix:
        return None
    if editor.empty:
        return None
    edits = diff_edits(text, editor.result().code)
    return Fix(finding.fixable, edits) if edits else None


def attach_fixes(findings: Sequence[Finding], text: str, rules: Sequence[Rule], settings: Settings) -> None:
    """Fill in `finding.fix` (for JSON and SARIF) without changing anything."""
    by_code = {rule.code: rule for rule in rules}
    wanted = [f for f in findings if f.fixable and f.code in by_code]
    if not wanted:
        return
    module = _libcst_module(text)
    for finding in wanted:
        try:
            finding.fix = build_fix(by_code[finding.code], finding, text, module, settings)
        except Exception:
            finding.fix = None


def fix_text(
    text: str,
    display_path: str,
    rules: Sequence[Rule],
    settings: Settings,
    *,
    unsafe: bool = False,
    findings: list[Finding] | None = None,
) -> FixOutcome:
    """Apply every wanted fix, pass after pass, until none is left or none applies. In a
    pass, the fixes whose edits do not overlap are applied together in one transform; the
    others wait for the next pass, re-detected on the new text."""
    from rtlint.cstedit import CannotFix, Editor

    by_code = {rule.code: rule for rule in rules}
    if findings is None:
        findings = lint_text(text, display_path, rules, settings)
    current = text
    module = None
    applied: list[Finding] = []
    for _ in range(MAX_PASSES):
        wanted = [
            f
            for f in findings
            if f.code in by_code and (f.fixable == "safe" or (unsafe and f.fixable == "unsafe"))
        ]
        if not wanted:
            break
        module = module if module is not None else _libcst_module(current)
        if module is None:
            break
        editor = Editor(module)
        chosen: list[Finding] = []
        for finding in wanted:
            editor.begin()
            try:
                by_code[finding.code].fix(finding, FixContext(current, settings, editor))
            except CannotFix:
                editor.rollback()
                continue
            except Exception as exc:  # a broken fix must not end the run
                return FixOutcome(text, findings, failure=f"{finding.code} fix crashed: {type(exc).__name__}: {exc}")
            chosen.append(finding)
        if not chosen or editor.empty:
            break
        try:
            candidate = editor.result().code
        except Exception as exc:
            codes = ", ".join(sorted({f.code for f in chosen}))
            return FixOutcome(text, findings, failure=f"{codes} fix crashed: {type(exc).__name__}: {exc}")
        if candidate == current:
            break
        verified = _verify(candidate, display_path, findings, chosen, rules, settings)
        if isinstance(verified, str):
            return FixOutcome(text, lint_text(text, display_path, rules, settings), failure=verified)
        current, (findings, module) = candidate, verified
        applied.extend(chosen)
    return FixOutcome(current, findings, applied)


def _verify(
    candidate: str,
    display_path: str,
    before: list[Finding],
    chosen: list[Finding],
    rules: Sequence[Rule],
    settings: Settings,
) -> str | tuple[list[Finding], object]:
    """The re-lint of `candidate` and its LibCST tree (the next pass works on it), or why
    the fixes in `chosen` cannot be trusted."""
    codes = ", ".join(sorted({f.code for f in chosen}))
    try:
        parse(candidate, display_path)
    except ParseError as exc:
        return f"{codes} fix not applied: the result does not parse (line {exc.line}: {exc.message})"
    module = _libcst_module(candidate)
    if module is None:
        return f"{codes} fix not applied: the result cannot be parsed by LibCST"
    after = lint_text(candidate, display_path, rules, settings)
    count_before = Counter((f.code, f.symbol) for f in before)
    count_after = Counter((f.code, f.symbol) for f in after)
    fixed = Counter((f.code, f.symbol) for f in chosen)
    for key, number in fixed.items():
        if count_after[key] > count_before[key] - number:
            code, symbol = key
            where = f" in {symbol}" if symbol else ""
            return f"{code} fix not applied: re-linting the result still reports {code}{where}"
    return after, module


class FileChanged(Exception):
    pass


def write_atomically(path: Path, data: bytes, expected: bytes) -> None:
    """Replace the file's content by `data` unless it no longer holds `expected`.
    A temporary file in the same folder is renamed over the file (mode kept), so a crash
    or a signal leaves either the old or the new content, never a mix."""
    real = path.resolve()
    with open(real, "rb") as handle:
        if handle.read() != expected:
            raise FileChanged(f"{path} changed on disk while it was being fixed; not written")
    mode = stat.S_IMODE(os.stat(real).st_mode)
    fd, temporary = tempfile.mkstemp(dir=real.parent, prefix=f".{real.name}.", suffix=".rtlint-tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temporary, mode)
        os.replace(temporary, real)
    except BaseException:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        raise
