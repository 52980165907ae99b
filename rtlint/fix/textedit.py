"""The fixer's editor without LibCST: the statement-level edits of rtlint.fix.cstedit made on the
text itself, with the same result byte for byte, addressed by the same `ast` paths.

Importing LibCST and parsing with it cost a fix more than all its other work together (0.24
and 0.12 s of ~0.9 s for the 1.8.8 `agent_activity.py`). The text says unambiguously what
LibCST's tree would hold where statements stand on lines of their own and comments sit at
the indentation of the code they precede; there the edits are made here. Anything else (a
`;`, a one-line suite, a tab, a form feed, a backslash continuation in moved code, an
expression that may have brackets of its own, an edit that needs LibCST nodes) raises NeedsTree, and the fixer gives the pass to the LibCST
editor. tests/test_textedit.py holds the two editors to the same output.

How LibCST lays out what moves, and so what this does:
- a statement owns the blank and comment lines above it (its "leading lines");
- re-indenting code shifts every line that starts with the indentation of the block it
  belongs to, and leaves the others (a comment at column 0, the inside of a string) as
  they are;
- inserted code takes the file's indentation unit and line ending."""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from rtlint.core.fixplan import CannotFix
from rtlint.core.source import split_lines
from rtlint.fix.editlog import EditLog, NeedsTree, blank_lines_between
from rtlint.fix.textlayout import Regions, default_indent, line_kinds, reindent

_COMPOUND = (
    ast.FunctionDef,
    ast.AsyncFunctionDef,
    ast.ClassDef,
    ast.If,
    ast.For,
    ast.AsyncFor,
    ast.While,
    ast.With,
    ast.AsyncWith,
    ast.Try,
    *((ast.TryStar,) if hasattr(ast, "TryStar") else ()),
    ast.Match,
)
_ENDING = re.compile(r"\r\n|\r|\n")


@dataclass(frozen=True)
class TextStatement:
    """Code a fix inserts, as the rule wrote it (4-space levels, "\\n" line endings)."""

    code: str

    def __getattr__(self, name: str) -> Any:  # a LibCST node's API: not here
        if name.startswith("__"):
            raise AttributeError(name)
        raise NeedsTree(f"a LibCST statement ({name})")


@dataclass(eq=False)
class _Block:
    statements: list[ast.stmt]
    owner: ast.AST  # the Module, the compound statement, or the handler / case
    depth: int


@dataclass(eq=False)
class TextLocated:
    block: _Block | None  # None for an `elif`, which has no block of its own
    index: int
    stmt: ast.stmt
    depth: int

    def __getattr__(self, name: str) -> Any:  # `.node`, `.line`, `.chain`: LibCST's
        if name.startswith("__"):
            raise AttributeError(name)
        raise NeedsTree(f"a LibCST location ({name})")


class TextEditor(EditLog):
    textual = True

    def __init__(self, text: str, tree: ast.Module) -> None:
        super().__init__()
        if "\f" in text or "\t" in text and re.search(r"^[ ]*\t", text, re.M):
            raise NeedsTree("tabs or form feeds")
        if "\r" in text and re.search(r"\r(?!\n)", text):
            raise NeedsTree("a lone carriage return")
        self.tree = tree
        self.lines = split_lines(text)
        found = _ENDING.search(text)
        self.newline = found.group() if found else "\n"
        self.unit = default_indent(text)
        self._blocks: dict[int, _Block] = {}
        self._nodes: dict[int, TextLocated] = {}

    # -- what only LibCST has ------------------------------------------------------------
    def require_tree(self) -> None:
        raise NeedsTree("the fix edits LibCST nodes")

    @property
    def module(self) -> Any:
        raise NeedsTree("a LibCST module")

    def expression(self, code: str) -> Any:
        raise NeedsTree("a LibCST expression")

    def code(self, node: Any) -> str:
        raise NeedsTree("LibCST code")

    def replace(self, located: Any, change: Callable[[Any], Any]) -> None:
        raise NeedsTree("a change of LibCST nodes")

    def statement(self, code: str) -> TextStatement:
        return TextStatement(code)

    # -- where ---------------------------------------------------------------------------
    def locate(self, path: Sequence[tuple[Any, ...]]) -> TextLocated:
        node: ast.AST = self.tree
        located: TextLocated | None = None
        depth = 0
        for step in path:
            field, index = step[0], step[-1]
            owner = node
            if field in ("handlers", "cases"):
                owner = getattr(node, field)[step[1]]
                statements = owner.body
            else:
                statements = getattr(node, field)
            depth += 1
            stmt = statements[index]
            if (
                field == "orelse"
                and isinstance(node, ast.If)
                and len(statements) == 1
                and isinstance(stmt, ast.If)
                and self._is_elif(stmt)
            ):
                located = TextLocated(None, 0, stmt, depth)
            else:
                block = self._blocks.setdefault(id(statements), _Block(statements, owner, depth))
                located = TextLocated(block, index, stmt, depth)
            node = stmt
        if located is None:
            raise KeyError("empty path")
        self._nodes[id(located.stmt)] = located
        return located

    def _is_elif(self, stmt: ast.If) -> bool:
        return self.lines[stmt.lineno - 1][stmt.col_offset :].startswith("elif")

    # -- edits ---------------------------------------------------------------------------
    def _block_op(self, located: TextLocated, start: int, stop: int, op: Any, same_as: str | None = None) -> None:
        if located.block is None:
            raise CannotFix("the statement is an elif branch")
        if start == stop and op[0] in ("insert", "moved"):
            for _, other_start, other_stop, other in self._block_ops.get(id(located.block.statements), ()):
                if other_start == other_stop == start and "moved" in (op[0], other[0]):
                    # LibCST takes a moved statement as an insertion of its code, which an
                    # insertion of the same code elsewhere joins instead of conflicting
                    raise NeedsTree("a statement moved where another is inserted")
        self._record_block_op(id(located.block.statements), start, stop, op, same_as, ())

    def insert_before(self, located: TextLocated, statements: Sequence[TextStatement]) -> None:
        code = "".join(s.code for s in statements)
        self._block_op(located, located.index, located.index, ("insert", list(statements)), same_as=code)

    def insert_after(self, located: TextLocated, statements: Sequence[TextStatement]) -> None:
        at = located.index + 1
        code = "".join(s.code for s in statements)
        self._block_op(located, at, at, ("insert", list(statements)), same_as=code)

    def insert_import(self, located: TextLocated, after: bool, code: str) -> None:
        """As the LibCST editor's: before an import, the new one takes over its leading lines."""
        if after:
            self.insert_after(located, [TextStatement(code)])
            return
        block = located.block
        if block is None:
            raise CannotFix("the statement is an elif branch")
        start, first = self._boundary(block, located.index), self._first_line(located.stmt)
        lead = "".join(self.lines[start:first])
        stmt = located.stmt
        target_code = (
            "".join(self.lines[first : self._end(stmt)]) if isinstance(stmt, (ast.Import, ast.ImportFrom)) else ""
        )
        blank = blank_lines_between(
            code, target_code, isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
        )
        if blank and (located.index, located.index, lead + code) in self._inserts.get(id(block.statements), ()):
            # the same line is inserted there already (after the statement before): LibCST
            # still gives this statement the blank lines, which here go with the insertion
            raise NeedsTree("an import inserted twice at one place")
        self._block_op(
            located, located.index, located.index, ("insert", [TextStatement(code)], lead, blank), same_as=lead + code
        )
        self._record_edit(id(stmt), ("lead", None), ())  # (what LibCST records: keeps other fixes off it)

    def remove(self, located: TextLocated) -> None:
        self._block_op(located, located.index, located.index + 1, ("remove",))

    def move_before(self, target: TextLocated, *located: TextLocated) -> None:
        """Move the statements at `located` (in that order) to just before `target`, each
        with the comments above it (not the blank lines)."""
        if target.block is None or any(one.block is None for one in located):
            raise CannotFix("the statement is an elif branch")
        moved = []
        for one in located:
            assert one.block is not None
            start, first = self._boundary(one.block, one.index), self._first_line(one.stmt)
            comments = [line for line in self.lines[start:first] if line.strip()]
            end = self._end(one.stmt)
            moved.append((comments, self.lines[first:end], self._indent_of(one.stmt), (first, end), one.depth))
            self.remove(one)
        self._block_op(target, target.index, target.index, ("moved", moved))

    def wrap(
        self, first: TextLocated, last: TextLocated, header: str, flatten: Callable[[Any], bool] = lambda node: False
    ) -> None:
        """Put the statements from `first` through `last` (one block) under `header:`. An
        `async with` among them might have to be lifted (`flatten` judges LibCST nodes): that
        is left to the LibCST editor."""
        if first.block is not last.block:
            raise CannotFix("the statements are not in one block")
        if first.block is None:
            raise CannotFix("the statement is an elif branch")
        if any(isinstance(s, ast.AsyncWith) for s in first.block.statements[first.index : last.index + 1]):
            raise NeedsTree("an `async with` that may have to be lifted")
        self._block_op(first, first.index, last.index + 1, ("wrap", header))

    def replace_segments(self, located: TextLocated, segments: Sequence[tuple[ast.AST, str]]) -> None:
        """Replace the code of each expression node inside the located statement by new code."""
        self.replace_spans(
            located, [(*self.position(node, "start"), *self.position(node, "end"), new) for node, new in segments]
        )

    def replace_spans(self, located: TextLocated, spans: Sequence[tuple[int, int, int, int, str]]) -> None:
        """Replace text inside the located statement: (row, column, end row, end column, new
        code), 0-based rows, columns in characters."""
        if located.block is None:
            raise NeedsTree("an elif branch")
        self._check_block(located.block)  # the statement has its lines to itself
        self._record_edit(id(located.stmt), ("spans", list(spans)), ())

    def position(self, node: ast.AST, which: str) -> tuple[int, int]:
        """(0-based row, column in characters) of a node's start or end (`ast` counts bytes)."""
        row, column = (node.lineno, node.col_offset) if which == "start" else (node.end_lineno, node.end_col_offset)
        line = self.lines[row - 1]
        return row - 1, column if line.isascii() else len(line.encode()[:column].decode())

    def segment(self, node: ast.AST) -> str:
        (row, column), (end_row, end_column) = self.position(node, "start"), self.position(node, "end")
        if row == end_row:
            return self.lines[row][column:end_column]
        return self.lines[row][column:] + "".join(self.lines[row + 1 : end_row]) + self.lines[end_row][:end_column]

    # -- geometry --------------------------------------------------------------------------
    def _first_line(self, stmt: ast.stmt) -> int:
        """0-based first line of a statement (its decorators), which must start its line."""
        decorators = getattr(stmt, "decorator_list", None)
        line, column = (
            (decorators[0].lineno, decorators[0].col_offset - 1) if decorators else (stmt.lineno, stmt.col_offset)
        )
        text = self.lines[line - 1]
        if column < 0 or text[:column].strip() or len(text) - len(text.lstrip(" ")) != column:
            raise NeedsTree("a statement that does not start its line")
        return line - 1

    def _end(self, stmt: ast.stmt) -> int:
        """0-based line after the statement's last (a compound statement: of its last part)."""
        return stmt.end_lineno or stmt.lineno

    def _indent_of(self, stmt: ast.stmt) -> str:
        line = self.lines[self._first_line(stmt)]
        return line[: len(line) - len(line.lstrip(" "))]

    def _check_block(self, block: _Block) -> None:
        statements = block.statements
        for before, after in zip(statements, statements[1:]):
            if (before.end_lineno or before.lineno) >= after.lineno:
                raise NeedsTree("statements that share a line")
        self._first_line(statements[0])  # not a one-line suite

    def _boundary(self, block: _Block, index: int) -> int:
        """0-based line where entry `index` of the block begins, its leading lines included
        (index == len: the line after the block's last statement)."""
        self._check_block(block)
        statements = block.statements
        if index == len(statements):
            last = statements[-1]
            end = self._end(last)
            if isinstance(last, _COMPOUND):
                self._no_footer(end, self._indent_of(last))
            return end
        if index > 0:
            previous = statements[index - 1]
            end = self._end(previous)
            if isinstance(previous, _COMPOUND):
                self._no_footer(end, self._indent_of(statements[index]))
            self._plain_gap(end, self._first_line(statements[index]))
            return end
        first = self._first_line(statements[0])
        if isinstance(block.owner, ast.Module):
            if first:  # what LibCST counts as the module's header and what as leading lines
                raise NeedsTree("the start of the module (its header comments)")
            return 0
        header = first - 1
        while header >= 0 and (not self.lines[header].strip() or self.lines[header].lstrip().startswith("#")):
            header -= 1
        self._plain_gap(header + 1, first)
        return header + 1

    def _plain_gap(self, start: int, stop: int) -> None:
        for line in self.lines[start:stop]:
            if not line.strip() and line.strip("\r\n"):
                raise NeedsTree("a line of white space")

    def _no_footer(self, start: int, indent: str) -> None:
        """LibCST gives a block the comments after it that are indented deeper than what
        follows (its footer); where there are any, the LibCST editor decides."""
        for line in self.lines[start:]:
            stripped = line.strip()
            if stripped and not stripped.startswith("#"):
                return
            if not stripped and line.strip("\r\n"):
                raise NeedsTree("a line of white space")
            if stripped and len(line) - len(line.lstrip(" ")) > len(indent):
                raise NeedsTree("comments after a block, indented into it")

    # -- applying ---------------------------------------------------------------------------
    def rendered(self, fit: Callable[[str, str], str] | None = None) -> str:
        """The text with every edit made (`fit(new, old)` may rewrite each changed region)."""
        self._moved_untouched()
        regions = Regions(self.lines)
        work: list[tuple[float, str, int]] = []
        for key, ops in self._block_ops.items():
            if ops:
                work.append((self._blocks[key].depth, "block", key))
        for key, changes in self._edits.items():
            if changes:
                work.append((self._nodes[key].depth + 0.5, "node", key))
        for _, kind, key in sorted(work, key=lambda w: -w[0]):
            if kind == "block":
                self._apply_block(regions, self._blocks[key])
            else:
                self._apply_node(regions, self._nodes[key])
        last = len(self.lines)
        if self.lines and not self.lines[-1].endswith(("\n", "\r")) and any(b == last for _, b, _ in regions.done):
            # the last line has no line ending: LibCST's splice adds one or drops one,
            # depending on the edit
            raise NeedsTree("an edit at the end of a file without a final line ending")
        return regions.text(fit)

    def _moved_untouched(self) -> None:
        """A moved statement is taken as it was: no other edit may be inside it."""
        moved = [
            one[3:] for ops in self._block_ops.values() for _, _, _, op in ops if op[0] == "moved" for one in op[1]
        ]
        if not moved:
            return
        for key, ops in self._block_ops.items():
            block = self._blocks[key]
            line = block.statements[0].lineno - 1
            if ops and any(first <= line < end and block.depth > depth for (first, end), depth in moved):
                raise NeedsTree("a moved statement that another edit changes")
        for key, changes in self._edits.items():
            line = self._nodes[key].stmt.lineno - 1
            if changes and any(first <= line < end for (first, end), _ in moved):
                raise NeedsTree("a moved statement that another edit changes")

    def _apply_node(self, regions: Regions, located: TextLocated) -> None:
        edits = [value for _, value in self._edits[id(located.stmt)]]
        spans = [span for kind, value in edits if kind == "spans" for span in value]
        first, end = self._first_line(located.stmt), self._end(located.stmt)
        if spans:
            # the whole statement is the region, as LibCST's splice of a replaced node; edits
            # inside its blocks (made first) must lie after the lines the spans change
            text = regions.current(first, end)
            lines, original = split_lines(text), self.lines[first:end]
            same = next((i for i, (a, b) in enumerate(zip(lines, original)) if a != b), min(len(lines), len(original)))
            if text != "".join(original) and max(end_row for _, _, end_row, _, _ in spans) - first >= same:
                raise NeedsTree("a change of lines another edit changed")
            starts = [0]
            for line in lines:
                starts.append(starts[-1] + len(line))
            offsets = sorted(
                ((starts[r - first] + c, starts[er - first] + ec, new) for r, c, er, ec, new in spans), reverse=True
            )
            following = len(text)
            for a, b, new in offsets:  # from the end, so that earlier offsets stay valid
                if b > following:
                    raise NeedsTree("edits of one statement that overlap")
                text = text[:a] + new + text[b:]
                following = a
            regions.put(first, end, text)
        if any(kind == "lead" for kind, _ in edits):
            # its leading lines went above the import inserted before it; the region is the
            # whole statement, as LibCST's splice of a replaced node (the line-length fit
            # sees the edits inside it in one diff)
            assert located.block is not None
            start = self._boundary(located.block, located.index)
            regions.put(start, end, regions.current(first, end))

    def _apply_block(self, regions: Regions, block: _Block) -> None:
        ops = sorted(
            ((start, stop, op) for _, start, stop, op in self._block_ops[id(block.statements)]),
            key=lambda o: (o[0], o[1]),
        )
        statements = block.statements
        indent = self._indent_of(statements[0])
        left = (
            len(statements) - sum(stop - start for start, stop, _ in ops) + sum(op[0] != "remove" for _, _, op in ops)
        )
        if left <= 0:
            raise NeedsTree("a block emptied (LibCST puts `pass` there)")
        # a region per edit, as LibCST's splice has one per changed range of the block: the
        # line-length fit (`fit(new, old)`) breaks what a region's diff shows as new, so a
        # moved statement must be an insertion of its own, not a reordering inside one region
        for start, stop, op in ops:
            text = self._op_text(regions, block, start, stop, op, indent)
            regions.put(self._boundary(block, start), self._boundary(block, stop), text)

    def _op_text(self, regions: Regions, block: _Block, start: int, stop: int, op: tuple, indent: str) -> str:
        kind = op[0]
        if kind == "remove":
            return ""
        if kind == "insert":
            lead, blank = (op[2], op[3]) if len(op) > 2 else ("", 0)
            return lead + "".join(self._inserted(s.code, indent) for s in op[1]) + self.newline * blank
        if kind == "moved":
            return "".join(reindent("".join(comments + code), old, indent) for comments, code, old, _, _ in op[1])
        # wrap
        header = op[1]
        first = self._first_line(block.statements[start])
        lead_start = self._boundary(block, start)
        lead = regions.current(lead_start, first)
        body = regions.current(first, self._boundary(block, stop))
        return lead + indent + header + ":" + self.newline + reindent(body, indent, indent + self.unit)

    def _inserted(self, code: str, indent: str) -> str:
        """Code a rule wrote, at `indent`, as LibCST renders a parsed statement: each block
        level in the file's indentation unit, bracketed continuations keep the spaces after
        their statement's indentation, every line ends with the file's line ending."""
        lines = code.splitlines()
        kinds = line_kinds(code, len(lines))
        out = []
        for line, (kind, own) in zip(lines, kinds):
            if kind == "verbatim":
                out.append(line + self.newline)
                continue
            if kind != "code" or not line.strip() or len(own) % 4 or not line.startswith(own):
                raise NeedsTree("inserted code that is not plain statements")
            out.append(indent + self.unit * (len(own) // 4) + line[len(own) :] + self.newline)
        return "".join(out)


__all__ = ["NeedsTree", "TextEditor", "TextLocated", "TextStatement", "default_indent"]
