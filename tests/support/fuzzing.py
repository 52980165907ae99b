"""The properties every fuzzed program must have (tests/engine/test_fuzz.py, bench/fuzz.py).

- rtlint never crashes on it: no exception escapes, no RTL902 (a rule crashed), and a file
  the `ast` parser accepts is never RTL900 (one it rejects is, unless it is newer syntax);
- every `--fix` output (safe, and with unsafe fixes) parses, is idempotent, reports what really
  remains, and leaves no finding it claims to have fixed; no fix fails verification;
- with CRLF line endings the fix is the same, with CRLF line endings.
"""

from __future__ import annotations

import ast
import re
import warnings
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from rtlint.api import check_source, fix_source
from rtlint.core.findings import Finding
from rtlint.core.parsing import ParseError, parse
from rtlint.core.source import Source, UnreadableSource
from rtlint.engine.config import Config

from .programs import crlf

PATH = "fuzz.py"


def _fix(text: str, path: str, unsafe: bool = False):
    """`fix_source` with rtlint's own line breaking: this checkout's pyproject names ruff, whose
    formatter would otherwise format the fixed lines (a process per example, and a mixed-ending
    file, which keeps the fallback, then differs from its CRLF copy, which does not)."""
    return fix_source(text, path, config=Config(root=Path.cwd(), fix_formatter="none"), unsafe=unsafe)


@dataclass
class Tally:
    """What a fuzz run saw, for bench/fuzz.py's report."""

    examples: Counter = field(default_factory=Counter)  # per strategy
    findings: Counter = field(default_factory=Counter)  # per code
    fixes_applied: Counter = field(default_factory=Counter)  # per code
    files_fixed: int = 0
    unreadable: int = 0


def _python_accepts(text: str) -> bool:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # SyntaxWarning for odd escapes and the like
        try:
            ast.parse(text)
            return True
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return False


def _key(finding: Finding) -> tuple[str, str, str]:
    # a finding's identity across a fix: its messages name lines, which a fix moves
    return finding.code, finding.symbol, re.sub(r"\d+", "N", finding.message)


def _lines(findings: list[Finding]) -> list[tuple[int, int, str]]:
    return sorted((f.line, f.column, f.code) for f in findings)


def check_program(text: str, tally: Tally | None = None) -> None:
    """Assert the properties above for `text` (raises AssertionError with the reason)."""
    tally = tally if tally is not None else Tally()
    findings = check_source(text, PATH)
    crashes = [f.message for f in findings if f.code == "RTL902"]
    assert not crashes, f"a rule crashed: {crashes}"
    syntax_errors = [f for f in findings if f.code == "RTL900"]
    # rtlint never invents a syntax error; it may accept what this interpreter's parser rejects
    # (syntax of a newer Python, read through LibCST)
    if _python_accepts(text):
        assert not syntax_errors, f"RTL900 on a file ast.parse accepts: {[f.message for f in syntax_errors]}"
    tally.findings.update(f.code for f in findings)
    if syntax_errors:
        result = _fix(text, PATH)
        assert result.text == text and result.failure is None
        return
    remaining_safe: list[Finding] = []
    for unsafe in (False, True):
        if unsafe and not any(f.fixable == "unsafe" for f in [*findings, *remaining_safe]):
            break  # nothing more to fix with unsafe fixes
        result = _fix(text, PATH, unsafe=unsafe)
        remaining_safe = result.remaining
        assert result.failure is None, f"a fix failed verification: {result.failure}"
        if result.text == text:
            assert result.applied == []
            continue
        tally.files_fixed += 1
        tally.fixes_applied.update(f.code for f in result.applied)
        try:
            parse(result.text, PATH)
        except ParseError as exc:  # pragma: no cover - the verifier should have refused it
            raise AssertionError(f"the fixed code does not parse: line {exc.line}: {exc.message}") from None
        after = check_source(result.text, PATH)
        assert _lines(result.remaining) == _lines(after), "the findings said to remain are not those of the result"
        before, remaining, applied = (Counter(_key(f) for f in group) for group in (findings, after, result.applied))
        for key, number in applied.items():
            assert remaining[key] <= max(before[key] - number, 0), f"{key} is still reported after its fix"
        again = _fix(result.text, PATH, unsafe=unsafe)
        assert again.text == result.text and again.applied == [], "a second --fix changed the file again"
        if not unsafe:
            assert _fix(crlf(text), PATH).text == crlf(result.text), "the fix differs with CRLF line endings"


def check_bytes(raw: bytes, tally: Tally | None = None) -> None:
    """Arbitrary bytes as a file: unreadable (RTL901's reasons) or linted without a crash."""
    tally = tally if tally is not None else Tally()
    try:
        source = Source.from_bytes(raw)
    except UnreadableSource:
        tally.unreadable += 1
        return
    findings = check_source(source.text, PATH)
    assert not [f for f in findings if f.code == "RTL902"]
    tally.findings.update(f.code for f in findings)
