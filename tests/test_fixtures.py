"""Every sample under fixtures/<CODE>/ is a test case; adding one needs no test code.

A sample marks each expected finding with a trailing `# error: CODE` comment on the
reported line (several codes: `# error: RTL001, RTL004`; a clean sample has none). Beside it,
`<name>.fixed.py` is the exact expected output of `rtlint --fix` and `<name>.unsafe.fixed.py`
that of `rtlint --fix --unsafe-fixes`. A sample with findings and no `.fixed.py` must not
change under `--fix`.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from rtlint.api import check_source, fix_source
from rtlint.source import Source

from .conftest import FIXTURES

MARKER = re.compile(r"#\s*error:\s*(?P<codes>RTL\d{3}(?:\s*,\s*RTL\d{3})*)")


def samples() -> list[Path]:
    return sorted(
        p for p in FIXTURES.glob("RTL*/*.py") if not p.name.endswith(".fixed.py")
    )


def expected_findings(text: str) -> set[tuple[int, str]]:
    expected = set()
    for number, line in enumerate(text.splitlines(), start=1):
        match = MARKER.search(line)
        if match:
            expected |= {(number, code.strip()) for code in match.group("codes").split(",")}
    return expected


def read(path: Path) -> str:
    return Source.from_bytes(path.read_bytes()).text


@pytest.mark.parametrize("sample", samples(), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_findings_match_markers(sample: Path) -> None:
    text = read(sample)
    found = {(f.line, f.code) for f in check_source(text, sample.name)}
    assert found == expected_findings(text)


@pytest.mark.parametrize("sample", samples(), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_fix_output(sample: Path) -> None:
    text = read(sample)
    code = sample.parent.name
    for unsafe, suffix in ((False, ".fixed.py"), (True, ".unsafe.fixed.py")):
        expected_path = sample.with_name(sample.stem + suffix)
        result = fix_source(text, sample.name, unsafe=unsafe)
        assert result.failure is None
        if not expected_path.exists():
            if unsafe and sample.with_name(sample.stem + ".fixed.py").exists():
                continue  # the safe expectation covers it: unsafe fixes change nothing more
            assert result.text == text, f"--fix changed {sample.name} but there is no {expected_path.name}"
            continue
        assert result.text == read(expected_path)
        again = fix_source(result.text, sample.name, unsafe=unsafe)
        assert again.text == result.text, "a second --fix changed the file"
        assert [f for f in check_source(result.text, sample.name) if f.code == code] == []


def test_there_are_enough_fixtures() -> None:
    """The issues ask for at least this many bad and clean samples per rule."""
    minimum = {"RTL001": 8, "RTL002": 10, "RTL003": 8, "RTL004": 5, "RTL005": 15, "RTL006": 10, "RTL007": 10}
    for code, count in minimum.items():
        bad = [s for s in samples() if s.parent.name == code and expected_findings(read(s))]
        clean = [s for s in samples() if s.parent.name == code and not expected_findings(read(s))]
        assert len(bad) >= count and len(clean) >= count, (code, len(bad), len(clean))
