"""The command-line contract of design.md: arguments, output, exit status."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from rtlint import __version__
from tests.support.cli import FIXTURES, run_cli, run_main
from tests.support.samples import BUGGY, BUGGY_COLUMN, BUGGY_LINE, TOKENLESS

LINE = re.compile(
    r"^(?P<path>[^:]+):(?P<line>\d+):(?P<column>\d+): "
    r"(?P<code>RTL\d{3}) \[(?P<name>[a-z-]+)\] (?P<message>.+?)( \[\*\])?$"
)


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A folder to run in, with no configuration above it that could leak in."""
    (tmp_path / "pyproject.toml").write_text("[tool.rtlint]\n")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_text_output_and_exit_status(project: Path) -> None:
    (project / "a.py").write_text(BUGGY)
    run = run_main("--no-cache", "a.py")
    assert run.exit_code == 1
    [line] = run.stdout.splitlines()
    match = LINE.match(line)
    assert match, line
    assert (match["path"], int(match["line"]), int(match["column"]), match["code"]) == (
        "a.py",
        BUGGY_LINE,
        BUGGY_COLUMN,
        "RTL001",
    )
    assert match["name"] == "stale-mirror-snapshot"
    assert line.endswith(" [*]")  # fixable
    assert "Found 1 finding." in run.stderr


def test_check_is_the_default_command_and_dot_the_default_path(project: Path) -> None:
    (project / "a.py").write_text(BUGGY)
    assert run_main("--no-cache").stdout == run_main("check", "--no-cache", ".").stdout != ""


def test_clean_run_exits_zero(project: Path) -> None:
    (project / "a.py").write_text(TOKENLESS)
    run = run_main("--no-cache", "a.py")  # named: checked although it holds no vocabulary
    assert (run.exit_code, run.stdout, run.stderr) == (0, "", "Checked 1 file.\nAll checks passed.\n")


# the push of BUGGY with its snapshot taken under the push lock: vocabulary, and no finding
LOCKED = BUGGY.replace(
    '        ctx = self._rt_session.chat_ctx.copy()\n        ctx.add_message(role="user", content=text)\n        await',
    "        async with self._rt_chat_ctx_lock:\n            ctx = self._rt_session.chat_ctx.copy()\n"
    '            ctx.add_message(role="user", content=text)\n            await',
)


def test_a_walk_says_which_files_hold_no_vocabulary(project: Path) -> None:
    # two files the rules have words for (one clean, one buggy) and three they have none for
    (project / "a.py").write_text(BUGGY)
    (project / "clean.py").write_text(LOCKED)
    for name in ("b.py", "c.py", "d.py"):
        (project / name).write_text(TOKENLESS)
    run = run_main("--no-cache", ".")
    assert run.stderr.splitlines()[:2] == ["Checked 2 files; 3 more hold no realtime vocabulary.", "Found 1 finding."]
    (project / "a.py").write_text(TOKENLESS)
    run = run_main("--no-cache", ".")
    assert (run.exit_code, run.stderr) == (
        0,
        "Checked 1 file; 4 more hold no realtime vocabulary.\nAll checks passed.\n",
    )
    (project / "clean.py").unlink()
    run = run_main("--no-cache", ".")
    # nothing was checked, so nothing passed
    assert (run.exit_code, run.stderr) == (0, "No file checked: 4 files hold no realtime vocabulary.\n")
    for name in ("b.py", "c.py", "d.py"):
        (project / name).unlink()
    assert run_main("--no-cache", ".").stderr == "No file checked: 1 file holds no realtime vocabulary.\n"
    # a file named on the command line is always checked, whatever its bytes
    assert run_main("--no-cache", "a.py").stderr == "Checked 1 file.\nAll checks passed.\n"
    assert run_main("--no-cache", "--quiet", ".").stderr == ""
    assert run_main("--no-cache", "--format", "json", ".").stderr == ""


def test_exit_zero(project: Path) -> None:
    (project / "a.py").write_text(BUGGY)
    run = run_main("--no-cache", "--exit-zero", "a.py")
    assert run.exit_code == 0 and "RTL001" in run.stdout


def test_fix_then_exit_status(project: Path) -> None:
    target = project / "a.py"
    target.write_text(BUGGY)
    fixed = run_main("--no-cache", "--fix", "a.py")
    assert fixed.exit_code == 0, fixed.stderr
    assert "async with self._rt_chat_ctx_lock:" in target.read_text()
    assert "Fixed 1 finding in 1 file." in fixed.stderr
    target.write_text(BUGGY)
    flagged = run_main("--no-cache", "--fix", "--exit-non-zero-on-fix", "a.py")
    assert flagged.exit_code == 1  # changed a file: what a pre-commit fix hook needs
    assert run_main("--no-cache", "--fix", "--exit-non-zero-on-fix", "a.py").exit_code == 0


def test_fix_leaves_exit_one_when_findings_remain(project: Path) -> None:
    # a class without __init__: the fix is unsafe, so --fix leaves the finding
    source = BUGGY.replace("    def __init__(self, session):\n        self._rt_session = session\n\n", "")
    (project / "a.py").write_text(source)
    run = run_main("--no-cache", "--fix", "a.py")
    assert run.exit_code == 1
    assert (project / "a.py").read_text() == source
    # one unsafe finding and nothing safe: not "1 more fixable" (defect 6 of issue 14)
    assert "\n1 fixable with --fix --unsafe-fixes.\n" in run.stderr and "more" not in run.stderr
    unsafe = run_main("--no-cache", "--fix", "--unsafe-fixes", "a.py")
    assert unsafe.exit_code == 0 and "_rt_chat_ctx_lock = asyncio.Lock()" in (project / "a.py").read_text()


def test_diff_prints_and_writes_nothing(project: Path) -> None:
    (project / "a.py").write_text(BUGGY)
    run = run_main("--no-cache", "--diff", "a.py")
    assert run.exit_code == 1  # the fixes are not applied: the findings remain
    assert run.stdout.startswith("--- a/a.py\n+++ b/a.py\n")
    assert "+        async with self._rt_chat_ctx_lock:" in run.stdout
    assert (project / "a.py").read_text() == BUGGY


def test_select_and_ignore(project: Path) -> None:
    (project / "a.py").write_text(BUGGY)
    assert run_main("--no-cache", "--ignore", "RTL001", "a.py").exit_code == 0
    assert run_main("--no-cache", "--select", "RTL002,RTL003", "a.py").exit_code == 0
    assert run_main("--no-cache", "--select", "RTL", "a.py").exit_code == 1
    assert run_main("--no-cache", "--select", "rtl001", "a.py").exit_code == 1


@pytest.mark.parametrize("option", ["--select", "--ignore"])
def test_unknown_code_is_a_usage_error(project: Path, option: str) -> None:
    (project / "a.py").write_text(BUGGY)
    run = run_main("--no-cache", option, "RTL777", "a.py")
    assert run.exit_code == 2
    assert "unknown rule code(s) in" in run.stderr and "RTL777" in run.stderr


def test_bad_arguments_exit_two_without_traceback(project: Path) -> None:
    for args in (["--format", "xml"], ["--jobs", "0"], ["--no-such-option"]):
        run = run_main(*args)
        assert run.exit_code == 2, args
        assert run.stderr.startswith("rtlint: error:") and "Traceback" not in run.stderr


def test_json_matches_the_design_schema(project: Path) -> None:
    (project / "b.py").write_text(BUGGY)
    (project / "a.py").write_text(BUGGY)
    run = run_main("--no-cache", "--format", "json", ".")
    assert run.exit_code == 1
    data = json.loads(run.stdout)
    assert [d["path"] for d in data] == ["a.py", "b.py"]  # stable order
    for item in data:
        assert set(item) == {
            "path",
            "line",
            "column",
            "end_line",
            "end_column",
            "code",
            "name",
            "message",
            "fix",
            "url",
        }
        assert item["url"] == f"https://github.com/rtlint/rtlint/blob/main/docs/rules/{item['code']}.md"
        assert (item["line"], item["column"], item["code"]) == (BUGGY_LINE, BUGGY_COLUMN, "RTL001")
        assert item["end_line"] >= item["line"] and item["end_column"] > item["column"]
        assert item["fix"]["applicability"] == "safe"
        for edit in item["fix"]["edits"]:
            assert set(edit) == {"line", "column", "end_line", "end_column", "content"}


def test_statistics(project: Path) -> None:
    (project / "a.py").write_text(BUGGY)
    (project / "b.py").write_text(BUGGY)
    run = run_main("--no-cache", "--statistics", ".")
    assert run.exit_code == 1
    assert run.stdout.split() == ["2", "RTL001", "[*]", "stale-mirror-snapshot"]


def test_show_source_points_at_the_column(project: Path) -> None:
    (project / "a.py").write_text(BUGGY)
    lines = run_main("--no-cache", "--show-source", "a.py").stdout.splitlines()
    source_line = BUGGY.splitlines()[BUGGY_LINE - 1]
    assert lines[1] == "    " + source_line
    assert lines[2].index("^") == 4 + BUGGY_COLUMN - 1
    assert len(run_main("--no-cache", "--no-show-source", "a.py").stdout.splitlines()) == 1


def test_jobs_give_the_same_output_in_the_same_order(project: Path) -> None:
    for index in range(12):
        (project / f"m{index:02}.py").write_text(BUGGY if index % 3 else TOKENLESS)
    serial = run_cli("--no-cache", "--jobs", "1", ".", cwd=project)
    parallel = run_cli("--no-cache", "--jobs", "2", ".", cwd=project)
    assert serial.exit_code == parallel.exit_code == 1
    assert serial.stdout == parallel.stdout and serial.stdout.count("RTL001") == 8


def test_version_and_module_entry_point() -> None:
    module = subprocess.run([sys.executable, "-m", "rtlint", "--version"], capture_output=True, text=True)
    assert module.returncode == 0 and module.stdout.strip() == f"rtlint {__version__}"
    script = run_cli("--version")
    assert script.stdout.strip() == f"rtlint {__version__}"


def test_rules_and_explain() -> None:
    rules = run_cli("rules")
    assert rules.exit_code == 0 and "RTL003" in rules.stdout
    explain = run_cli("explain", "RTL003")
    assert explain.exit_code == 0 and explain.stdout.startswith("# RTL003 abandoned-items-guard")


def test_fixtures_directory_reports_every_marker() -> None:
    """The whole fixtures tree through the CLI: every `# error:` marker is reported."""
    run = run_cli("--no-cache", "--format", "json", str(FIXTURES))
    assert run.exit_code == 1
    reported = json.loads(run.stdout)
    # an expected output of --fix keeps only what no fix removes (RTL011's in-flight replay once
    # its flag is dropped, and a Pipecat spawn whose task is stored, which RTL006 does not fix),
    # so nothing of it is fixable
    fixed = [d for d in reported if d["path"].endswith(".fixed.py")]
    assert [d for d in fixed if d["fix"] is not None] == []
    assert {(Path(d["path"]).name, d["code"]) for d in fixed} <= {
        ("reconnect_openai_shape.unsafe.fixed.py", "RTL011"),
        ("flag_through_branches.unsafe.fixed.py", "RTL011"),
        ("pipecat_spawn_import_still_used.unsafe.fixed.py", "RTL006"),
    }
    found = {(Path(d["path"]).name, d["line"], d["code"]) for d in reported if d not in fixed}
    expected = set()
    for sample in FIXTURES.glob("RTL*/*.py"):
        if sample.name.endswith(".fixed.py"):
            continue  # the expected output of --fix: clean, markers and all
        for number, line in enumerate(sample.read_text(encoding="utf-8").splitlines(), start=1):
            match = re.search(r"#\s*error:\s*(RTL\d{3}(?:\s*,\s*RTL\d{3})*)", line)
            if match:
                expected |= {(sample.name, number, code.strip()) for code in match.group(1).split(",")}
    assert found == expected
