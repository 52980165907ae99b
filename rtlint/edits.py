"""Fixes as line edits: computed by diffing the fixed text against the original, and
applied to the original so untouched bytes stay as they were."""

from __future__ import annotations

import difflib
from typing import Iterable

from rtlint.findings import Edit
from rtlint.source import split_lines


def diff_edits(before: str, after: str) -> tuple[Edit, ...]:
    """Whole-line edits turning `before` into `after`."""
    old, new = split_lines(before), split_lines(after)
    # the common head and tail need no diff (and keep the matcher fast on big files)
    head = 0
    while head < min(len(old), len(new)) and old[head] == new[head]:
        head += 1
    tail = 0
    while tail < min(len(old), len(new)) - head and old[-1 - tail] == new[-1 - tail]:
        tail += 1
    old_mid, new_mid = old[head : len(old) - tail], new[head : len(new) - tail]
    edits = []
    matcher = difflib.SequenceMatcher(None, old_mid, new_mid, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        start, stop = head + i1, head + i2
        edits.append(Edit(start + 1, 1, stop + 1, 1, "".join(new_mid[j1:j2])))
    return tuple(edits)


def apply_edits(text: str, edits: Iterable[Edit]) -> str:
    lines = split_lines(text)
    for edit in sorted(set(edits), key=lambda e: (e.line, e.end_line), reverse=True):
        lines[edit.line - 1 : edit.end_line - 1] = [edit.content]
    return "".join(lines)


def unified_diff(before: str, after: str, path: str) -> str:
    """A unified diff that, like git's, marks a last line without a newline."""
    old, new = split_lines(before), split_lines(after)
    out = []
    # git's a/ b/ prefixes for relative paths; an absolute path is shown as it is
    old_name, new_name = (path, path) if path.startswith("/") else (f"a/{path}", f"b/{path}")
    for line in difflib.unified_diff(old, new, old_name, new_name):
        out.append(line)
        if not line.endswith(("\n", "\r")):
            out.append("\n\\ No newline at end of file\n")
    return "".join(out)
