"""What a rule reports: findings, fixes and text edits (all positions 1-based)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

Applicability = Literal["safe", "unsafe"]

# Codes the engine itself reports; no rule may take them.
ENGINE_CODES = {
    "RTL100": "unused-suppression",  # off unless selected
    "RTL900": "syntax-error",
    "RTL901": "unreadable-file",
    "RTL902": "internal-error",
}


@dataclass(frozen=True, order=True)
class Edit:
    """Replace the text from (line, column) up to (end_line, end_column) by `content`."""

    line: int
    column: int
    end_line: int
    end_column: int
    content: str

    def to_json(self) -> dict[str, Any]:
        return {
            "line": self.line,
            "column": self.column,
            "end_line": self.end_line,
            "end_column": self.end_column,
            "content": self.content,
        }


@dataclass(frozen=True)
class Fix:
    applicability: Applicability
    edits: tuple[Edit, ...]

    def to_json(self) -> dict[str, Any]:
        return {"applicability": self.applicability, "edits": [e.to_json() for e in self.edits]}


@dataclass
class Finding:
    code: str
    name: str
    message: str
    line: int
    column: int
    end_line: int
    end_column: int
    path: str = ""
    # how a fix would apply, known at detection time; the edits are computed only on demand
    fixable: Applicability | None = None
    fix: Fix | None = None
    # the enclosing definition (Class.method), used to check that a fix removed what it fixed
    symbol: str = ""
    # rule-private detail the rule's fix needs; never serialised
    data: Any = field(default=None, repr=False, compare=False)

    @property
    def sort_key(self) -> tuple[str, int, int, str]:
        return (self.path, self.line, self.column, self.code)

    def to_json(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "line": self.line,
            "column": self.column,
            "end_line": self.end_line,
            "end_column": self.end_column,
            "code": self.code,
            "name": self.name,
            "message": self.message,
            "fix": self.fix.to_json() if self.fix else None,
        }
