"""The suppression comments, and where flake8 reads them.

`# noqa`, `# noqa: RTL001` (flake8's own pattern) and `# rtlint: ignore[RTL001]`. flake8
searches the text of the *token range* a line belongs to (from the first token after a
NEWLINE or NL to the next one), so a line inside a multi-line string or a backslash
continuation is suppressed by a comment at the end of the range's last line: the reading
(rtlint.suppress.suppression), the writing (rtlint.suppress.noqa) and the unused-suppression
report (rtlint.suppress.unused) share these ranges.
"""

from __future__ import annotations

import re
import tokenize
from dataclasses import dataclass

from rtlint.core.source import generate_tokens, split_lines

# flake8's own pattern (flake8.defaults.NOQA_INLINE_REGEXP)
NOQA = re.compile(r"# noqa(?::[\s]?(?P<codes>([A-Z]+[0-9]+(?:[,\s]+)?)+))?", re.IGNORECASE)
RTLINT_IGNORE = re.compile(r"#\s*rtlint:\s*ignore(?:\[(?P<codes>[^\]]*)\])?", re.IGNORECASE)


# file-level: `rtlint: noqa` (every code) or `rtlint: noqa: RTL001, RTL002` (those) in a
# comment alone on its line, anywhere in the file (as ruff's file-level `ruff: noqa`)
FILE_NOQA = re.compile(
    r"^[ \t\f]*#[ \t]*rtlint[ \t]*:[ \t]*noqa(?![\w-])(?::[ \t]*(?P<codes>[A-Z]+[0-9]+(?:[, \t]+[A-Z]+[0-9]+)*))?",
    re.IGNORECASE,
)
MISPLACED_FILE_NOQA = re.compile(r"#[ \t]*rtlint[ \t]*:[ \t]*noqa(?![\w-])", re.IGNORECASE)
# flake8's own file-level `flake8: noqa` (flake8.defaults.NOQA_FILE, matched at the start of
# each physical line): it silences the whole file, codes after it or not (flake8 7 reads
# `flake8: noqa: X` as the bare one); on a line with code flake8 ignores it, with a warning
FLAKE8_FILE_NOQA = re.compile(r"\s*# flake8[:=]\s*noqa", re.IGNORECASE)
FLAKE8_ANYWHERE = re.compile(r"# flake8[:=]\s*noqa", re.IGNORECASE)


@dataclass(frozen=True)
class FileExemption:
    """What file-level comments suppress: everything, or the codes (prefixes) listed."""

    everything: bool = False
    codes: tuple[str, ...] = ()

    def covers(self, code: str) -> bool:
        return self.everything or code.startswith(self.codes)

    def __bool__(self) -> bool:
        return self.everything or bool(self.codes)


def file_exemption(text: str, honour_flake8: bool = True) -> FileExemption:
    """The file-level suppressions of `text`: `# rtlint: noqa[: CODES]` comments alone on their
    line (real comments, not text in a string), and, with `honour_flake8` (flake8 applies it
    itself to the plugin's findings), `# flake8: noqa` as flake8 reads it."""
    if "noqa" not in text.lower():
        return FileExemption()
    everything, codes, candidates = False, [], []
    for number, line in enumerate(split_lines(text), start=1):
        if "noqa" not in line.lower():
            continue
        if honour_flake8 and FLAKE8_FILE_NOQA.match(line):
            return FileExemption(everything=True)
        match = FILE_NOQA.match(line)
        if match is not None:
            candidates.append((number, match))
    if not candidates:
        return FileExemption()
    comments = _comment_lines(text)
    for number, match in candidates:
        if number not in comments:
            continue  # inside a string, or the tokenizer refuses the file
        if match.group("codes") is None:
            everything = True
        else:
            codes.extend(c.upper() for c in split_codes(match.group("codes")))
    return FileExemption(everything, tuple(codes))


def _comment_lines(text: str) -> set[int]:
    """Lines that hold only a comment (the comment starts the line's only token range)."""
    try:
        ranges = token_ranges(text)
    except NoqaError:
        return set()
    lines = split_lines(text)
    found = set()
    for span in ranges:
        if span.comment_column is not None and span.first == span.last:
            if not lines[span.last - 1][: span.comment_column].strip():
                found.add(span.last)
    return found


def split_codes(text: str) -> tuple[str, ...]:
    return tuple(c for c in re.split(r"[,\s]+", text.strip()) if c)


class NoqaError(Exception):
    """The text cannot be tokenized, so where a comment may go is unknown."""


@dataclass(frozen=True)
class TokenRange:
    """Physical lines `first`..`last` that flake8 reads as one noqa line, and the comment
    that ends them (there is at most one: a comment always ends its range)."""

    first: int
    last: int
    comment_column: int | None = None  # 0-based, on line `last`
    comment: str = ""


def token_ranges(text: str) -> list[TokenRange]:
    """flake8's noqa line ranges of `text` (blank and comment-only lines included)."""
    lines = split_lines(text)
    ranges: list[TokenRange] = []
    low, high, comment = len(lines) + 2, -1, None
    try:
        for token in generate_tokens(text):
            if token.type in (tokenize.ENDMARKER, tokenize.DEDENT):
                continue
            low, high = min(low, token.start[0]), max(high, token.end[0])
            if token.type == tokenize.COMMENT:
                comment = token
            if token.type in (tokenize.NL, tokenize.NEWLINE):
                if comment is not None:
                    ranges.append(TokenRange(low, high, comment.start[1], comment.string))
                else:
                    ranges.append(TokenRange(low, high))
                low, high, comment = len(lines) + 2, -1, None
    except (tokenize.TokenError, SyntaxError) as exc:
        raise NoqaError(f"cannot tokenize: {exc}") from None
    return ranges
