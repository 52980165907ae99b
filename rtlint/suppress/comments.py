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
