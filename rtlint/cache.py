"""A cache of findings keyed by file content, rtlint version and effective configuration.
Entries are written atomically, so concurrent runs can share the folder."""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any

import rtlint


class Cache:
    def __init__(self, folder: Path, fingerprint: str) -> None:
        digest = hashlib.sha256(f"{rtlint.__version__}\0{fingerprint}".encode()).hexdigest()[:20]
        self.folder = folder
        self.directory = folder / digest

    @staticmethod
    def key(raw: bytes, display_path: str) -> str:
        digest = hashlib.sha256(raw)
        digest.update(b"\0" + display_path.encode("utf-8", "surrogateescape"))
        return digest.hexdigest()

    def get(self, key: str) -> list[dict[str, Any]] | None:
        try:
            with open(self.directory / key[:2] / key, encoding="utf-8") as handle:
                value = json.load(handle)
        except (OSError, ValueError):
            return None
        return value if isinstance(value, list) else None

    def put(self, key: str, findings: list[dict[str, Any]]) -> None:
        try:
            target = self.directory / key[:2]
            target.mkdir(parents=True, exist_ok=True)
            ignore = self.folder / ".gitignore"
            if not ignore.exists():
                ignore.write_text("# created by rtlint\n*\n", encoding="utf-8")
            fd, temporary = tempfile.mkstemp(dir=target, suffix=".tmp")
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                json.dump(findings, handle)
            os.replace(temporary, target / key)
        except OSError:
            pass  # a cache that cannot be written is only slower
