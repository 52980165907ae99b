"""Fixes as line edits: computed by diffing the fixed text against the original, and
applied to the original so untouched bytes stay as they were."""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable

from rtlint.core.findings import Edit
from rtlint.core.source import split_lines


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
    for i1, i2, j1, j2 in _changes(old_mid, new_mid):
        start, stop = head + i1, head + i2
        edits.append(Edit(start + 1, 1, stop + 1, 1, "".join(new_mid[j1:j2])))
    return tuple(edits)


def _changes(old: list[str], new: list[str]) -> list[tuple[int, int, int, int]]:
    """The changed ranges (i1, i2, j1, j2). A fix changes a few places of a big file: the
    lines that occur once in each, in the same order, anchor the diff (as patience diff
    does), and only the gaps between anchors are compared line by line."""
    anchors = _unique_anchors(old, new)
    out: list[tuple[int, int, int, int]] = []
    i = j = 0
    for a, b in [*anchors, (len(old), len(new))]:
        if (a - i) or (b - j):
            matcher = difflib.SequenceMatcher(None, old[i:a], new[j:b], autojunk=False)
            for tag, i1, i2, j1, j2 in matcher.get_opcodes():
                if tag != "equal":
                    out.append((i + i1, i + i2, j + j1, j + j2))
        i, j = a + 1, b + 1
    # neighbouring ranges (split by an anchor that moved) are one edit
    merged: list[tuple[int, int, int, int]] = []
    for change in out:
        if merged and merged[-1][1] == change[0] and merged[-1][3] == change[2]:
            last = merged.pop()
            change = (last[0], change[1], last[2], change[3])
        merged.append(change)
    return merged


def _unique_anchors(old: list[str], new: list[str]) -> list[tuple[int, int]]:
    """(i, j) of the lines that occur exactly once in both, longest increasing run of j."""
    count: dict[str, list[int]] = {}
    for index, line in enumerate(old):
        count.setdefault(line, [0, 0, index])[0] += 1
    for index, line in enumerate(new):
        entry = count.get(line)
        if entry is not None:
            entry[1] += 1
            entry.append(index)
    pairs = sorted((entry[2], entry[3]) for entry in count.values() if entry[0] == 1 and entry[1] == 1)
    # the longest subsequence with increasing j (patience sorting), so anchors never cross
    import bisect

    tails: list[int] = []  # the index in `pairs` of the smallest tail of each length
    previous: list[int] = [-1] * len(pairs)
    tail_js: list[int] = []
    for index, (_, j) in enumerate(pairs):
        at = bisect.bisect_left(tail_js, j)
        if at:
            previous[index] = tails[at - 1]
        if at == len(tails):
            tails.append(index)
            tail_js.append(j)
        else:
            tails[at] = index
            tail_js[at] = j
    chain: list[tuple[int, int]] = []
    index = tails[-1] if tails else -1
    while index >= 0:
        chain.append(pairs[index])
        index = previous[index]
    return chain[::-1]


def changed_lines(before: str, after: str) -> set[int]:
    """The 0-based indices of the lines of `after` that diff_edits says are new (added or
    changed, a moved line included)."""
    changed: set[int] = set()
    offset = 0
    for edit in diff_edits(before, after):
        count = len(split_lines(edit.content))
        start = edit.line - 1 + offset
        changed.update(range(start, start + count))
        offset += count - (edit.end_line - edit.line)
    return changed


def apply_edits(text: str, edits: Iterable[Edit]) -> str:
    lines = split_lines(text)
    for edit in sorted(set(edits), key=lambda e: (e.line, e.end_line), reverse=True):
        lines[edit.line - 1 : edit.end_line - 1] = [edit.content]
    return "".join(lines)


_QUOTED = {
    "\a": "\\a",
    "\b": "\\b",
    "\t": "\\t",
    "\n": "\\n",
    "\v": "\\v",
    "\f": "\\f",
    "\r": "\\r",
    '"': '\\"',
    "\\": "\\\\",
}
# what git quotes (controls, DEL, a quote, a backslash), and what a terminal or a CI log
# must not see raw: C1 and bidirectional controls, separators, bytes that are not UTF-8
# (surrogate escapes), and the `[` of `##[` (a workflow command anywhere in a log line)
_NEEDS_QUOTES = re.compile(
    '[\x00-\x1f\x7f-\x9f"\\\\\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029\ud800-\udfff]|##\\['
)


def git_quoted(name: str) -> str:
    """A file name in a diff header as git writes it when it must: in double quotes, with
    C escapes and the other bytes in octal (`git apply` and GNU patch unquote it)."""
    if not _NEEDS_QUOTES.search(name):
        return name
    out = []
    for index, char in enumerate(name):
        if char in _QUOTED:
            out.append(_QUOTED[char])
        elif _NEEDS_QUOTES.match(char) or (char == "[" and name[index - 2 : index] == "##"):
            out.extend(f"\\{byte:03o}" for byte in char.encode("utf-8", "surrogateescape"))
        else:
            out.append(char)
    return '"' + "".join(out) + '"'


def unified_diff(before: str, after: str, path: str) -> str:
    """A unified diff that, like git's, marks a last line without a newline, and quotes a
    file name as git does when it holds a control, a quote or what a log must not see."""
    old, new = split_lines(before), split_lines(after)
    out = []
    # git's a/ b/ prefixes for relative paths; an absolute path is shown as it is
    old_name, new_name = (path, path) if path.startswith("/") else (f"a/{path}", f"b/{path}")
    old_name, new_name = git_quoted(old_name), git_quoted(new_name)
    for line in difflib.unified_diff(old, new, old_name, new_name):
        out.append(line)
        if not line.endswith(("\n", "\r")):
            out.append("\n\\ No newline at end of file\n")
    return "".join(out)
