"""The safe fix runner: fixes are applied together, iterated to a fixpoint, and verified
(the result parses, and re-linting does not report again what was fixed) before anything
is written. Writing is atomic, and never happens to a file that changed meanwhile.

A pass records every wanted fix on one editor (rtlint.fix.editor); a fix whose edits
overlap another's waits for the next pass. A fix or the editor that raises is a bug: the
run goes on, the file is not written, and the failure names the code and where it raised
(RTL902; with RTLINT_DEBUG set, the traceback too)."""

from __future__ import annotations

import gc
import os
import traceback
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from rtlint.core.context import FixContext
from rtlint.core.findings import Finding, Fix
from rtlint.core.fixplan import CannotFix
from rtlint.core.parsing import ParseError, parse
from rtlint.core.rule import Rule, Settings
from rtlint.engine.linter import engine_finding, gc_paused, lint_text

TYPE_CHECKING = False
if TYPE_CHECKING:
    from rtlint.fix.formatting import Formatter

MAX_PASSES = 10
_TOO_DEEP = "the file is too deeply nested to rewrite"


@dataclass
class FixOutcome:
    text: str
    findings: list[Finding]  # what remains to report
    applied: list[Finding] = field(default_factory=list)
    failure: str | None = None  # why nothing was written
    # the fixes that could not be made (CannotFix) in the last pass, by refusal_keys: why
    refused: dict[tuple[str, str, int], str] = field(default_factory=dict)
    crash: Finding | None = None  # RTL902, when a fix or the editor raised
    tree: object = None  # the `ast` tree of `text` when the run made it (for JSON/SARIF's fixes)


def _recorded(rule: Rule, finding: Finding, text: str, settings: Settings, editor) -> bool | str:
    """Record the finding's fix on `editor` as a fix of its own: True, or why it cannot be
    built there (CannotFix: it overlaps another fix, or the text), its edits dropped."""
    editor.begin()
    try:
        rule.fix(finding, FixContext(text, settings, editor))
    except CannotFix as exc:
        editor.rollback()
        return str(exc) or "the fix cannot be made here"
    return True


def refusal_keys(findings: Sequence[Finding]) -> dict[int, tuple[str, str, int]]:
    """What names each finding (by id) across re-lints of one file whose fixes only move
    lines: its code, its symbol and its rank among the findings of both, in position order
    (the fixer's verification counts findings by code and symbol; a line number is not
    stable). One pass over the findings."""
    ranks: dict[tuple[str, str], int] = {}
    keys = {}
    for finding in sorted(findings, key=lambda f: f.sort_key):
        group = (finding.code, finding.symbol)
        keys[id(finding)] = (*group, ranks.get(group, 0))
        ranks[group] = ranks.get(group, 0) + 1
    return keys


def mark_refused(findings: Sequence[Finding], refused: dict[tuple[str, str, int], str]) -> list[tuple[Finding, str]]:
    """The findings whose fix could not be made, each with why; they are reported as not
    fixable (no `[*]`: `--fix` cannot fix them)."""
    if not refused:
        return []
    keys = refusal_keys(findings)
    marked = []
    for finding in findings:
        why = refused.get(keys[id(finding)]) if finding.fixable else None
        if why is not None:
            finding.fixable, finding.fix = None, None
            marked.append((finding, why))
    return marked


class _FixRaised(Exception):
    """A rule's fix raised (a bug, or a limit such as RecursionError), while a pass recorded it."""

    def __init__(self, codes: str, error: Exception) -> None:
        super().__init__(str(error))
        self.codes, self.error = codes, error


@dataclass
class _Crash:
    """A fix, or the editor making it, raised: a bug, reported as RTL902 where it raised."""

    message: str
    trace: str


def _crashed(codes: str, error: Exception) -> str | _Crash:
    if isinstance(error, RecursionError):  # a limit, not a bug
        return f"{codes} fix not applied: {_TOO_DEEP}"
    where = traceback.extract_tb(error.__traceback__)[-1] if error.__traceback__ else None
    place = f" ({where.filename}:{where.lineno})" if where else ""
    trace = "".join(traceback.format_exception(type(error), error, error.__traceback__)).rstrip()
    return _Crash(f"{codes} fix crashed: {type(error).__name__}: {error}{place}", trace)


def _record_pass(editor, wanted, current: str, settings: Settings, by_code, one_at_a_time: bool, refused: dict):
    """The wanted fixes recorded on `editor`, each as a fix of its own; one that cannot be
    built now waits for the next pass, and why goes to `refused` (by id of the finding).
    Anything else a fix raises becomes _FixRaised."""
    chosen: list[Finding] = []
    for finding in wanted:
        try:
            recorded = _recorded(by_code[finding.code], finding, current, settings, editor)
        except Exception as exc:
            raise _FixRaised(finding.code, exc) from exc
        if recorded is True:
            chosen.append(finding)
            if one_at_a_time:
                break
        else:
            refused[id(finding)] = recorded
    return chosen


def _region_fit(line_length: int | None, unit: str):
    """The line-length hook for the regions an edit rewrites (--fix without a formatter,
    JSON, SARIF), or None."""
    if line_length is None:
        return None
    from rtlint.fix.wrap import fit_region

    def fit(new: str, old: str) -> str:
        return fit_region(old, new, line_length, unit)

    return fit


def _one_fix(rule: Rule, finding: Finding, text: str, original, settings: Settings, line_length: int | None):
    """The edits of one finding's fix against `text` (for JSON, SARIF and the editor's code
    actions), or None when it cannot be built. `original` (an editor.Original of the text)
    is shared by the fixes of one file: each costs what it edits, not the file."""
    from rtlint.fix.editor import Editor

    if finding.fixable is None:
        return None
    editor = Editor(text, original.tree, original)
    try:
        if _recorded(rule, finding, text, settings, editor) is not True or editor.empty:
            return None
        edits = editor.edits(_region_fit(line_length, editor.unit))
    except Exception:  # CannotFix, or a crash --fix reports
        return None
    return Fix(finding.fixable, edits) if edits else None


@gc_paused()
def attach_fixes(
    findings: Sequence[Finding],
    text: str,
    rules: Sequence[Rule],
    settings: Settings,
    *,
    tree=None,
    line_length: int | None = None,
) -> None:
    """Fill in `finding.fix` (for JSON and SARIF) without changing anything. `tree` is the
    `ast` tree of `text` when the caller has it."""
    by_code = {rule.code: rule for rule in rules}
    wanted = [f for f in findings if f.fixable and f.code in by_code]
    if not wanted:
        return
    if tree is None:
        try:
            tree = parse(text, "<fix>")
        except ParseError:
            return
    from rtlint.fix.editor import Original

    original = Original(text, tree)
    for finding in wanted:
        finding.fix = _one_fix(by_code[finding.code], finding, text, original, settings, line_length)


@gc_paused()
def fix_text(
    text: str,
    display_path: str,
    rules: Sequence[Rule],
    settings: Settings,
    *,
    unsafe: bool = False,
    findings: list[Finding] | None = None,
    only: Finding | None = None,
    tree=None,
    line_length: int | None = None,
    allowed: Callable[[str], bool] | None = None,
    formatter: Formatter | None = None,
) -> FixOutcome:
    """Apply every wanted fix, pass after pass, until none is left or none applies. In a
    pass, the fixes whose edits do not overlap are made together on the text; the others
    wait for the next pass, re-detected on the new text (`tree` is the `ast` tree of
    `text`, if known). With `line_length`, the lines the fixes added or changed are then
    formatted by `formatter` (the project's own, rtlint.fix.formatting) after the last pass;
    without one, the statements each pass added or moved are broken to fit it before the
    pass is verified (rtlint.fix.wrap), as they are after the last pass when the formatter
    cannot be trusted with the file.

    With `only` (one of `findings`), that finding's fix alone is applied and verified, in
    one pass (the editor's "Fix" of one diagnostic); what it uncovers is left to report.
    `allowed` says which codes may be fixed at all (the configuration's `unfixable`)."""
    by_code = {rule.code: rule for rule in rules}
    if tree is None:
        try:
            tree = parse(text, display_path)
        except ParseError:
            tree = None
    if findings is None:
        findings = lint_text(text, display_path, rules, settings, tree=tree)
    if tree is None:  # a syntax error (RTL900): nothing to fix
        return FixOutcome(text, findings)
    current = text
    applied: list[Finding] = []

    def failed(why: str) -> FixOutcome:
        # nothing is written; the findings reported are those of the original text (after a
        # first pass, `findings` are those of the partly fixed text, with other lines)
        remaining = findings if current is text else lint_text(text, display_path, rules, settings)
        return FixOutcome(text, remaining, failure=why)

    # Fixes are verified per pass by counting findings per (code, symbol). Two fixes of one
    # pass can defeat that count when their symbols collide (two classes of one name: a lock
    # added to one makes the other's push a new RTL004 finding of the same symbol), and two
    # fixes' edits may not be laid out together, so a pass that fails with several fixes is
    # retried one fix per pass; a fix failing on its own is the one reported.
    one_at_a_time = False
    last_refused: dict[tuple[str, str, int], str] = {}
    passes_left = 1 if only is not None else MAX_PASSES
    while passes_left > 0:
        passes_left -= 1
        wanted = [
            f
            for f in findings
            if f.code in by_code
            and (f.fixable == "safe" or (unsafe and f.fixable == "unsafe"))
            and (allowed is None or allowed(f.code))
            and (only is None or f is only)
        ]
        if not wanted:
            break
        refused: dict[int, str] = {}  # of this pass: a later pass may make what this one could not
        # without a formatter, rtlint's own line breaking is done per pass, on the regions
        # the pass rewrote, before it is verified: the re-lint that verifies it is the one
        # reported (not a second one of broken lines), and no other line is parsed again
        width = line_length if formatter is None else None
        built = _pass(wanted, current, tree, settings, by_code, one_at_a_time, refused, width)
        if isinstance(built, str):
            return failed(built)
        if isinstance(built, _Crash):  # RTL902 with the findings; the traceback when debugging
            outcome = failed(built.message + (f"\n{built.trace}" if os.environ.get("RTLINT_DEBUG") else ""))
            outcome.crash = engine_finding("RTL902", display_path, built.message)
            outcome.findings = [*outcome.findings, outcome.crash]
            return outcome
        chosen, candidate = built
        if candidate is None:  # the edits of several fixes could not be made together
            one_at_a_time = True
            passes_left += MAX_PASSES + 2 * len(wanted)
            continue
        if not chosen or candidate == current:
            # what was refused now is final: the findings stay as they are
            if refused:
                keys = refusal_keys(findings)
                last_refused = {keys[id(f)]: refused[id(f)] for f in findings if id(f) in refused}
            break
        verified = _verify(candidate, display_path, findings, chosen, rules, settings)
        if isinstance(verified, str):
            if len(chosen) > 1:
                one_at_a_time = True
                passes_left += MAX_PASSES + 2 * len(wanted)  # enough for one fix per pass
                continue
            return FixOutcome(text, lint_text(text, display_path, rules, settings), failure=verified)
        current, (findings, tree) = candidate, verified
        applied.extend(chosen)
    if line_length is not None and formatter is not None and current is not text:
        # the passes left the lines as the fixes made them, for the project's formatter
        done = _formatted(text, current, formatter, findings, display_path, rules, settings)
        if done is not None:
            tree = None if done[0] is not current else tree
            return FixOutcome(done[0], done[1], applied, tree=tree, refused=last_refused)
        # the tool failed or cannot be trusted with the file: rtlint's own line breaking
        fitted, shifts = _fitted(text, current, line_length, tree)
        if shifts:  # the tree is of the unbroken text: dropped, not reused
            if findings:  # what they say cites lines ("the await at line 24"): linted again
                after = lint_text(fitted, display_path, rules, settings)
                return FixOutcome(fitted, after, applied, refused=last_refused)
            return FixOutcome(fitted, [], applied)
    return FixOutcome(current, findings, applied, tree=tree, refused=last_refused)


def _pass(wanted, current, tree, settings, by_code, one_at_a_time, refused, line_length=None):
    """One pass: (the fixes applied, the edited text), (the fixes, None) when their edits
    cannot be made together, or why it failed; the fixes that cannot be built go to `refused`.
    With `line_length`, the regions the pass rewrote are broken to fit it."""
    from rtlint.fix.editor import Editor

    editor = Editor(current, tree)
    try:
        chosen = _record_pass(editor, wanted, current, settings, by_code, one_at_a_time, refused)
    except _FixRaised as raised:
        return _crashed(raised.codes, raised.error)
    if not chosen or editor.empty:
        return [], current
    codes = ", ".join(sorted({f.code for f in chosen}))
    try:
        return chosen, editor.rendered(_region_fit(line_length, editor.unit))
    except CannotFix as exc:
        if len(chosen) > 1:
            return chosen, None
        return f"{codes} fix not applied: {exc}"
    except Exception as exc:  # the editor's bug, or a rewrite's change that raised
        return _crashed(codes, exc)


def _formatted(
    original: str,
    fixed: str,
    formatter: Formatter,
    findings: list[Finding],
    display_path: str,
    rules: Sequence[Rule],
    settings: Settings,
) -> tuple[str, list[Finding]] | None:
    """(`fixed` with its changed lines formatted by `formatter`, the findings of that text),
    or None: the tool failed, or what it made is not what the verified fixes made (the same
    program, and the same findings when linted again), so the fallback breaks the lines."""
    from rtlint.fix.formatting import formatted

    out = formatted(original, fixed, formatter)
    if out is None:
        return None
    if out == fixed:
        return fixed, findings
    try:
        tree = parse(out, display_path)
    except ParseError:
        return None
    after = lint_text(out, display_path, rules, settings, tree=tree)
    if Counter((f.code, f.symbol) for f in after) != Counter((f.code, f.symbol) for f in findings):
        return None
    return out, after


def _fitted(original: str, fixed: str, line_length: int, tree=None) -> tuple[str, list[tuple[int, int]]]:
    from rtlint.fix.layout import default_indent
    from rtlint.fix.wrap import fit_changed

    unit = default_indent(original)
    try:
        return fit_changed(original, fixed, line_length, unit, tree)
    except (SyntaxError, RecursionError, ValueError):  # left as the fix made it
        return fixed, []


def _verify(
    candidate: str,
    display_path: str,
    before: list[Finding],
    chosen: list[Finding],
    rules: Sequence[Rule],
    settings: Settings,
) -> str | tuple[list[Finding], object]:
    """The re-lint of `candidate` and its `ast` tree, or why the fixes in `chosen` cannot be
    trusted."""
    codes = ", ".join(sorted({f.code for f in chosen}))
    # collection is paused (gc_paused): what the last pass left in cycles is freed here, so
    # that the re-lints of a fix do not each keep it until the file is done. A lint leaves
    # none (tests/engine/test_gc_pause.py); the edits of a fix leave a few (9 objects on
    # examples/). Only the objects made since the last collection are visited: linear in the
    # fix's work
    gc.collect(0)
    try:
        tree = parse(candidate, display_path)
    except ParseError as exc:
        return f"{codes} fix not applied: the result does not parse (line {exc.line}: {exc.message})"
    after = lint_text(candidate, display_path, rules, settings, tree=tree)
    count_before = Counter((f.code, f.symbol) for f in before)
    count_after = Counter((f.code, f.symbol) for f in after)
    fixed = Counter((f.code, f.symbol) for f in chosen)
    for key, number in fixed.items():
        if count_after[key] > count_before[key] - number:
            code, symbol = key
            where = f" in {symbol}" if symbol else ""
            return f"{code} fix not applied: re-linting the result still reports {code}{where}"
    return after, tree
