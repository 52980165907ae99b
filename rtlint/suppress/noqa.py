"""Writing `# noqa: CODE` comments (what `--add-noqa` and the editor's "Ignore" action do).

A comment goes where flake8 looks for it (rtlint.suppress.comments.token_ranges), so a line
inside a multi-line string or a backslash continuation is suppressed by a comment at the
end of its token range's last line. Everything outside the inserted text keeps its bytes.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from rtlint.core.findings import Edit
from rtlint.core.source import split_lines
from rtlint.suppress.comments import NOQA, TokenRange, split_codes, token_ranges


def _covers(codes_text: str | None, code: str) -> bool:
    """Whether a `# noqa` with these codes (None: a bare `# noqa`) suppresses `code`, as
    flake8 decides it."""
    if codes_text is None:
        return True
    codes = split_codes(codes_text)
    return code in codes or code.startswith(codes)


def noqa_edits(text: str, pairs: Iterable[tuple[int, str]], reason: str = "") -> list[Edit]:
    """The insertions that make flake8 (and rtlint) suppress `code` on `line` for every
    pair: codes are merged into a `# noqa:` comment the range has already, or a new
    `  # noqa: CODES` comment ends the range's last line. Pairs already suppressed, and
    lines outside the text, give no edit; a code the comment names already is never added
    again. `reason` is written after the codes of a new comment, and after the merged codes
    of one that has no words after its codes (as ruff's `--add-noqa=REASON`). Edits are
    1-based, end-exclusive, and ordered."""
    by_line = {line: span for span in token_ranges(text) for line in range(span.first, span.last + 1)}
    lines = split_lines(text)
    wanted: dict[TokenRange, list[str]] = {}
    for line, code in pairs:
        found = by_line.get(line)
        if found is not None and code not in wanted.setdefault(found, []):
            wanted[found].append(code)
    edits = []
    for span, codes in wanted.items():
        edit = _edit_for(span, codes, lines, reason)
        if edit is not None:
            edits.append(edit)
    return sorted(edits)


def _edit_for(span: TokenRange, codes: list[str], lines: list[str], reason: str = "") -> Edit | None:
    joined = "".join(lines[span.first - 1 : span.last])
    match = NOQA.search(joined)
    missing = [c for c in codes if match is None or not _covers(match.group("codes"), c)]
    if not missing:
        return None
    last = lines[span.last - 1]
    offset = sum(len(line) for line in lines[span.first - 1 : span.last - 1])  # of `last` in `joined`
    if match is not None:
        if span.comment_column is None or match.start() < offset + span.comment_column:
            # flake8 reads the first noqa comment of the range, and this one is not in the
            # comment (a string holds it): no comment can change what flake8 reads
            return None
        # after the last code, before any words or separators that follow it
        codes_text = match.group("codes")
        end = match.start("codes") + len(re.sub(r"[,\s]+$", "", codes_text)) - offset
        after = last.rstrip("\r\n")[end:]
        words = after.split("#", 1)[0].strip()  # a reason the comment has already
        suffix = f" {reason}" if reason and not words else ""
        return Edit(span.last, end + 1, span.last, end + 1, ", " + ", ".join(missing) + suffix)
    content = last.rstrip("\r\n")
    trailing = len(content) - len(content.rstrip(" \t"))
    # after any other comment too (a type-ignore comment before it): flake8 finds it anywhere
    insertion = " " * max(0, 2 - trailing) + "# noqa: " + ", ".join(missing) + (f" {reason}" if reason else "")
    column = len(content) + 1
    return Edit(span.last, column, span.last, column, insertion)


def apply_inline_edits(text: str, edits: Iterable[Edit]) -> str:
    """`text` with column-precise edits applied (positions 1-based, in characters)."""
    lines = split_lines(text)
    for edit in sorted(edits, reverse=True):
        first, last = lines[edit.line - 1], lines[edit.end_line - 1] if edit.end_line <= len(lines) else ""
        merged = first[: edit.column - 1] + edit.content + last[edit.end_column - 1 :]
        lines[edit.line - 1 : edit.end_line] = [merged]
    return "".join(lines)


def add_noqa(text: str, pairs: Iterable[tuple[int, str]], reason: str = "") -> str:
    """`text` with a `# noqa: CODE` for every (line, code) pair (see `noqa_edits`)."""
    edits = noqa_edits(text, pairs, reason)
    return apply_inline_edits(text, edits) if edits else text
