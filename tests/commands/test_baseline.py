"""`--baseline FILE` (issue 24, item 5): adopting rtlint on a big codebase without comments.
The first run writes FILE and reports nothing; later runs report only what is not in it,
matched by code, path and the reported line's text, so findings survive lines moving."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.cli import REPO, run_main
from tests.support.samples import BUGGY, BUGGY_LINE, UNSERIALIZED

# a second snapshot-and-push method for BUGGY's class: a new finding
NEW_METHOD = """
    async def note(self, text):
        snapshot = self._rt_session.chat_ctx.copy()
        snapshot.add_message(role="system", content=text)
        await self._rt_session.update_chat_ctx(snapshot)
"""


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "pyproject.toml").write_text("[tool.rtlint]\n")
    (tmp_path / "a.py").write_text(BUGGY)
    (tmp_path / "b.py").write_text(UNSERIALIZED)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_first_run_writes_the_baseline_and_reports_nothing(project: Path) -> None:
    plain = run_main("--no-cache", ".")
    assert plain.exit_code == 1 and len(plain.stdout.splitlines()) == 2
    first = run_main("--no-cache", "--baseline", "rtlint-baseline.json", ".")
    assert (first.exit_code, first.stdout) == (0, "")
    assert "Wrote the baseline rtlint-baseline.json: 2 findings" in first.stderr
    assert "passed" not in first.stderr
    data = json.loads((project / "rtlint-baseline.json").read_text())
    assert data["rtlint-baseline"] == 1
    assert [(e["code"], e["path"], e["line"]) for e in data["findings"]] == [
        ("RTL001", "a.py", BUGGY_LINE),
        ("RTL004", "b.py", 16),
    ]
    assert all(len(e["line-hash"]) == 16 for e in data["findings"])

    again = run_main("--no-cache", "--baseline", "rtlint-baseline.json", ".")
    assert (again.exit_code, again.stdout) == (0, "")
    assert "2 findings in the baseline rtlint-baseline.json, not reported." in again.stderr
    assert again.stderr.endswith("No finding that is not in the baseline.\n")


def test_only_new_findings_are_reported_and_old_ones_survive_moving(project: Path) -> None:
    run_main("--no-cache", "--baseline", "base.json", ".")
    # the old finding moves down six lines, is re-indented and re-spaced; a new one appears
    body = "        ctx = self._rt_session.chat_ctx.copy()\n"
    moved = BUGGY.replace("    async def say", "\n\n\n\n\n    async def say").replace(
        body, "        if text:\n            ctx  =  self._rt_session.chat_ctx.copy( )\n"
    )
    moved = moved.replace("        ctx.add_message", "            ctx.add_message").replace(
        "        await self._rt_session.update", "            await self._rt_session.update"
    )
    (project / "a.py").write_text(moved + NEW_METHOD)
    run = run_main("--no-cache", "--baseline", "base.json", ".")
    assert run.exit_code == 1
    [line] = run.stdout.splitlines()
    assert line.startswith("a.py:") and "snapshot of self._rt_session.chat_ctx" in line
    assert int(line.split(":")[1]) == moved.count("\n") + 3  # the new method's snapshot
    assert "2 findings in the baseline base.json, not reported." in run.stderr
    assert "Found 1 finding not in the baseline." in run.stderr


def _methods(count: int) -> str:
    """BUGGY's class with `count` snapshot-and-push methods whose lines are identical."""
    method = BUGGY[BUGGY.index("    async def say") :]
    return BUGGY[: BUGGY.index("    async def say")] + "\n".join(
        method.replace("def say", f"def say_{n}") for n in range(count)
    )


def test_identical_lines_are_counted(project: Path) -> None:
    """Two findings on identical lines are two entries: a third identical one is new."""
    (project / "a.py").write_text(_methods(2))
    assert len(run_main("--no-cache", "a.py").stdout.splitlines()) == 2
    run_main("--no-cache", "--baseline", "base.json", "a.py")
    entries = json.loads((project / "base.json").read_text())["findings"]
    assert len(entries) == 2 and entries[0]["line-hash"] == entries[1]["line-hash"]
    (project / "a.py").write_text(_methods(3))
    run = run_main("--no-cache", "--baseline", "base.json", "a.py")
    assert run.exit_code == 1 and len(run.stdout.splitlines()) == 1


def test_every_format_shows_only_the_new_findings(project: Path) -> None:
    run_main("--no-cache", "--baseline", "base.json", ".")
    (project / "a.py").write_text(BUGGY + NEW_METHOD)
    as_json = json.loads(run_main("--no-cache", "--baseline", "base.json", "--format", "json", ".").stdout)
    assert [(f["path"], f["code"]) for f in as_json] == [("a.py", "RTL001")]
    sarif = json.loads(run_main("--no-cache", "--baseline", "base.json", "--format", "sarif", ".").stdout)
    assert len(sarif["runs"][0]["results"]) == 1
    statistics = run_main("--no-cache", "--baseline", "base.json", "--statistics", ".")
    assert statistics.stdout.split()[:2] == ["1", "RTL001"]


def test_fix_fixes_everything_and_the_baseline_filters_what_is_left(project: Path) -> None:
    run_main("--no-cache", "--baseline", "base.json", ".")
    run = run_main("--no-cache", "--baseline", "base.json", "--fix", ".")
    assert run.exit_code == 0 and "Fixed 2 findings in 2 files." in run.stderr
    assert run_main("--no-cache", ".").exit_code == 0  # fixed, not merely hidden
    # both entries are stale now: said, not an error
    again = run_main("--no-cache", "--baseline", "base.json", ".")
    assert again.exit_code == 0
    assert "2 entries of the baseline base.json match no finding any more" in again.stderr


def test_fix_without_a_baseline_writes_what_the_fixes_leave(project: Path) -> None:
    (project / "app.py").write_text((REPO / "examples" / "app_agent.py").read_text())  # RTL005-RTL007
    run = run_main("--no-cache", "--baseline", "base.json", "--fix", "a.py", "app.py")
    assert (run.exit_code, run.stdout) == (0, "")
    assert "Wrote the baseline base.json: 1 finding" in run.stderr
    # what --fix leaves: RTL006, whose fix is unsafe
    assert [e["code"] for e in json.loads((project / "base.json").read_text())["findings"]] == ["RTL006"]
    assert run_main("--no-cache", "a.py").exit_code == 0


def test_stale_entries_are_judged_only_for_the_files_checked(project: Path) -> None:
    run_main("--no-cache", "--baseline", "base.json", ".")
    (project / "b.py").write_text("x = 1\n")
    only_a = run_main("--no-cache", "--baseline", "base.json", "a.py")
    assert only_a.exit_code == 0 and "no finding any more" not in only_a.stderr
    both = run_main("--no-cache", "--baseline", "base.json", "a.py", "b.py")
    assert "1 entry of the baseline base.json matches no finding any more" in both.stderr


def test_paths_are_relative_to_the_baseline_so_any_working_folder_works(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (project / "ci").mkdir()
    run_main("--no-cache", "--baseline", "ci/base.json", "a.py")
    assert json.loads((project / "ci" / "base.json").read_text())["findings"][0]["path"] == "../a.py"
    monkeypatch.chdir(project / "ci")
    run = run_main("--no-cache", "--baseline", "base.json", "../a.py")
    assert run.exit_code == 0 and "1 finding in the baseline base.json, not reported." in run.stderr


def test_syntax_errors_are_never_baselined(project: Path) -> None:
    (project / "broken.py").write_text("def (:\n")
    first = run_main("--no-cache", "--baseline", "base.json", "a.py", "broken.py")
    assert first.exit_code == 1 and "RTL900" in first.stdout
    assert [e["code"] for e in json.loads((project / "base.json").read_text())["findings"]] == ["RTL001"]


def test_caches_do_not_replay_a_run_from_before_the_baseline_changed(project: Path) -> None:
    """With the caches on: the per-file cache keeps findings before the baseline filters
    them, and a run with --baseline is never replayed whole (the file is an input)."""
    assert run_main("--baseline", "base.json", ".").exit_code == 0
    assert run_main("--baseline", "base.json", ".").exit_code == 0  # the findings cache is warm
    data = json.loads((project / "base.json").read_text())
    data["findings"] = data["findings"][:1]
    (project / "base.json").write_text(json.dumps(data))
    run = run_main("--baseline", "base.json", ".")
    assert run.exit_code == 1 and run.stdout.startswith("b.py:16:")


def test_baseline_with_standard_input(project: Path) -> None:
    first = run_main("check", "--no-cache", "--baseline", "base.json", "--stdin-filename", "a.py", stdin=BUGGY.encode())
    assert first.exit_code == 0 and json.loads((project / "base.json").read_text())["findings"][0]["path"] == "a.py"
    again = run_main(
        "check",
        "--no-cache",
        "--baseline",
        "base.json",
        "--stdin-filename",
        "a.py",
        stdin=(BUGGY + NEW_METHOD).encode(),
    )
    assert again.exit_code == 1 and len(again.stdout.splitlines()) == 1


@pytest.mark.parametrize(
    ("setup", "args", "message"),
    [
        (None, ["--add-noqa"], "--baseline and --add-noqa cannot be combined"),
        (None, ["--diff"], "does not exist: write it without --diff"),
        ('{"findings": []}', [], 'is not an rtlint baseline (no "rtlint-baseline": 1)'),
        ("not json", [], "is not an rtlint baseline"),
        ('{"rtlint-baseline": 1, "findings": [{"code": "RTL001"}]}', [], "is not an rtlint baseline"),
    ],
)
def test_usage_errors(project: Path, setup: str | None, args: list[str], message: str) -> None:
    if setup is not None:
        (project / "base.json").write_text(setup)
    run = run_main("--no-cache", "--baseline", "base.json", *args, ".")
    assert run.exit_code == 2 and message in run.stderr
    assert (project / "a.py").read_text() == BUGGY
    if setup is not None:
        assert (project / "base.json").read_text() == setup  # never rewritten
