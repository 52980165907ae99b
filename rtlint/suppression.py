"""Inline suppression: `# noqa`, `# noqa: RTL001`, `# rtlint: ignore[RTL001]`.

As in flake8, a comment anywhere in a statement that spans several lines (brackets,
triple-quoted strings) covers every line of that statement.
"""

from __future__ import annotations

import io
import re
import tokenize
from typing import Iterable

from rtlint.source import split_lines

ALL = None  # a bare `# noqa`: every code

_NOQA = re.compile(
    r"#\s*noqa(?::[\s]?(?P<codes>[A-Z]+[0-9]*(?:[,\s]+[A-Z]+[0-9]*)*))?", re.IGNORECASE
)
_RTLINT_IGNORE = re.compile(r"#\s*rtlint:\s*ignore(?:\[(?P<codes>[^\]]*)\])?", re.IGNORECASE)


def _codes(text: str | None) -> frozenset[str] | None:
    if not text:
        return ALL
    return frozenset(c.upper() for c in re.split(r"[,\s]+", text) if c)


def _comment_codes(comment: str, honour_noqa: bool) -> list[frozenset[str] | None]:
    found = []
    if honour_noqa:
        for match in _NOQA.finditer(comment):
            found.append(_codes(match.group("codes")))
    for match in _RTLINT_IGNORE.finditer(comment):
        found.append(_codes(match.group("codes")))
    return found


class Suppressions:
    def __init__(self, text: str, honour_noqa: bool = True) -> None:
        # line -> codes suppressed there (None: all)
        self._by_line: dict[int, list[frozenset[str] | None]] = {}
        if "#" not in text:
            return
        try:
            self._from_tokens(text, honour_noqa)
        except (tokenize.TokenError, SyntaxError, IndentationError):
            self._from_lines(text, honour_noqa)

    def _from_lines(self, text: str, honour_noqa: bool) -> None:
        for number, line in enumerate(split_lines(text), start=1):
            if "#" in line:
                codes = _comment_codes(line[line.index("#") :], honour_noqa)
                if codes:
                    self._by_line.setdefault(number, []).extend(codes)

    def _from_tokens(self, text: str, honour_noqa: bool) -> None:
        logical_start: int | None = None  # first line of the statement being read
        pending: list[frozenset[str] | None] = []
        skip = (tokenize.NL, tokenize.INDENT, tokenize.DEDENT, tokenize.ENCODING, tokenize.ENDMARKER)
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type == tokenize.COMMENT:
                codes = _comment_codes(token.string, honour_noqa)
                if logical_start is None:  # a comment on a line of its own
                    if codes:
                        self._by_line.setdefault(token.start[0], []).extend(codes)
                else:
                    pending.extend(codes)
            elif token.type == tokenize.NEWLINE:
                if logical_start is not None and pending:
                    for number in range(logical_start, token.end[0] + 1):
                        self._by_line.setdefault(number, []).extend(pending)
                pending = []
                logical_start = None
            elif token.type not in skip and logical_start is None:
                logical_start = token.start[0]

    def suppressed(self, line: int, code: str) -> bool:
        for codes in self._by_line.get(line, ()):
            if codes is ALL or any(code.startswith(c) for c in codes):
                return True
        return False


def filter_findings(findings: Iterable, text: str, honour_noqa: bool = True) -> list:
    findings = list(findings)
    if not findings:
        return findings
    suppressions = Suppressions(text, honour_noqa)
    return [f for f in findings if not suppressions.suppressed(f.line, f.code)]
