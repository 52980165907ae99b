"""The layout of the lines a fix moves, for the editor (rtlint.fix.editor, whose docstring
states the rules): which lines of re-indented code shift (`reindent`, from `line_kinds`),
the file's indentation unit (`default_indent`), and the text as replacements of line
ranges, inner ones first (`Regions`). Edits that cannot be laid out together raise
CannotFix."""

from __future__ import annotations

import tokenize
from collections.abc import Callable

from rtlint.core.fixplan import CannotFix
from rtlint.core.source import generate_tokens, split_lines


class Regions:
    """The text as replacements of line ranges of the original, inner ones first: an outer
    edit reads the current text of its range and replaces it, inner edits included."""

    def __init__(self, lines: list[str]) -> None:
        self.lines = lines
        self.done: list[tuple[int, int, str]] = []  # disjoint, sorted by start

    def _inside(self, a: int, b: int, closed: bool = True) -> list[tuple[int, int, str]]:
        """The replacements inside lines [a, b). An insertion at `b` is inside when `closed`
        (it ends a block of the statements in the range), not for a header's lines (it
        begins the block after them)."""
        inside: list[tuple[int, int, str]] = []
        if a == b:  # an empty range (no leading lines) holds nothing, not the insertion at `a`
            if any(ra < a < rb for ra, rb, _ in self.done):
                raise CannotFix("edits that overlap")
            return inside
        for r in self.done:
            ra, rb, _ = r
            if ra == rb:
                if a < ra < b or closed and ra == b:
                    inside.append(r)
            elif a <= ra and rb <= b:
                inside.append(r)
            elif ra < b and a < rb:
                raise CannotFix("edits that overlap")
        return inside

    def current(self, a: int, b: int, closed: bool = True) -> str:
        out, at = [], a
        for ra, rb, text in sorted(self._inside(a, b, closed), key=lambda r: (r[0], r[1])):
            out.append("".join(self.lines[at:ra]))
            out.append(text)
            at = rb
        out.append("".join(self.lines[at:b]))
        return "".join(out)

    def put(self, a: int, b: int, text: str, closed: bool = True) -> None:
        inside = set(map(id, self._inside(a, b, closed)))
        if a == b and any(r[0] == r[1] == a for r in self.done):
            raise CannotFix("two insertions at one place")
        self.done = sorted([r for r in self.done if id(r) not in inside] + [(a, b, text)], key=lambda r: (r[0], r[1]))

    def text(self, fit: Callable[[str, str], str] | None) -> str:
        out, at = [], 0
        for a, b, new in self.done:
            old = "".join(self.lines[a:b])
            out.append("".join(self.lines[at:a]))
            out.append(fit(new, old) if fit is not None and new != old else new)
            at = b
        out.append("".join(self.lines[at:]))
        return "".join(out)


_LAST_INDENT: list = [None, "    "]  # (text, its indent) of the last call: one per fix of a file


def default_indent(text: str) -> str:
    """LibCST's `default_indent`: the first indentation in the file, else four spaces
    (remembered for the text last asked about: JSON asks once per finding's fix)."""
    if _LAST_INDENT[0] is text:
        return _LAST_INDENT[1]
    _LAST_INDENT[:] = [text, _default_indent(text)]
    return _LAST_INDENT[1]


def _default_indent(text: str) -> str:
    try:
        for token in generate_tokens(text):
            if token.type == tokenize.INDENT:
                return token.string
    except (tokenize.TokenError, SyntaxError):
        pass
    return "    "


def reindent(text: str, old: str, new: str) -> str:
    """`text` (whole statements at indentation `old`, with their leading lines) moved to
    indentation `new`: every line that starts with `old` (a statement's line, a bracketed or
    backslash continuation, a comment) is shifted; blank lines, the inside of strings and
    lines indented less than `old` stay as they are."""
    lines = split_lines(text)
    # only a string over several lines makes a line verbatim, and one needs a triple quote or
    # a backslash before its line break: without them the tokenizer (a sixth of a JSON
    # report's time on a file of fixable findings) is not needed
    verbatim: set[int] = set()
    if '"""' in text or "'''" in text or "\\" in text:
        verbatim = {row for row, (kind, _) in enumerate(line_kinds(text, len(lines))) if kind == "verbatim"}
    out = []
    for row, line in enumerate(lines):
        body = line.rstrip("\r\n")
        if row in verbatim or not body.strip() or not body.startswith(old):
            out.append(line)
        else:
            out.append(new + line[len(old) :])
    return "".join(out)


def line_kinds(text: str, count: int) -> list[tuple[str, object]]:
    """Per line: ("verbatim", None) inside a string; ("blank", None) for a blank line
    outside brackets; ("code", indentation) for a statement's
    line or its bracketed continuation; ("comment", (indentations that shift it)) for a
    comment line outside brackets."""
    kinds: list[tuple[str, object]] = [("unknown", None)] * count
    depth = 0
    logical_indent = ""
    at_start = True
    last_code_indent = ""
    pending_comments: list[int] = []
    lines = split_lines(text)

    def indent_of(row: int) -> str:
        line = lines[row]
        return line[: len(line) - len(line.lstrip(" \t"))]

    try:
        tokens = list(generate_tokens(text))
    except (tokenize.TokenError, SyntaxError):
        raise CannotFix("code that does not tokenize") from None
    seen_rows: set[int] = set()
    for token in tokens:
        kind = token.type
        row, end_row = token.start[0] - 1, token.end[0] - 1
        if kind in (tokenize.INDENT, tokenize.DEDENT, tokenize.ENDMARKER):
            continue
        if kind == tokenize.NL and depth == 0:
            continue
        if kind == tokenize.COMMENT and depth == 0 and row not in seen_rows:
            pending_comments.append(row)
            seen_rows.add(row)
            continue
        if kind == tokenize.COMMENT and row in seen_rows:
            continue
        if row not in seen_rows:
            seen_rows.add(row)
            if at_start and depth == 0:
                logical_indent = indent_of(row)
                for comment in pending_comments:  # at the code after them, or the block before
                    kinds[comment] = (
                        "comment",
                        {logical_indent}
                        | ({last_code_indent} if len(last_code_indent) > len(logical_indent) else set()),
                    )
                pending_comments = []
                kinds[row] = ("code", logical_indent)
            elif depth > 0:
                kinds[row] = ("code", logical_indent)
            else:  # a backslash continuation
                kinds[row] = ("code", logical_indent)
        for inner in range(row + 1, end_row + 1):  # a string over several lines
            kinds[inner] = ("verbatim", None)
            seen_rows.add(inner)
        if kind == tokenize.OP and token.string in "([{":
            depth += 1
        elif kind == tokenize.OP and token.string in ")]}":
            depth -= 1
        at_start = kind == tokenize.NEWLINE
        if at_start:
            last_code_indent = logical_indent
    for comment in pending_comments:  # after the last code: the block's end
        kinds[comment] = ("comment", {last_code_indent})
    return [("blank", None) if k == "unknown" else (k, v) for k, v in kinds]
