"""RTL100 unused-suppression: a `# noqa: RTL00N` or `# rtlint: ignore[RTL00N]` that
suppresses nothing, and the edit that removes it.

An engine code, not a rule: suppressions belong to the engine. A code is reported only
when rtlint can know it is unused: it names a rule that ran on the file (enabled, not
ignored for the file) and no finding of it is on the lines the comment covers, or it is an
`RTL` code rtlint does not have. Codes of other tools, prefixes (`RTL0`) and a bare
`# noqa` are left alone.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass

from rtlint.core.findings import ENGINE_CODES, Edit, Finding, Fix
from rtlint.core.source import split_lines
from rtlint.suppress.comments import NOQA, RTLINT_IGNORE, NoqaError, token_ranges

UNUSED = "RTL100"
_CODE = re.compile(r"[A-Z]+[0-9]+", re.IGNORECASE)
_FULL_CODE = re.compile(r"RTL[0-9]{3}")


@dataclass(frozen=True)
class Directive:
    """One suppression in a comment; columns are 0-based on the comment's line."""

    noqa: bool  # `# noqa: ...` (flake8's case-sensitive codes) or `# rtlint: ignore[...]`
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
        # flake8 reads the first `# noqa` of the range; only one in the comment is ours to edit
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
    rules that ran on it and every code rtlint knows."""
    if "RTL" not in text:
        return []
    known = set(known)
    by_line: dict[int, list[str]] = {}
    for finding in findings:
        by_line.setdefault(finding.line, []).append(finding.code)
    lines = split_lines(text)
    reported = []
    for directive in directives(text):
        nearby = [c for line in range(directive.first, directive.last + 1) for c in by_line.get(line, ())]
        unused = []
        for code, start, end in directive.codes:
            upper = code.upper() if not directive.noqa else code
            if not _FULL_CODE.fullmatch(upper) or upper in ENGINE_CODES:
                continue
            if upper in known and upper not in enabled:
                continue  # a rule that did not run here: whether it would report is unknown
            if any(directive.covers(code, c) for c in nearby):
                continue
            unused.append((code, start, end, upper in known))
        for code, start, end, is_known in unused:
            where = (
                f"line {directive.first}"
                if directive.first == directive.last
                else f"lines {directive.first}-{directive.last}"
            )
            why = f"nothing reports {code} on {where}" if is_known else f"{code} is not an rtlint code"
            line_text = lines[directive.last - 1]
            edits = removal_edits(line_text, directive, {code}, directive.last)
            reported.append(
                Finding(
                    code=UNUSED,
                    name=ENGINE_CODES[UNUSED],
                    message=f"unused suppression: {why}",
                    line=directive.last,
                    column=start + 1,
                    end_line=directive.last,
                    end_column=end + 1,
                    path=path,
                    fixable="safe",
                    fix=Fix("safe", edits),
                )
            )
    return reported


def removal_edits(line_text: str, directive: Directive, unused: set[str], line: int) -> tuple[Edit, ...]:
    """The edit that drops the `unused` codes from the directive, or the directive itself
    (with the words after it, its reason) when no code is left."""
    keep = [code for code, _, _ in directive.codes if code not in unused]
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
        unused = {code for code, start, _ in directive.codes if (directive.last, start) in wanted}
        if unused:
            edits.extend(removal_edits(lines[directive.last - 1], directive, unused, directive.last))
    return apply_inline_edits(text, edits)
