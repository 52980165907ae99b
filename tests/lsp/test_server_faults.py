"""`rtlint server` with the test-only rules of tests/support/fault_rules.py (fixes that
break the code, crash or do not remove what they fix) and a client that does not resolve
code actions: every fix is computed, verified, and offered with its edit or disabled with
the runner's reason; a crashing rule is a diagnostic; the server goes on."""

from __future__ import annotations

import os

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from tests.support.cli import REPO, run_cli
from tests.support.lsp_client import apply_text_edits, make_client, open_document, published, server_command

pytestmark = pytest.mark.asyncio(loop_scope="module")

ENV = {**os.environ, "RTLINT_EXTRA_RULES": "tests.support.fault_rules", "PYTHONPATH": str(REPO)}

SOURCE = """\
def good():
    rtlint_marker(1)


def broken():
    rtlint_break_me()


def stubborn():
    rtlint_stubborn()


def crashing():
    rtlint_crash_fix()
"""


@pytest_lsp.fixture(
    config=ClientServerConfig(server_command=server_command(), client_factory=make_client, server_env=ENV),
    scope="module",
)
async def client(lsp_client: LanguageClient):
    # no resolveSupport and no documentChanges: edits come with the actions, as `changes`;
    # disabled actions are shown (with their reason)
    capabilities = types.ClientCapabilities(
        text_document=types.TextDocumentClientCapabilities(
            code_action=types.CodeActionClientCapabilities(disabled_support=True)
        )
    )
    await lsp_client.initialize_session(types.InitializeParams(capabilities=capabilities))
    yield
    await lsp_client.shutdown_session()


async def line_actions(client: LanguageClient, uri: str, line: int) -> dict[str, types.CodeAction]:
    result = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=types.Range(start=types.Position(line=line, character=0), end=types.Position(line=line, character=0)),
            context=types.CodeActionContext(diagnostics=[]),
        )
    )
    return {a.title: a for a in result or []}


async def test_fixes_come_verified_with_their_edits_or_disabled_with_why(client, tmp_path):
    path = tmp_path / "faults.py"
    path.write_text(SOURCE)
    uri = open_document(client, path)
    shown = await published(client, uri, 1)
    assert [(d.code, d.range.start.line) for d in shown] == [
        ("RTL801", 1),
        ("RTL802", 5),
        ("RTL805", 9),
        ("RTL804", 13),
    ]

    good = (await line_actions(client, uri, 1))["Fix RTL801"]
    assert good.disabled is None and good.edit.document_changes is None
    assert apply_text_edits(SOURCE, good.edit.changes[uri]) == SOURCE.replace("rtlint_marker(1)", "rtlint_fixed(1)")

    broken = (await line_actions(client, uri, 5))["Fix RTL802"]
    assert broken.edit is None and "the result does not parse" in broken.disabled.reason
    stubborn = (await line_actions(client, uri, 9))["Fix RTL805"]
    assert stubborn.edit is None and "re-linting the result still reports RTL805" in stubborn.disabled.reason
    crashing = (await line_actions(client, uri, 13))["Fix RTL804"]
    assert crashing.edit is None and "RTL804 fix crashed: ZeroDivisionError" in crashing.disabled.reason

    # fixing all is what --fix does: a failing fix leaves the whole file as it is, for the
    # reason --fix gives
    fix_all = (await line_actions(client, uri, 0))["Fix all rtlint findings"]
    run = run_cli(
        "check",
        "--no-cache",
        "--fix",
        str(path),
        env={"RTLINT_EXTRA_RULES": "tests.support.fault_rules", "PYTHONPATH": str(REPO)},
        cwd=REPO,
    )
    assert path.read_text() == SOURCE
    assert fix_all.edit is None and f"{fix_all.disabled.reason}\n" in run.stderr

    noqa = (await line_actions(client, uri, 5))["Ignore RTL802 with # noqa"]
    ignored = apply_text_edits(SOURCE, noqa.edit.changes[uri])
    assert ignored.splitlines()[5] == "    rtlint_break_me()  # noqa: RTL802"


async def test_a_crashing_rule_is_a_diagnostic_and_the_server_goes_on(client, tmp_path):
    path = tmp_path / "crash.py"
    path.write_text("rtlint_crash_check()\nrtlint_marker(2)\n")
    uri = open_document(client, path)
    shown = await published(client, uri, 1)
    assert [d.code for d in shown] == ["RTL902", "RTL801"]  # line 1 col 1, as the CLI sorts them
    crash = shown[0]
    # rtlint's own failure, not a bug of the file: a Warning; the test rule's finding an Error
    assert (crash.severity, shown[1].severity) == (types.DiagnosticSeverity.Warning, types.DiagnosticSeverity.Error)
    assert "RTL803 crashed: RuntimeError: the test rule crashed on purpose" in crash.message
    assert "Fix RTL801" in await line_actions(client, uri, 1)
