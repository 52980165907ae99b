"""Driving the installed `rtlint server` with pytest-lsp's client: starting it, waiting for
the diagnostics of a document version, applying edits as an editor applies them."""

from __future__ import annotations

import asyncio
import re
import shutil
import sys
import time
from pathlib import Path

from lsprotocol import types
from pygls.protocol import default_converter
from pytest_lsp import ClientServerConfig, LanguageClient
from pytest_lsp.client import DEFAULT_CLIENT_FEATURES, register_lsp_features


def server_command() -> list[str]:
    """The console script of this environment (as an editor starts it)."""
    script = Path(sys.executable).with_name("rtlint")
    return [str(script) if script.exists() else (shutil.which("rtlint") or "rtlint"), "server"]


def _record(client: LanguageClient, params: types.PublishDiagnosticsParams) -> None:
    client.diagnostics[params.uri] = params.diagnostics
    client.published.append((time.perf_counter(), params))


def make_client() -> LanguageClient:
    """pytest-lsp's test client, recording every publishDiagnostics with its version."""
    client = LanguageClient(converter_factory=default_converter)
    client.published = []
    register_lsp_features(client, {**DEFAULT_CLIENT_FEATURES, types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS: _record})
    return client


CONFIG = ClientServerConfig(server_command=server_command(), client_factory=make_client)


async def published(
    client: LanguageClient, uri: str, version: int | None, timeout: float = 120, after: int = 0
) -> list[types.Diagnostic]:
    """The diagnostics the server publishes for `uri` at `version` (the first such, among
    the notifications after the first `after`)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for _, params in client.published[after:]:
            if params.uri == uri and params.version == version:
                return list(params.diagnostics)
        if client.error is not None:
            raise client.error
        await asyncio.sleep(0.01)
    raise AssertionError(f"no diagnostics for {uri} version {version} within {timeout}s")


def open_document(client: LanguageClient, path: Path, text: str | None = None, version: int = 1) -> str:
    uri = path.as_uri()
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(
                uri=uri,
                language_id="python",
                version=version,
                text=path.read_bytes().decode("utf-8") if text is None else text,
            )
        )
    )
    return uri


def change(client: LanguageClient, uri: str, version: int, *changes) -> None:
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=list(changes),
        )
    )


def replace_all(text: str) -> types.TextDocumentContentChangeWholeDocument:
    return types.TextDocumentContentChangeWholeDocument(text=text)


def replace_range(start: tuple[int, int], end: tuple[int, int], text: str) -> types.TextDocumentContentChangePartial:
    return types.TextDocumentContentChangePartial(
        range=types.Range(
            start=types.Position(line=start[0], character=start[1]), end=types.Position(line=end[0], character=end[1])
        ),
        text=text,
    )


# -- applying edits as an editor does: lines end at \n, \r\n or \r; columns in UTF-16 ------
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$")


def _offset(text: str, position: types.Position) -> int:
    lines = _LINE.findall(text)
    if position.line >= len(lines):
        return len(text)
    before = sum(len(line) for line in lines[: position.line])
    content = lines[position.line].rstrip("\r\n")
    units = content.encode("utf-16-le")[: 2 * position.character]
    return before + len(units.decode("utf-16-le"))


def apply_text_edits(text: str, edits: list[types.TextEdit]) -> str:
    spans = sorted(
        ((_offset(text, e.range.start), _offset(text, e.range.end), e.new_text) for e in edits), reverse=True
    )
    for start, end, new in spans:
        text = text[:start] + new + text[end:]
    return text


def edits_of(edit: types.WorkspaceEdit, uri: str) -> list[types.TextEdit]:
    if edit.document_changes:
        return [e for change in edit.document_changes if change.text_document.uri == uri for e in change.edits]
    return list((edit.changes or {}).get(uri, []))


def utf16_column(line: str, column: int) -> int:
    """The LSP column of a 1-based character column."""
    return len(line[: column - 1].encode("utf-16-le")) // 2
