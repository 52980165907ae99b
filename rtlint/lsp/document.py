"""Open documents as the editor holds them, and LSP positions.

LSP positions are 0-based lines and columns counted in the negotiated encoding's code units
(UTF-16 unless the client offers another), and lines end only at \\n, \\r\\n and \\r: the
same lines as the Python tokenizer's (`split_lines`), not `str.splitlines`, which would
also split at form feeds and U+2028 and shift every line after them. Findings and edits are
1-based with columns in characters.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from lsprotocol import types

from rtlint.core.source import split_lines


def _units(text: str, encoding: str) -> int:
    """The length of `text` in code units of `encoding`."""
    if text.isascii() or encoding == types.PositionEncodingKind.Utf32:
        return len(text)
    if encoding == types.PositionEncodingKind.Utf8:
        return len(text.encode("utf-8", "surrogatepass"))
    return len(text) + sum(1 for c in text if ord(c) > 0xFFFF)


def _index(line: str, units: int, encoding: str) -> int:
    """The character index in `line` of a column of `units` code units (a column inside a
    character, or past the end, falls back to the character's start or the line's end)."""
    if line.isascii() or encoding == types.PositionEncodingKind.Utf32:
        return min(units, len(line))
    counted = 0
    for index, char in enumerate(line):
        counted += _units(char, encoding)
        if counted > units:
            return index
    return len(line)


def _content(line: str) -> str:
    return line.rstrip("\r\n")


@dataclass
class Document:
    uri: str
    text: str
    version: int | None = None
    encoding: str = types.PositionEncodingKind.Utf16
    _lines: list[str] | None = field(default=None, repr=False)
    _starts: list[int] | None = field(default=None, repr=False)

    @property
    def lines(self) -> list[str]:
        if self._lines is None:
            self._lines = split_lines(self.text)
        return self._lines

    def _line_starts(self) -> list[int]:
        if self._starts is None:
            starts, total = [], 0
            for line in self.lines:
                starts.append(total)
                total += len(line)
            self._starts = starts
        return self._starts

    def apply(self, change: types.TextDocumentContentChangeEvent, version: int | None) -> None:
        """One change of a didChange (a range replaced, or the whole text)."""
        if isinstance(change, types.TextDocumentContentChangePartial):
            # a reversed range is the text between its two positions, as editors (VS Code's
            # Range) read it; a position past a line or the text is its end (the spec's)
            start, end = sorted((self.offset(change.range.start), self.offset(change.range.end)))
            self.text = self.text[:start] + change.text + self.text[end:]
        else:
            self.text = change.text
        self.version = version
        self._lines = self._starts = None

    def offset(self, position: types.Position) -> int:
        """The index in `text` of an LSP position (past the end: the end)."""
        lines = self.lines
        if position.line >= len(lines):
            return len(self.text)
        line = lines[position.line]
        return self._line_starts()[position.line] + _index(_content(line), position.character, self.encoding)

    def end(self) -> types.Position:
        lines = self.lines
        if not lines:
            return types.Position(line=0, character=0)
        last = lines[-1]
        if last != _content(last):  # the text ends with a line ending: after it
            return types.Position(line=len(lines), character=0)
        return types.Position(line=len(lines) - 1, character=_units(last, self.encoding))

    def position(self, line: int, column: int) -> types.Position:
        """The LSP position of a 1-based line and character column (a finding's, an edit's);
        past the last line: the end of the text; past a line's end: its end."""
        lines = self.lines
        if line > len(lines):
            return self.end()
        if line < 1:
            return types.Position(line=0, character=0)
        content = _content(lines[line - 1])
        return types.Position(line=line - 1, character=_units(content[: max(0, column - 1)], self.encoding))

    def range(self, line: int, column: int, end_line: int, end_column: int) -> types.Range:
        return types.Range(start=self.position(line, column), end=self.position(end_line, end_column))
