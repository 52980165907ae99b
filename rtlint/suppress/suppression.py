"""Suppression: inline `# noqa`, `# noqa: RTL001`, `# rtlint: ignore[RTL001]`; the file-level
comments of rtlint and flake8 (comments.file_exemption).

`# noqa` is read exactly as flake8 reads it, so the CLI and the flake8 plugin agree: the
first `# noqa` comment on the reported line (or anywhere in a multi-line string token
that spans it) counts; codes need letters and digits (`RTL001`, or a prefix such as
`RTL`+digits), and words after them are not codes.
"""

from __future__ import annotations

import ast
import bisect
import tokenize
from collections import deque
from collections.abc import Iterable

from rtlint.core.source import generate_tokens, split_lines
from rtlint.suppress.comments import NOQA, RTLINT_IGNORE, NoqaError, file_exemption, split_codes, token_ranges


class Suppressions:
    def __init__(self, text: str, honour_noqa: bool = True, tree: ast.AST | None = None) -> None:
        self._lines = split_lines(text)
        self._honour_noqa = honour_noqa
        self._mapping: dict[int, str | None] | None = None
        self._text = text
        self._any_comment = "#" in text
        # the tree gives multi-line strings cheaply; a backslash continuation joins lines
        # too (flake8 reads the lines it joins together), which only the tokenizer sees
        self._tree = tree if "\\\n" not in text and "\\\r" not in text else None
        if self._tree is not None:
            self._mapping = {}
        self._starts: dict[int, list[int]] = {}  # per list of statements: their first lines (or [])

    def _flake8_range(self, line: int) -> tuple[int, int] | None:
        """The lines flake8 reads together with `line` when a multi-line string is near it
        (None: `line` alone). Found by descending only into the nodes that cover the line
        (walking the whole tree would cost a 5,000-line file ~40 ms for its few findings);
        when a multi-line string covers it, the statement holding it is tokenized as
        flake8 tokenizes the file (an implicitly concatenated string is several tokens,
        each read on its own line)."""
        statement, string = None, False
        todo = deque([self._tree])
        while todo:
            node = todo.popleft()
            start = getattr(node, "lineno", None)
            if start is not None:
                start = _start(node)
                end = getattr(node, "end_lineno", None) or start
                if not start <= line <= end:
                    continue
                if isinstance(node, ast.stmt):
                    statement = (start, end)
                elif isinstance(node, (ast.Constant, ast.JoinedStr)) and end > node.lineno:
                    string = string or not isinstance(node, ast.Constant) or isinstance(node.value, (str, bytes))
            todo.extend(self._covering(node, line))
        if not string or statement is None:
            return None
        return _token_range(self._lines, statement, line)

    def _covering(self, node: ast.AST, line: int) -> list[ast.AST]:
        """The children of `node` that may cover `line`. A long block of statements (a
        module of a thousand classes, a class of a thousand methods) is searched by
        bisection on their first lines, kept per block: each finding costs the depth of
        its line in the tree, not the size of the file (linear in findings, not quadratic)."""
        out: list[ast.AST] = []
        for name in node._fields:
            value = getattr(node, name, None)
            if value.__class__ is not list:
                if isinstance(value, ast.AST) and name != "ctx":
                    out.append(value)
                continue
            starts = self._starts.get(id(value))
            if starts is None:
                ordered = len(value) >= 16 and all(isinstance(c, ast.stmt) for c in value)
                starts = [_start(c) for c in value] if ordered else []
                if any(b < a for a, b in zip(starts, starts[1:])):
                    starts = []  # not in line order: every child
                self._starts[id(value)] = starts
            if not starts:
                out.extend(c for c in value if isinstance(c, ast.AST))
                continue
            index = bisect.bisect_right(starts, line)
            out.extend(value[max(0, index - 1) : index])
        return out

    def _line_text(self, line: int) -> str:
        """The text searched for a comment covering `line` (flake8's noqa line mapping: a
        multi-line token such as a triple-quoted string joins the lines it spans)."""
        if self._tree is not None:
            if line not in self._mapping:
                try:
                    span = self._flake8_range(line)
                except _Untokenizable:
                    self._tree, self._mapping = None, None  # from now on, flake8's own way
                    return self._line_text(line)
                self._mapping[line] = None if span is None else "".join(self._lines[span[0] - 1 : span[1]])
            joined = self._mapping[line]
            if joined is not None:
                return joined
            return self._lines[line - 1] if 1 <= line <= len(self._lines) else ""
        if self._mapping is None:
            self._mapping = {}
            try:
                tokens = list(generate_tokens(self._text))
            except (tokenize.TokenError, SyntaxError):
                tokens = []
            low, high = len(self._lines) + 2, -1
            for token in tokens:
                if token.type in (tokenize.ENDMARKER, tokenize.DEDENT):
                    continue
                low, high = min(low, token.start[0]), max(high, token.end[0])
                if token.type in (tokenize.NL, tokenize.NEWLINE):
                    joined = "".join(self._lines[low - 1 : high])
                    for number in range(low, high + 1):
                        self._mapping[number] = joined
                    low, high = len(self._lines) + 2, -1
        if line in self._mapping:
            return self._mapping[line]
        return self._lines[line - 1] if 1 <= line <= len(self._lines) else ""

    def suppressed(self, line: int, code: str) -> bool:
        if not self._any_comment:
            return False  # every suppression is a comment: no `#` in the file, no mapping to build
        text = self._line_text(line)
        if "#" not in text:
            return False
        if self._honour_noqa:
            match = NOQA.search(text)
            if match is not None:
                codes = match.group("codes")
                if codes is None or code in split_codes(codes) or code.startswith(split_codes(codes)):
                    return True
        for match in RTLINT_IGNORE.finditer(text):
            codes = match.group("codes")
            if codes is None or code.startswith(tuple(c.upper() for c in split_codes(codes))):
                return True
        return False


def _start(node: ast.AST) -> int:
    start = node.lineno
    for decorator in getattr(node, "decorator_list", ()):
        start = min(start, decorator.lineno)  # decorators sit above `def`
    return start


def _token_range(lines: list[str], statement: tuple[int, int], line: int) -> tuple[int, int] | None:
    """flake8's noqa line range holding `line`, from the tokens of the statement's lines
    alone (comments.token_ranges, the ranges `--add-noqa` writes to)."""
    first, last = statement
    try:
        ranges = token_ranges("".join(lines[first - 1 : last]))
    except NoqaError:  # a fragment the tokenizer refuses
        raise _Untokenizable from None
    for found in ranges:
        low, high = found.first + first - 1, found.last + first - 1
        if low <= line <= high:
            return (low, high) if high > low else None
    return None


class _Untokenizable(Exception):
    """The statement's lines alone do not tokenize: the whole file is tokenized instead."""


def filter_findings(findings: Iterable, text: str, honour_noqa: bool = True, tree: ast.AST | None = None) -> list:
    findings = list(findings)
    if not findings:
        return findings
    # `honour_noqa=False` (flake8's plugin): flake8 applies its own file-level comment
    # itself, never rtlint's, which is read here in every case
    exempt = file_exemption(text, honour_flake8=honour_noqa)
    if exempt:
        findings = [f for f in findings if not exempt.covers(f.code)]
        if not findings:
            return findings
    suppressions = Suppressions(text, honour_noqa, tree)
    return [f for f in findings if not suppressions.suppressed(f.line, f.code)]
