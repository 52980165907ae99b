"""`rtlint server` end to end: the installed console script driven over stdio by
pytest-lsp's client, against LiveKit Agents 1.8.8's agent_activity.py and small samples,
compared with what `rtlint check` reports and fixes for the same files."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import LanguageClient, client_capabilities

from rtlint.core.findings import Edit
from rtlint.fix.edits import apply_edits
from rtlint.report.docs import rule_url
from tests.support import wheels
from tests.support.cli import REPO, run_cli
from tests.support.lsp_client import (
    CONFIG,
    apply_text_edits,
    change,
    edits_of,
    open_document,
    published,
    replace_all,
    replace_range,
    utf16_column,
)

pytestmark = pytest.mark.asyncio(loop_scope="module")

EXAMPLE = REPO / "examples" / "realtime_agent.py"


@pytest_lsp.fixture(config=CONFIG, scope="module")
async def client(lsp_client: LanguageClient):
    # VS Code's capabilities: UTF-16 positions, versioned document changes, edits resolved lazily
    await lsp_client.initialize_session(types.InitializeParams(capabilities=client_capabilities("visual-studio-code")))
    yield
    await lsp_client.shutdown_session()


@pytest.fixture(scope="module")
def activity_source() -> Path:
    return wheels.agent_activity("1.8.8")


@pytest.fixture
def activity(activity_source: Path, tmp_path: Path) -> Path:
    """A copy of agent_activity.py, one per test (each test's document is its own)."""
    target = tmp_path / "agent_activity.py"
    shutil.copyfile(activity_source, target)
    return target


@pytest.fixture(scope="module")
def activity_json(activity_source: Path) -> list[dict]:
    return cli_json(activity_source)


def cli_json(path: Path, *args: str) -> list[dict]:
    run = run_cli("check", "--no-cache", "--format", "json", *args, str(path))
    assert run.exit_code in (0, 1), run.stderr
    return json.loads(run.stdout)


def cli_fixed(path: Path, folder: Path, *args: str) -> str:
    """What `rtlint check --fix ARGS` writes for the file (run on a copy)."""
    folder.mkdir(parents=True, exist_ok=True)
    copy = folder / path.name
    shutil.copyfile(path, copy)
    run = run_cli("check", "--no-cache", "--fix", *args, str(copy))
    assert run.exit_code in (0, 1), run.stderr
    return copy.read_bytes().decode("utf-8")


def expected_ranges(text: str, findings: list[dict]) -> list[tuple]:
    lines = text.splitlines()
    return [
        (
            f["code"],
            f["line"] - 1,
            utf16_column(lines[f["line"] - 1], f["column"]),
            f["end_line"] - 1,
            utf16_column(lines[f["end_line"] - 1], f["end_column"]),
        )
        for f in findings
    ]


def ranges(diagnostics: list[types.Diagnostic]) -> list[tuple]:
    return [
        (d.code, d.range.start.line, d.range.start.character, d.range.end.line, d.range.end.character)
        for d in diagnostics
    ]


async def actions(client: LanguageClient, uri: str, line: int, only: list[str] | None = None) -> list[types.CodeAction]:
    result = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=types.Range(start=types.Position(line=line, character=0), end=types.Position(line=line, character=0)),
            context=types.CodeActionContext(diagnostics=[], only=only),
        )
    )
    return list(result or [])


async def resolved_edits(client: LanguageClient, action: types.CodeAction, uri: str) -> list[types.TextEdit]:
    if action.edit is None:
        action = await client.code_action_resolve_async(action)
    assert action.edit is not None, action
    return edits_of(action.edit, uri)


async def test_open_publishes_the_findings_of_rtlint_check(client, activity, activity_json):
    uri = open_document(client, activity)
    diagnostics = await published(client, uri, 1)
    text = activity.read_text()
    assert len(activity_json) == 5
    assert ranges(diagnostics) == expected_ranges(text, activity_json)
    for shown, finding in zip(diagnostics, activity_json):
        assert shown.source == "rtlint"
        # a rule's finding is a bug that loses data at run time: an Error, as ruff's server
        # shows an undefined name (issue 24: they were Warnings, below RTL100's Error)
        assert (shown.severity, shown.tags) == (types.DiagnosticSeverity.Error, None)
        assert shown.message == f"[{finding['name']}] {finding['message']}"
        assert shown.code_description.href == rule_url(finding["code"])
        assert shown.code_description.href.endswith(f"/docs/rules/{finding['code']}.md")


async def test_incremental_and_full_changes_update_the_diagnostics(client, activity, activity_json):
    uri = open_document(client, activity)
    text = activity.read_text()
    first = ranges(await published(client, uri, 1))

    change(client, uri, 2, replace_range((0, 0), (0, 0), "import os\n"))
    shifted = ranges(await published(client, uri, 2))
    assert shifted == [(code, a + 1, b, c + 1, d) for code, a, b, c, d in first]

    guard = next(f for f in activity_json if f["code"] == "RTL003")
    line = text.splitlines()[guard["line"] - 1]
    at_end = (guard["line"], utf16_column(line, len(line) + 1))  # one line down since version 2
    change(client, uri, 3, replace_range(at_end, at_end, "  # noqa: RTL003"))
    codes = [d.code for d in await published(client, uri, 3)]
    assert codes == ["RTL001", "RTL002", "RTL001", "RTL001"]

    change(client, uri, 4, replace_all(text))
    assert ranges(await published(client, uri, 4)) == first

    # several changes in one notification apply in order: an insertion, then its removal
    change(client, uri, 5, replace_range((0, 0), (0, 0), "x = 1\n"), replace_range((0, 0), (1, 0), ""))
    assert ranges(await published(client, uri, 5)) == first


async def test_fix_all_equals_rtlint_check_fix_byte_for_byte(client, activity, tmp_path):
    uri = open_document(client, activity)
    await published(client, uri, 1)
    offered = await actions(client, uri, 0, only=[types.CodeActionKind.SourceFixAll])
    assert [(a.title, a.kind) for a in offered] == [("Fix all rtlint findings", "source.fixAll.rtlint")]
    assert offered[0].edit is None  # VS Code resolves edits: computed only when chosen
    fixed = apply_text_edits(activity.read_text(), await resolved_edits(client, offered[0], uri))
    assert fixed == cli_fixed(activity, tmp_path / "cli")
    assert fixed != activity.read_text()

    change(client, uri, 2, replace_all(fixed))
    # left: RTL003, whose fix drains a stream not known to end (unsafe, as --fix leaves it)
    [left] = await published(client, uri, 2)
    assert left.code == "RTL003" and "(fix is unsafe: " in left.message


async def test_fix_of_one_finding_is_what_check_fixes_for_it(client, activity, activity_json, tmp_path):
    uri = open_document(client, activity)
    await published(client, uri, 1)
    text = activity.read_text()
    guard = next(f for f in activity_json if f["code"] == "RTL003")
    offered = await actions(client, uri, guard["line"] - 1, only=[types.CodeActionKind.QuickFix])
    # its fix drains a stream not known to end: offered as unsafe, never the preferred action
    assert [a.title for a in offered] == ["Fix RTL003 (unsafe)", "Ignore RTL003 with # noqa"]
    assert not offered[0].is_preferred and offered[0].diagnostics[0].code == "RTL003"

    fixed = apply_text_edits(text, await resolved_edits(client, offered[0], uri))
    # the only RTL003 finding of the file: --fix --unsafe-fixes --select RTL003 makes the same edits
    assert fixed == cli_fixed(activity, tmp_path / "cli", "--select", "RTL003", "--unsafe-fixes")
    change(client, uri, 2, replace_all(fixed))
    assert [d.code for d in await published(client, uri, 2)] == ["RTL001", "RTL002", "RTL001", "RTL001"]

    # a snapshot fix: the edits `check --format json` gives for that finding
    snapshot = activity_json[0]
    offered = await actions(client, uri, snapshot["line"] - 1, only=[types.CodeActionKind.QuickFix])
    fix = next(a for a in offered if a.title == "Fix RTL001")
    after = apply_text_edits(fixed, await resolved_edits(client, fix, uri))
    edits = [
        Edit(e["line"], e["column"], e["end_line"], e["end_column"], e["content"]) for e in snapshot["fix"]["edits"]
    ]
    assert after == apply_edits(fixed, edits)
    change(client, uri, 3, replace_all(after))
    remaining = await published(client, uri, 3)
    # the snapshot is fixed; the pushes the new lock leaves unserialized are reported (RTL004,
    # what the next passes of --fix fix), as `rtlint check` reports them for that text
    on_disk = tmp_path / "after" / activity.name
    on_disk.parent.mkdir()
    on_disk.write_text(after)
    assert ranges(remaining) == expected_ranges(after, cli_json(on_disk))
    assert [d.code for d in remaining] == ["RTL004", "RTL002", "RTL004", "RTL001", "RTL001"]


async def test_noqa_action_silences_the_diagnostic(client, activity, activity_json):
    uri = open_document(client, activity)
    await published(client, uri, 1)
    text = activity.read_text()
    snapshot = activity_json[0]
    offered = await actions(client, uri, snapshot["line"] - 1)
    ignore = next(a for a in offered if a.title == "Ignore RTL001 with # noqa")
    assert ignore.kind == types.CodeActionKind.QuickFix
    ignored = apply_text_edits(text, edits_of(ignore.edit, uri))
    old_lines, new_lines = text.splitlines(True), ignored.splitlines(True)
    line = snapshot["line"] - 1
    assert new_lines[line] == old_lines[line].rstrip("\n") + "  # noqa: RTL001\n"
    assert new_lines[:line] == old_lines[:line] and new_lines[line + 1 :] == old_lines[line + 1 :]

    change(client, uri, 2, replace_all(ignored))
    after = await published(client, uri, 2)
    assert [(d.code, d.range.start.line) for d in after] == [
        (f["code"], f["line"] - 1) for f in activity_json if f is not snapshot
    ]


async def test_noqa_action_merges_into_an_existing_noqa_comment(client, tmp_path):
    lines = EXAMPLE.read_text().splitlines(True)
    lines[25] = lines[25].rstrip("\n") + "  # noqa: E501\n"  # the RTL001 snapshot of line 26
    path = tmp_path / "agent.py"
    path.write_text("".join(lines))
    uri = open_document(client, path)
    assert "RTL001" in [d.code for d in await published(client, uri, 1) if d.range.start.line == 25]
    ignore = next(a for a in await actions(client, uri, 25) if a.title == "Ignore RTL001 with # noqa")
    merged = apply_text_edits(path.read_text(), edits_of(ignore.edit, uri))
    assert merged.splitlines()[25].endswith("  # noqa: E501, RTL001")
    change(client, uri, 2, replace_all(merged))
    assert 25 not in [d.range.start.line for d in await published(client, uri, 2)]


async def test_a_syntax_error_is_a_diagnostic_and_the_server_goes_on(client, tmp_path):
    path = tmp_path / "agent.py"
    shutil.copyfile(EXAMPLE, path)
    uri = open_document(client, path)
    good = await published(client, uri, 1)
    assert len(good) == 4

    broken = path.read_text().replace(
        "    async def say_user_text(self, text: str) -> None:",
        "    async def say_user_text(self, text: str) -> None",
        1,
    )
    change(client, uri, 2, replace_all(broken))
    (error,) = await published(client, uri, 2)
    bad = tmp_path / "bad" / "agent.py"
    bad.parent.mkdir()
    bad.write_text(broken)
    (expected,) = cli_json(bad)
    assert (error.code, error.severity) == ("RTL900", types.DiagnosticSeverity.Error)
    assert ranges([error]) == expected_ranges(broken, [expected])
    assert error.message == f"[{expected['name']}] {expected['message']}"
    assert error.code_description.href == rule_url("RTL900")
    assert await actions(client, uri, error.range.start.line) == []

    change(client, uri, 3, replace_all(path.read_text()))
    assert ranges(await published(client, uri, 3)) == ranges(good)
    titles = [a.title for a in await actions(client, uri, 61)]
    assert titles == ["Fix RTL003 (unsafe)", "Ignore RTL003 with # noqa", "Fix all rtlint findings"]


async def test_columns_are_utf16_code_units(client, tmp_path):
    # two characters outside the Basic Multilingual Plane before the snapshot, on its line:
    # two code points, four UTF-16 code units
    lines = EXAMPLE.read_text().splitlines(True)
    assert lines[25].startswith("        chat_ctx = ")
    lines[25] = '        tag = "😀😀"; ' + lines[25].lstrip()
    path = tmp_path / "agent.py"
    path.write_text("".join(lines), encoding="utf-8")
    uri = open_document(client, path)
    diagnostics = await published(client, uri, 1)
    expected = cli_json(path)
    assert ranges(diagnostics) == expected_ranges(path.read_text(encoding="utf-8"), expected)
    snapshot = next(f for f in expected if f["line"] == 26)
    shown = next(d for d in diagnostics if d.range.start.line == 25)
    assert shown.range.start.character == snapshot["column"] - 1 + 2

    # an edit after the emoji, addressed in UTF-16 units, lands where the editor means it:
    # a statement inserted before `chat_ctx = ...` moves the snapshot right by its length
    statement = utf16_column(lines[25], lines[25].index("chat_ctx = ") + 1)
    change(client, uri, 2, replace_range((25, statement), (25, statement), "x = 1; "))
    moved = next(d for d in await published(client, uri, 2) if d.range.start.line == 25)
    assert moved.range.start.character == shown.range.start.character + len("x = 1; ")


async def test_each_document_follows_its_nearest_configuration(client, tmp_path):
    project = tmp_path / "project"
    for folder in ("pkg", "ignored", "generated", "sub"):
        (project / folder).mkdir(parents=True)
        shutil.copyfile(EXAMPLE, project / folder / "agent.py")
    (project / "pyproject.toml").write_text(
        '[tool.rtlint]\nextend-exclude = ["generated"]\n\n[tool.rtlint.per-file-ignores]\n"ignored/*.py" = ["RTL001"]\n'
    )
    (project / "sub" / "pyproject.toml").write_text('[tool.rtlint]\nignore = ["RTL003"]\n')
    seen = {}
    for folder in ("pkg", "ignored", "generated", "sub"):
        path = project / folder / "agent.py"
        uri = open_document(client, path)
        shown = await published(client, uri, 1)
        expected = cli_json(path, "--force-exclude")  # the CLI, excludes applied to a named file
        assert ranges(shown) == expected_ranges(path.read_text(), expected), folder
        seen[folder] = sorted({d.code for d in shown})
    assert seen == {
        "pkg": ["RTL001", "RTL002", "RTL003"],
        "ignored": ["RTL002", "RTL003"],
        "generated": [],
        "sub": ["RTL001", "RTL002"],
    }


async def test_unused_suppressions_when_selected_and_fix_all_removes_them(client, tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    (project / "pyproject.toml").write_text('[tool.rtlint]\nselect = ["RTL0", "RTL100"]\n')
    path = project / "agent.py"
    path.write_text(EXAMPLE.read_text() + "\nunused = 1  # noqa: RTL002\n")
    uri = open_document(client, path)
    shown = await published(client, uri, 1)
    assert ranges(shown) == expected_ranges(path.read_text(), cli_json(path))
    unused = shown[-1]
    assert (unused.code, unused.range.start.line) == ("RTL100", 64)
    assert unused.code_description.href == rule_url("RTL100")
    # a suppression that suppresses nothing: a Warning the editor fades, not an Error
    assert unused.severity == types.DiagnosticSeverity.Warning
    assert list(unused.tags) == [types.DiagnosticTag.Unnecessary]
    assert {d.severity for d in shown[:-1]} == {types.DiagnosticSeverity.Error}
    # no quick fix of its own and no noqa for it; "Fix all" removes it, as --fix does
    assert [a.title for a in await actions(client, uri, 64)] == ["Fix all rtlint findings"]
    fix_all = (await actions(client, uri, 0, only=[types.CodeActionKind.SourceFixAll]))[0]
    fixed = apply_text_edits(path.read_text(), await resolved_edits(client, fix_all, uri))
    assert fixed == cli_fixed(path, project / "cli")  # under the same configuration
    assert fixed.endswith("\nunused = 1\n")


async def test_save_reads_the_configuration_again(client, tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    path = project / "agent.py"
    shutil.copyfile(EXAMPLE, path)
    uri = open_document(client, path)
    assert "RTL003" in [d.code for d in await published(client, uri, 1)]
    (project / "pyproject.toml").write_text('[tool.rtlint]\nignore = ["RTL003"]\n')
    before = len(client.published)
    client.text_document_did_save(types.DidSaveTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri)))
    again = await published(client, uri, 1, after=before)
    assert "RTL003" not in [d.code for d in again] and len(again) == 3


async def test_a_configuration_error_is_shown_and_the_server_goes_on(client, tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    (project / "pyproject.toml").write_text("[tool.rtlint]\nbogus = 1\n")
    path = project / "agent.py"
    shutil.copyfile(EXAMPLE, path)
    uri = open_document(client, path)
    assert await published(client, uri, 1) == []
    shown = [m.message for m in client.messages if m.type == types.MessageType.Error]
    assert any("unknown configuration key(s)" in m and "bogus" in m for m in shown), shown

    other = tmp_path / "agent.py"
    shutil.copyfile(EXAMPLE, other)
    assert len(await published(client, open_document(client, other), 1)) == 4


async def test_close_clears_the_diagnostics(client, tmp_path):
    path = tmp_path / "agent.py"
    shutil.copyfile(EXAMPLE, path)
    uri = open_document(client, path)
    assert len(await published(client, uri, 1)) == 4
    before = len(client.published)
    client.text_document_did_close(
        types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    assert await published(client, uri, None, after=before) == []


async def test_a_document_closed_and_opened_again_while_it_is_linted(client, activity):
    uri = open_document(client, activity)  # agent_activity.py takes a while to lint
    client.text_document_did_close(
        types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    open_document(client, activity, text=EXAMPLE.read_text(), version=7)
    reopened = await published(client, uri, 7)
    assert [d.code for d in reopened] == ["RTL001", "RTL002", "RTL001", "RTL003"]
    # the first text's lint, finished after the close, was not published over it
    assert all(len(p.diagnostics) != 5 for _, p in client.published if p.uri == uri and p.version == 1)


async def test_nothing_is_written_to_disk(client, tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    (project / "pyproject.toml").write_text("[tool.rtlint]\n")
    path = project / "agent.py"
    shutil.copyfile(EXAMPLE, path)

    def snapshot() -> dict:
        return {p.relative_to(tmp_path): (p.read_bytes() if p.is_file() else None) for p in tmp_path.rglob("*")}

    before = snapshot()
    uri = open_document(client, path)
    await published(client, uri, 1)
    for action in await actions(client, uri, 25) + await actions(client, uri, 0, only=["source"]):
        if action.edit is None:
            await client.code_action_resolve_async(action)
    change(client, uri, 2, replace_all(path.read_text() + "\n"))
    await published(client, uri, 2)
    client.text_document_did_save(types.DidSaveTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri)))
    client.text_document_did_close(
        types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    await published(client, uri, None)
    assert snapshot() == before


async def test_a_pipecat_rule_through_the_server(client, tmp_path):
    # RTL009 (Pipecat only) comes through the registry like every rule: the diagnostic where
    # `rtlint check` reports it, and its quick fix makes the edit `check --fix` makes
    sample = REPO / "fixtures" / "RTL009" / "frame_bound_to_name.py"
    path = tmp_path / sample.name
    shutil.copyfile(sample, path)
    uri = open_document(client, path)
    diagnostics = await published(client, uri, 1)
    expected = cli_json(path)
    assert [d["code"] for d in expected] == ["RTL009"]
    assert ranges(diagnostics) == expected_ranges(path.read_text(), expected)
    offered = await actions(client, uri, expected[0]["line"] - 1, only=[types.CodeActionKind.QuickFix])
    assert [a.title for a in offered] == ["Fix RTL009", "Ignore RTL009 with # noqa"]
    fixed = apply_text_edits(path.read_text(), await resolved_edits(client, offered[0], uri))
    assert fixed == cli_fixed(path, tmp_path / "cli", "--select", "RTL009")
    assert "await self.push_frame(compact, FrameDirection.UPSTREAM)" in fixed
