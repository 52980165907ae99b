"""RTL100 unused-suppression: a `# noqa: RTL00N` or `# rtlint: ignore[RTL00N]` that
suppresses nothing, and the edit that removes it.

An engine code, not a rule: suppressions belong to the engine. As ruff's RUF100, a code
of a `# noqa:` or `# rtlint: ignore[...]` is reported when no finding of it is on the lines
the comment covers (judged by the rules the configuration enables for the file, even when
the command line selects only RTL100), when it names a rule that is not enabled for the
file (said so: ignored, not selected, or a per-file ignore), when it is given twice in one
comment, and when it is an `RTL` code rtlint does not have. A file-level comment (rtlint's
or flake8's) on a line with code, where neither tool reads it, is reported too.
Codes of other tools, prefixes (`RTL0`) and a bare `# noqa` (which may suppress another
tool's findings) are left alone.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass

from rtlint.core.findings import ENGINE_CODES, Edit, Finding, Fix
from rtlint.core.source import split_lines
from rtlint.suppress.comments import (
    FLAKE8_ANYWHERE,
    MISPLACED_FILE_NOQA,
    NOQA,
    RTLINT_IGNORE,
    NoqaError,
    token_ranges,
)

UNUSED = "RTL100"
_CODE = re.compile(r"[A-Z]+[0-9]+", re.IGNORECASE)
_FULL_CODE = re.compile(r"RTL[0-9]{3}")


@dataclass(frozen=True)
class Directive:
    """One suppression in a comment; columns are 0-based on the comment's line."""

    noqa: bool  # a noqa comment (flake8's case-sensitive codes) or `# rtlint: ignore[...]`
    first: int  # the lines it covers (flake8's token range)
    last: int
    start: int  # the `#` that begins it
    end: int  # just after its last code (or the `]`)
    codes: tuple[tuple[str, int, int], ...]  # (code, start, end)
    comment_start: int
    comment_end: int

    def covers(self, code: str, finding_code: str) -> bool:
        if self.noqa:
            return finding_code == code or finding_code.startswith(code)
        return finding_code.startswith(code.upper())


def directives(text: str) -> list[Directive]:
    """The suppressions with codes in `text`'s comments (none if it does not tokenize)."""
    try:
        ranges = token_ranges(text)
    except NoqaError:
        return []
    lines = split_lines(text)
    found = []
    for span in ranges:
        lowered = span.comment.lower()
        if span.comment_column is None or ("noqa" not in lowered and "rtlint" not in lowered):
            continue
        base = span.comment_column
        comment_end = base + len(span.comment)
        joined = "".join(lines[span.first - 1 : span.last])
        offset = len(joined) - len(lines[span.last - 1])
        match = NOQA.search(joined)
        # flake8 reads the first noqa comment of the range; only one in the comment is ours to edit
        if match is not None and match.group("codes") and match.start() >= offset + base:
            codes_start = match.start("codes") - offset
            codes = _parse_codes(match.group("codes"), codes_start)
            end = codes[-1][2]
            found.append(Directive(True, span.first, span.last, match.start() - offset, end, codes, base, comment_end))
        for ignore in RTLINT_IGNORE.finditer(span.comment):
            if ignore.group("codes") is None:
                continue
            codes = _parse_codes(ignore.group("codes"), base + ignore.start("codes"))
            if codes:
                found.append(
                    Directive(
                        False,
                        span.first,
                        span.last,
                        base + ignore.start(),
                        base + ignore.end(),
                        codes,
                        base,
                        comment_end,
                    )
                )
    return found


def _parse_codes(text: str, start: int) -> tuple[tuple[str, int, int], ...]:
    return tuple((m.group(), start + m.start(), start + m.end()) for m in _CODE.finditer(text))


def unused_suppressions(
    text: str, path: str, findings: Sequence[Finding], enabled: Collection[str], known: Collection[str]
) -> list[Finding]:
    """RTL100 findings for `text`, given every finding before suppression, the codes of the
    rules enabled for it and every code rtlint knows."""
    if "RTL" not in text and "noqa" not in text.lower():
        return []
    known = set(known)
    by_line: dict[int, list[str]] = {}
    for finding in findings:
        by_line.setdefault(finding.line, []).append(finding.code)
    lines = split_lines(text)
    reported = _misplaced_file_noqa(text, path, lines) if "noqa" in text.lower() else []
    for directive in directives(text):
        nearby = [c for line in range(directive.first, directive.last + 1) for c in by_line.get(line, ())]
        where = (
            f"line {directive.first}"
            if directive.first == directive.last
            else f"lines {directive.first}-{directive.last}"
        )
        seen: set[str] = set()
        unused = []
        for code, start, end in directive.codes:
            upper = code.upper() if not directive.noqa else code
            if upper in seen:
                unused.append((start, end, f"{code} is given twice in this comment"))
                continue
            seen.add(upper)
            if not _FULL_CODE.fullmatch(upper) or upper in ENGINE_CODES:
                continue
            if upper not in known:
                unused.append((start, end, f"{code} is not an rtlint code"))
            elif upper not in enabled:
                why = f"{code} is not enabled for this file (not selected, ignored, or a per-file ignore)"
                unused.append((start, end, why))
            elif not any(directive.covers(code, c) for c in nearby):
                unused.append((start, end, f"nothing reports {code} on {where}"))
        for start, end, why in unused:
            edits = removal_edits(lines[directive.last - 1], directive, {start}, directive.last)
            reported.append(_finding(path, directive.last, start, end, f"unused suppression: {why}", edits))
    return reported


def _finding(path: str, line: int, start: int, end: int, message: str, edits) -> Finding:
    return Finding(
        code=UNUSED,
        name=ENGINE_CODES[UNUSED],
        message=message,
        line=line,
        column=start + 1,
        end_line=line,
        end_column=end + 1,
        path=path,
        fixable="safe" if edits else None,
        fix=Fix("safe", edits) if edits else None,
    )


def _misplaced_file_noqa(text: str, path: str, lines: list[str]) -> list[Finding]:
    """A file-level comment (rtlint's or flake8's) after code: neither tool reads it there
    (flake8 logs a warning); it suppresses nothing, and is not removed (what was meant is unknown)."""
    try:
        ranges = token_ranges(text)
    except NoqaError:
        return []
    found = []
    for span in ranges:
        if span.comment_column is None:
            continue
        line = lines[span.last - 1]
        if span.first == span.last and not line[: span.comment_column].strip():
            continue  # alone on its line: a file-level suppression, read as such
        for pattern, name in ((MISPLACED_FILE_NOQA, "rtlint"), (FLAKE8_ANYWHERE, "flake8")):
            match = pattern.search(span.comment)
            if match is None:
                continue
            start = span.comment_column + match.start()
            message = (
                f"unused suppression: `# {name}: noqa` suppresses nothing on a line with code "
                "(a file-level suppression stands alone on its line; `# noqa: CODE` suppresses this line)"
            )
            found.append(_finding(path, span.last, start, start + len(match.group()), message, ()))
    return found


def removal_edits(line_text: str, directive: Directive, unused: set[int], line: int) -> tuple[Edit, ...]:
    """The edit that drops the codes starting at the columns `unused` from the directive, or
    the directive itself (with the words after it, its reason) when no code is left."""
    keep = [code for code, start, _ in directive.codes if start not in unused]
    codes_start, codes_end = directive.codes[0][1], directive.codes[-1][2]
    if keep:
        between = line_text[directive.codes[0][2] : directive.codes[1][1]] if len(directive.codes) > 1 else ", "
        return (Edit(line, codes_start + 1, line, codes_end + 1, between.join(keep)),)
    comment = line_text[directive.comment_start : directive.comment_end]
    after = directive.end - directive.comment_start
    rest = comment[after:]
    following = rest.lstrip()
    if following.startswith("#"):
        # another comment follows: keep it where the directive was
        cut_start, cut_end = directive.start, directive.end + len(rest) - len(following)
    else:
        cut_start, cut_end = directive.start, directive.comment_end
        before = line_text[:cut_start]
        cut_start = len(before.rstrip(" \t"))  # the spaces that led to it go too
    return (Edit(line, cut_start + 1, line, cut_end + 1, ""),)


def remove_unused(text: str, reported: Sequence[Finding]) -> str:
    """`text` without the unused codes `reported` names (several per comment at once)."""
    from rtlint.suppress.noqa import apply_inline_edits

    wanted: dict[tuple[int, int], set[str]] = {}
    for finding in reported:
        wanted.setdefault((finding.line, finding.column - 1), set())
    lines = split_lines(text)
    edits = []
    for directive in directives(text):
        unused = {start for _, start, _ in directive.codes if (directive.last, start) in wanted}
        if unused:
            edits.extend(removal_edits(lines[directive.last - 1], directive, unused, directive.last))
    return apply_inline_edits(text, edits)
