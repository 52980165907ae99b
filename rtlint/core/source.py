"""Reading a source file exactly as it is on disk: bytes, encoding, newlines."""

from __future__ import annotations

import codecs
import io
import re
import tokenize
from collections.abc import Iterator
from dataclasses import dataclass

# Python's tokenizer ends lines only at \r\n, \r and \n; str.splitlines would also split at
# form feeds and other separators and shift every line number after them.
_LINE_END = re.compile(r"\r\n|\r|\n")
_RAW_LINE_END = re.compile(rb"\r\n|\r|\n")


def _split_raw(raw: bytes) -> list[bytes]:
    lines, start = [], 0
    for match in _RAW_LINE_END.finditer(raw):
        lines.append(raw[start : match.end()])
        start = match.end()
    if start < len(raw):
        lines.append(raw[start:])
    return lines


class UnreadableSource(Exception):
    """The file cannot be turned into text; the message says why."""


# str.splitlines also ends lines at these, the tokenizer does not
_OTHER_BREAKS = ("\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029")


def split_lines(text: str) -> list[str]:
    """Lines with their endings, split the way the Python tokenizer splits them."""
    if not any(c in text for c in _OTHER_BREAKS):
        return text.splitlines(keepends=True)  # the same lines, ~30x faster
    lines: list[str] = []
    start = 0
    for match in _LINE_END.finditer(text):
        lines.append(text[start : match.end()])
        start = match.end()
    if start < len(text):
        lines.append(text[start:])
    return lines


def generate_tokens(text: str) -> Iterator[tokenize.TokenInfo]:
    """The tokens of `text`, its lines ended at \\r\\n, \\r or \\n alike (`split_lines`), as
    Python reads a file. The pure-Python tokenizer (and io.StringIO's readline) end lines
    at \\n only, so every line is handed over with a \\n ending: the same line numbers and
    columns. Raises tokenize.TokenError or SyntaxError as tokenize does."""
    # lazily: a caller that stops at the first token it needs does not pay for the file
    lines = (line.rstrip("\r\n") + "\n" if line.endswith(("\r", "\n")) else line for line in split_lines(text))
    return tokenize.generate_tokens(lambda: next(lines, ""))


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
            if "invalid or missing encoding declaration" in str(exc):
                # no cookie and the first lines are not UTF-8: say where, not "bad declaration"
                encoding = "utf-8"
            else:
                raise UnreadableSource(f"bad encoding declaration: {exc}") from None
        try:
            codecs.lookup(encoding)
            # decode() keeps \r\n and \r as they are, unlike text-mode reading
            text = raw.decode(encoding)
        except LookupError as exc:
            raise UnreadableSource(f"cannot decode as {encoding}: {exc}") from None
        except UnicodeDecodeError as exc:
            line = raw[: exc.start].count(b"\n") + 1  # the line of the first bad byte
            raise UnreadableSource(
                f"cannot decode as {encoding} at line {line}: {exc.reason} (0x{raw[exc.start]:02x})"
            ) from None
        if text.startswith("\ufeff"):
            text = text[1:]  # a BOM under an explicit utf-8 cookie
        return cls(raw, encoding, text)

    def encode(self, text: str) -> bytes:
        """Bytes for `text` in this file's encoding (a BOM is kept by utf-8-sig). Lines
        that `text` shares with the file keep their bytes: a codec with more than one way
        to write a character (cp932, utf-7) would otherwise re-encode them."""
        data = None
        if codecs.lookup(self.encoding).name not in ("utf-8", "utf-8-sig", "ascii"):
            data = self._encode_changed_lines(text)
        if data is None:
            data = text.encode(self.encoding)
        if self.raw.startswith(codecs.BOM_UTF8) and not data.startswith(codecs.BOM_UTF8):
            data = codecs.BOM_UTF8 + data
        return data

    def _encode_changed_lines(self, text: str) -> bytes | None:
        import difflib

        raw = self.raw[len(codecs.BOM_UTF8) :] if self.raw.startswith(codecs.BOM_UTF8) else self.raw
        raw_lines = _split_raw(raw)
        old = split_lines(self.text)
        if len(raw_lines) != len(old):
            return None
        try:
            if any(r.decode(self.encoding) != o for r, o in zip(raw_lines, old)):
                return None  # lines do not map one to one onto bytes in this codec
        except UnicodeDecodeError:
            return None
        new = split_lines(text)
        parts = []
        for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
            if tag == "equal":
                parts += raw_lines[i1:i2]
            else:
                parts.append("".join(new[j1:j2]).encode(self.encoding))
        data = b"".join(parts)
        try:
            return data if data.decode(self.encoding) == text else None
        except UnicodeDecodeError:
            return None

    @property
    def lines(self) -> list[str]:
        return split_lines(self.text)


# Tokens that can make a syntax tree one level deeper: brackets, operators, the keyword
# operators, and a string right after a string (implicit concatenation nests in LibCST).
_NESTING = re.compile(
    r"""
    (?P<comment>\#[^\r\n]*)
  | (?P<string>[rRbBuUfFtT]{0,2}(?:'''(?:\\.|[^\\])*?'''|\"\"\"(?:\\.|[^\\])*?\"\"\"
                               |'(?:\\.|[^\\'\r\n])*'|"(?:\\.|[^\\"\r\n])*"))
  | (?P<open>[(\[{])
  | (?P<close>[)\]}])
  | (?P<comma>[,;])
  | (?P<continuation>\\(?:\r\n|\r|\n))
  | (?P<newline>\r\n|\r|\n)
  | (?P<operator>\*\*|//|<<|>>|[<>=!]=|->|:=|[-+*/%@&|^~<>.]
                 |\b(?:not|and|or|if|else|lambda|await|in|is)\b)
  | (?P<name>\w+)
    """,
    re.VERBOSE | re.DOTALL,
)


def nesting_estimate(text: str) -> int:
    """An upper estimate of how deep the syntax tree of `text` nests (a cheap scan, no parse).

    Each open bracket and each operator adds a level to the comma-separated element it is
    in; a comma (or the end of a logical line) ends the element. Over-counts (`a + b + c`
    counts 2) rather than under-counts: it guards parsers that crash on deep input."""
    if len(text) < 64:
        return len(text)
    levels = [0]  # per open bracket: the operators counted in its current element
    total = deepest = 0
    previous_string = False
    for match in _NESTING.finditer(text):
        kind = match.lastgroup
        if kind == "string":
            if previous_string:
                levels[-1] += 1
                total += 1
                deepest = max(deepest, total)
            previous_string = True
            continue
        if kind == "comment" or kind == "continuation":
            continue
        previous_string = False
        if kind == "operator" or kind == "open":
            levels[-1] += 1
            total += 1
            if kind == "open":
                levels.append(0)
                total += 1
        elif kind == "close":
            if len(levels) > 1:
                total -= levels.pop() + 1
        elif kind == "comma" or (kind == "newline" and len(levels) == 1):
            total -= levels[-1]
            levels[-1] = 0
        if total > deepest:
            deepest = total
    return deepest
