"""What a rule sees of a file: for checking (the `ast` tree) and for fixing (LibCST)."""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, TypeVar

from rtlint.core.settings import Settings
from rtlint.core.source import split_lines

if TYPE_CHECKING:
    from rtlint.core.fixplan import Editor

T = TypeVar("T")

# A statement's address, shared by the `ast` and the LibCST tree of the same source:
# steps such as ("body", 3), ("orelse", 0), ("handlers", 1, 0), ("cases", 2, 0).
StatementPath = tuple[tuple[Any, ...], ...]

_BLOCK_FIELDS = ("body", "orelse", "finalbody")
# the nodes that hold statements (the Module, compound statements)
_WITH_BLOCKS = frozenset(
    k
    for k in vars(ast).values()
    if isinstance(k, type)
    and issubclass(k, (ast.stmt, ast.mod))
    and {"body", "orelse", "finalbody", "handlers", "cases"} & set(k._fields)
)


def iter_statement_paths(tree: ast.Module) -> Iterator[tuple[ast.stmt, StatementPath]]:
    """Every statement of the module with its path, parents before children (no recursion,
    so very deep files do not exhaust the stack)."""
    stack: list[tuple[ast.AST, StatementPath]] = [(tree, ())]
    while stack:
        node, path = stack.pop()
        if type(node) not in _WITH_BLOCKS:
            continue  # most statements hold none (checked by type: this runs on every one)
        children: list[tuple[ast.stmt, StatementPath]] = [
            (child, path + ((*step, index),))
            for step, block in _blocks(node)
            for index, child in enumerate(block)
            if isinstance(child, ast.stmt)
        ]
        yield from children
        stack.extend(reversed(children))


def _blocks(node: ast.AST) -> Iterator[tuple[tuple[Any, ...], list[ast.stmt]]]:
    """The statement lists of a node, each with the path step its statements extend with
    their index: ("body",), ("orelse",), ("finalbody",), ("handlers", h), ("cases", c)."""
    for field in _BLOCK_FIELDS:
        block = getattr(node, field, None)
        if isinstance(block, list):
            yield (field,), block
    for h, handler in enumerate(getattr(node, "handlers", None) or ()):
        yield ("handlers", h), handler.body
    for c, case in enumerate(getattr(node, "cases", None) or ()):
        yield ("cases", c), case.body


def _path_by_position(tree: ast.Module, target: ast.stmt) -> StatementPath | None:
    """The path of `target`, found by its position; None if it is not in `tree`."""
    where = (target.lineno, target.col_offset)
    node: ast.AST = tree
    path: StatementPath = ()
    while True:
        inner = None
        for step, block in _blocks(node):
            for index, child in enumerate(block):
                if child is target:
                    return path + ((*step, index),)
                if (
                    (child.lineno, child.col_offset)
                    <= where
                    <= (child.end_lineno or child.lineno, child.end_col_offset or 0)
                ):
                    inner = child, (*step, index)
                    break
            if inner is not None:
                break
        if inner is None or type(inner[0]) not in _WITH_BLOCKS:
            return None
        node, path = inner[0], path + (inner[1],)


class FileContext:
    """One parsed file, shared by every rule; analyses are computed once and memoised."""

    def __init__(self, display_path: str, text: str, tree: ast.Module, settings: Settings) -> None:
        self.display_path: str = display_path
        self.text: str = text
        self.tree: ast.Module = tree
        self.settings: Settings = settings
        self._lines: list[str] | None = None
        self._memo: dict[Any, Any] = {}
        self._paths: dict[int, StatementPath] | None = None
        self._searches = 0  # paths found by position (path_of)

    @property
    def lines(self) -> list[str]:
        if self._lines is None:
            self._lines = split_lines(self.text)
        return self._lines

    def memo(self, key: Any, compute: Callable[[], T]) -> T:
        """`compute()` once per file, whichever rule asks first."""
        if key not in self._memo:
            self._memo[key] = compute()
        return self._memo[key]

    def release(self) -> None:
        """Forget the memoised analyses, once every rule has run. An analysis refers to the
        file that memoises it (an index keeps its file), so without this the whole file's
        analyses and tree form cycles that only the cyclic collector frees; a big file's
        collection then visits a million objects (a fifth of checking 100,000 lines). Freed
        here, they go by reference counting. A later `memo` computes again."""
        self._memo.clear()
        self._paths = None

    def path_of(self, stmt: ast.stmt) -> StatementPath:
        if self._paths is None:
            self._paths = {}
        path = self._paths.get(id(stmt))
        if path is None:
            # found by position, descending only into the blocks that hold it: rules ask
            # for a few paths, and the map of every statement costs a big file ~15 ms; past
            # a few dozen questions (a file of many findings) the map is made once, so the
            # cost stays linear in the findings
            self._searches += 1
            path = _path_by_position(self.tree, stmt) if self._searches <= 32 else None
            if path is None:
                self._paths.update((id(s), p) for s, p in iter_statement_paths(self.tree))
                path = self._paths[id(stmt)]
            self._paths[id(stmt)] = path
        return path

    def position(self, lineno: int, col_offset: int) -> tuple[int, int]:
        """1-based line and character column from ast's line and UTF-8 byte offset."""
        lines = self.lines
        if 1 <= lineno <= len(lines):
            text = lines[lineno - 1]
            if not text.isascii():
                col_offset = len(text.encode("utf-8")[:col_offset].decode("utf-8", "replace"))
        return lineno, col_offset + 1

    def segment(self, node: ast.AST) -> str:
        """The source text of a node (ast.get_source_segment re-splits the whole file)."""
        lines = self.lines
        start, end = node.lineno - 1, (node.end_lineno or node.lineno) - 1
        first = lines[start].encode("utf-8")
        if start == end:
            return first[node.col_offset : node.end_col_offset].decode("utf-8", "replace")
        last = lines[end].encode("utf-8")
        middle = "".join(lines[start + 1 : end])
        return (
            first[node.col_offset :].decode("utf-8", "replace")
            + middle
            + last[: node.end_col_offset].decode("utf-8", "replace")
        )


class FixContext:
    """What a rule's fix works on: the editor that records the fix's edits (shared by the
    fixes of one pass, so they are applied together; rtlint.fix.editor)."""

    def __init__(self, text: str, settings: Settings, editor: Editor) -> None:
        self.text: str = text
        self.settings: Settings = settings
        self.editor: Editor = editor
