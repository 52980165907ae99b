"""The record of a pass's edits for the editor (rtlint.fix.editor): who made each, and the
rules that keep the fixes of one pass apart (two fixes may not edit one statement, nor
overlapping statements of one block)."""

from __future__ import annotations

from typing import Any

from rtlint.core.fixplan import CannotFix


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
            else:
                self._inserts[value[0]].discard(value[1])
        self._log = []

    @property
    def empty(self) -> bool:
        return not any(self._edits.values()) and not any(self._block_ops.values())

    def _record_edit(self, key: int, change: Any) -> None:
        for owner, _ in self._edits.get(key, ()):
            if owner != self._fix:
                raise CannotFix("another fix edits this statement")
        self._edits.setdefault(key, []).append((self._fix, change))
        self._log.append(("edit", key))

    def _record_block_op(self, block: int, start: int, stop: int, op: Any, same_as: str | None) -> None:
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
