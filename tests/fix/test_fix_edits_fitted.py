"""The edits of one finding's fix (JSON, SARIF, the editor's "Fix RTL00N") are broken to
the line length region by region. They must be what `--fix` of that finding alone writes
(which fits the whole fixed text), on LiveKit's real file, where the lock fix makes lines
longer than LiveKit's 100."""

from __future__ import annotations

from pathlib import Path

import pytest

from rtlint import api
from rtlint.engine.config import Config
from rtlint.engine.fixer import attach_fixes, fix_text
from rtlint.engine.linter import RuleSet
from rtlint.fix.edits import diff_edits
from tests.support.wheels import agent_activity


def _rules() -> RuleSet:
    config = Config(root=Path.cwd())
    return RuleSet(config.enabled_rules(None), config.settings())


def _edits(text: str, width: int) -> dict[tuple[str, int], tuple]:
    rules = _rules()
    findings = api.check_source(text, "agent_activity.py")
    attach_fixes(findings, text, rules.rules, rules.settings, line_length=width)
    return {(f.code, f.line): f.fix.edits for f in findings if f.fix is not None}


@pytest.mark.parametrize("version", ["1.8.8", "1.8.9"])
def test_region_fit_equals_whole_text_fit(version: str) -> None:
    text = agent_activity(version).read_text(encoding="utf-8")
    regional = _edits(text, 100)
    rules = _rules()
    findings = api.check_source(text, "agent_activity.py")
    whole = {}
    for finding in findings:
        if finding.fixable:
            outcome = fix_text(
                text,
                "agent_activity.py",
                rules.rules,
                rules.settings,
                unsafe=True,
                findings=findings,
                only=finding,
                line_length=100,
            )
            if outcome.applied:
                whole[(finding.code, finding.line)] = diff_edits(text, outcome.text)
    assert regional == whole
    assert len(regional) >= 3
    # the test means something only if some fix needed breaking at 100
    unbroken = _edits(text, 10_000)
    assert unbroken != regional
