"""The text editor (rtlint.fix.textedit) must make exactly the LibCST editor's edits: every
fixture and the real `agent_activity.py` of seven releases are fixed both ways, and the
texts, findings and fix edits (JSON, SARIF) compared byte for byte. The text editor has to
be what actually fixes the real files (else the speed it buys is not there), and a file it
cannot edit must go to LibCST, not be left unfixed."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from rtlint.api import _rules
from rtlint.core.source import Source
from rtlint.engine import fixer
from rtlint.engine.fixer import attach_fixes, fix_text
from rtlint.engine.linter import lint_text
from tests.support.cli import FIXTURES
from tests.support.wheels import agent_activity

RELEASES = ("1.6.5", "1.7.0", "1.8.0", "1.8.5", "1.8.8", "1.8.9", "2.0.0b1")


def _samples() -> list[Path]:
    return sorted(p for p in FIXTURES.glob("RTL*/*.py") if not p.name.endswith(".fixed.py"))


class _Counting:
    """Wraps fixer._text_pass and counts the passes it made and gave up."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.made = self.declined = 0
        original = fixer._text_pass

        def counted(*args, **kwargs):
            built = original(*args, **kwargs)
            if built is None:
                self.declined += 1
            else:
                self.made += 1
            return built

        monkeypatch.setattr(fixer, "_text_pass", counted)


def _libcst_only(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(fixer, "_text_pass", lambda *args, **kwargs: None)
    monkeypatch.setattr(fixer, "_text_fix", lambda *args, **kwargs: fixer._NEEDS_TREE)


def _outcome(text: str, path: str, unsafe: bool, line_length: int | None):
    ruleset, _ = _rules(None, None)
    outcome = fix_text(text, path, ruleset.rules, ruleset.settings, unsafe=unsafe, line_length=line_length)
    return (
        outcome.text,
        outcome.failure,
        sorted((f.code, f.line) for f in outcome.applied),
        [(f.code, f.line, f.message) for f in outcome.findings],
    )


def _fix_edits(text: str, path: str, line_length: int | None):
    ruleset, _ = _rules(None, None)
    findings = lint_text(text, path, ruleset.rules, ruleset.settings)
    attach_fixes(findings, text, ruleset.rules, ruleset.settings, line_length=line_length)
    return [(f.code, f.line, f.fix) for f in findings]


def _both_ways(text: str, path: str, monkeypatch: pytest.MonkeyPatch, unsafe: bool, line_length: int | None):
    counter = _Counting(monkeypatch)
    with_text = _outcome(text, path, unsafe, line_length)
    edits_text = _fix_edits(text, path, line_length)
    with monkeypatch.context() as patched:
        _libcst_only(patched)
        with_libcst = _outcome(text, path, unsafe, line_length)
        edits_libcst = _fix_edits(text, path, line_length)
    return counter, (with_text, edits_text), (with_libcst, edits_libcst)


@pytest.mark.parametrize("sample", _samples(), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_fixtures_are_fixed_the_same_on_the_text(sample: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    text = Source.from_bytes(sample.read_bytes()).text
    for unsafe, width in ((False, None), (True, 88)):
        _, on_text, on_libcst = _both_ways(text, sample.name, monkeypatch, unsafe, width)
        assert on_text == on_libcst


@pytest.mark.parametrize("version", RELEASES)
def test_releases_are_fixed_the_same_and_on_the_text(version: str, monkeypatch: pytest.MonkeyPatch) -> None:
    path = agent_activity(version)
    text = Source.from_bytes(path.read_bytes()).text
    counter, on_text, on_libcst = _both_ways(text, "agent_activity.py", monkeypatch, False, 100)
    assert on_text == on_libcst
    assert on_text[0][0] != text  # there was something to fix
    assert counter.made >= 1 and counter.declined == 0  # every pass was made on the text


def test_the_fixture_set_exercises_the_text_editor(monkeypatch: pytest.MonkeyPatch) -> None:
    """Most fixture passes are made on the text (139 of 150 when written); the others fall
    back (a class- or module-level lock, `__slots__`, an `async with` to lift, a block
    emptied, a guard that is not a name): both counts must be real for the comparisons
    above to mean much."""
    counter = _Counting(monkeypatch)
    for sample in _samples():
        _outcome(Source.from_bytes(sample.read_bytes()).text, sample.name, True, None)
    assert counter.made >= 130
    assert counter.declined >= 8


# -- the same code in other layouts: real ruff reformatting, and comments put in -------------

LAYOUTS = ["indent-width=2", "indent-width=3", "line-length=40", "format.line-ending='cr-lf'"]


def _agree_on(text: str, monkeypatch: pytest.MonkeyPatch) -> _Counting:
    counter, on_text, on_libcst = _both_ways(text, "agent_activity.py", monkeypatch, False, 100)
    assert on_text == on_libcst
    assert on_text[0][0] != text
    return counter


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("version", ["1.8.8", "2.0.0b1"])
def test_reformatted_releases_are_fixed_the_same_on_the_text(version, layout, tmp_path, monkeypatch) -> None:
    import subprocess

    from tests.support.formatters import formatter_bin

    target = tmp_path / "agent_activity.py"
    target.write_bytes(agent_activity(version).read_bytes())
    subprocess.run(
        [str(formatter_bin("ruff")), "format", "-q", "--isolated", "--config", layout, str(target)], check=True
    )
    text = Source.from_bytes(target.read_bytes()).text
    counter = _agree_on(text, monkeypatch)
    assert counter.made >= 1 and counter.declined == 0


@pytest.mark.parametrize("seed", range(2))
@pytest.mark.parametrize("version", ["1.8.8", "1.8.9"])
def test_releases_with_comments_put_in_are_fixed_the_same(version, seed, monkeypatch) -> None:
    """Comment and blank lines put before 60 statements, at the statement's indentation,
    deeper, shallower and at column 0: which LibCST gives to which statement decides what
    moves with the fixed code."""
    import random

    text = Source.from_bytes(agent_activity(version).read_bytes()).text
    lines = text.splitlines(keepends=True)
    starts = sorted(
        {
            n.lineno
            for n in ast.walk(ast.parse(text))
            if isinstance(n, ast.stmt) and not getattr(n, "decorator_list", None)
        }
    )
    chance = random.Random(seed)
    for line_number in sorted(chance.sample(starts, 60), reverse=True):
        line = lines[line_number - 1]
        indent = len(line) - len(line.lstrip(" "))
        if line[:indent].strip() or not line.strip():
            continue
        column = chance.choice([indent, indent + 4, 0, max(0, indent - 2), indent, indent])
        lines.insert(line_number - 1, " " * column + "# a note\n" if chance.random() < 0.8 else "\n")
    _agree_on("".join(lines), monkeypatch)


def _loads_libcst(source: Path, *flags: str) -> tuple[bool, str]:
    """Whether fixing `source` in a fresh interpreter imports LibCST, and the fixed text."""
    import subprocess
    import sys

    script = (
        "import sys\n"
        "from rtlint.api import fix_source\n"
        "from rtlint.core.source import Source\n"
        f"text = Source.from_bytes(open({str(source)!r}, 'rb').read()).text\n"
        "result = fix_source(text, 'agent_activity.py', unsafe=True)\n"
        "assert result.applied and result.failure is None, result.failure\n"
        "print('libcst' in sys.modules)\n"
    )
    done = subprocess.run(
        [sys.executable, *flags, "-c", script], capture_output=True, text=True, timeout=120, check=True
    )
    return done.stdout.strip() == "True", done.stdout


def test_a_fix_on_the_text_does_not_import_libcst() -> None:
    """What the text editor buys is not loading LibCST (~0.24 s) nor parsing with it: a
    stray module-level `import libcst` on the fix path would silently take it back."""
    loaded, _ = _loads_libcst(agent_activity("1.8.8"))
    assert not loaded
    loaded, _ = _loads_libcst(FIXTURES / "RTL005" / "agent_on_enter_copy.py")
    assert not loaded  # an application rule's fix too
    loaded, _ = _loads_libcst(FIXTURES / "RTL001" / "class_without_init.py")
    assert loaded  # a class-level lock edits LibCST nodes: the fallback is taken, and works


@pytest.mark.parametrize("layout", ["line-length=40", "format.line-ending='cr-lf'"])
def test_reformatted_fixtures_are_fixed_the_same_on_the_text(layout, tmp_path, monkeypatch) -> None:
    """Every fixture reformatted by real ruff: short lines put pushes, edits and spawned tasks
    over several lines (what the application rules' argument edits must follow), CRLF puts
    the rules' own "\\n" beside copied "\\r\\n"."""
    import shutil
    import subprocess

    from tests.support.formatters import formatter_bin

    for sample in _samples():
        shutil.copy(sample, tmp_path / f"{sample.parent.name}_{sample.name}")
    subprocess.run(
        [str(formatter_bin("ruff")), "format", "-q", "--isolated", "--config", layout, str(tmp_path)], check=True
    )
    counter = _Counting(monkeypatch)
    differ = []
    for copy in sorted(tmp_path.glob("*.py")):
        text = Source.from_bytes(copy.read_bytes()).text
        _, on_text, on_libcst = _both_ways(text, copy.name, monkeypatch, True, 88)
        if on_text != on_libcst:
            differ.append(copy.name)
    assert differ == []
    assert counter.made >= 90
