"""One bounded reader for every file rtlint reads: sources, configurations, formatter files,
.gitignore files, baselines and standard input (the cache's own entries are read by
rtlint.cache.secret, within their own bounds, without following links).

A file is read only if it is a regular file (a FIFO would block forever, a device such as
/dev/zero never ends: both are refused before they are opened, and again on the descriptor
opened, which is the file read) and only up to a limit; a larger one raises TooLarge, whose
message names the limit. Memory per file is bounded by the size and, before a file is
parsed, by `parse_cost` (its lines and commas): at most MAX_PARSED.
"""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path
from typing import Any, BinaryIO

MAX_SOURCE = 16 << 20  # a source file (or standard input)
# what parsing costs grows with the statements and elements, not the bytes (a 10 MiB data
# module of long strings parses in 0.5 GB, 1 MiB of `x = 1` lines takes 0.4 GB): lines and
# commas, counted for free, bound it (CPython's parser takes about 2.5 KB for each)
MAX_PARSED = 400_000
MAX_TOML = 1 << 20  # a configuration or formatter file
MAX_LINES_FILE = 1 << 20  # a .gitignore

_KINDS = {
    0o010000: "a FIFO",
    0o020000: "a character device",
    0o060000: "a block device",
    0o140000: "a socket",
    0o040000: "a folder",
}


def parse_cost(raw: bytes | str) -> int:
    """An upper estimate of what parsing `raw` costs, in statements and elements: its lines
    (ended by \\n, or by \\r alone) and its commas. A few passes of bytes.count: no parse."""
    newline, cr = ("\n", "\r") if isinstance(raw, str) else (b"\n", b"\r")
    comma = "," if isinstance(raw, str) else b","
    return max(raw.count(newline), raw.count(cr)) + raw.count(comma)  # type: ignore[arg-type]


def too_costly(raw: bytes | str) -> str | None:
    """Why `raw` is not parsed (too many lines and commas), naming the limit; None if it is."""
    cost = parse_cost(raw)
    if cost <= MAX_PARSED:
        return None
    return f"too large to parse ({cost:,} lines and commas; rtlint parses at most {MAX_PARSED:,})"


class TooLarge(OSError):
    """Larger than the limit rtlint reads (the message names it)."""


def size(limit: int) -> str:
    return f"{limit >> 20} MiB" if limit >= 1 << 20 and not limit % (1 << 20) else f"{limit} bytes"


def _too_large(what: int | None, limit: int) -> TooLarge:
    shown = f"{what} bytes" if what is not None else "more"
    return TooLarge(0, f"too large ({shown}; rtlint reads at most {size(limit)})")


def not_regular(mode: int) -> str | None:
    """Why a file of this mode is not read (None: a regular file)."""
    if stat.S_ISREG(mode):
        return None
    kind = _KINDS.get(stat.S_IFMT(mode))
    return f"not a regular file ({kind})" if kind else "not a regular file"


def read_file(path: Path | str, limit: int) -> tuple[bytes, tuple[int, int, int, int]]:
    """The bytes of a regular file, and its stat (size, mtime, ctime, inode) taken before
    reading. Raises OSError (TooLarge past `limit`; strerror says why)."""
    why = not_regular(os.stat(path).st_mode)
    if why is not None:
        raise OSError(0, why)
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    try:
        info = os.fstat(fd)  # the file opened, not the one stat()ed a moment ago
        why = not_regular(info.st_mode)
        if why is not None:
            raise OSError(0, why)
        if info.st_size > limit:
            raise _too_large(info.st_size, limit)
        with os.fdopen(os.dup(fd), "rb") as handle:
            # sized from fstat: read(limit + 1) would allocate the limit for every file; a
            # file still growing is read on to its end, up to the limit
            raw = handle.read(info.st_size + 1)
            if len(raw) > info.st_size:
                raw += handle.read(limit + 1 - len(raw))
    finally:
        os.close(fd)
    if len(raw) > limit:
        raise _too_large(None, limit)
    return raw, (info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino)


def read_stream(stream: BinaryIO, limit: int) -> bytes:
    """Up to `limit` bytes of a stream (standard input); TooLarge past it."""
    raw = stream.read(limit + 1)
    if isinstance(raw, str):  # a text stream was given
        raw = raw.encode("utf-8")
    if len(raw) > limit:
        raise _too_large(None, limit)
    return raw


class TomlError(ValueError):
    """Not valid TOML, or nested deeper than the parser can go (the message says which)."""


def load_toml(path: Path | str, limit: int = MAX_TOML) -> dict[str, Any]:
    """A TOML file, read as `read_file` reads; OSError if it cannot be read, TomlError if it
    is not TOML (tomllib recurses per level of nesting: a deep file is an error, not a crash)."""
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover
        import tomli as tomllib

    raw = read_file(path, limit)[0]
    try:
        return tomllib.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise TomlError(f"not UTF-8: {exc.reason} at byte {exc.start}") from None
    except tomllib.TOMLDecodeError as exc:
        raise TomlError(str(exc)) from None
    except RecursionError:
        raise TomlError("nested too deeply") from None
