"""Pipecat's vocabulary (design.md, "Pipecat (the second framework)")."""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rtlint.core.context import FileContext

NAME = "pipecat"
OPTIONS: tuple = ()


def owns(file: FileContext) -> bool:
    """The file imports from `pipecat` (at module level, or under `if`/`try` there) and not
    from `livekit`."""
    return file.memo("rules._frameworks.pipecat.owns", lambda: _imports(file) == {"pipecat"})


def _imports(file: FileContext) -> set[str]:
    if "pipecat" not in file.text:
        return set()
    found: set[str] = set()
    stack = list(file.tree.body)
    while stack:
        stmt = stack.pop()
        if isinstance(stmt, ast.ImportFrom) and stmt.level == 0 and stmt.module:
            found.add(stmt.module.split(".")[0])
        elif isinstance(stmt, ast.Import):
            found.update(alias.name.split(".")[0] for alias in stmt.names)
        elif isinstance(stmt, (ast.If, ast.Try)):
            stack.extend(stmt.body)
            stack.extend(stmt.orelse)
            stack.extend(getattr(stmt, "finalbody", ()))
            for handler in getattr(stmt, "handlers", ()):
                stack.extend(handler.body)
    return found & {"pipecat", "livekit"}


def tokens(settings) -> list[tuple]:  # noqa: ANN001
    return []
