"""Editors and adoption on the command line: `rtlint check -` (standard input),
`--add-noqa`, RTL100 unused-suppression, and `--show-fixes`."""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from rtlint.api import fix_source
from tests.support.cli import REPO, run_main
from tests.support.samples import BUGGY, BUGGY_COLUMN, BUGGY_LINE, UNSERIALIZED, clean_env, flake8

EXAMPLE = REPO / "examples" / "realtime_agent.py"


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "pyproject.toml").write_text("[tool.rtlint]\n")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def rtlint_bytes(*args: str, stdin: bytes, cwd: Path) -> subprocess.CompletedProcess:
    """The real console entry point with bytes on standard input (no text decoding)."""
    return subprocess.run(
        [sys.executable, "-m", "rtlint", *args], input=stdin, cwd=cwd, env=clean_env(), capture_output=True, timeout=300
    )


FINDING = re.compile(
    r"^(?P<path>[^:\n]+):(?P<line>\d+):(?P<column>\d+): (?P<code>RTL\d{3}) (?P<message>.*?)(?: \[\*\])?$", re.M
)


def parsed(output: str) -> list[tuple[str, int, int, str, str]]:
    return [(m["path"], int(m["line"]), int(m["column"]), m["code"], m["message"]) for m in FINDING.finditer(output)]


# -- standard input --------------------------------------------------------------------


def test_stdin_reports_like_a_file(project: Path) -> None:
    (project / "a.py").write_text(BUGGY)
    from_file = run_main("--no-cache", "a.py")
    from_stdin = run_main("--no-cache", "-", stdin=BUGGY.encode())
    assert from_stdin.exit_code == from_file.exit_code == 1
    assert from_stdin.stdout == from_file.stdout.replace("a.py:", "-:")
    named = run_main("--no-cache", "--stdin-filename", "pkg/agent.py", "-", stdin=BUGGY.encode())
    assert named.stdout.startswith(f"pkg/agent.py:{BUGGY_LINE}:{BUGGY_COLUMN}: RTL001")
    # --stdin-filename alone implies '-'
    assert run_main("--no-cache", "--stdin-filename", "pkg/agent.py", stdin=BUGGY.encode()).stdout == named.stdout


def test_stdin_same_findings_as_flake8_reading_stdin(project: Path) -> None:
    source = EXAMPLE.read_text(encoding="utf-8")
    ours = run_main("--no-cache", "--stdin-filename", "agent.py", "-", stdin=source.encode())
    theirs = subprocess.run(
        [sys.executable, "-m", "flake8", "--isolated", "--select", "RTL", "--stdin-display-name", "agent.py", "-"],
        input=source,
        text=True,
        capture_output=True,
        cwd=project,
        env=clean_env(),
        timeout=300,
    )
    flake8_findings = [
        (m[1], int(m[2]), int(m[3]), m[4], m[5])
        for m in re.finditer(r"^([^:\n]+):(\d+):(\d+): (RTL\d{3}) (.*)$", theirs.stdout, re.M)
    ]
    assert len(flake8_findings) == 4, theirs.stdout + theirs.stderr
    assert parsed(ours.stdout) == flake8_findings


def test_stdin_filename_applies_configuration_ignores_and_excludes(project: Path) -> None:
    (project / "pyproject.toml").write_text(
        '[tool.rtlint]\nper-file-ignores = { "tests/*" = ["RTL001"] }\nextend-exclude = ["generated"]\n'
    )
    sub = project / "sub"
    sub.mkdir()
    (sub / "pyproject.toml").write_text('[tool.rtlint]\nsession-names = ["_voice"]\n')
    custom = BUGGY.replace("_rt_session", "_voice").encode()
    assert run_main("--no-cache", "--stdin-filename", "x.py", stdin=custom).exit_code == 0  # root config: no _voice
    nested = run_main("--no-cache", "--stdin-filename", "sub/x.py", stdin=custom)
    assert nested.exit_code == 1 and nested.stdout.startswith("sub/x.py:")  # the nearest configuration
    ignored = run_main("--no-cache", "--stdin-filename", "tests/test_x.py", stdin=BUGGY.encode())
    assert (ignored.exit_code, ignored.stdout) == (0, "")
    excluded = run_main("--no-cache", "--stdin-filename", "generated/x.py", stdin=BUGGY.encode())
    assert (excluded.exit_code, excluded.stdout) == (0, "")
    assert "generated/x.py: excluded by the configuration; not checked" in excluded.stderr
    assert "All checks passed" not in excluded.stderr
    # an excluded buffer given to --fix comes back unchanged (an editor replaces its text by it)
    echoed = run_main("--no-cache", "--fix", "--stdin-filename", "generated/x.py", "-", stdin=BUGGY.encode())
    assert echoed.stdout == BUGGY


def test_fix_stdin_prints_the_fixed_source_byte_for_byte(project: Path) -> None:
    source = BUGGY.replace("\n", "\r\n").encode()
    run = rtlint_bytes("--no-cache", "--fix", "-", stdin=source, cwd=project)
    expected = fix_source(source.decode(), "-").text.encode()
    assert run.returncode == 0, run.stderr
    assert run.stdout == expected and b"\r\n" in run.stdout and b"async with self._rt_chat_ctx_lock:" in run.stdout
    assert b"Fixed 1 finding in 1 file." in run.stderr
    assert not list(project.glob("*.py"))  # nothing written to disk
    # what is left unfixed goes to standard error, the source to standard output
    unsafe = BUGGY.replace("    def __init__(self, session):\n        self._rt_session = session\n\n", "")
    left = rtlint_bytes("--no-cache", "--fix", "--stdin-filename", "a.py", "-", stdin=unsafe.encode(), cwd=project)
    assert left.returncode == 1
    assert left.stdout == unsafe.encode()
    assert b"a.py:6:15: RTL001" in left.stderr


def test_diff_of_stdin(project: Path) -> None:
    run = run_main("--no-cache", "--diff", "--stdin-filename", "agent.py", stdin=BUGGY.encode())
    assert run.exit_code == 1
    assert run.stdout.startswith("--- a/agent.py\n+++ b/agent.py\n")


def test_stdin_syntax_error_and_usage_errors(project: Path) -> None:
    broken = run_main("--no-cache", "-", stdin=b"def f(:\n")
    assert broken.exit_code == 1 and broken.stdout.startswith("-:1:")
    assert "RTL900" in broken.stdout
    for args in (["-", "a.py"], ["--stdin-filename", "x.py", "a.py"], ["--fix", "--add-noqa", "a.py"]):
        run = run_main("--no-cache", *args, stdin=b"")
        assert run.exit_code == 2 and run.stderr.startswith("rtlint: error:"), args


def test_stdin_is_never_replayed_from_the_run_cache(project: Path) -> None:
    # the whole-run cache keys on files on disk; standard input must be read every time
    assert run_main("-", stdin=BUGGY.encode()).exit_code == 1
    assert run_main("-", stdin=b"x = 1\n").exit_code == 0
    assert run_main("-", stdin=BUGGY.encode()).exit_code == 1


# -- --add-noqa ------------------------------------------------------------------------


def test_add_noqa_twice_and_flake8_reads_it(project: Path) -> None:
    target = project / "agent.py"
    original = EXAMPLE.read_text(encoding="utf-8") + UNSERIALIZED.replace("class Activity", "class Other")
    target.write_text(original)
    before = parsed(run_main("--no-cache", "agent.py").stdout)
    assert len(before) >= 5
    first = run_main("--no-cache", "--add-noqa", "agent.py")
    assert first.exit_code == 0, first.stderr
    assert f"Suppressed {len(before)} findings with # noqa in 1 file." in first.stderr
    once = target.read_text()
    assert ast.dump(ast.parse(once)) == ast.dump(ast.parse(original))
    for _, line, _, code, _ in before:
        assert once.splitlines()[line - 1].endswith(f"# noqa: {code}") or f"{code}" in once.splitlines()[line - 1]
    # every byte outside the inserted comments is kept
    assert re.sub(r"  # noqa: RTL\d{3}(?:, RTL\d{3})*", "", once) == original
    second = run_main("--no-cache", "--add-noqa", "agent.py")
    assert second.exit_code == 0 and target.read_text() == once
    assert run_main("--no-cache", "agent.py").exit_code == 0
    read_back = flake8("--select", "RTL", "agent.py", cwd=project)
    assert (read_back.returncode, read_back.stdout) == (0, "")


def test_add_noqa_merges_and_keeps_line_endings(project: Path) -> None:
    source = BUGGY.replace(".copy()", ".copy()  # noqa: E501 long line").replace("\n", "\r\n")
    target = project / "a.py"
    target.write_bytes(source.encode())
    assert run_main("--no-cache", "--add-noqa", "a.py").exit_code == 0
    assert target.read_bytes() == source.replace("# noqa: E501 long", "# noqa: E501, RTL001 long").encode()


def test_add_noqa_diff_and_stdin(project: Path) -> None:
    (project / "a.py").write_text(BUGGY)
    diff = run_main("--no-cache", "--add-noqa", "--diff", "a.py")
    assert "+        ctx = self._rt_session.chat_ctx.copy()  # noqa: RTL001" in diff.stdout
    assert (project / "a.py").read_text() == BUGGY
    piped = run_main("--no-cache", "--add-noqa", "-", stdin=BUGGY.encode())
    assert piped.exit_code == 0
    assert piped.stdout == BUGGY.replace(".copy()\n", ".copy()  # noqa: RTL001\n", 1)


def test_add_noqa_leaves_syntax_errors_reported(project: Path) -> None:
    (project / "broken.py").write_text("self._rt_session.update_chat_ctx(\n")
    run = run_main("--no-cache", "--add-noqa", "broken.py")
    assert run.exit_code == 1 and "RTL900" in run.stdout
    assert (project / "broken.py").read_text() == "self._rt_session.update_chat_ctx(\n"


# -- RTL100 unused-suppression ---------------------------------------------------------

STALE = BUGGY.replace(
    '        ctx.add_message(role="user", content=text)\n',
    '        ctx.add_message(role="user", content=text)  # noqa: RTL002, E501\n',
).replace("import asyncio\n", "import asyncio  # rtlint: ignore[RTL003] stale\n")


def test_rtl100_is_off_by_default_and_on_when_selected(project: Path) -> None:
    (project / "a.py").write_text(STALE)
    assert "RTL100" not in run_main("--no-cache", "a.py").stdout
    run = run_main("--no-cache", "--select", "RTL001,RTL002,RTL003,RTL100", "a.py")
    found = {(line, code, message) for _, line, _, code, message in parsed(run.stdout)}
    assert found >= {
        (1, "RTL100", "[unused-suppression] unused suppression: nothing reports RTL003 on line 1"),
        (10, "RTL100", "[unused-suppression] unused suppression: nothing reports RTL002 on line 10"),
    }
    # judged by the rules the configuration enables, also when the command line selects fewer
    # (their findings are not reported); a rule not enabled at all is said so
    only_one = run_main("--no-cache", "--select", "RTL001,RTL100", "a.py")
    assert {(line, code) for _, line, _, code, _ in parsed(only_one.stdout)} >= {(1, "RTL100"), (10, "RTL100")}
    assert {code for _, _, _, code, _ in parsed(only_one.stdout)} == {"RTL001", "RTL100"}
    ignored = run_main("--no-cache", "--select", "RTL001,RTL100", "--ignore", "RTL002", "a.py")
    assert "RTL002 is not enabled for this file" in ignored.stdout
    (project / "b.py").write_text("x = 1  # noqa: RTL777\n")
    unknown = run_main("--no-cache", "--select", "RTL100", ".")
    assert "b.py:1:16: RTL100 [unused-suppression] unused suppression: RTL777 is not an rtlint code" in unknown.stdout


def test_rtl100_used_suppressions_are_not_reported(project: Path) -> None:
    (project / "a.py").write_text(BUGGY.replace(".copy()\n", ".copy()  # noqa: RTL001\n"))
    run = run_main("--no-cache", "--select", "RTL", "a.py")
    assert (run.exit_code, run.stdout) == (0, "")


def test_rtl100_fix_removes_codes_then_comments(project: Path) -> None:
    target = project / "a.py"
    target.write_text(STALE)
    run = run_main("--no-cache", "--select", "RTL002,RTL003,RTL100", "--fix", "--show-fixes", "a.py")
    assert run.exit_code == 0, run.stdout + run.stderr
    fixed = target.read_text()
    assert "import asyncio\n" in fixed  # the comment and its reason, and the spaces before it
    assert "content=text)  # noqa: E501\n" in fixed  # another tool's code stays
    assert ast.dump(ast.parse(fixed)) == ast.dump(ast.parse(STALE))
    assert "2 × RTL100 [unused-suppression]" in run.stderr
    assert run_main("--no-cache", "--select", "RTL002,RTL003,RTL100", "a.py").exit_code == 0


def test_rtl100_keeps_a_following_comment_and_json_carries_the_edit(project: Path) -> None:
    (project / "a.py").write_text("x = 1  # noqa: RTL002  # type: ignore\n")
    data = json.loads(run_main("--no-cache", "--select", "RTL002,RTL100", "--format", "json", "a.py").stdout)
    [finding] = data
    assert (finding["code"], finding["line"], finding["column"], finding["end_column"]) == ("RTL100", 1, 16, 22)
    assert finding["fix"] == {
        "applicability": "safe",
        "edits": [{"line": 1, "column": 8, "end_line": 1, "end_column": 24, "content": ""}],
    }
    assert run_main("--no-cache", "--select", "RTL002,RTL100", "--fix", "a.py").exit_code == 0
    assert (project / "a.py").read_text() == "x = 1  # type: ignore\n"


# -- --show-fixes ----------------------------------------------------------------------


def test_show_fixes_lists_files_and_codes(project: Path) -> None:
    (project / "agent.py").write_text(EXAMPLE.read_text(encoding="utf-8"))
    (project / "other.py").write_text(BUGGY)
    diff = run_main("--no-cache", "--diff", "--show-fixes", ".")
    fix = run_main("--no-cache", "--fix", "--show-fixes", ".")
    listing = "  agent.py:\n    2 × RTL001 [stale-mirror-snapshot]\n    1 × RTL002 [late-local-commit]\n"
    assert listing in diff.stderr and listing in fix.stderr
    assert "  other.py:\n    1 × RTL001 [stale-mirror-snapshot]\n" in fix.stderr
    # RTL003's fix drains a stream not known to end: unsafe, so not among them
    assert "Would fix 6 findings in 2 files (2 more than reported" in diff.stderr
    assert "Fixed 6 findings in 2 files (2 more than reported" in fix.stderr
    assert "2 × RTL004 [unserialized-push]" in fix.stderr
    # without the flag, no listing
    (project / "other.py").write_text(BUGGY)
    assert "other.py:\n" not in run_main("--no-cache", "--fix", "other.py").stderr


def test_show_source_of_stdin_comes_from_stdin_not_the_named_file(project: Path) -> None:
    (project / "a.py").write_text("# what is on disk is older than the editor's buffer\n")
    run = run_main("--no-cache", "--show-source", "--stdin-filename", "a.py", stdin=BUGGY.encode())
    lines = run.stdout.splitlines()
    assert lines[1] == "    " + BUGGY.splitlines()[BUGGY_LINE - 1]
