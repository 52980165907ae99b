"""What the fixer's two editors share: the record of a pass's edits, who made each, and the
rules that keep the fixes of one pass apart (two fixes may not edit one statement, nor
overlapping statements of one block). The LibCST editor (rtlint.fix.cstedit) and the text
editor (rtlint.fix.textedit) differ only in what an edit is and how it is applied; both import
nothing heavy, so a fix that needs no LibCST never loads it."""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Sequence
from typing import Any

from rtlint.core.fixplan import CannotFix


class NeedsTree(Exception):
    """The text editor cannot make this edit, or edit this file, as LibCST would: the pass
    goes to the LibCST editor."""


class EditLog:
    """Edits keyed by the identity of the statement (`edits`) or block (`block_ops`) they
    change. Several fixes share one log: `begin()` starts a fix, an edit that overlaps
    another fix's raises CannotFix, and `rollback()` then drops the fix's edits."""

    def __init__(self) -> None:
        self._edits: dict[int, list[tuple[int, Any]]] = {}
        self._block_ops: dict[int, list[tuple[int, int, int, Any]]] = {}
        self._inserts: dict[int, set[tuple[int, int, str]]] = {}
        self._fix = 0  # the fix whose edits are being recorded
        self._log: list[tuple[str, Any]] = []  # for rollback

    def begin(self) -> None:
        self._fix += 1
        self._log = []

    def rollback(self) -> None:
        for kind, value in reversed(self._log):
            if kind == "edit":
                self._edits[value].pop()
            elif kind == "block":
                self._block_ops[value].pop()
            elif kind == "insert":
                self._inserts[value[0]].discard(value[1])
            else:
                self._undo(kind, value)
        self._log = []

    def _undo(self, kind: str, value: Any) -> None:
        """Undo an editor's own kind of log entry."""

    def _needs(self, chain: Sequence[Any]) -> None:
        """The nodes from the module down to an edit (the LibCST editor descends along them)."""

    @property
    def empty(self) -> bool:
        return not any(self._edits.values()) and not any(self._block_ops.values())

    def _record_edit(self, key: int, change: Any, chain: Sequence[Any]) -> None:
        for owner, _ in self._edits.get(key, ()):
            if owner != self._fix:
                raise CannotFix("another fix edits this statement")
        self._edits.setdefault(key, []).append((self._fix, change))
        self._log.append(("edit", key))
        self._needs(chain)

    def _record_block_op(
        self, block: int, start: int, stop: int, op: Any, same_as: str | None, chain: Sequence[Any]
    ) -> None:
        """Record `op` on statements [start, stop) of a block. `same_as` identifies an
        insertion, so that two fixes inserting the same line (an import, the lock in
        __init__) share it instead of conflicting."""
        ops = self._block_ops.setdefault(block, [])
        if same_as is not None and (start, stop, same_as) in self._inserts.get(block, set()):
            return
        for owner, other_start, other_stop, _ in ops:
            touching = start < other_stop and other_start < stop
            same_place = start == stop == other_start == other_stop
            # one fix may insert at either edge of its own range; another fix may not
            edge = owner != self._fix and (
                start == stop
                and other_start <= start <= other_stop
                or other_start == other_stop
                and start <= other_start <= stop
            )
            if touching or same_place or edge:
                raise CannotFix("two edits overlap")
        ops.append((self._fix, start, stop, op))
        self._log.append(("block", block))
        if same_as is not None:
            self._inserts.setdefault(block, set()).add((start, stop, same_as))
            self._log.append(("insert", (block, (start, stop, same_as))))
        self._needs(chain)

    def require_tree(self) -> None:
        """Called by a fix before it edits what only a LibCST tree can express; the text
        editor then gives the pass to the LibCST editor."""


EditOp = Callable[[list[Any]], list[Any]]


_IMPORTED = re.compile(r"\s*(?:from\s+(\.*)\s*([\w.]*)|import\s+([\w.]+))")


def _standard(code: str) -> bool | None:
    """Whether an import line imports from the standard library (None: not an import)."""
    found = _IMPORTED.match(code)
    if found is None:
        return None
    dots, source, plain = found.groups()
    if dots:
        return False  # a relative import: the package's own section
    top = (source or plain or "").split(".")[0]
    return top in getattr(sys, "stdlib_module_names", ()) or top == "__future__"


def blank_lines_between(new_import: str, target_code: str, target_is_definition: bool) -> int:
    """How many blank lines separate an import inserted before a statement from it: none
    within an isort section, one between sections (a standard-library import before a
    third-party one) and before code, two before a definition (PEP 8)."""
    target = _standard(target_code)
    if target is None:
        return 2 if target_is_definition else 1
    return 0 if target == _standard(new_import) else 1
