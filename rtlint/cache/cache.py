"""A cache of findings keyed by file content, rtlint version and effective configuration.

The folder is not trusted (a repository can commit one): every entry is sealed with this
user's key (rtlint.cache.secret), read without following symlinks and within a size bound, and
checked field by field; anything unexpected is a miss and the file is linted again.
Entries are written atomically, so concurrent runs can share the folder."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

import rtlint
from rtlint.cache import secret

MAX_ENTRY = 4 << 20  # a file's findings; anything larger is not an entry of ours

_INT_FIELDS = ("line", "column", "end_line", "end_column")
_STR_FIELDS = ("code", "name", "message", "path", "symbol")


class Cache:
    def __init__(self, folder: Path, fingerprint: str) -> None:
        digest = hashlib.sha256(f"{rtlint.__version__}\0{fingerprint}".encode()).hexdigest()[:20]
        self.folder = folder
        self.digest = digest
        self.key_bytes = secret.key()

    @staticmethod
    def key(raw: bytes, display_path: str, extra: str = "") -> str:
        """`extra`: what else the file's findings depend on (the line length of its fixes)."""
        digest = hashlib.sha256(raw)
        digest.update(b"\0" + display_path.encode("utf-8", "surrogateescape"))
        digest.update(b"\0" + extra.encode("utf-8", "surrogateescape"))
        return digest.hexdigest()

    def _folder(self, key: str, create: bool) -> int | None:
        """A descriptor of the entry's folder, <cache>/<configuration>/<key[:2]>."""
        middle = secret.open_in_cache(str(self.folder), self.digest, create)
        if middle is None:
            return None
        try:
            return secret.open_subfolder(middle, key[:2], create)
        finally:
            os.close(middle)

    def get(self, key: str, display_path: str) -> list[dict[str, Any]] | None:
        if self.key_bytes is None:
            return None
        folder = self._folder(key, create=False)
        if folder is None:
            return None
        try:
            data = secret.read_bounded(folder, key, MAX_ENTRY)
        finally:
            os.close(folder)
        payload = None if data is None else secret.unseal(self.key_bytes, f"{self.digest}/{key}", data)
        if payload is None:
            return None
        try:
            value = json.loads(payload)
        except ValueError:
            return None
        return value if valid_entry(value, display_path) else None

    def put(self, key: str, findings: list[dict[str, Any]]) -> None:
        if self.key_bytes is None:
            return
        payload = json.dumps(findings).encode("utf-8", "surrogateescape")
        try:
            folder = self._folder(key, create=True)
            if folder is None:
                return
            try:
                secret.write_replacing(folder, key, secret.seal(self.key_bytes, f"{self.digest}/{key}", payload))
            finally:
                os.close(folder)
        except OSError:
            pass  # a cache that cannot be written is only slower


def valid_entry(value: Any, display_path: str) -> bool:
    """Whether `value` has exactly the shape `put` writes, for the file it is looked up for."""
    if not isinstance(value, list):
        return False
    for item in value:
        if not isinstance(item, dict):
            return False
        if not all(isinstance(item.get(name), int) and not isinstance(item.get(name), bool) for name in _INT_FIELDS):
            return False
        if not all(isinstance(item.get(name), str) for name in _STR_FIELDS):
            return False
        if item["path"] != display_path or item["line"] < 1 or item["column"] < 1 or item["end_line"] < item["line"]:
            return False
        if item.get("fixable") not in (None, "safe", "unsafe"):
            return False
        fix = item.get("fix")
        if fix is not None and not _valid_fix(fix):
            return False
    return True


def _valid_fix(fix: Any) -> bool:
    if not isinstance(fix, dict) or fix.get("applicability") not in ("safe", "unsafe"):
        return False
    edits = fix.get("edits")
    if not isinstance(edits, list):
        return False
    for edit in edits:
        if not isinstance(edit, dict) or not isinstance(edit.get("content"), str):
            return False
        if not all(isinstance(edit.get(name), int) for name in _INT_FIELDS):
            return False
    return True
