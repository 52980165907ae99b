"""The lines a fix added or changed go through the project's own formatter
(rtlint/fix/formatting.py): real ruff and real black give exactly their output on those
lines, every other line stays byte for byte, and any failure of the tool (missing, a
nonzero exit, a timeout, output that is not the same program) leaves rtlint's own line
breaking (rtlint/fix/wrap.py) in charge."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from rtlint.api import _rules
from rtlint.engine import config as config_module
from rtlint.engine.fixer import fix_text
from rtlint.fix import formatting
from rtlint.fix.edits import changed_lines
from tests.support.cli import run_main
from tests.support.formatters import formatter_bin

# RTL001's fix puts the snapshot and the push under a lock: the statements move 4 columns
# right and a lock is added to __init__. The push is too long at 88 once moved, and the
# single quotes are what neither ruff nor black (string normalisation) keep; `x  =  1` is
# misformatted and no fix touches it.
SAMPLE = """import asyncio


class Agent:
    def __init__(self, session):
        self._rt_session = session

    async def sync(self):
        ctx = self._rt_session.chat_ctx.copy()
        ctx.add_message(role='user', content='hello')
        await self._rt_session.update_chat_ctx(ctx.copy(exclude_function_call=True, exclude_instructions=True))


x  =  1
"""
UNTOUCHED = "x  =  1\n"


def _unformatted(text: str) -> str:
    """What the fixes make of `text` before any line is broken or formatted."""
    ruleset, _ = _rules(None, None)
    outcome = fix_text(text, "agent.py", ruleset.rules, ruleset.settings, line_length=None)
    assert outcome.failure is None and outcome.text != text
    return outcome.text


def _ruffs(text: str, original: str, folder: Path) -> str:
    """Real ruff's `--range` formatting of the lines the fixes changed in `text`."""
    changed = sorted(changed_lines(original, text))
    first, last = changed[0] + 1, changed[-1] + 2
    process = subprocess.run(
        [
            str(formatter_bin("ruff")),
            "format",
            "--range",
            f"{first}-{last}",
            "--stdin-filename",
            str(folder / "agent.py"),
            "-",
        ],
        input=text,
        capture_output=True,
        text=True,
        cwd=folder,
        check=True,
    )
    return process.stdout


@pytest.fixture
def ruff_on_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """The pinned ruff of the tests first on PATH (rtlint runs the `ruff` it finds there)."""
    monkeypatch.setenv("PATH", f"{formatter_bin('ruff').parent}{os.pathsep}{os.environ.get('PATH', '')}")


def _fix(folder: Path, text: str = SAMPLE, *args: str) -> str:
    target = folder / "agent.py"
    target.write_text(text)
    run = run_main("--no-cache", "--fix", *args, str(target))
    assert run.exit_code == 0, run.stderr
    return target.read_text()


def _fallback(tmp_path: Path, text: str = SAMPLE, width: int = 88) -> str:
    """rtlint's own line breaking of the fixes (no formatter configured)."""
    folder = tmp_path / "fallback"
    folder.mkdir()
    (folder / ".rtlint.toml").write_text(f'fix-formatter = "none"\nline-length = {width}\n')
    return _fix(folder, text)


def test_ruff_formats_the_fixed_lines(tmp_path: Path, ruff_on_path: None) -> None:
    (tmp_path / "ruff.toml").write_text("line-length = 88\n")
    fixed = _fix(tmp_path)
    assert fixed == _ruffs(_unformatted(SAMPLE), SAMPLE, tmp_path)
    assert 'ctx.add_message(role="user", content="hello")\n' in fixed  # ruff's quotes
    assert fixed != _fallback(tmp_path)  # which rtlint's own breaking does not give
    assert UNTOUCHED in fixed  # misformatted, but not the fix's
    assert run_main("--no-cache", "--fix", str(tmp_path / "agent.py")).exit_code == 0
    assert (tmp_path / "agent.py").read_text() == fixed  # a second --fix changes nothing


def test_ruff_reads_the_projects_configuration(tmp_path: Path, ruff_on_path: None) -> None:
    # ruff finds pyproject.toml's [tool.ruff] from the file's path: single quotes, width 60
    (tmp_path / "pyproject.toml").write_text(
        "[tool.ruff]\nline-length = 60\n[tool.ruff.format]\nquote-style = 'single'\n"
    )
    (tmp_path / "pkg").mkdir()
    text = SAMPLE.replace("role='user', content='hello'", 'role = "user", content = "hello"')
    fixed = _fix(tmp_path / "pkg", text)
    assert fixed == _ruffs(_unformatted(text), text, tmp_path / "pkg")
    assert "            ctx.add_message(role='user', content='hello')\n" in fixed
    assert max(len(line) for line in fixed.splitlines()) <= 60


def test_a_file_the_project_excludes_from_ruff_gets_rtlints_own_breaking(tmp_path: Path, ruff_on_path: None) -> None:
    # ruff is run with --force-exclude and echoes an excluded file unchanged; a second
    # process (a misformatted line under the same name) tells that from a line it cannot break
    (tmp_path / "pyproject.toml").write_text('[tool.ruff]\nline-length = 88\nextend-exclude = ["generated"]\n')
    (tmp_path / "generated").mkdir()
    fixed = _fix(tmp_path / "generated")
    assert fixed == _fallback(tmp_path)
    assert "role='user', content='hello'" in fixed  # ruff would have made the quotes double
    assert max(len(line) for line in fixed.splitlines()) <= 88


def test_untouched_lines_between_fixed_ones_stay(tmp_path: Path, ruff_on_path: None) -> None:
    # ruff takes one range, from the first fixed line to the last: a misformatted line between
    # them (in __init__, below the lock the fix adds there... and above the moved statements)
    # is formatted by ruff, and that change is not kept
    text = SAMPLE.replace("    async def sync(self):\n", "    y  =  2\n\n    async def sync(self):\n")
    (tmp_path / "ruff.toml").write_text("line-length = 88\n")
    fixed = _fix(tmp_path, text)
    assert "    y  =  2\n" in fixed and UNTOUCHED in fixed
    assert 'ctx.add_message(role="user", content="hello")' in fixed


def test_crlf_file_keeps_its_line_endings(tmp_path: Path, ruff_on_path: None) -> None:
    (tmp_path / "ruff.toml").write_text("line-length = 88\n")
    target = tmp_path / "agent.py"
    target.write_bytes(SAMPLE.replace("\n", "\r\n").encode())
    assert run_main("--no-cache", "--fix", str(target)).exit_code == 0
    raw = target.read_bytes()
    assert raw.count(b"\n") == raw.count(b"\r\n") and b'content="hello")\r\n' in raw
    assert b"x  =  1\r\n" in raw


BLACK_SAMPLE = SAMPLE.replace("import asyncio\n", "import asyncio\nfrom typing import Any\n")


def test_black_formats_the_fixed_lines(tmp_path: Path) -> None:
    import black

    (tmp_path / "pyproject.toml").write_text("[tool.black]\nline-length = 60\n")
    fixed = _fix(tmp_path, BLACK_SAMPLE)
    unformatted = _unformatted(BLACK_SAMPLE)
    regions = formatting._regions(sorted(changed_lines(BLACK_SAMPLE, unformatted)))
    expected = black.format_str(unformatted, mode=black.Mode(line_length=60), lines=regions)
    assert fixed == expected
    assert 'role="user"' in fixed and UNTOUCHED in fixed
    assert fixed != _fallback(tmp_path, BLACK_SAMPLE, 60)
    assert run_main("--no-cache", "--fix", str(tmp_path / "agent.py")).exit_code == 0
    assert (tmp_path / "agent.py").read_text() == fixed


def test_black_settings_are_passed(tmp_path: Path) -> None:
    import black

    (tmp_path / "pyproject.toml").write_text(
        '[tool.black]\nline-length = 70\nskip-string-normalization = true\ntarget-version = ["py310"]\n'
    )
    text = BLACK_SAMPLE.replace("role='user', content='hello'", "role = 'user', content = 'hello'")
    fixed = _fix(tmp_path, text)
    unformatted = _unformatted(text)
    regions = formatting._regions(sorted(changed_lines(text, unformatted)))
    mode = black.Mode(line_length=70, string_normalization=False, target_versions={black.TargetVersion.PY310})
    assert fixed == black.format_str(unformatted, mode=mode, lines=regions)
    assert "ctx.add_message(role='user', content='hello')" in fixed  # quotes kept, spaces black's
    assert max(len(line) for line in fixed.splitlines()) <= 70


@pytest.mark.parametrize("config", ['fix-formatter = "none"\n', 'fix-formatter = "black"\n'])
def test_the_option_chooses(tmp_path: Path, ruff_on_path: None, monkeypatch: pytest.MonkeyPatch, config: str) -> None:
    (tmp_path / "ruff.toml").write_text("line-length = 88\n")
    (tmp_path / ".rtlint.toml").write_text(config)
    fixed = _fix(tmp_path)
    if "none" in config:
        assert "role='user'" in fixed  # rtlint's own breaking, though ruff is configured
        assert fixed == _fallback(tmp_path)
    else:
        assert 'role="user"' in fixed and "x  =  1" in fixed  # black's, at the configured width


def _fake_ruff(folder: Path, body: str) -> str:
    """A `ruff` program doing `body` (Python), alone on PATH; it leaves `ran` beside itself."""
    folder.mkdir()
    program = folder / "ruff"
    marker = folder / "ran"
    program.write_text(f"#!{sys.executable}\nimport sys, time\nopen({str(marker)!r}, 'w').close()\n{body}\n")
    program.chmod(0o755)
    return str(folder)


@pytest.mark.parametrize(
    "body",
    [
        "sys.exit(2)",  # ruff's error exit
        "sys.stdout.write(sys.stdin.read().replace('hello', 'bye'))",  # not the same program
        "sys.stdout.buffer.write(b'\\xff')",  # not UTF-8
    ],
    ids=["nonzero exit", "other program", "undecodable"],
)
def test_a_failing_formatter_leaves_the_fallback(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, body: str) -> None:
    (tmp_path / "ruff.toml").write_text("line-length = 88\n")
    monkeypatch.setenv("PATH", _fake_ruff(tmp_path / "bin", body))
    assert _fix(tmp_path) == _fallback(tmp_path)
    assert (tmp_path / "bin" / "ran").exists()  # it was asked, and not believed


def test_a_formatter_that_hangs_is_stopped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "ruff.toml").write_text("line-length = 88\n")
    monkeypatch.setenv("PATH", _fake_ruff(tmp_path / "bin", "time.sleep(30)"))
    monkeypatch.setattr(formatting, "TIMEOUT", 0.5)
    started = time.monotonic()
    fixed = _fix(tmp_path)
    assert time.monotonic() - started < 20
    assert fixed == _fallback(tmp_path)
    assert (tmp_path / "bin" / "ran").exists()


def test_a_missing_formatter_leaves_the_fallback(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # no `ruff` on PATH, and none importable for `python -m ruff`; black not importable
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    monkeypatch.setitem(sys.modules, "ruff", None)
    monkeypatch.setitem(sys.modules, "black", None)
    formatting._black_importable.cache_clear()
    try:
        (tmp_path / "ruff.toml").write_text("line-length = 88\n")
        assert formatting.choose("auto", tmp_path / "agent.py", None) is None
        assert _fix(tmp_path) == _fallback(tmp_path)
        (tmp_path / "ruff.toml").unlink()
        (tmp_path / "pyproject.toml").write_text("[tool.black]\n")
        assert formatting.choose("auto", tmp_path / "agent.py", None) is None
    finally:
        formatting._black_importable.cache_clear()


def test_a_project_without_formatter_configuration_keeps_the_fallback(tmp_path: Path, ruff_on_path: None) -> None:
    assert formatting.choose("auto", tmp_path / "agent.py", None) is None
    assert formatting.choose("ruff", tmp_path / "agent.py", None) is not None  # named: used


def test_a_change_reaching_untouched_lines_is_refused() -> None:
    fixed = "a = 1\nb = [\n    1]\nc  =  3\n"
    # the formatter joined line 1 (changed) with line 2 (not): the file's result is refused
    assert formatting._kept(fixed, "a = 1\nb = [1]\nc  =  3\n", {1}) is None
    # its change to an untouched line alone is not kept
    assert formatting._kept(fixed, "a = 1\nb = [\n    1]\nc = 3\n", {0}) == fixed


def test_the_option_is_validated_and_shown(tmp_path: Path) -> None:
    assert config_module.from_table({"fix-formatter": "ruff"}, tmp_path).fix_formatter == "ruff"
    for bad in ("yapf", 1, True):
        with pytest.raises(config_module.ConfigError, match="fix-formatter"):
            config_module.from_table({"fix-formatter": bad}, tmp_path)
    (tmp_path / "agent.py").write_text("x = 1\n")
    shown = run_main("check", "--show-settings", str(tmp_path / "agent.py"))
    assert 'fix-formatter = "auto (rtlint\'s own line breaking)"' in shown.stdout
