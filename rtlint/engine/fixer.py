"""The safe fix runner: fixes are applied together, iterated to a fixpoint, and verified
(the result parses, and re-linting does not report again what was fixed) before anything
is written. Writing is atomic, and never happens to a file that changed meanwhile."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from rtlint.core.context import FixContext
from rtlint.core.findings import Finding, Fix
from rtlint.core.parsing import ParseError, parse
from rtlint.core.rule import Rule, Settings
from rtlint.core.source import split_lines
from rtlint.engine.linter import lint_text
from rtlint.fix.edits import apply_edits, diff_edits

MAX_PASSES = 10
_TOO_DEEP = "the file is too deeply nested to rewrite"


@dataclass
class FixOutcome:
    text: str
    findings: list[Finding]  # what remains to report
    applied: list[Finding] = field(default_factory=list)
    failure: str | None = None  # why nothing was written
    # the LibCST skeleton and `ast` tree of `text` when the run made them (for the fixes of
    # JSON/SARIF)
    module: object = None
    tree: object = None


def _parse_cst(text: str, tree=None, keep=None):
    """(the skeleton of `text`: its LibCST tree with the functions outside `keep` stubbed,
    None) or (None, why there is none). keep=None parses the whole file."""
    from rtlint.fix import cstedit
    from rtlint.fix.skeleton import build

    try:
        return build(text, tree, keep, cstedit.parse), ""
    except cstedit.TooDeeplyNested as exc:
        return None, str(exc)
    except RecursionError:
        return None, "the file is too deeply nested for LibCST"
    except Exception as exc:  # LibCST cannot parse it; no fix can be built
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        return None, f"LibCST cannot parse the file ({first})"


def keep_original_bytes(text: str, module, rendered: str) -> str | None:
    """`rendered` (LibCST's code for the edited tree) with every line the fix did not change
    taken from `text` byte for byte, or None when that cannot be done.

    LibCST does not render every file exactly as it parsed it: it drops a form feed at the
    start of an indented line and the final line ending of a file whose lines end in a lone
    CR. The fix's changes are taken as edits against LibCST's rendering of the unedited tree,
    and applied to the original text (the two have the same lines)."""
    baseline = module.code
    if baseline == text:
        return rendered
    original_lines = split_lines(text)
    if len(split_lines(baseline)) != len(original_lines):
        return None
    result = apply_edits(text, diff_edits(baseline, rendered))
    if original_lines and text.endswith(("\n", "\r")) and not result.endswith(("\n", "\r")):
        # an edit of the last line, whose line ending LibCST dropped
        ending = original_lines[-1][len(original_lines[-1].rstrip("\r\n")) :]
        result += ending
    return result


def _render(editor, text: str, tree, fit=None) -> tuple[object, str | None, bool]:
    """(the edited tree, the edited text, whether `fit` shaped it): the changed statements
    spliced into `text`, each region rewritten by `fit(new, old)` (line length) if given;
    or failing that (LibCST's code does not line up with the text) the whole module
    rendered with the untouched lines taken from `text`, which `fit` has not seen; the text
    is None when neither can be done.
    Raises NeedsDefinitions when the editor's tree is a skeleton that lacks what is needed."""
    from rtlint.fix.skeleton import NeedsDefinitions
    from rtlint.fix.splice import CannotSplice, spliced

    skeleton = editor.skeleton
    if tree is not None:
        try:
            return (*spliced(editor, text, tree, fit), fit is not None)
        except CannotSplice:
            pass
    if skeleton is not None and skeleton.stubs:
        raise NeedsDefinitions(skeleton.stubs.values())  # a whole-module render needs every function
    edited = editor.result()
    return edited, keep_original_bytes(text, editor.module, edited.code), False


def build_fix(
    rule: Rule, finding: Finding, text: str, skeleton, settings: Settings, tree=None, line_length: int | None = None
) -> Fix | None:
    """The edits of one finding's fix against `text`, or None when the rule cannot build it.
    Raises NeedsDefinitions when `skeleton` lacks a function the fix needs."""
    from rtlint.fix.cstedit import Editor

    if finding.fixable is None or skeleton is None:
        return None
    editor = Editor(skeleton.module, skeleton=skeleton)
    if not _recorded(rule, finding, text, settings, editor) or editor.empty:
        return None
    _, rendered, fitted = _render(
        editor, text, tree, _region_fit(line_length, getattr(skeleton.module, "default_indent", "    "))
    )
    if rendered is None:
        return None
    if line_length is not None and not fitted:  # rendered whole, not spliced: fit it whole
        rendered = _fitted(text, rendered, line_length, skeleton.module)[0]
    edits = diff_edits(text, rendered)
    return Fix(finding.fixable, edits) if edits else None


def _recorded(rule: Rule, finding: Finding, text: str, settings: Settings, editor) -> bool:
    """Record the finding's fix on `editor` as a fix of its own; False (its edits dropped)
    when it cannot be built there (CannotFix: it overlaps another fix, or the tree)."""
    from rtlint.core.fixplan import CannotFix

    editor.begin()
    try:
        rule.fix(finding, FixContext(text, settings, editor))
    except CannotFix:
        editor.rollback()
        return False
    return True


class _FixRaised(Exception):
    """A rule's fix raised (a bug, or a limit such as RecursionError), while a pass recorded it."""

    def __init__(self, finding: Finding, error: Exception) -> None:
        super().__init__(str(error))
        self.finding, self.error = finding, error


def _record_pass(editor, wanted, current: str, settings: Settings, by_code, one_at_a_time: bool) -> list[Finding]:
    """The wanted fixes recorded on `editor`, each as a fix of its own; one that cannot be
    built now waits for the next pass. The editors' signals (NeedsTree, NeedsDefinitions)
    pass through; anything else a fix raises becomes _FixRaised."""
    from rtlint.fix.editlog import NeedsTree
    from rtlint.fix.skeleton import NeedsDefinitions

    chosen: list[Finding] = []
    for finding in wanted:
        try:
            recorded = _recorded(by_code[finding.code], finding, current, settings, editor)
        except (NeedsTree, NeedsDefinitions):
            raise
        except Exception as exc:
            raise _FixRaised(finding, exc) from exc
        if recorded:
            chosen.append(finding)
            if one_at_a_time:
                break
    return chosen


def _region_fit(line_length: int | None, unit: str):
    """The line-length hook for the regions an edit rewrites (JSON, SARIF), or None."""
    if line_length is None:
        return None
    from rtlint.fix.wrap import fit_region

    def fit(new: str, old: str) -> str:
        return fit_region(old, new, line_length, unit)

    return fit


_NEEDS_TREE = object()


def _text_fix(rule: Rule, finding: Finding, text: str, tree, settings: Settings, line_length: int | None):
    """build_fix made by the text editor, or _NEEDS_TREE when it cannot be made there."""
    from rtlint.fix.textedit import NeedsTree, TextEditor

    if finding.fixable is None:
        return None
    try:
        editor = TextEditor(text, tree)
        if not _recorded(rule, finding, text, settings, editor) or editor.empty:
            return None
        rendered = editor.rendered(_region_fit(line_length, editor.unit))
    except NeedsTree:
        return _NEEDS_TREE
    except Exception:  # the LibCST path reports it as it always has
        return _NEEDS_TREE
    edits = diff_edits(text, rendered)
    return Fix(finding.fixable, edits) if edits else None


def attach_fixes(
    findings: Sequence[Finding],
    text: str,
    rules: Sequence[Rule],
    settings: Settings,
    *,
    module=None,
    tree=None,
    line_length: int | None = None,
) -> None:
    """Fill in `finding.fix` (for JSON and SARIF) without changing anything. `module` (a
    skeleton) and `tree` are the LibCST and `ast` trees of `text` when the caller has them."""
    from rtlint.fix.skeleton import NeedsDefinitions, needed_for

    by_code = {rule.code: rule for rule in rules}
    wanted = [f for f in findings if f.fixable and f.code in by_code]
    if not wanted:
        return
    if tree is None:
        try:
            tree = parse(text, "<fix>")
        except ParseError:
            tree = None
    if tree is not None:  # the edits that need no LibCST tree, made on the text
        left = []
        for finding in wanted:
            fix = _text_fix(by_code[finding.code], finding, text, tree, settings, line_length)
            if fix is _NEEDS_TREE:
                left.append(finding)
            else:
                finding.fix = fix
        wanted = left
        if not wanted:
            return
    keep = needed_for(tree, [line for f in wanted for line in range(f.line, f.end_line + 1)]) if tree else None
    skeleton = module
    for finding in wanted:
        for _ in range(MAX_PASSES):
            if skeleton is None:
                skeleton = _parse_cst(text, tree, keep)[0]
            try:
                finding.fix = build_fix(by_code[finding.code], finding, text, skeleton, settings, tree, line_length)
                break
            except NeedsDefinitions as exc:
                keep = None if skeleton.keep is None else skeleton.keep | exc.names
                skeleton = None
            except Exception:
                finding.fix = None
                break


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
) -> FixOutcome:
    """Apply every wanted fix, pass after pass, until none is left or none applies. In a
    pass, the fixes whose edits do not overlap are applied together in one transform; the
    others wait for the next pass, re-detected on the new text. A pass is made on the text
    itself (rtlint.fix.textedit) where that can make all its fixes; otherwise the file is parsed
    by LibCST, once: a pass edits the tree the pass before it left, and only the statements
    it changed are generated and spliced into the text (`tree` is the `ast` tree of `text`,
    if known).
    With `line_length`, the statements the fixes added or moved are then broken to fit it.

    With `only` (one of `findings`), that finding's fix alone is applied and verified, in
    one pass (the editor's "Fix" of one diagnostic); what it uncovers is left to report."""
    from rtlint.fix.skeleton import NeedsDefinitions, needed_for

    by_code = {rule.code: rule for rule in rules}
    if tree is None:
        try:
            tree = parse(text, display_path)
        except ParseError:
            tree = None
    if findings is None:
        findings = lint_text(text, display_path, rules, settings, tree=tree)
    current = text
    skeleton = None  # the LibCST tree of `current`, its unneeded functions stubbed
    keep: set[str] | None = None  # the functions to parse; None: predicted from the findings
    full = tree is None  # parse the whole file (no `ast` tree, or a skeleton did not do)
    applied: list[Finding] = []

    def failed(why: str) -> FixOutcome:
        # nothing is written; the findings reported are those of the original text (after a
        # first pass, `findings` are those of the partly fixed text, with other lines)
        remaining = findings if current is text else lint_text(text, display_path, rules, settings)
        return FixOutcome(text, remaining, failure=why)

    # Fixes are verified per pass by counting findings per (code, symbol). Two fixes of one
    # pass can defeat that count when their symbols collide (two classes of one name: a lock
    # added to one makes the other's push a new RTL004 finding of the same symbol), so a pass
    # that fails with several fixes is retried one fix per pass; a fix failing on its own is
    # the one reported.
    one_at_a_time = False
    passes_left = 1 if only is not None else MAX_PASSES
    while passes_left > 0:
        passes_left -= 1
        wanted = [
            f
            for f in findings
            if f.code in by_code
            and (f.fixable == "safe" or (unsafe and f.fixable == "unsafe"))
            and (only is None or f is only)
        ]
        if not wanted:
            break
        # the text editor first: where it can make every fix of the pass, LibCST is not needed
        built = _text_pass(wanted, current, tree, settings, by_code, one_at_a_time) if tree is not None else None
        textual = built is not None
        if built is None and skeleton is None:
            if keep is None and not full:
                keep = needed_for(tree, [line for f in wanted for line in range(f.line, f.end_line + 1)])
            skeleton, why = _parse_cst(current, tree, None if full else keep)
            if skeleton is None:  # no fix can be built: say why, not skip in silence
                codes = ", ".join(sorted({f.code for f in wanted}))
                return failed(f"{codes} fix not applied: {why}")
        try:
            if built is None:
                built = _build_pass(wanted, current, skeleton, tree, settings, by_code, one_at_a_time)
        except NeedsDefinitions as exc:  # parse the functions the fixes need, and retry
            passes_left += 1
            if (
                skeleton.keep is not None
                and not exc.names <= skeleton.keep
                and _graft(skeleton, current, tree, exc.names)
            ):
                continue
            if skeleton.keep is None or exc.names <= skeleton.keep:
                full = True
            else:
                keep = set(skeleton.keep | exc.names)
            skeleton = None
            continue
        if isinstance(built, str):
            return failed(built)
        chosen, edited, candidate = built
        if not chosen:
            break
        codes = ", ".join(sorted({f.code for f in chosen}))
        if candidate is None:
            return failed(f"{codes} fix not applied: LibCST does not reproduce the file's lines")
        if candidate == current:
            break
        verified = _verify(candidate, display_path, findings, chosen, rules, settings)
        if isinstance(verified, str):
            if len(chosen) > 1:
                one_at_a_time = True
                passes_left += MAX_PASSES + 2 * len(wanted)  # enough for one fix per pass
                continue
            return FixOutcome(text, lint_text(text, display_path, rules, settings), failure=verified)
        # the next pass edits the tree this one produced: the same statements as the new
        # text, line for line (no second LibCST parse)
        current, (findings, tree) = candidate, verified
        if textual:  # a LibCST tree parsed before is of the text before this pass
            skeleton, keep = None, None
        elif edited is not None:
            skeleton.module = edited  # the same stubs, still the same objects
        applied.extend(chosen)
    if line_length is not None and current is not text:
        fitted, shifts = _fitted(text, current, line_length, skeleton.module if skeleton else None, tree)
        if shifts:  # the trees are of the unbroken text: dropped, not reused
            if findings:  # what they say cites lines ("the await at line 24"): linted again
                return FixOutcome(fitted, lint_text(fitted, display_path, rules, settings), applied)
            return FixOutcome(fitted, [], applied)
    return FixOutcome(current, findings, applied, module=skeleton, tree=tree)


def _text_pass(wanted, current, tree, settings, by_code, one_at_a_time):
    """One pass made by the text editor, as _build_pass would make it with LibCST; None when
    any of its fixes needs the LibCST tree (then the whole pass goes to LibCST)."""
    from rtlint.fix.textedit import TextEditor

    try:
        editor = TextEditor(current, tree)
        chosen = _record_pass(editor, wanted, current, settings, by_code, one_at_a_time)
        if not chosen or editor.empty:
            return None  # LibCST's editor says why, or finds the same
        return chosen, None, editor.rendered()
    except Exception:  # NeedsTree; RecursionError or a fix's bug: the LibCST pass reports it
        return None


def _graft(skeleton, text: str, tree, names: set[str]) -> bool:
    from rtlint.fix import cstedit
    from rtlint.fix.skeleton import graft

    try:
        return tree is not None and graft(skeleton, text, tree, names, cstedit.parse)
    except Exception:  # LibCST cannot parse the function alone: the whole skeleton again
        return False


def _build_pass(wanted, current, skeleton, tree, settings, by_code, one_at_a_time):
    """One pass: (the fixes applied, the edited tree, the edited text), or why it failed.
    Raises NeedsDefinitions when the skeleton lacks a function a fix needs."""
    from rtlint.fix.cstedit import Editor
    from rtlint.fix.skeleton import NeedsDefinitions

    editor = Editor(skeleton.module, skeleton=skeleton)
    try:
        chosen = _record_pass(editor, wanted, current, settings, by_code, one_at_a_time)
    except _FixRaised as raised:
        code, error = raised.finding.code, raised.error
        if isinstance(error, RecursionError):  # LibCST's visitors recurse in Python: a limit, not a bug
            return f"{code} fix not applied: {_TOO_DEEP}"
        return f"{code} fix crashed: {type(error).__name__}: {error}"  # a broken fix must not end the run
    if not chosen or editor.empty:
        return [], None, current
    codes = ", ".join(sorted({f.code for f in chosen}))
    try:
        edited, candidate, _ = _render(editor, current, tree)
    except RecursionError:
        return f"{codes} fix not applied: {_TOO_DEEP}"
    except NeedsDefinitions:
        raise
    except Exception as exc:
        return f"{codes} fix crashed: {type(exc).__name__}: {exc}"
    return chosen, edited, candidate


def _fitted(original: str, fixed: str, line_length: int, module, tree=None) -> tuple[str, list[tuple[int, int]]]:
    from rtlint.fix.textedit import default_indent
    from rtlint.fix.wrap import fit_changed

    unit = module.default_indent if module is not None else default_indent(original)
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
