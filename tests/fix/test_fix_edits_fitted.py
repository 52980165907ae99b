"""The edits of one finding's fix (JSON, SARIF, the editor's "Fix RTL00N") are broken to
the line length region by region, parsing only the statements the splice generated. They
must equal what fitting the whole fixed text gives (the way `--fix` fits), on LiveKit's
real file, where the lock fix makes lines longer than LiveKit's 100."""

from __future__ import annotations

from pathlib import Path

import pytest

from rtlint import api
from rtlint.engine import fixer
from rtlint.engine.config import Config
from rtlint.engine.fixer import attach_fixes
from rtlint.engine.linter import RuleSet
from tests.support.wheels import agent_activity


def _edits(text: str, width: int) -> dict[tuple[str, int], tuple]:
    config = Config(root=Path.cwd())
    rules = RuleSet(config.enabled_rules(None), config.settings())
    findings = api.check_source(text, "agent_activity.py")
    attach_fixes(findings, text, rules.rules, rules.settings, line_length=width)
    return {(f.code, f.line): f.fix.edits for f in findings if f.fix is not None}


@pytest.mark.parametrize("version", ["1.8.8", "1.8.9"])
def test_region_fit_equals_whole_text_fit(version: str, monkeypatch: pytest.MonkeyPatch) -> None:
    text = agent_activity(version).read_text(encoding="utf-8")
    regional = _edits(text, 100)

    render = fixer._render

    def whole_text_only(editor, text, tree, fit=None):
        return render(editor, text, tree)  # no region fitting: the whole text is fitted after

    monkeypatch.setattr(fixer, "_render", whole_text_only)
    whole = _edits(text, 100)
    assert regional == whole
    assert len(regional) >= 3
    # the test means something only if some fix needed breaking at 100
    unbroken = _edits(text, 10_000)
    assert unbroken != regional
