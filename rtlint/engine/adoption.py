"""The engine's own edits of suppressions, verified like a rule's fix: `--add-noqa`
(baseline a codebase) and `--fix` of RTL100 (drop suppressions that suppress nothing).

Both only insert or delete comment text, so the program must stay the same (an identical
syntax tree) and the findings other than the edited ones must stay where they were.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Collection, Sequence

from rtlint.core.findings import Finding
from rtlint.core.rule import Rule, Settings
from rtlint.engine import registry
from rtlint.engine.fixer import FixOutcome, fix_text
from rtlint.suppress.comments import NoqaError
from rtlint.suppress.noqa import add_noqa
from rtlint.suppress.unused import UNUSED, remove_unused

TYPE_CHECKING = False
if TYPE_CHECKING:
    from rtlint.fix.formatting import Formatter

Relint = Callable[[str], list[Finding]]


def _same_program(before: str, after: str) -> bool:
    try:
        return ast.dump(ast.parse(after)) == ast.dump(ast.parse(before))
    except (SyntaxError, ValueError, RecursionError):
        return False


def _where(finding: Finding) -> tuple[int, str, str]:
    return (finding.line, finding.code, finding.message)


def with_noqa(text: str, findings: Sequence[Finding], relint: Relint, reason: str = "") -> FixOutcome:
    """`text` with a `# noqa: CODE` for every finding rtlint can suppress (not the engine's
    codes: a file that does not parse cannot be suppressed, nor can RTL100 be baselined)."""
    wanted = [f for f in findings if f.code not in registry.ENGINE_CODES]
    if not wanted:
        return FixOutcome(text, list(findings))
    try:
        candidate = add_noqa(text, [(f.line, f.code) for f in wanted], reason)
    except NoqaError as exc:
        return FixOutcome(text, list(findings), failure=f"noqa not added: {exc}")
    if not _same_program(text, candidate):
        return FixOutcome(text, list(findings), failure="noqa not added: the result is not the same program")
    after = relint(candidate)
    left = {_where(f) for f in after} & {_where(f) for f in wanted}
    if left:
        line, code, _ = min(left)
        return FixOutcome(text, list(findings), failure=f"noqa not added: {code} on line {line} is still reported")
    return FixOutcome(candidate, after, applied=wanted)


def fix_with_suppressions(
    text: str,
    display_path: str,
    rules: Sequence[Rule],
    settings: Settings,
    findings: list[Finding],
    *,
    unsafe: bool,
    unused_for: Collection[str] | None,
    relint: Relint,
    tree=None,
    line_length: int | None = None,
    allowed: Callable[[str], bool] | None = None,
    formatter: Formatter | None = None,
) -> FixOutcome:
    """The rules' fixes, then (with RTL100 on) the removal of the suppressions that the
    fixed text no longer needs; `allowed` says which codes may be fixed (`unfixable`)."""
    if any(f.fixable and f.code != UNUSED for f in findings):
        outcome = fix_text(
            text,
            display_path,
            rules,
            settings,
            unsafe=unsafe,
            findings=findings,
            tree=tree,
            line_length=line_length,
            allowed=allowed,
            formatter=formatter,
        )
    else:
        outcome = FixOutcome(text, findings)
    if outcome.failure:
        crashed = [outcome.crash] if outcome.crash else []
        return FixOutcome(text, [*findings, *crashed], failure=outcome.failure, crash=outcome.crash)  # RTL100 included
    if unused_for is None or (allowed is not None and not allowed(UNUSED)):
        return outcome
    current = relint(outcome.text) if outcome.text != text else findings
    unused = [f for f in current if f.code == UNUSED]
    if not unused:
        return FixOutcome(outcome.text, current, outcome.applied, refused=outcome.refused)
    cleaned = remove_unused(outcome.text, unused)
    after = relint(cleaned)
    kept = sorted(_where(f) for f in current if f.code != UNUSED)
    if not _same_program(outcome.text, cleaned) or sorted(_where(f) for f in after if f.code != UNUSED) != kept:
        return FixOutcome(
            text, findings, failure=f"{UNUSED} fix not applied: removing the suppressions changed the findings"
        )
    return FixOutcome(cleaned, after, [*outcome.applied, *unused], refused=outcome.refused)
