"""What a user of ruff or flake8 expects of the output options (issue 24, item 4):
`--output-file FILE` in every format, `rtlint rules` listing every code (also as JSON), and
`rtlint --help` naming `server`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rtlint.engine import registry
from tests.support.cli import REPO, run_main
from tests.support.samples import BUGGY, TOKENLESS


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A folder with one finding, and no configuration above it that could leak in."""
    (tmp_path / "pyproject.toml").write_text("[tool.rtlint]\n")
    (tmp_path / "a.py").write_text(BUGGY)
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.parametrize(
    "options",
    [[], ["--format", "json"], ["--format", "sarif"], ["--format", "github"], ["--statistics"], ["--show-source"]],
)
def test_output_file_holds_what_standard_output_would(project: Path, options: list[str]) -> None:
    plain = run_main("--no-cache", *options, "a.py")
    assert plain.exit_code == 1 and plain.stdout
    to_file = run_main("--no-cache", *options, "--output-file", "report.out", "a.py")
    # the report moves to the file; the summary stays on standard error; the exit status is the same
    assert (to_file.exit_code, to_file.stdout, to_file.stderr) == (1, "", plain.stderr)
    assert (project / "report.out").read_text(encoding="utf-8") == plain.stdout


def test_output_file_is_written_when_nothing_is_found(project: Path) -> None:
    (project / "a.py").write_text(TOKENLESS)
    run = run_main("--no-cache", "--format", "json", "-o", "clean.json", "a.py")
    assert (run.exit_code, run.stdout) == (0, "")
    assert json.loads((project / "clean.json").read_text()) == []
    run = run_main("--no-cache", "--format", "sarif", "-o", "clean.sarif", "a.py")
    assert json.loads((project / "clean.sarif").read_text())["runs"][0]["results"] == []


def test_output_file_makes_its_folders_and_is_never_coloured(project: Path) -> None:
    run = run_main("--no-cache", "--color", "always", "-o", "reports/lint/rtlint.txt", "a.py")
    assert run.exit_code == 1 and run.stdout == ""
    written = (project / "reports" / "lint" / "rtlint.txt").read_text()
    assert written.startswith("a.py:") and "\x1b[" not in written
    assert "\x1b[" in run_main("--no-cache", "--color", "always", "a.py").stdout  # colour is asked for


def test_output_file_takes_the_diff(project: Path) -> None:
    plain = run_main("--no-cache", "--diff", "a.py")
    run = run_main("--no-cache", "--diff", "-o", "fixes.diff", "a.py")
    assert (run.exit_code, run.stdout, run.stderr) == (1, "", plain.stderr)
    assert (project / "fixes.diff").read_text() == plain.stdout != ""
    assert (project / "a.py").read_text() == BUGGY  # --diff changes nothing


def test_fixed_source_of_standard_input_stays_on_standard_output(project: Path) -> None:
    plain = run_main("check", "--no-cache", "--fix", "--stdin-filename", "a.py", "-", stdin=BUGGY.encode())
    assert plain.stdout != BUGGY and "RTL" not in plain.stdout
    run = run_main(
        "check", "--no-cache", "--fix", "--format", "json", "-o", "left.json", "--stdin-filename", "a.py", "-",
        stdin=BUGGY.encode(),
    )  # fmt: skip
    assert run.stdout == plain.stdout
    assert json.loads((project / "left.json").read_text()) == []  # the fix left nothing to report


def test_output_file_that_cannot_be_written_is_an_error(project: Path) -> None:
    run = run_main("--no-cache", "-o", "a.py/report.txt", "a.py")  # a file stands where a folder must be
    assert run.exit_code == 2 and "rtlint: error: cannot write a.py/report.txt" in run.stderr
    run = run_main("--no-cache", "-o", ".", "a.py")
    assert run.exit_code == 2 and "is a folder" in run.stderr


def test_rules_lists_every_code(project: Path) -> None:
    run = run_main("rules")
    listed = [line.split()[0] for line in run.stdout.splitlines()[1:]]
    assert run.exit_code == 0 and listed == registry.known_codes()
    assert {"RTL100", "RTL900", "RTL901", "RTL902"} <= set(listed)
    [unused] = [line for line in run.stdout.splitlines() if line.startswith("RTL100")]
    assert unused.split()[1:4] == ["unused-suppression", "off", "yes"]


def test_rules_as_json(project: Path) -> None:
    run = run_main("rules", "--format", "json")
    data = json.loads(run.stdout)
    assert run.exit_code == 0 and [d["code"] for d in data] == registry.known_codes()
    by_code = {d["code"]: d for d in data}
    assert by_code["RTL001"]["kind"] == "rule" and by_code["RTL001"]["default"] is True
    assert "session-names" in [o["name"] for o in by_code["RTL001"]["options"]]
    assert by_code["RTL100"] | {"summary": ""} == {
        "code": "RTL100",
        "name": "unused-suppression",
        "kind": "engine",
        "default": False,
        "fixable": "always",
        "summary": "",
        "url": "https://github.com/rtlint/rtlint/blob/main/docs/rules/RTL100.md",
        "options": [],
    }
    assert run_main("rules", "--format", "sarif").exit_code == 2


def test_help_names_every_command(project: Path) -> None:
    run = run_main("--help")
    flat = " ".join(run.stdout.split())
    assert run.exit_code == 0
    for command in ("rtlint explain CODE", "rtlint rules", "rtlint server"):
        assert command in flat
    assert "--output-file FILE" in run.stdout
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    usage = readme[readme.index("## Usage") :].split("```", 2)[1]
    for command in ("rtlint explain CODE", "rtlint rules [--format text|json]", "rtlint server"):
        assert command in usage
