"""The server's lifecycle as the specification has it (issue 25, item 7): a request after
shutdown is answered with InvalidRequest; exit ends with 0 after shutdown and 1 without;
SIGTERM and SIGINT end it while the editor keeps standard input open; a reversed range in
a didChange is the text between its positions. Driven over raw JSON-RPC, as an editor."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time

import pytest
from lsprotocol import types

from rtlint.lsp.document import Document
from tests.support.cli import REPO


class Raw:
    def __init__(self, tmp_path) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "rtlint", "server"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=tmp_path,
            env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)},
        )
        self.next_id = 0

    def send(self, method: str, params: object = None, request: bool = True) -> int | None:
        message: dict = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = params
        if request:
            self.next_id += 1
            message["id"] = self.next_id
        body = json.dumps(message).encode()
        self.process.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.process.stdin.flush()
        return message.get("id")

    def receive(self, wanted: int) -> dict:
        """The response to request `wanted` (notifications on the way are passed)."""
        while True:
            length = 0
            while True:
                line = self.process.stdout.readline()
                assert line, "the server closed its output"
                if line in (b"\r\n", b"\n"):
                    break
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
            message = json.loads(self.process.stdout.read(length))
            if message.get("id") == wanted and "method" not in message:
                return message

    def start(self) -> None:
        answer = self.receive(self.send("initialize", {"processId": None, "rootUri": None, "capabilities": {}}))
        assert "capabilities" in answer["result"]
        self.send("initialized", {}, request=False)

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait(10)


@pytest.fixture
def raw(tmp_path):
    client = Raw(tmp_path)
    yield client
    client.close()


def test_a_request_after_shutdown_gets_invalid_request_and_exit_gives_0(raw: Raw) -> None:
    raw.start()
    assert raw.receive(raw.send("shutdown"))["result"] is None
    answer = raw.receive(
        raw.send(
            "textDocument/hover", {"textDocument": {"uri": "file:///x.py"}, "position": {"line": 0, "character": 0}}
        )
    )
    assert answer["error"]["code"] == -32600, answer  # InvalidRequest, as the specification says
    raw.send("exit", request=False)
    assert raw.process.wait(10) == 0


def test_exit_without_shutdown_gives_1(raw: Raw) -> None:
    raw.start()
    raw.send("exit", request=False)
    assert raw.process.wait(10) == 1


@pytest.mark.parametrize("which", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_ends_the_server_while_stdin_stays_open(raw: Raw, which: signal.Signals) -> None:
    raw.start()
    raw.process.send_signal(which)
    start = time.monotonic()
    assert raw.process.wait(10) == 128 + which  # stdin is still open: the reader thread waits on it
    assert time.monotonic() - start < 5


@pytest.mark.parametrize(
    "start, end, expected",
    [
        ((0, 4), (0, 1), "a = 2 = 1\n"),  # reversed: the text between the positions, replaced
        ((0, 1), (0, 4), "a = 2 = 1\n"),
        ((0, 1), (9, 0), "a = 2"),  # past the end: the end of the text
        ((0, 99), (0, 1), "a = 2\n"),  # past the line's end: its end (and reversed)
    ],
)
def test_a_change_range_is_read_as_editors_read_it(start, end, expected) -> None:
    document = Document("file:///x.py", "abcd = 1\n", 1)
    change = types.TextDocumentContentChangePartial(
        range=types.Range(start=types.Position(*start), end=types.Position(*end)), text=" = 2"
    )
    document.apply(change, 2)
    assert document.text == expected


def test_a_document_too_costly_to_parse_is_rtl901_at_once(tmp_path) -> None:
    from rtlint.core import reading
    from rtlint.lsp.analysis import analyse

    text = "x = 1\n" * (reading.MAX_PARSED + 1)
    start = time.monotonic()
    analysis = analyse(Document((tmp_path / "big.py").as_uri(), text, 1), tmp_path)
    assert [f.code for f in analysis.findings] == ["RTL901"]
    assert f"rtlint parses at most {reading.MAX_PARSED:,}" in analysis.findings[0].message
    assert time.monotonic() - start < 5  # not parsed: the server answers the next request


def test_a_uri_with_a_nul_byte_is_linted_as_a_buffer(tmp_path) -> None:
    from rtlint.lsp.analysis import analyse, document_path
    from tests.support.samples import BUGGY

    uri = (tmp_path / "a%00b.py").as_uri().replace("%2500", "%00")
    assert "%00" in uri and document_path(uri) is None
    analysis = analyse(Document(uri, BUGGY, 1), tmp_path)
    assert "RTL001" in [f.code for f in analysis.findings]
