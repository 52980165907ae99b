"""The fix-plan protocol: what a finding carries so that its fix can be built later.

A rule decides at detection time whether and how a finding can be fixed, and says so with
a plan: its `applicability` ("safe", "unsafe" or None when no sound fix exists), the
`reason` when it is not safe, and `apply(editor)`, which records the fix's edits on the
fixer's editor. A finding's `fixable` flag and its message's safety note come from the plan.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from rtlint.core.findings import Applicability

if TYPE_CHECKING:
    import ast


class CannotFix(Exception):
    """The fix cannot be built on this tree; the message says why."""


class Editor(Protocol):
    """What a plan's `apply` records its edits on: the fixer's editor (rtlint.fix.editor).
    Statements are located by the paths of the `ast` tree (`FileContext.path_of`); edits of
    one pass are applied together, and an edit that overlaps another fix's raises CannotFix.
    Reading: `lines` (the file's lines, line endings kept), `position`/`segment` of an `ast`
    node (0-based row, column in characters), `leading_lines` of a statement (its comments and
    blank lines above). Inside a `rewrite`'s change, `module`, `code` and `expression` are
    those of the one statement's LibCST tree."""

    lines: list[str]

    @property
    def module(self) -> Any: ...
    def code(self, node: Any) -> str: ...
    def expression(self, code: str) -> Any: ...
    def leading_lines(self, located: Any) -> str: ...
    def position(self, node: ast.AST, which: str) -> tuple[int, int]: ...
    def segment(self, node: ast.AST) -> str: ...
    def locate(self, path: Sequence[tuple[Any, ...]]) -> Any: ...
    def statement(self, code: str) -> Any: ...
    def insert_before(self, located: Any, statements: Sequence[Any]) -> None: ...
    def insert_after(self, located: Any, statements: Sequence[Any]) -> None: ...
    def insert_import(self, located: Any, after: bool, code: str) -> None: ...
    def remove(self, located: Any) -> None: ...
    def move_before(self, target: Any, *located: Any) -> None: ...
    def wrap(self, first: Any, last: Any, header: str, flatten: Callable[[Any], bool] = ...) -> None: ...
    def rewrite(self, located: Any, change: Callable[[Any], Any]) -> None: ...
    def replace_segments(self, located: Any, segments: Sequence[tuple[ast.AST, str]]) -> None: ...
    def replace_spans(self, located: Any, spans: Sequence[tuple[int, int, int, int, str]]) -> None: ...


class FixPlan(Protocol):
    @property
    def applicability(self) -> Applicability | None: ...

    @property
    def reason(self) -> str: ...

    def apply(self, editor: Editor) -> None: ...


def safety_note(plan: FixPlan | None) -> str:
    """What a finding's message adds when its fix is unsafe or impossible, and why."""
    if plan is None or plan.applicability == "safe":
        return ""
    state = "fix is unsafe" if plan.applicability == "unsafe" else "not fixable"
    return f" ({state}: {plan.reason})"
