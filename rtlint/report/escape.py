"""Escaping what rtlint did not write (paths, messages that quote source, source lines)
before it reaches a terminal, a CI log or a report.

- `text`: control characters (C0, DEL, C1), bidirectional controls and line or paragraph
  separators are shown as \\n, \\x1b, \\u202e...; bytes of a file name that are not valid
  UTF-8 (surrogate escapes, as os.fsdecode gives them) as \\xff. What is left cannot move
  the cursor, recolour the terminal, start a new line or reorder what is shown.
- `text` and `marked_source_line` also neutralise GitHub's workflow commands, which the runner
  reads from any line of a job's log: `::` at the start of a value (after any white
  space, which the runner trims) becomes `\\x3a:`, and `##[` anywhere (the runner's legacy
  parser matches it in the middle of a line) becomes `##\\x5b`. Every line rtlint writes
  starts with an escaped value (a path, a source line after four spaces) or its own words.
- `diff`: a unified diff for a terminal or a log; see its docstring for how the patch
  stays applicable.
- `github_data` / `github_property`: GitHub's workflow-command escaping (%, CR, LF; and
  `:` and `,` in properties, as @actions/core's escapeData/escapeProperty), the other
  controls shown as `text` shows them (a log line must not carry them either).
- `visible`: for JSON and SARIF, which can hold any character but not a lone surrogate:
  undecodable bytes become \\xff, everything else is left to the JSON encoder.
"""

from __future__ import annotations

import bisect
import re

from rtlint.core.source import split_lines

_BIDI = "\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"
_UNSAFE = re.compile(f"[\x00-\x1f\x7f-\x9f{_BIDI}\u2028\u2029\ud800-\udfff]")
_UNSAFE_KEEP_TAB = re.compile(f"[\x00-\x08\x0a-\x1f\x7f-\x9f{_BIDI}\u2028\u2029\ud800-\udfff]")
_UNSAFE_IN_GITHUB = re.compile(f"[\x00-\x09\x0b\x0c\x0e-\x1f\x7f-\x9f{_BIDI}\u2028\u2029\ud800-\udfff]")
_SURROGATE = re.compile("[\ud800-\udfff]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _one(match: re.Match) -> str:
    char = match.group()
    if char in _NAMED:
        return _NAMED[char]
    point = ord(char)
    if 0xDC80 <= point <= 0xDCFF:  # an undecodable byte of a file name
        return f"\\x{point - 0xDC00:02x}"
    return f"\\x{point:02x}" if point < 0x100 else f"\\u{point:04x}"


_LEADING_COMMAND = re.compile(r"\s*::")


def _neutral_positions(value: str) -> tuple[int, ...]:
    """Where a character must be shown escaped so that no workflow command starts: the
    first `:` of a leading `::` and the `[` of every `##[`."""
    positions = []
    leading = _LEADING_COMMAND.match(value)
    if leading:
        positions.append(leading.end() - 2)
    start = value.find("##[")
    while start >= 0:
        positions.append(start + 2)
        start = value.find("##[", start + 1)
    return tuple(positions)


def marked_source_line(line: str, start: int, end: int) -> tuple[str, int, int]:
    """A line of source for --show-source: as `text` shows it, but a tab stays a tab; with
    where the characters `start:end` of `line` are in what is shown (offset, width), for
    the caret under a finding."""
    pieces = [_one(m) if (m := _UNSAFE_KEEP_TAB.fullmatch(c)) else c for c in line]
    starts, total = [], 0
    for piece in pieces:
        starts.append(total)
        total += len(piece)
    # an escape sequence holds no `:` or `[`: each position is a character of its own
    for position in _neutral_positions("".join(pieces)):
        index = bisect.bisect_right(starts, position) - 1
        pieces[index] = f"\\x{ord(pieces[index]):02x}"
    return "".join(pieces), len("".join(pieces[:start])), len("".join(pieces[start:end]))


def _neutralise(value: str) -> str:
    positions = _neutral_positions(value)
    if not positions:
        return value
    chars = list(value)
    for i in positions:
        chars[i] = f"\\x{ord(chars[i]):02x}"
    return "".join(chars)


def controls(value: str) -> str:
    """Every control shown as `text` shows it, but no workflow command neutralised (for a
    value inside a line of rtlint's own, such as a github annotation's)."""
    return _UNSAFE.sub(_one, value) if _UNSAFE.search(value) else value


def text(value: str) -> str:
    return _neutralise(controls(value))


_HUNK = re.compile(r"@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@")


def diff(value: str) -> tuple[str, int]:
    """A unified diff (as rtlint.fix.edits.unified_diff writes it: paths already quoted as
    git quotes them, which `git apply` and `patch` read back) for a terminal or a CI log,
    and how many of its lines no longer apply.

    The patch stays applicable wherever it can: a context line that would start a
    workflow command (` ::x`, the runner trims the space) is written as the same line
    removed and added (`-::x`, `+::x`), which applies alike; a line that holds a control
    character (a tab excepted) or `##[` is shown escaped as text output shows it, and is
    counted: it applies only from an exact copy, which --output-file FILE writes."""
    lines = split_lines(value)
    out: list[str] = []
    escaped = old = new = 0
    for index, line in enumerate(lines):
        if old <= 0 and new <= 0:
            counts = _HUNK.match(line)
            if counts:
                old, new = int(counts.group(1) or 1), int(counts.group(2) or 1)
            out.append(line)
            continue
        if line.startswith("\\"):  # \ No newline at end of file
            out.append(line)
            continue
        marker, content = line[:1], line[1:]
        old -= marker in " -"
        new -= marker in " +"
        body = content.rstrip("\r\n")
        end = content[len(body) :]
        if _UNSAFE_KEEP_TAB.search(body) or "##[" in body:
            shown = _UNSAFE_KEEP_TAB.sub(_one, body).replace("##[", "##\\x5b")
            out.append(marker + shown + end)
            escaped += 1
        elif marker == " " and _LEADING_COMMAND.match(body):
            no_newline = index + 1 < len(lines) and lines[index + 1].startswith("\\")
            out.append("-" + content)
            if no_newline:
                out.append(lines[index + 1])
            out.append("+" + content)
        else:
            out.append(line)
    return "".join(out), escaped


def visible(value: str) -> str:
    return _SURROGATE.sub(_one, value) if _SURROGATE.search(value) else value


def github_data(value: str) -> str:
    # as @actions/core escapes data (the runner unescapes %0D, %0A, %25); the other
    # controls are shown as `text` shows them
    value = _UNSAFE_IN_GITHUB.sub(_one, value)
    return value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def github_property(value: str) -> str:
    # ... and also %3A, %2C in property values
    return github_data(value).replace(":", "%3A").replace(",", "%2C")
