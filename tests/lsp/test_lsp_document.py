"""The server's documents: LSP lines (only \\n, \\r\\n and \\r end one), columns in the
negotiated code units, incremental changes, and positions past the end."""

from __future__ import annotations

import pytest
from lsprotocol import types

from rtlint.lsp.document import Document

UTF8, UTF16, UTF32 = (
    types.PositionEncodingKind.Utf8,
    types.PositionEncodingKind.Utf16,
    types.PositionEncodingKind.Utf32,
)


def at(line: int, character: int) -> types.Position:
    return types.Position(line=line, character=character)


def partial(start: tuple[int, int], end: tuple[int, int], text: str) -> types.TextDocumentContentChangePartial:
    return types.TextDocumentContentChangePartial(range=types.Range(start=at(*start), end=at(*end)), text=text)


@pytest.mark.parametrize("separator", ["\f", "\v", "\x1c", "\x85", "\u2028", "\u2029"])
def test_only_line_endings_end_lines(separator: str) -> None:
    # str.splitlines() splits at each of these, which would shift every later line
    document = Document("file:///a.py", f'a = "x{separator}y"\nb = 1\n')
    assert len(document.lines) == 2
    assert document.position(2, 1) == at(1, 0)
    document.apply(partial((1, 0), (1, 1), "c"), 2)
    assert document.text == f'a = "x{separator}y"\nc = 1\n' and document.version == 2


@pytest.mark.parametrize("ending", ["\n", "\r\n", "\r"])
def test_line_endings_are_kept_and_counted(ending: str) -> None:
    document = Document("file:///a.py", f"a = 1{ending}b = 2{ending}")
    assert document.position(2, 5) == at(1, 4)
    assert document.end() == at(2, 0)
    document.apply(partial((0, 4), (1, 0), f"3{ending}"), 2)  # across the line ending
    assert document.text == f"a = 3{ending}b = 2{ending}"
    # a column past the line's end stops before its ending
    assert document.offset(at(0, 99)) == len("a = 3")


def test_columns_count_utf16_code_units_by_default() -> None:
    document = Document("file:///a.py", 'x = "😀é"; y = 1\n')
    # "y" is the 11th character; 😀 is two UTF-16 units, é one
    assert document.position(1, 11) == at(0, 11)
    assert document.offset(at(0, 11)) == 10
    # a column inside the surrogate pair falls back to the character's start
    assert document.offset(at(0, 6)) == 5
    document.apply(partial((0, 11), (0, 12), "z"), 3)
    assert document.text == 'x = "😀é"; z = 1\n'


@pytest.mark.parametrize(("encoding", "column"), [(UTF8, 14), (UTF16, 11), (UTF32, 10)])
def test_other_negotiated_encodings(encoding: str, column: int) -> None:
    document = Document("file:///a.py", 'x = "😀é"; y = 1\n', encoding=encoding)
    assert document.position(1, 11) == at(0, column)
    assert document.offset(at(0, column)) == 10


def test_positions_past_the_end() -> None:
    with_newline = Document("file:///a.py", "a\nbc\n")
    assert with_newline.position(9, 1) == at(2, 0) == with_newline.end()
    assert with_newline.offset(at(9, 0)) == len(with_newline.text)
    without = Document("file:///a.py", "a\nbc")
    assert without.position(3, 1) == at(1, 2) == without.end()
    assert without.position(2, 99) == at(1, 2)
    assert Document("file:///a.py", "").end() == at(0, 0)
    # an insertion at the very end, as editors send it
    without.apply(partial((1, 2), (1, 2), "\nd"), 2)
    assert without.text == "a\nbc\nd"


def test_a_whole_document_change_replaces_the_text() -> None:
    document = Document("file:///a.py", "a = 1\n", version=1)
    document.apply(types.TextDocumentContentChangeWholeDocument(text="b = 2\r\nc = 3"), 2)
    assert document.text == "b = 2\r\nc = 3" and document.version == 2
    assert document.lines == ["b = 2\r\n", "c = 3"]
