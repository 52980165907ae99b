"""Work counting for suppression: a file without a `#` has no suppression comment, so no
finding builds the flake8 line mapping (issue 25 item 8: at 100k lines the mapping cost
0.16 ms per finding)."""

from __future__ import annotations

import ast
from types import SimpleNamespace

from rtlint.suppress import suppression
from rtlint.suppress.suppression import filter_findings


def _count_ranges(monkeypatch) -> list[int]:
    calls: list[int] = []
    original = suppression.Suppressions._flake8_range

    def counted(self, line):
        calls.append(line)
        return original(self, line)

    monkeypatch.setattr(suppression.Suppressions, "_flake8_range", counted)
    return calls


def test_no_comment_no_mapping(monkeypatch):
    calls = _count_ranges(monkeypatch)
    text = 'x = """a\nb"""\n' * 50
    findings = [SimpleNamespace(line=n, code="RTL001") for n in range(1, 101)]
    kept = filter_findings(findings, text, tree=ast.parse(text))
    assert kept == findings
    assert calls == []


def test_comment_still_suppresses(monkeypatch):
    calls = _count_ranges(monkeypatch)
    text = 'x = """a\nb"""  # noqa: RTL001\ny = 1\n'
    findings = [SimpleNamespace(line=n, code="RTL001") for n in (1, 2, 3)]
    kept = filter_findings(findings, text, tree=ast.parse(text))
    assert [f.line for f in kept] == [3]
    assert calls
