"""JSON and SARIF attach every finding's fix as line edits (issue 25, item 8). They used to
be found by diffing the whole fixed file against the file, per finding: quadratic (25k lines
took 445 s). The editor now hands back the edits of the regions it changed, and what is per
file (its lines, which blocks can be edited) is computed once for all the fixes of a file.

The guards count work, not time: the Python trace events (lines executed, calls) per
finding, at N and 2N lines of bench.scaling's file (one RTL001 and its fix per ten lines),
must not grow with the file."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from bench.scaling import source
from rtlint.core.context import FixContext
from rtlint.core.fixplan import CannotFix
from rtlint.core.parsing import parse
from rtlint.engine.config import Config
from rtlint.engine.fixer import attach_fixes
from rtlint.engine.linter import RuleSet, lint_text
from rtlint.fix.editor import Editor, Original
from rtlint.fix.edits import apply_edits, diff_edits
from rtlint.fix.wrap import fit_region

REPO = Path(__file__).resolve().parents[2]


def _rules() -> RuleSet:
    config = Config(root=Path.cwd())
    return RuleSet(config.enabled_rules(None), config.settings())


def _events(run) -> int:
    count = 0

    def tracer(frame, event, arg):
        nonlocal count
        count += 1
        return tracer

    previous = sys.gettrace()
    sys.settrace(tracer)
    try:
        run()
    finally:
        sys.settrace(previous)
    return count


def _per_finding(lines: int) -> tuple[float, float]:
    rules = _rules()
    text = source(lines)
    tree = parse(text, "agents.py")
    findings = lint_text(text, "agents.py", rules.rules, rules.settings, tree=tree)
    assert len(findings) == lines // 10 and all(f.code == "RTL001" for f in findings)
    lint = _events(lambda: lint_text(text, "agents.py", rules.rules, rules.settings, tree=tree))
    fix = _events(lambda: attach_fixes(findings, text, rules.rules, rules.settings, tree=tree))
    assert all(f.fix is not None for f in findings)
    return lint / len(findings), fix / len(findings)


@pytest.fixture(scope="module")
def work() -> dict[int, tuple[float, float]]:
    return {lines: _per_finding(lines) for lines in (1000, 2000)}


def test_fix_work_per_finding_does_not_grow_with_the_file(work) -> None:
    # before: 28k events per finding at 1,000 lines, 51k at 2,000 (the whole file diffed)
    (_, small), (_, big) = work[1000], work[2000]
    assert big <= small * 1.15, (small, big)


def test_lint_work_per_finding_does_not_grow_with_the_file(work) -> None:
    (small, _), (big, _) = work[1000], work[2000]
    assert big <= small * 1.15, (small, big)


def _variants(text: str):
    yield text
    if text.endswith("\n"):
        yield text.rstrip("\n")  # no final line ending: the last line's is dropped again
    yield text.replace("\n", "\r\n")


def _fixtures() -> list[Path]:
    return sorted(p for p in (REPO / "fixtures").rglob("*.py") if not p.name.endswith(".fixed.py"))


@pytest.mark.parametrize("width", [None, 40])
def test_region_edits_are_the_whole_file_diff(width) -> None:
    """Editor.edits, applied, give the rendered text, on every fixture (at its own text,
    without a final line ending, with CRLF), fitted to a line length or not; an editor
    sharing the file's Original gives what one of its own gives. The edits are the
    regions the editor changed, each diffed on its own: they may be cut or aligned
    otherwise than a diff of the whole file (an inserted blank line is not slid past the
    blank lines beside it), never bigger."""
    rules = _rules()
    by_code = {rule.code: rule for rule in rules.rules}
    compared = 0
    for path in _fixtures():
        for text in _variants(path.read_text(encoding="utf-8")):
            try:
                tree = parse(text, path.name)
            except Exception:
                continue
            findings = lint_text(text, path.name, rules.rules, rules.settings, tree=tree)
            original = Original(text, tree)
            for finding in findings:
                if not finding.fixable or finding.code not in by_code:
                    continue
                shared, alone = Editor(text, tree, original), Editor(text, tree)
                results = []
                for editor in (shared, alone):
                    fit = None if width is None else (lambda new, old, e=editor: fit_region(old, new, width, e.unit))
                    editor.begin()
                    try:
                        by_code[finding.code].fix(finding, FixContext(text, rules.settings, editor))
                        results.append((editor.edits(fit), editor.rendered(fit)))
                    except CannotFix as exc:
                        results.append(str(exc))
                assert results[0] == results[1], (path, finding)
                if isinstance(results[0], tuple):
                    edits, rendered = results[0]
                    assert apply_edits(text, edits) == rendered, (path, finding)
                    # disjoint, in order, and no bigger than the whole file's diff
                    assert all(a.end_line <= b.line for a, b in zip(edits, edits[1:])), (path, finding)
                    assert sum(e.end_line - e.line for e in edits) <= sum(
                        e.end_line - e.line for e in diff_edits(text, rendered)
                    ), (path, finding)
                    compared += 1
    assert compared > 300
