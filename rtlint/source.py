"""Reading a source file exactly as it is on disk: bytes, encoding, newlines."""

from __future__ import annotations

import codecs
import io
import re
import tokenize
from dataclasses import dataclass

# Python's tokenizer ends lines only at \r\n, \r and \n; str.splitlines would also split at
# form feeds and other separators and shift every line number after them.
_LINE_END = re.compile(r"\r\n|\r|\n")


class UnreadableSource(Exception):
    """The file cannot be turned into text; the message says why."""


def split_lines(text: str) -> list[str]:
    """Lines with their endings, split the way the Python tokenizer splits them."""
    lines: list[str] = []
    start = 0
    for match in _LINE_END.finditer(text):
        lines.append(text[start : match.end()])
        start = match.end()
    if start < len(text):
        lines.append(text[start:])
    return lines


@dataclass
class Source:
    raw: bytes
    encoding: str
    text: str

    @classmethod
    def from_bytes(cls, raw: bytes) -> Source:
        if b"\0" in raw:
            raise UnreadableSource("file contains NUL bytes (binary file?)")
        try:
            encoding, _ = tokenize.detect_encoding(io.BytesIO(raw).readline)
        except SyntaxError as exc:
            raise UnreadableSource(f"bad encoding declaration: {exc}") from None
        try:
            codecs.lookup(encoding)
            # decode() keeps \r\n and \r as they are, unlike text-mode reading
            text = raw.decode(encoding)
        except (LookupError, UnicodeDecodeError) as exc:
            raise UnreadableSource(f"cannot decode as {encoding}: {exc}") from None
        if text.startswith("\ufeff"):
            text = text[1:]  # a BOM under an explicit utf-8 cookie
        return cls(raw, encoding, text)

    def encode(self, text: str) -> bytes:
        """Bytes for `text` in this file's encoding (a BOM is kept by utf-8-sig)."""
        data = text.encode(self.encoding)
        if self.raw.startswith(codecs.BOM_UTF8) and not data.startswith(codecs.BOM_UTF8):
            data = codecs.BOM_UTF8 + data
        return data

    @property
    def lines(self) -> list[str]:
        return split_lines(self.text)
