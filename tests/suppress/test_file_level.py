"""File-level suppression (issue 24, "Why" 3), RTL100 as ruff's RUF100 ("Why" 4 and 2), and
`--add-noqa=REASON`: in the command line, flake8 and the language server alike."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.cli import REPO, run_main
from tests.support.samples import flake8

BUGGY = (REPO / "examples" / "realtime_agent.py").read_text()
CODES = {"RTL001", "RTL002", "RTL003"}  # its findings


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


def codes_of(run) -> set[str]:
    return {line.split(" ")[1] for line in run.stdout.splitlines() if line.strip()}


def server_codes(path: Path) -> set[str]:
    from rtlint.lsp.analysis import analyse
    from rtlint.lsp.document import Document

    analysis = analyse(Document(path.resolve().as_uri(), path.read_text()), path.parent)
    return {f.code for f in analysis.findings}


def flake8_codes(path: Path) -> set[str]:
    process = flake8("--select", "RTL", path.name, cwd=path.parent)
    return {line.split(" ")[1] for line in process.stdout.splitlines()}


def test_the_sample_has_both_codes(project: Path) -> None:
    (project / "a.py").write_text(BUGGY)
    assert codes_of(run_main("--no-cache", "a.py")) == CODES


@pytest.mark.parametrize(
    "comment, left",
    [
        ("# rtlint: noqa", set()),
        ("# RTLint:NOQA", set()),
        ("# rtlint: noqa: RTL001", {"RTL002", "RTL003"}),
        ("# rtlint: noqa: RTL001, RTL002 legacy code", {"RTL003"}),
        ("# rtlint: noqa: RTL00", set()),
        ("# flake8: noqa", set()),
        ("# flake8: noqa: F401", set()),  # flake8 7 silences the whole file for it too
    ],
)
def test_file_level_comment_in_cli_server_and_flake8(project: Path, comment: str, left: set[str]) -> None:
    path = project / "a.py"
    path.write_text(f"{comment}\n{BUGGY}")
    assert codes_of(run_main("--no-cache", "a.py")) == left
    assert server_codes(path) == left
    assert flake8_codes(path) == left


@pytest.mark.parametrize(
    "text",
    [
        "x = 1  # rtlint: noqa\n",  # after code: not file-level
        "x = 1  # flake8: noqa\n",  # flake8 ignores it there too (and warns)
        'DOC = """\n# rtlint: noqa\n"""\n',  # text in a string is no comment
        "# rtlint: noqa-like words\n",
    ],
)
def test_what_is_not_a_file_level_suppression(project: Path, text: str) -> None:
    from rtlint.suppress.comments import file_exemption

    assert not file_exemption(text + BUGGY)
    (project / "a.py").write_text(text + BUGGY)
    assert codes_of(run_main("--no-cache", "a.py")) == CODES


def test_a_misplaced_file_level_comment_is_rtl100(project: Path) -> None:
    (project / "a.py").write_text("x = 1  # rtlint: noqa\ny = 2  # flake8: noqa\n")
    run = run_main("--no-cache", "--select", "RTL100", "a.py")
    assert run.exit_code == 1
    assert [line.split(":")[1] for line in run.stdout.splitlines()] == ["1", "2"]
    assert "suppresses nothing on a line with code" in run.stdout
    # found by a walk too, in a file with none of the rules' vocabulary
    (project / "b.py").write_text("y = 2  # flake8: noqa\n")
    walked = run_main("--no-cache", "--select", "RTL100", ".")
    assert "b.py:1:" in walked.stdout, walked.stdout + walked.stderr


def test_rtl100_alone_reports_an_unused_suppression(project: Path) -> None:
    """ "Why" 4: `--select RTL100` alone judged nothing (no rule ran): the rules the
    configuration enables run for its judgement, their findings not reported."""
    (project / "a.py").write_text("x = 1  # noqa: RTL001\n" + BUGGY)
    run = run_main("--no-cache", "--select", "RTL100", "a.py")
    assert run.exit_code == 1, run.stderr
    assert codes_of(run) == {"RTL100"}
    assert "nothing reports RTL001 on line 1" in run.stdout
    # --fix removes it and fixes nothing else
    assert run_main("--no-cache", "--select", "RTL100", "--fix", "a.py").exit_code == 0
    text = (project / "a.py").read_text()
    assert text.startswith("x = 1\n") and "async with" not in text


def test_rtl100_reports_codes_not_enabled_duplicates_and_unknown_codes(project: Path) -> None:
    (project / "pyproject.toml").write_text('[tool.rtlint]\nextend-select = ["RTL100"]\nignore = ["RTL004"]\n')
    (project / "a.py").write_text("x = 1  # noqa: RTL004\ny = 2  # noqa: RTL555\n" + BUGGY)
    lines = BUGGY.splitlines()
    first = next(i for i, line in enumerate(lines) if "chat_ctx.copy()" in line)
    lines[first] += "  # noqa: RTL001, RTL001"
    (project / "b.py").write_text("\n".join(lines) + "\n")
    run = run_main("--no-cache", "a.py", "b.py")
    messages = [line.split("] ", 1)[1].removesuffix(" [*]") for line in run.stdout.splitlines() if "RTL100" in line]
    assert (
        "unused suppression: RTL004 is not enabled for this file (not selected, ignored, or a per-file ignore)"
        in messages
    )
    assert "unused suppression: RTL555 is not an rtlint code" in messages
    assert "unused suppression: RTL001 is given twice in this comment" in messages
    run_main("--no-cache", "--fix", "--select", "RTL100", "b.py")
    assert "# noqa: RTL001\n" in (project / "b.py").read_text()  # the second one removed


def test_flake8_reports_rtl100_when_selected(project: Path) -> None:
    """ "Why" 2: with `select = ["RTL"]` in [tool.rtlint], or flake8's own --select naming
    it, flake8 reports what `rtlint check` reports."""
    path = project / "a.py"
    path.write_text("x = 1  # noqa: RTL001\n" + BUGGY)
    process = flake8("--select", "RTL100", "a.py", cwd=project)
    assert "RTL100" in process.stdout, process.stdout + process.stderr
    (project / "pyproject.toml").write_text('[tool.rtlint]\nselect = ["RTL"]\n')
    cli = run_main("--no-cache", "a.py")
    assert "RTL100" in codes_of(cli)
    assert "RTL100" in flake8_codes(path) and flake8_codes(path) == codes_of(cli)
    (project / "pyproject.toml").unlink()
    assert "RTL100" not in flake8("--select", "RTL0", "a.py", cwd=project).stdout


def test_add_noqa_with_a_reason_never_duplicates_a_code(project: Path) -> None:
    path = project / "a.py"
    lines = BUGGY.splitlines()
    first = next(i for i, line in enumerate(lines) if "chat_ctx.copy()" in line)
    lines[first] += "  # noqa: RTL001 kept"
    path.write_text("\n".join(lines) + "\n")
    run = run_main("--no-cache", "--add-noqa=legacy code", "a.py")
    assert run.exit_code == 0, run.stderr
    text = path.read_text()
    assert "# noqa: RTL001 kept\n" in text  # already suppressed: untouched
    assert "# noqa: RTL002 legacy code\n" in text and "# noqa: RTL003 legacy code\n" in text
    assert run_main("--no-cache", "--add-noqa=again", "a.py").exit_code == 0
    assert path.read_text() == text  # nothing twice
    assert text.count("# noqa: RTL001") == 2 and text.count("# noqa: RTL002") == 1
    # `--add-noqa PATH` still names a path; a reason that reads as a code is refused
    assert run_main("--no-cache", "--add-noqa", "a.py").exit_code == 0
    bad = run_main("--no-cache", "--add-noqa=X1 legacy", "a.py")
    assert bad.exit_code == 2 and "code-like" in bad.stderr


def test_add_noqa_reason_merged_into_a_comment_without_one(project: Path) -> None:
    from rtlint.suppress.noqa import add_noqa

    assert add_noqa("x = 1  # noqa: E501\n", [(1, "RTL001")], "legacy") == "x = 1  # noqa: E501, RTL001 legacy\n"
    assert add_noqa("x = 1  # noqa: E501 why\n", [(1, "RTL001")], "legacy") == "x = 1  # noqa: E501, RTL001 why\n"
    assert add_noqa("x = 1  # noqa: RTL001\n", [(1, "RTL001")], "legacy") == "x = 1  # noqa: RTL001\n"
