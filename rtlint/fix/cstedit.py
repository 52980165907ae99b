"""Statement-level edits on a LibCST tree, addressed by the paths of the `ast` tree.

Rules detect on `ast` and fix on LibCST; a StatementPath names the same statement in both.
Edits are recorded against the identity of original nodes and applied in one transform,
so every statement the fix does not touch keeps its exact text.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Union

import libcst as cst

from rtlint.core.fixplan import CannotFix

# the editor's parser, as cstedit.parse and cstedit.TooDeeplyNested for the fixer
from rtlint.core.parsing import TooDeeplyNested  # noqa: F401
from rtlint.core.parsing import parse_cst as parse  # noqa: F401
from rtlint.fix.editlog import EditLog, blank_lines_between

Block = Union[cst.Module, cst.IndentedBlock, cst.SimpleStatementSuite]


@dataclass
class Located:
    """Where a statement lives: its block, the index of its line in the block, and the node."""

    block: Block | None  # None for an `elif`, which has no block of its own
    index: int  # index into block.body
    node: Any  # the statement (a small statement when `shares_line`)
    line: Any  # the block entry holding it (SimpleStatementLine or compound statement)
    shares_line: bool  # one of several `;`-separated statements on a line
    chain: tuple[Any, ...] = ()  # every node from the module down to `node`


def _block_of(node: Any, step: tuple[Any, ...]) -> tuple[Any, ...]:
    """The nodes from `node` (excluded) down to the block that `step` indexes into."""
    field = step[0]
    if isinstance(node, cst.Module):
        return (node,)
    if field == "body":
        return (node.body,)
    if field == "orelse":
        orelse = node.orelse
        return (orelse,) if isinstance(orelse, cst.If) else (orelse, orelse.body)
    if field == "finalbody":
        return (node.finalbody, node.finalbody.body)
    if field == "handlers":
        handler = node.handlers[step[1]]
        return (handler, handler.body)
    if field == "cases":
        case = node.cases[step[1]]
        return (case, case.body)
    raise KeyError(step)


def _flat_entries(block: Block) -> list[tuple[int, Any, Any, bool]]:
    """(line index, statement, line, shares_line) for every statement as `ast` counts them."""
    entries = []
    if isinstance(block, cst.SimpleStatementSuite):
        for small in block.body:
            entries.append((0, small, block, len(block.body) > 1))
        return entries
    for index, line in enumerate(block.body):
        if isinstance(line, cst.SimpleStatementLine):
            for small in line.body:
                entries.append((index, small if len(line.body) > 1 else line, line, len(line.body) > 1))
        else:
            entries.append((index, line, line, False))
    return entries


def locate(module: cst.Module, path: Sequence[tuple[Any, ...]], check: Callable[[Any], None] | None = None) -> Located:
    """The statement at `path`; `check(nodes)` sees the nodes of each step before they are
    indexed (a skeleton refuses to index a stub)."""
    node: Any = module
    chain: tuple[Any, ...] = ()
    located: Located | None = None
    for step in path:
        between = _block_of(node, step)
        if check is not None:
            check(between)
        block = between[-1]
        chain += between
        if isinstance(block, cst.If):  # elif: the statement is the If itself
            located = Located(None, 0, block, block, False, chain)
            node = block
            continue
        index, stmt, line, shares = _flat_entries(block)[step[-1]]
        chain += (line,) if not shares else (line, stmt)
        located = Located(block, index, stmt, line, shares, chain)
        node = line if not shares else stmt
    if located is None:
        raise KeyError("empty path")
    return located


class Editor(EditLog):
    """Collects edits against original nodes; `result()` applies them in one pass that only
    descends along the paths to edited nodes (a whole-tree visit of a big file costs
    seconds). Several fixes can share an editor (see rtlint.fix.editlog)."""

    textual = False

    def __init__(self, module: cst.Module, skeleton: Any = None) -> None:
        super().__init__()
        self.module = module
        self.skeleton = skeleton  # rtlint.fix.skeleton.Skeleton when functions are stubbed
        self._spine: dict[int, int] = {id(module): 1}  # id -> how many edits need it

    def _undo(self, kind: str, value: Any) -> None:
        if kind == "spine":
            self._spine[value] -= 1
            if not self._spine[value]:
                del self._spine[value]

    def _needs(self, chain: Sequence[Any]) -> None:
        for node in chain:
            self._spine[id(node)] = self._spine.get(id(node), 0) + 1
            self._log.append(("spine", id(node)))

    # -- parsing snippets in the module's own style ----------------------------------
    def statement(self, code: str) -> cst.BaseStatement:
        # every line in the file's line ending: a rule's "\n" beside source it copied with
        # "\r\n" would otherwise give the statement mixed endings (LibCST keeps each one)
        newline = self.module.default_newline
        if newline != "\n" or "\r" in code:
            code = re.sub(r"\r\n|\r|\n", lambda _: newline, code)
        return cst.parse_statement(code, config=self.module.config_for_parsing)

    def expression(self, code: str) -> cst.BaseExpression:
        return cst.parse_expression(code, config=self.module.config_for_parsing)

    def code(self, node: cst.CSTNode) -> str:
        return self.module.code_for_node(node)

    def locate(self, path: Sequence[tuple[Any, ...]]) -> Located:
        # inside a stubbed function: the skeleton asks for it to be parsed
        return locate(self.module, path, self.skeleton.check_chain if self.skeleton is not None else None)

    # -- edits ------------------------------------------------------------------------
    def replace(self, located: Located, change: Callable[[Any], Any]) -> None:
        """Replace the located statement by change(updated statement)."""
        self._record_edit(id(located.node), change, located.chain)

    def _block_op(
        self, located: Located, start: int, stop: int, op: Callable[[list[Any]], list[Any]], same_as: str | None = None
    ) -> None:
        """Record `op` on statements [start, stop) of the located statement's block."""
        if located.block is None:
            raise CannotFix("the statement is an elif branch")
        if located.shares_line:
            raise CannotFix("the statement shares its line with others (';')")
        chain = located.chain[: located.chain.index(located.line)] if located.line in located.chain else located.chain
        self._record_block_op(id(located.block), start, stop, op, same_as, chain)

    def insert_before(self, located: Located, statements: Sequence[cst.BaseStatement]) -> None:
        code = "".join(self.code(s) for s in statements)
        self._block_op(located, located.index, located.index, lambda _: list(statements), same_as=code)

    def insert_after(self, located: Located, statements: Sequence[cst.BaseStatement]) -> None:
        at = located.index + 1
        code = "".join(self.code(s) for s in statements)
        self._block_op(located, at, at, lambda _: list(statements), same_as=code)

    def insert_import(self, located: Located, after: bool, code: str) -> None:
        """An import line before or after another import; inserted before, it takes over the
        blank lines and comments above that import, so the group keeps its separation."""
        statement = self.statement(code)
        if after:
            self.insert_after(located, [statement])
            return
        target = located.line
        statement = statement.with_changes(leading_lines=target.leading_lines)
        self.insert_before(located, [statement])
        # before an import of its section it joins the group, else the sections or the
        # imports and the code are apart as isort and PEP 8 keep them
        is_import = isinstance(target, cst.SimpleStatementLine) and isinstance(
            target.body[0], (cst.Import, cst.ImportFrom)
        )
        target_code = self.code(target.body[0]) if is_import else ""
        count = blank_lines_between(code, target_code, isinstance(target, (cst.ClassDef, cst.FunctionDef)))
        blank = [cst.EmptyLine(indent=False)] * count
        self.replace(
            Located(located.block, located.index, target, target, False, located.chain),
            lambda node: node.with_changes(leading_lines=blank),
        )

    def remove(self, located: Located) -> None:
        self._block_op(located, located.index, located.index + 1, lambda _: [])

    def move_before(self, target: Located, *located: Located) -> None:
        """Move the statements at `located` (in that order) to just before `target`, the
        comments above each with it (not its blank lines). One insertion, never shared with
        another fix's (that is for imports): a move of the same code elsewhere would lose
        its statement."""
        moved = []
        for one in located:
            node = one.line
            moved.append(
                node.with_changes(leading_lines=[line for line in node.leading_lines if line.comment is not None])
            )
            self.remove(one)
        self._block_op(target, target.index, target.index, lambda _: list(moved))

    def wrap(
        self,
        first: Located,
        last: Located,
        header: str,
        flatten: Callable[[Any], bool] = lambda node: False,
    ) -> None:
        """Put the statements from `first` through `last` (one block) under `header:`,
        e.g. "async with self._lock". Statements for which `flatten` is true (an inner
        `async with` of the same lock) are replaced by their body."""
        if first.block is not last.block:
            raise CannotFix("the statements are not in one block")
        if last.shares_line:
            raise CannotFix("the statement shares its line with others (';')")
        template = self.statement(f"{header}:\n    pass\n")

        def op(statements: list[Any]) -> list[Any]:
            body: list[Any] = []
            for stmt in statements:
                if flatten(stmt):
                    inner = list(stmt.body.body)
                    if inner:
                        inner[0] = inner[0].with_changes(leading_lines=[*stmt.leading_lines, *inner[0].leading_lines])
                    body.extend(inner)
                else:
                    body.append(stmt)
            # comments above the first statement stay above the new block
            leading = body[0].leading_lines
            body[0] = body[0].with_changes(leading_lines=())
            return [template.with_changes(body=template.body.with_changes(body=body), leading_lines=leading)]

        self._block_op(first, first.index, last.index + 1, op)

    def result(self) -> cst.Module:
        return self.applied().module

    def applied(self) -> Applied:
        """The edited tree, and what changed where (for splicing it into the text)."""
        transform = _Apply(self._edits, self._block_ops, self._spine)
        module = self.module.visit(transform)
        edited = {key for key, changes in self._edits.items() if changes}
        return Applied(module, transform.new, transform.segments, edited)


@dataclass
class Applied:
    module: cst.Module
    new: dict[int, Any]  # id of an original node on the spine -> its edited node
    # id of an original block -> the (start, stop, how many statements replace them) of its edits
    segments: dict[int, list[tuple[int, int, int]]]
    edited: set[int]  # ids of the original nodes that an edit replaces


class _Apply(cst.CSTTransformer):
    def __init__(self, edits: dict[int, list[Any]], block_ops: dict[int, list[Any]], spine: dict[int, int]) -> None:
        super().__init__()
        self.edits = edits
        self.block_ops = block_ops
        self.spine = spine
        self.new: dict[int, Any] = {}
        self.segments: dict[int, list[tuple[int, int, int]]] = {}

    def on_visit(self, node: Any) -> bool:
        return id(node) in self.spine  # nothing to change below any other node

    def on_leave(self, original_node: Any, updated_node: Any) -> Any:
        result = updated_node
        for _, change in self.edits.get(id(original_node), ()):
            result = change(result)
        ops = self.block_ops.get(id(original_node))
        if ops:
            result, self.segments[id(original_node)] = _apply_block_ops(
                result, [(start, stop, op) for _, start, stop, op in ops]
            )
        result = _drop_emptied_clauses(result)
        if id(original_node) in self.spine:
            self.new[id(original_node)] = result
        return result


def _apply_block_ops(
    block: Any, ops: list[tuple[int, int, Callable[[list[Any]], list[Any]]]]
) -> tuple[Any, list[tuple[int, int, int]]]:
    if isinstance(block, cst.SimpleStatementSuite):
        # a one-line suite (`if x: a; b`) becomes an indented block so lines can be edited
        block = cst.IndentedBlock(body=[cst.SimpleStatementLine(body=[s]) for s in block.body])
    body = list(block.body)
    segments = []
    # from the end, so earlier indexes stay valid
    for start, stop, op in sorted(ops, key=lambda o: (o[0], o[1]), reverse=True):
        replacement = op(body[start:stop])
        body[start:stop] = replacement
        segments.append((start, stop, len(replacement)))
    segments.reverse()
    if isinstance(block, cst.Module):
        return block.with_changes(body=body), segments
    if not body:  # a block cannot be empty: the statement removed was its only one
        body = [EMPTIED]
    return block.with_changes(body=body), segments


# the `pass` left in a block whose only statement a fix removed; an `else:` or `finally:`
# clause holding only it is dropped altogether
EMPTIED = cst.SimpleStatementLine(body=[cst.Pass()])


def _emptied(clause: Any) -> bool:
    return (
        clause is not None
        and hasattr(clause, "body")
        and list(getattr(clause.body, "body", ())) == [EMPTIED]
        and clause.body.body[0] is EMPTIED
    )


def _drop_emptied_clauses(node: Any) -> Any:
    if isinstance(node, (cst.Try, cst.TryStar)):
        if _emptied(node.orelse):
            node = node.with_changes(orelse=None)
        if _emptied(node.finalbody) and node.handlers:
            node = node.with_changes(finalbody=None)
    elif isinstance(node, (cst.For, cst.While)) and _emptied(node.orelse):
        node = node.with_changes(orelse=None)
    elif isinstance(node, cst.If) and isinstance(node.orelse, cst.Else) and _emptied(node.orelse):
        node = node.with_changes(orelse=None)
    return node
