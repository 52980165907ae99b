"""`rtlint server`: the Language Server, on pygls, over stdin and stdout.

Diagnostics are published on open, change (full or incremental) and save; code actions
fix one finding, fix all of a document (`source.fixAll.rtlint`, what `--fix` does) or add
a `# noqa`. The server keeps its own copy of each open document (see document.py) and
never writes a file: edits go back to the editor as WorkspaceEdits.

Linting runs in one worker thread, so the server keeps reading the editor's messages while
a big file is linted; a document changed meanwhile is linted once more, at its newest
version, however many changes arrived (typing does not queue one lint per keystroke).
"""

from __future__ import annotations

import asyncio
import logging
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TextIO

from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidRequest
from pygls.lsp._capabilities import get_capability
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol

from rtlint import __version__
from rtlint.engine import registry
from rtlint.lsp.analysis import Analysis, analyse, diagnostic, document_path
from rtlint.lsp.document import Document

FIX_ALL = "source.fixAll.rtlint"
QUICKFIX = types.CodeActionKind.QuickFix

logger = logging.getLogger("rtlint.lsp")


class RtlintProtocol(LanguageServerProtocol):
    """pygls's protocol, with what the specification asks after a shutdown request: every
    request but exit gets the error InvalidRequest (pygls drops it, and an editor waits);
    and the exit status exit gives (0 after shutdown, else 1) is kept for `serve`."""

    exit_code: int | None = None

    def handle_message(self, message) -> None:
        method = getattr(message, "method", "")
        if self._shutdown and method != types.EXIT and getattr(message, "id", None) is not None and method:
            error = JsonRpcInvalidRequest(f"{method} after shutdown: the server only accepts exit")
            self._send_response(message.id, error=error.to_response_error())
            return
        if method == types.EXIT:
            self.exit_code = 0 if self._shutdown else 1
        super().handle_message(message)


class RtlintServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__(
            "rtlint",
            __version__,
            text_document_sync_kind=types.TextDocumentSyncKind.Incremental,
            protocol_cls=RtlintProtocol,
        )
        self.documents: dict[str, Document] = {}
        self.analyses: dict[str, Analysis] = {}
        # a document's revision counts its changes and saves; an analysis is current when
        # it linted the document's latest revision
        self.revisions: dict[str, int] = {}
        self._analysed: dict[str, int] = {}
        self._linting: dict[str, asyncio.Task] = {}
        self._worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="rtlint-lint")
        self._shown: set[str] = set()
        self.root = Path.cwd()

    # -- documents -------------------------------------------------------------------
    def changed(self, uri: str) -> None:
        self.revisions[uri] = self.revisions.get(uri, 0) + 1
        task = self._linting.get(uri)
        if task is None or task.done():
            self._linting[uri] = asyncio.ensure_future(self._lint_until_current(uri))

    def closed(self, uri: str) -> None:
        self.documents.pop(uri, None)
        self.analyses.pop(uri, None)
        self.revisions.pop(uri, None)
        self._analysed.pop(uri, None)
        self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=[]))

    async def current(self, uri: str) -> Analysis | None:
        """The analysis of the document as it is now (waiting for a lint in flight)."""
        if uri not in self.documents:
            return None
        if self._analysed.get(uri) != self.revisions.get(uri):
            task = self._linting.get(uri)
            if task is None or task.done():
                self.changed(uri)
                task = self._linting[uri]
            await asyncio.shield(task)
        return self.analyses.get(uri)

    async def _lint_until_current(self, uri: str) -> None:
        while uri in self.documents and self._analysed.get(uri) != self.revisions.get(uri):
            document, revision = self.documents[uri], self.revisions[uri]
            snapshot = Document(uri, document.text, document.version, document.encoding)
            try:
                analysis = await self.in_worker(analyse, snapshot, self.root)
                if self.documents.get(uri) is not document:
                    continue  # closed, or closed and opened again, meanwhile
                self.analyses[uri], self._analysed[uri] = analysis, revision
                self.publish(analysis)
            except Exception as exc:  # a bug in rtlint: say so, keep serving
                logger.exception("linting %s failed", uri)
                self.tell(f"rtlint: internal error on {uri}: {type(exc).__name__}: {exc}", types.MessageType.Error)
                self._analysed[uri] = revision
                self.analyses.pop(uri, None)

    def publish(self, analysis: Analysis) -> None:
        document = analysis.document
        if analysis.problem:
            self.tell(analysis.problem, types.MessageType.Error)
        self.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(
                uri=document.uri,
                version=document.version,
                diagnostics=[diagnostic(document, f) for f in analysis.findings],
            )
        )

    def tell(self, message: str, kind: types.MessageType) -> None:
        """Show a message once (a broken configuration is not repeated at every keystroke)."""
        self.window_log_message(types.LogMessageParams(type=kind, message=message))
        if message not in self._shown:
            self._shown.add(message)
            self.window_show_message(types.ShowMessageParams(type=kind, message=message))

    # -- code actions --------------------------------------------------------------------
    def capability(self, name: str, default: Any = None) -> Any:
        return get_capability(self.client_capabilities, name, default)

    @property
    def resolves_edits(self) -> bool:
        properties = self.capability("text_document.code_action.resolve_support.properties", [])
        return "edit" in properties

    def workspace_edit(self, analysis: Analysis, edits: list[types.TextEdit]) -> types.WorkspaceEdit:
        document = analysis.document
        if self.capability("workspace.workspace_edit.document_changes", False):
            # versioned: an editor refuses the edit if the document changed since
            identifier = types.OptionalVersionedTextDocumentIdentifier(uri=document.uri, version=document.version)
            return types.WorkspaceEdit(document_changes=[types.TextDocumentEdit(text_document=identifier, edits=edits)])
        return types.WorkspaceEdit(changes={document.uri: edits})

    async def code_actions(self, params: types.CodeActionParams) -> list[types.CodeAction]:
        analysis = await self.current(params.text_document.uri)
        if analysis is None:
            return []
        only = params.context.only
        first, last = params.range.start.line, params.range.end.line
        actions: list[types.CodeAction] = []
        if _wanted(only, QUICKFIX):
            for index, finding in enumerate(analysis.findings):
                if finding.end_line - 1 < first or finding.line - 1 > last:
                    continue
                shown = diagnostic(analysis.document, finding)
                # RTL100 (an engine code) is fixed by "Fix all", as --fix removes unused suppressions
                if finding.fixable and finding.code not in registry.ENGINE_CODES:
                    unsafe = " (unsafe)" if finding.fixable == "unsafe" else ""
                    action = types.CodeAction(
                        title=f"Fix {finding.code}{unsafe}",
                        kind=QUICKFIX,
                        diagnostics=[shown],
                        is_preferred=not unsafe,
                        data={"uri": analysis.document.uri, "version": analysis.version, "finding": index},
                    )
                    offered = await self._with_edit(action, analysis)
                    if offered is not None:
                        actions.append(offered)
                noqa = await self.in_worker(analysis.noqa_edits, finding)
                if noqa:
                    actions.append(
                        types.CodeAction(
                            title=f"Ignore {finding.code} with # noqa",
                            kind=QUICKFIX,
                            diagnostics=[shown],
                            edit=self.workspace_edit(analysis, noqa),
                        )
                    )
        if _wanted(only, FIX_ALL) and any(f.fixable == "safe" for f in analysis.findings):
            action = types.CodeAction(
                title="Fix all rtlint findings",
                kind=FIX_ALL,
                data={"uri": analysis.document.uri, "version": analysis.version, "finding": None},
            )
            offered = await self._with_edit(action, analysis)
            if offered is not None:
                actions.append(offered)
        return actions

    async def _with_edit(self, action: types.CodeAction, analysis: Analysis) -> types.CodeAction | None:
        """The action with its edit; left for codeAction/resolve when the client resolves
        edits (a fix costs a LibCST parse and a re-lint: not for every cursor move). A fix
        the runner refuses is disabled with its reason, or left out for a client that
        cannot show disabled actions."""
        if self.resolves_edits:
            return action
        edits, why = await self._fix_edits(analysis, action.data["finding"])
        if not why:
            action.edit = self.workspace_edit(analysis, edits)
        elif self.capability("text_document.code_action.disabled_support", False):
            action.disabled = types.CodeActionDisabled(reason=why)
        else:
            self.window_log_message(
                types.LogMessageParams(type=types.MessageType.Info, message=f"{action.title}: {why}")
            )
            return None
        return action

    async def _fix_edits(self, analysis: Analysis, index: int | None) -> tuple[list[types.TextEdit], str | None]:
        finding = None if index is None else analysis.findings[index]
        return await self.in_worker(analysis.fix_edits, finding)

    async def in_worker(self, function, *args):
        """`function(*args)` in the linting thread (the server keeps reading meanwhile)."""
        return await asyncio.get_running_loop().run_in_executor(self._worker, function, *args)

    async def resolve(self, action: types.CodeAction) -> types.CodeAction:
        data = action.data if isinstance(action.data, dict) else {}
        analysis = await self.current(data.get("uri", ""))
        if analysis is None or analysis.version != data.get("version"):
            self.tell("rtlint: the document changed; ask for the fix again", types.MessageType.Warning)
            return action
        index = data.get("finding")
        if index is not None and not (isinstance(index, int) and 0 <= index < len(analysis.findings)):
            return action
        edits, why = await self._fix_edits(analysis, index)
        if why:
            self.tell(f"rtlint: {why}", types.MessageType.Warning)
            return action
        action.edit = self.workspace_edit(analysis, edits)
        return action


def _wanted(only: list[str] | None, kind: str) -> bool:
    """Whether a request's `only` kinds (None: all) include actions of `kind`."""
    return only is None or any(kind == k or kind.startswith(f"{k}.") for k in only)


def make_server() -> RtlintServer:
    server = RtlintServer()

    @server.feature(types.INITIALIZE)
    def initialize(ls: RtlintServer, params: types.InitializeParams) -> None:
        folders = params.workspace_folders or []
        root = folders[0].uri if folders else params.root_uri
        path = document_path(root) if root else None
        if path is not None:
            ls.root = path

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: RtlintServer, params: types.DidOpenTextDocumentParams) -> None:
        item = params.text_document
        encoding = ls.workspace.position_encoding or types.PositionEncodingKind.Utf16
        ls.documents[item.uri] = Document(item.uri, item.text, item.version, encoding)
        ls.changed(item.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: RtlintServer, params: types.DidChangeTextDocumentParams) -> None:
        document = ls.documents.get(params.text_document.uri)
        if document is None:
            return
        for change in params.content_changes:
            document.apply(change, params.text_document.version)
        ls.changed(document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE, types.SaveOptions(include_text=False))
    def did_save(ls: RtlintServer, params: types.DidSaveTextDocumentParams) -> None:
        # the configuration may have changed on disk: lint again even if the text did not
        document = ls.documents.get(params.text_document.uri)
        if document is not None:
            if params.text is not None:
                document.apply(types.TextDocumentContentChangeWholeDocument(text=params.text), document.version)
            ls.changed(document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: RtlintServer, params: types.DidCloseTextDocumentParams) -> None:
        ls.closed(params.text_document.uri)

    @server.feature(
        types.TEXT_DOCUMENT_CODE_ACTION,
        types.CodeActionOptions(code_action_kinds=[QUICKFIX, FIX_ALL], resolve_provider=True),
    )
    async def code_action(ls: RtlintServer, params: types.CodeActionParams) -> list[types.CodeAction]:
        return await ls.code_actions(params)

    @server.feature(types.CODE_ACTION_RESOLVE)
    async def code_action_resolve(ls: RtlintServer, params: types.CodeAction) -> types.CodeAction:
        return await ls.resolve(params)

    return server


USAGE = """usage: rtlint server [--stdio]

A Language Server over standard input and output (--stdio, the default, is accepted for
clients that pass it). Diagnostics on open, change and save; code actions "Fix RTL00N",
"Fix all rtlint findings" (source.fixAll.rtlint) and "Ignore RTL00N with # noqa". Each
document follows its nearest configuration (.rtlint.toml, or [tool.rtlint] of a
pyproject.toml), as `rtlint check` does; nothing is written to disk.
See docs/editors.md.
"""


def serve(args: list[str], stdout: TextIO) -> int:
    """`rtlint server ARGS`: serve until the editor says exit (stdout is then the protocol's)."""
    from rtlint.commands.usage import EXIT_CLEAN, UsageError

    if any(a in ("-h", "--help") for a in args):
        stdout.write(USAGE)
        return EXIT_CLEAN
    unknown = [a for a in args if a != "--stdio"]
    if unknown:
        raise UsageError(f"unrecognized arguments: {' '.join(unknown)}\n{USAGE.splitlines()[0]}")
    logging.basicConfig(level=logging.WARNING, format="rtlint server: %(levelname)s: %(message)s")
    _exit_on_signals()
    server = make_server()
    server.start_io()
    # exit after shutdown: 0, exit alone: 1 (the specification's); the end of standard input
    # (the editor gone) without exit: 0
    code = server.protocol.exit_code
    return EXIT_CLEAN if code is None else code


def _exit_on_signals() -> None:
    """SIGTERM and SIGINT end the server at once (128 + the signal, as a shell reports it),
    even while its reader thread waits on standard input: it writes no file, so nothing is
    left half done, and an editor or a supervisor that signals it expects it gone.

    A Python handler would run only when the main thread next runs (it waits in the event
    loop's select, which a signal delivered to another thread does not wake): the signals
    are blocked in every thread instead (threads started later inherit the mask) and one
    thread waits for them with sigwait."""
    import os
    import signal
    import sys
    import threading

    held = {signal.SIGTERM, signal.SIGINT}
    if not hasattr(signal, "sigwait"):  # not POSIX: the default handling
        return

    def wait() -> None:
        signum = signal.sigwait(held)
        try:
            sys.stdout.flush()
        except (OSError, ValueError):
            pass
        os._exit(128 + signum)

    signal.pthread_sigmask(signal.SIG_BLOCK, held)
    threading.Thread(target=wait, name="rtlint-server-signals", daemon=True).start()
