"""The editor on real code: the real `agent_activity.py` of seven releases, reformatted by
real ruff, and with comments put in, is fixed with every pass verified; the fix edits
(JSON, SARIF) are those `--fix` writes; LibCST is loaded only by a local rewrite; and a
crash in the editor is RTL902, never a silent fallback."""

from __future__ import annotations

import ast
import random
import subprocess
import sys
from pathlib import Path

import pytest

from rtlint.api import _rules, fix_source
from rtlint.core.source import Source
from rtlint.engine.fixer import fix_text
from rtlint.fix.editor import Editor
from tests.support.cli import FIXTURES, run_main
from tests.support.wheels import agent_activity

RELEASES = ("1.6.5", "1.7.0", "1.8.0", "1.8.5", "1.8.8", "1.8.9", "2.0.0b1")


def _fixed(text: str, path: str = "agent_activity.py", unsafe: bool = False, width: int | None = 100):
    ruleset, _ = _rules(None, None)
    return fix_text(text, path, ruleset.rules, ruleset.settings, unsafe=unsafe, line_length=width)


def _fixes_everything(text: str) -> None:
    outcome = _fixed(text)
    assert outcome.failure is None
    assert outcome.applied and outcome.text != text
    ast.parse(outcome.text)
    left = {(f.code, f.symbol) for f in outcome.findings if f.fixable == "safe"}
    assert not left  # every safe fix was made


@pytest.mark.parametrize("version", RELEASES)
def test_releases_are_fixed(version: str) -> None:
    _fixes_everything(Source.from_bytes(agent_activity(version).read_bytes()).text)


LAYOUTS = ["indent-width=2", "indent-width=3", "line-length=40", "format.line-ending='cr-lf'"]


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("version", ["1.8.8", "2.0.0b1"])
def test_reformatted_releases_are_fixed(version, layout, tmp_path) -> None:
    from tests.support.formatters import formatter_bin

    target = tmp_path / "agent_activity.py"
    target.write_bytes(agent_activity(version).read_bytes())
    subprocess.run(
        [str(formatter_bin("ruff")), "format", "-q", "--isolated", "--config", layout, str(target)], check=True
    )
    text = Source.from_bytes(target.read_bytes()).text
    _fixes_everything(text)
    if "cr-lf" in layout:
        assert "\n" not in _fixed(text).text.replace("\r\n", "")


@pytest.mark.parametrize("seed", range(2))
@pytest.mark.parametrize("version", ["1.8.8", "1.8.9"])
def test_releases_with_comments_put_in_are_fixed(version, seed) -> None:
    """Comment and blank lines put before 60 statements, at the statement's indentation,
    deeper, shallower and at column 0: the fixes still go through, and keep every comment."""
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
    noted = "".join(lines)
    _fixes_everything(noted)
    assert _fixed(noted).text.count("# a note") == noted.count("# a note")


def _loads_libcst(source: Path) -> bool:
    """Whether fixing `source` in a fresh interpreter imports LibCST."""
    script = (
        "import sys\n"
        "from rtlint.api import fix_source\n"
        "from rtlint.core.source import Source\n"
        f"text = Source.from_bytes(open({str(source)!r}, 'rb').read()).text\n"
        "result = fix_source(text, 'agent_activity.py', unsafe=True)\n"
        "assert result.applied and result.failure is None, result.failure\n"
        "print('libcst' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=True)
    return done.stdout.strip() == "True"


def test_only_a_local_rewrite_imports_libcst() -> None:
    """Importing LibCST costs a fix ~0.24 s: the text edits never need it, a class-level lock
    included; the `__slots__` tuple the lock's name is added to is a local rewrite."""
    assert not _loads_libcst(agent_activity("1.8.8"))
    assert not _loads_libcst(FIXTURES / "RTL005" / "agent_on_enter_copy.py")
    assert not _loads_libcst(FIXTURES / "RTL001" / "class_without_init.py")
    assert _loads_libcst(FIXTURES / "RTL001" / "shape_slots_class.py")


def test_a_rewrite_keeps_the_lines_it_did_not_change() -> None:
    """The statement is cut out, parsed alone at column 0 and put back at its indentation,
    with its own line endings; a comment inside it survives."""
    text = "class A:\r\n    __slots__ = (\r\n        'a',  # the first\r\n    )\r\n"
    editor = Editor(text, ast.parse(text))
    editor.begin()

    def change(line):
        assert editor.code(line).startswith("__slots__")  # the statement's own tree
        value = line.body[0].value
        element = value.elements[0].with_changes(value=editor.expression("'b'"))
        return line.with_changes(body=[line.body[0].with_changes(value=value.with_changes(elements=[element]))])

    editor.rewrite(editor.locate((("body", 0), ("body", 0))), change)
    assert editor.rendered() == "class A:\r\n    __slots__ = (\r\n        'b',  # the first\r\n    )\r\n"


def test_a_crash_in_the_editor_is_rtl902_with_the_traceback_when_debugging(tmp_path, monkeypatch) -> None:
    """A bug in the editor fails the file's fix loudly: RTL902 (exit 2), where it raised, and
    with RTLINT_DEBUG set the traceback; nothing is written."""
    from rtlint.fix import editor as editor_module

    def broken(self, fit=None):
        raise ZeroDivisionError("the editor broke on purpose")

    monkeypatch.setattr(editor_module.Editor, "rendered", broken)
    source = FIXTURES / "RTL005" / "agent_on_enter_copy.py"
    text = source.read_text()
    result = fix_source(text, "agent.py", unsafe=True)
    assert result.text == text and "fix crashed: ZeroDivisionError: the editor broke on purpose" in result.failure
    (crash,) = [f for f in result.remaining if f.code == "RTL902"]
    assert "fix crashed: ZeroDivisionError" in crash.message and "test_editor.py:" in crash.message  # where
    assert "Traceback" not in result.failure
    target = tmp_path / "agent.py"
    target.write_text(text)
    monkeypatch.setenv("RTLINT_DEBUG", "1")
    run = run_main("--no-cache", "--fix", "--unsafe-fixes", str(target))
    assert run.exit_code == 2
    assert "RTL902" in run.stdout + run.stderr and "Traceback (most recent call last)" in run.stderr
    assert "the editor broke on purpose" in run.stderr
    assert target.read_text() == text


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("import asyncio\n\nfrom x import y\n", "from x import y\n"),  # the module's first statement
        ("# header\n\nimport asyncio\n\nimport os\n", "# header\n\nimport os\n"),  # after the header
        ('"""Doc."""\n\nimport asyncio\n\nimport os\n', '"""Doc."""\n\nimport os\n'),  # its lines above go
        ("def f():\n    a = 1\n\n    return 2\n", "def f():\n    return 2\n"),  # a block's first
    ],
)
def test_a_removed_first_statement_takes_the_blank_lines_after_it(text: str, expected: str) -> None:
    tree = ast.parse(text)
    editor = Editor(text, tree)
    editor.begin()
    path = (("body", 0), ("body", 0)) if text.startswith("def") else (("body", 1 if text.startswith('"') else 0),)
    editor.remove(editor.locate(path))
    assert editor.rendered() == expected
