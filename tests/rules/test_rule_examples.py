"""Every rule's VALID and INVALID examples (rtlint/core/rule.py says the suite runs them)."""

from __future__ import annotations

import pytest

from rtlint.api import check_source, fix_source
from rtlint.core.rule import Invalid
from rtlint.engine.registry import all_rules

VALID = [pytest.param(r.code, s, id=f"{r.code}-valid-{i}") for r in all_rules() for i, s in enumerate(r.VALID)]
INVALID = [pytest.param(r.code, e, id=f"{r.code}-invalid-{i}") for r in all_rules() for i, e in enumerate(r.INVALID)]


def test_every_rule_has_examples() -> None:
    for rule in all_rules():
        assert rule.VALID and rule.INVALID, rule.code


@pytest.mark.parametrize(("code", "source"), VALID)
def test_valid_example_has_no_finding(code: str, source: str) -> None:
    assert [f for f in check_source(source, "example.py") if f.code == code] == []


@pytest.mark.parametrize(("code", "example"), INVALID)
def test_invalid_example_is_found_and_fixed(code: str, example: Invalid) -> None:
    found = [f for f in check_source(example.code, "example.py") if f.code == code]
    assert tuple(sorted(f.line for f in found)) == tuple(sorted(example.lines))
    if example.expected_fix is not None:
        result = fix_source(example.code, "example.py", select=[code])
        assert result.failure is None
        assert result.text == example.expected_fix
