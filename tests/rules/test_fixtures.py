"""Every sample under fixtures/<CODE>/ is a test case; adding one needs no test code.

A sample marks each expected finding with a trailing `# error: CODE` comment on the
reported line (several codes: `# error: RTL001, RTL004`; a clean sample has none). A code
may carry the expected 1-based column and a fragment of the expected message:
`# error: RTL001:19 "outside self._rt_chat_ctx_lock"` (either part alone too); a code listed
twice on a line expects two findings of it there, each matching one entry. Beside it,
`<name>.fixed.py` is the exact expected output of `rtlint --fix` and `<name>.unsafe.fixed.py`
that of `rtlint --fix --unsafe-fixes`. A sample with findings and no `.fixed.py` must not
change under `--fix`. After the fix, no finding of the sample's code that the run could fix
is left; findings it could not fix may stay (RTL011's replay with two defects, one fixable).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from rtlint.api import check_source, fix_source
from rtlint.core.source import Source
from rtlint.engine import config as config_module
from tests.support.cli import FIXTURES

# the fixtures' own configuration (fixtures/.rtlint.toml: their fixes are laid out at width 88,
# whatever the repository's formatter says), as `rtlint --fix fixtures/...` reads it
CONFIG = config_module.load(None, FIXTURES)

_ONE = r'RTL\d{3}(?::\d+)?(?:\s+"[^"]*")?'
MARKER = re.compile(r"#\s*error:\s*(?P<codes>" + _ONE + r"(?:\s*,\s*" + _ONE + r")*)")
EXPECTATION = re.compile(r'(?P<code>RTL\d{3})(?::(?P<column>\d+))?(?:\s+"(?P<fragment>[^"]*)")?')


def samples() -> list[Path]:
    return sorted(p for p in FIXTURES.glob("RTL*/*.py") if not p.name.endswith(".fixed.py"))


def expectations(text: str) -> dict[tuple[int, str], tuple[int | None, str | None]]:
    """(line, code) -> (column or None, message fragment or None), from the markers."""
    expected = {}
    for number, line in enumerate(text.splitlines(), start=1):
        match = MARKER.search(line)
        if match:
            for one in EXPECTATION.finditer(match.group("codes")):
                column = one.group("column")
                expected[(number, one.group("code"))] = (int(column) if column else None, one.group("fragment"))
    return expected


def expected_findings(text: str) -> set[tuple[int, str]]:
    return set(expectations(text))


def listed(text: str) -> list[tuple[int, str, int | None, str | None]]:
    """Every code of every marker, in order, a code listed twice on a line twice: (line,
    code, column or None, message fragment or None)."""
    found = []
    for number, line in enumerate(text.splitlines(), start=1):
        match = MARKER.search(line)
        if match:
            for one in EXPECTATION.finditer(match.group("codes")):
                column = one.group("column")
                found.append((number, one.group("code"), int(column) if column else None, one.group("fragment")))
    return found


def read(path: Path) -> str:
    return Source.from_bytes(path.read_bytes()).text


@pytest.mark.parametrize("sample", samples(), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_findings_match_markers(sample: Path) -> None:
    text = read(sample)
    findings = check_source(text, sample.name)
    assert {(f.line, f.code) for f in findings} == expected_findings(text)
    markers = listed(text)
    for line, code, column, fragment in markers:
        here = [f for f in findings if (f.line, f.code) == (line, code)]
        if [m[:2] for m in markers].count((line, code)) > 1:  # listed twice: that many findings
            assert len(here) == [m[:2] for m in markers].count((line, code)), (line, code, len(here))
        matching = [
            f for f in here if (column is None or f.column == column) and (fragment is None or fragment in f.message)
        ]
        assert matching, (line, code, column, fragment, [(f.column, f.message) for f in here])


@pytest.mark.parametrize("sample", samples(), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_fix_output(sample: Path) -> None:
    text = read(sample)
    code = sample.parent.name
    for unsafe, suffix in ((False, ".fixed.py"), (True, ".unsafe.fixed.py")):
        expected_path = sample.with_name(sample.stem + suffix)
        result = fix_source(text, sample.name, config=CONFIG, unsafe=unsafe)
        assert result.failure is None
        if not expected_path.exists():
            if unsafe and sample.with_name(sample.stem + ".fixed.py").exists():
                continue  # the safe expectation covers it: unsafe fixes change nothing more
            assert result.text == text, f"--fix changed {sample.name} but there is no {expected_path.name}"
            continue
        assert result.text == read(expected_path)
        again = fix_source(result.text, sample.name, config=CONFIG, unsafe=unsafe)
        assert again.text == result.text, "a second --fix changed the file"
        # what the run fixed is gone; a finding it could not fix (no fix, or an unsafe one on a
        # safe run) may stay, and none appears
        wanted = ("safe", "unsafe") if unsafe else ("safe",)
        left = [f for f in check_source(result.text, sample.name) if f.code == code]
        unfixable = [f for f in check_source(text, sample.name) if f.code == code and f.fixable not in wanted]
        assert [f for f in left if f.fixable in wanted] == []
        assert len(left) <= len(unfixable), [f.message for f in left]


def test_markers_read_columns_and_fragments() -> None:
    text = 'x = 1  # error: RTL001:19 "outside the lock", RTL004\ny = 2  # error: RTL002 "a, b"\n'
    assert expectations(text) == {
        (1, "RTL001"): (19, "outside the lock"),
        (1, "RTL004"): (None, None),
        (2, "RTL002"): (None, "a, b"),
    }


def test_there_are_enough_fixtures() -> None:
    """The issues ask for at least this many bad and clean samples per rule."""
    minimum = {
        "RTL001": 8,
        "RTL002": 10,
        "RTL003": 8,
        "RTL004": 5,
        "RTL005": 15,
        "RTL006": 10,
        "RTL007": 10,
        "RTL008": 5,
        "RTL009": 8,
        "RTL010": 8,
        "RTL011": 8,
    }
    for code, count in minimum.items():
        bad = [s for s in samples() if s.parent.name == code and expected_findings(read(s))]
        clean = [s for s in samples() if s.parent.name == code and not expected_findings(read(s))]
        assert len(bad) >= count and len(clean) >= count, (code, len(bad), len(clean))
