"""The fixer's editor: a fix's edits made on the text, addressed by the statement paths of
the `ast` tree, applied together, and rendered as replacements of line ranges (ruff's model:
a fix is byte-range edits; fixes whose edits overlap wait for the next pass; the result is
re-linted). LibCST is used in one place only, `rewrite`: where a fix changes a statement's
expressions as a tree (a `__slots__` tuple, an expression found by its code), that one
statement is cut out, parsed alone, transformed, rendered, and put back as one range edit.

The layout rules, rtlint's own:
- a statement owns the blank and comment lines directly above it (its "leading lines"),
  except the comments at the start of the module up to its last blank line (the header:
  a shebang, a licence), and the comments after a compound statement that are indented
  deeper than what follows it (they stay with the block they close);
- a removed statement goes with its leading lines (the first statements of a block, with the
  blank lines after them too); a block left empty gets `pass`, except an `else:` or a
  `finally:` (beside handlers), which is dropped with its header line;
- a moved statement takes its comments along (not its blank lines); re-indenting code
  shifts every line that starts with the indentation of the code moved (statements,
  bracketed or backslash continuations, comments), and leaves the others (a comment at
  column 0, the inside of a string, a blank line) as they are;
- wrapping statements under a header (`async with lock:`) keeps the first statement's
  leading lines above the header; an inner `async with` of the same lock (`flatten`) is
  replaced by its body, its leading lines kept;
- an import inserted before another takes over that import's leading lines, and the blank
  lines between them follow isort's sections (rtlint.fix.imports);
- inserted code takes the file's indentation unit (its first indentation, else four spaces)
  and line ending; a file without a final line ending keeps none.
What these rules cannot say (statements sharing a line with `;`, a one-line suite, a form
feed in the indentation of a line the edit rewrites) is a CannotFix with its reason, never a
guess; a form feed elsewhere in the file stays as it was."""

from __future__ import annotations

import ast
import dataclasses
import functools
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from rtlint.core.findings import Edit
from rtlint.core.fixplan import CannotFix
from rtlint.core.source import split_lines
from rtlint.fix.editlog import EditLog
from rtlint.fix.edits import diff_edits
from rtlint.fix.imports import blank_lines_between
from rtlint.fix.layout import Regions, default_indent, line_kinds, reindent

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
_TRY = (ast.Try, *((ast.TryStar,) if hasattr(ast, "TryStar") else ()))
_ENDING = re.compile(r"\r\n|\r|\n")
_BLANKS = " \t"
_COOKIE = re.compile(r"^[ \t\f]*#.*?coding[:=]")
_NEAR = 3  # Editor.edits: regions at most this many lines apart are diffed together


def _leading(line: str) -> str:
    return line[: len(line) - len(line.lstrip())]


def _indentation(line: str) -> str:
    return line[: len(line) - len(line.lstrip(_BLANKS))]


@dataclass(frozen=True)
class Statement:
    """Code a fix inserts, as the rule wrote it (4-space levels, "\\n" line endings; blank
    lines first for blank lines above it)."""

    code: str


@dataclass(eq=False)
class _Block:
    statements: list[ast.stmt]
    owner: ast.AST  # the Module, the compound statement, or the handler / case
    depth: int


@dataclass(eq=False)
class Located:
    block: _Block | None  # None for an `elif`, which has no block of its own
    index: int
    stmt: ast.stmt
    depth: int


class Original:
    """What the editors of one text and its `ast` tree share, computed once for the text:
    its lines, line ending and indentation unit, and which blocks can be edited. JSON and
    SARIF build one editor per finding's fix on the same text, so what is per file is paid
    once, and each fix costs what it edits (issue 25, item 8). Nothing here is changed by
    an editor."""

    def __init__(self, text: str, tree: ast.Module) -> None:
        self.text, self.tree = text, tree
        self.lines = split_lines(text)
        found = _ENDING.search(text)
        self.newline = found.group() if found else "\n"
        # a last line without its line ending gets one while editing, and loses it at the end
        self.unterminated = bool(self.lines) and not self.lines[-1].endswith(("\n", "\r"))
        if self.unterminated:
            self.lines[-1] += self.newline
        self.unit = default_indent(text)
        # lines of code or comment whose indentation holds a form feed (the tokenizer resets
        # its column there): an edit that rewrites one cannot say what its indentation is; a
        # blank line with one is only a blank line
        self.form_feeds = frozenset(
            row for row, line in enumerate(self.lines) if line.strip() and "\f" in _leading(line)
        )
        # id(a block's statement list) -> why its statements cannot be edited, or None; the
        # lists are the tree's, which this object keeps alive
        self.checked: dict[int, str | None] = {}


class Editor(EditLog):
    def __init__(self, text: str, tree: ast.Module, original: Original | None = None) -> None:
        super().__init__()
        if original is None or original.tree is not tree or original.text is not text:
            original = Original(text, tree)
        self._original = original
        self.tree = tree
        self.lines = original.lines
        self.newline = original.newline
        self._unterminated = original.unterminated
        self.unit = original.unit
        self._form_feeds = original.form_feeds
        self._blocks: dict[int, _Block] = {}
        self._nodes: dict[int, Located] = {}
        self._local: Any = None  # the LibCST module of the statement being rewritten

    # -- the tree of one statement, inside `rewrite` ------------------------------------
    @property
    def module(self) -> Any:
        """The LibCST module of the statement a `rewrite` change is transforming."""
        if self._local is None:
            raise RuntimeError("LibCST nodes exist only inside a rewrite's change")
        return self._local

    def code(self, node: Any) -> str:
        return self.module.code_for_node(node)

    def expression(self, code: str) -> Any:
        import libcst as cst

        return cst.parse_expression(code, config=self.module.config_for_parsing)

    def statement(self, code: str) -> Statement:
        return Statement(code)

    # -- where ---------------------------------------------------------------------------
    def locate(self, path: Sequence[tuple[Any, ...]]) -> Located:
        node: ast.AST = self.tree
        located: Located | None = None
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
                located = Located(None, 0, stmt, depth)
            else:
                located = Located(self._block(statements, owner, depth), index, stmt, depth)
            node = stmt
        if located is None:
            raise KeyError("empty path")
        self._nodes[id(located.stmt)] = located
        return located

    def _block(self, statements: list[ast.stmt], owner: ast.AST, depth: int) -> _Block:
        return self._blocks.setdefault(id(statements), _Block(statements, owner, depth))

    def _is_elif(self, stmt: ast.If) -> bool:
        return self.lines[stmt.lineno - 1][stmt.col_offset :].startswith("elif")

    # -- edits ---------------------------------------------------------------------------
    def _block_op(self, located: Located, start: int, stop: int, op: Any, same_as: str | None = None) -> None:
        if located.block is None:
            raise CannotFix("the statement is an elif branch")
        self._check_block(located.block)
        if start == stop and op[0] in ("insert", "moved"):
            for _, other_start, other_stop, other in self._block_ops.get(id(located.block.statements), ()):
                if other_start == other_stop == start and "moved" in (op[0], other[0]):
                    raise CannotFix("a statement moved where another is inserted")
        self._record_block_op(id(located.block.statements), start, stop, op, same_as)

    def insert_before(self, located: Located, statements: Sequence[Statement]) -> None:
        code = "".join(s.code for s in statements)
        self._block_op(located, located.index, located.index, ("insert", list(statements)), same_as=code)

    def insert_after(self, located: Located, statements: Sequence[Statement]) -> None:
        at = located.index + 1
        code = "".join(s.code for s in statements)
        self._block_op(located, at, at, ("insert", list(statements)), same_as=code)

    def insert_import(self, located: Located, after: bool, code: str) -> None:
        """An import line before or after another import; inserted before, it takes over
        the blank lines and comments above that import, so the group keeps its separation."""
        if after:
            self.insert_after(located, [Statement(code)])
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
            raise CannotFix("the import is inserted at this place already")
        self._block_op(
            located, located.index, located.index, ("insert", [Statement(code)], lead, blank), same_as=lead + code
        )
        self._record_edit(id(stmt), ("lead", None))  # keeps other fixes off the statement

    def remove(self, located: Located) -> None:
        self._block_op(located, located.index, located.index + 1, ("remove",))

    def move_before(self, target: Located, *located: Located) -> None:
        """Move the statements at `located` (in that order) to just before `target`, each
        with the comments above it (not the blank lines)."""
        if target.block is None or any(one.block is None for one in located):
            raise CannotFix("the statement is an elif branch")
        moved = []
        for one in located:
            assert one.block is not None
            self._check_block(one.block)
            start, first = self._boundary(one.block, one.index), self._first_line(one.stmt)
            comments = [line for line in self.lines[start:first] if line.strip()]
            end = self._end(one.stmt)
            moved.append((comments, self.lines[first:end], self._indent_of(one.stmt), (first, end), one.depth))
            self.remove(one)
        self._block_op(target, target.index, target.index, ("moved", moved))

    def wrap(
        self, first: Located, last: Located, header: str, flatten: Callable[[ast.stmt], bool] = lambda node: False
    ) -> None:
        """Put the statements from `first` through `last` (one block) under `header:`. A
        statement for which `flatten` is true (an `async with` of the same lock) is
        replaced by its body."""
        if first.block is not last.block:
            raise CannotFix("the statements are not in one block")
        if first.block is None:
            raise CannotFix("the statement is an elif branch")
        lifted = []
        for stmt in first.block.statements[first.index : last.index + 1]:
            if isinstance(stmt, (ast.With, ast.AsyncWith)) and flatten(stmt):
                inner = self._block(stmt.body, stmt, first.depth + 1)
                self._check_block(inner)
                lifted.append(id(stmt))
        self._block_op(first, first.index, last.index + 1, ("wrap", header, frozenset(lifted)))

    def rewrite(self, located: Located, change: Callable[[Any], Any]) -> None:
        """Replace the located statement by `change(its LibCST node)`: the statement is cut
        out of the text (with the edits inside it made), parsed alone, changed, rendered at
        its indentation and put back. Inside `change`, `code`, `expression` and `module`
        are those of the statement's own tree."""
        if located.block is None:
            raise CannotFix("the statement is an elif branch")
        self._check_block(located.block)
        self._record_edit(id(located.stmt), ("rewrite", change))

    def replace_segments(self, located: Located, segments: Sequence[tuple[ast.AST, str]]) -> None:
        """Replace the code of each expression node inside the located statement by new code."""
        self.replace_spans(
            located, [(*self.position(node, "start"), *self.position(node, "end"), new) for node, new in segments]
        )

    def replace_spans(self, located: Located, spans: Sequence[tuple[int, int, int, int, str]]) -> None:
        """Replace text inside the located statement: (row, column, end row, end column, new
        code), 0-based rows, columns in characters."""
        if located.block is None:
            raise CannotFix("the statement is an elif branch")
        self._check_block(located.block)  # the statement has its lines to itself
        self._record_edit(id(located.stmt), ("spans", list(spans)))

    def leading_lines(self, located: Located) -> str:
        """The blank and comment lines above the located statement that belong to it."""
        if located.block is None:
            return ""
        return "".join(self.lines[self._boundary(located.block, located.index) : self._first_line(located.stmt)])

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
        if line - 1 in self._form_feeds:
            raise CannotFix("a form feed in the indentation of a line the fix edits")
        text = self.lines[line - 1]
        if column < 0 or text[:column].strip() or len(_indentation(text)) != column:
            raise CannotFix("the statement shares its line with others")
        return line - 1

    def _end(self, stmt: ast.stmt) -> int:
        """0-based line after the statement's last (a compound statement: of its last part)."""
        return stmt.end_lineno or stmt.lineno

    def _indent_of(self, stmt: ast.stmt) -> str:
        return _indentation(self.lines[self._first_line(stmt)])

    def _check_block(self, block: _Block) -> None:
        """CannotFix unless every statement of the block has its lines to itself (once per
        block of the text: a big module's block is not walked again for every fix)."""
        checked = self._original.checked
        key = id(block.statements)
        if key not in checked:
            try:
                self._check_block_once(block)
                checked[key] = None
            except CannotFix as exc:
                checked[key] = str(exc)
        why = checked[key]
        if why is not None:
            raise CannotFix(why)

    def _check_block_once(self, block: _Block) -> None:
        statements = block.statements
        for before, after in zip(statements, statements[1:]):
            if (before.end_lineno or before.lineno) >= after.lineno:
                raise CannotFix("statements share a line (`;`)")
        self._first_line(statements[0])  # not a one-line suite

    def _boundary(self, block: _Block, index: int) -> int:
        """0-based line where entry `index` of the block begins, its leading lines included
        (index == len: the line after the block's last statement and its footer)."""
        self._check_block(block)
        statements = block.statements
        if index == len(statements):
            last = statements[-1]
            end = self._end(last)
            return self._after_footer(end, self._indent_of(last)) if isinstance(last, _COMPOUND) else end
        if index > 0:
            previous = statements[index - 1]
            end = self._end(previous)
            if isinstance(previous, _COMPOUND):
                end = self._after_footer(end, self._indent_of(statements[index]))
            return end
        first = self._first_line(statements[0])
        if isinstance(block.owner, ast.Module):
            return self._header_end(first)
        header = first - 1
        while header >= 0 and (not self.lines[header].strip() or self.lines[header].lstrip().startswith("#")):
            header -= 1
        return header + 1

    def _header_end(self, first: int) -> int:
        """The line after the module's header: the comment lines at its start up to the last
        blank line before its first statement (a shebang or coding line always)."""
        end = 0
        for row in range(first):
            if not self.lines[row].strip():
                end = row + 1
        if not end:
            while end < first and (self.lines[end].startswith("#!") or _COOKIE.match(self.lines[end])):
                end += 1
        return end

    def _after_footer(self, start: int, indent: str) -> int:
        """The line after the comments that follow a block and are indented deeper than
        `indent` (what comes after it): they close the block and stay with it."""
        end = start
        for row in range(start, len(self.lines)):
            line = self.lines[row]
            stripped = line.strip()
            if stripped and not stripped.startswith("#"):
                break
            if stripped and len(_indentation(line)) > len(indent):
                end = row + 1
            elif stripped:
                break
        return end

    # -- applying ---------------------------------------------------------------------------
    def rendered(self, fit: Callable[[str, str], str] | None = None) -> str:
        """The text with every edit made (`fit(new, old)` may rewrite each changed region).
        Raises CannotFix when the edits cannot be made together."""
        text = self._regions().text(fit)
        if self._unterminated and text.endswith(self.newline):
            text = text[: -len(self.newline)]
        return text

    def edits(self, fit: Callable[[str, str], str] | None = None) -> tuple[Edit, ...]:
        """The whole-line edits turning the text into `rendered(fit)`, the same ones
        diff_edits(text, rendered(fit)) gives, computed from the regions the edits changed:
        the work is that of the regions, not of the file. Raises CannotFix as `rendered`."""
        regions = self._regions()
        changed = []
        for a, b, new in regions.done:
            old = "".join(self.lines[a:b])
            if new != old:
                changed.append([a, b, fit(new, old) if fit is not None else new])
        # regions that touch, or are a few lines apart, are diffed as one (with the lines
        # between them): a statement moved past its neighbour is then said the way a diff
        # of the whole file says it
        windows: list[list] = []
        for a, b, new in changed:
            if windows and a - windows[-1][1] <= _NEAR:
                windows[-1][1:] = [b, windows[-1][2] + "".join(self.lines[windows[-1][1] : a]) + new]
            else:
                windows.append([a, b, new])
        last = len(self.lines)
        if self._unterminated and windows and windows[-1][1] == last:
            # the result loses the line ending the last line got for editing: the last
            # window reaches back to the line that ends the result (a window it meets joins)
            end = windows.pop()
            while end[0] > 0 and (end[0] == last or not end[2]):
                if windows and windows[-1][1] == end[0]:
                    end = [windows[-1][0], end[1], windows.pop()[2] + end[2]]
                else:
                    end = [end[0] - 1, end[1], self.lines[end[0] - 1] + end[2]]
            windows.append(end)
        out: list[Edit] = []
        for a, b, new in windows:
            old = "".join(self.lines[a:b])
            if self._unterminated and b == last:
                old = old[: -len(self.newline)]
                if new.endswith(self.newline):
                    new = new[: -len(self.newline)]
            out.extend(dataclasses.replace(e, line=e.line + a, end_line=e.end_line + a) for e in diff_edits(old, new))
        return tuple(out)

    def _regions(self) -> Regions:
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
        for start, stop, new in regions.done:
            if new != "".join(self.lines[start:stop]) and self._form_feeds.intersection(range(start, stop)):
                raise CannotFix("a form feed in the indentation of a line the fix edits")
        return regions

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
                raise CannotFix("a moved statement that another edit changes")
        for key, changes in self._edits.items():
            line = self._nodes[key].stmt.lineno - 1
            if changes and any(first <= line < end for (first, end), _ in moved):
                raise CannotFix("a moved statement that another edit changes")

    def _apply_node(self, regions: Regions, located: Located) -> None:
        edits = [value for _, value in self._edits[id(located.stmt)]]
        spans = [span for kind, value in edits if kind == "spans" for span in value]
        rewrites = [value for kind, value in edits if kind == "rewrite"]
        first, end = self._first_line(located.stmt), self._end(located.stmt)
        if spans:
            # the whole statement is the region; edits inside its blocks (made first) must
            # lie after the lines the spans change
            text = regions.current(first, end)
            lines, original = split_lines(text), self.lines[first:end]
            same = next((i for i, (a, b) in enumerate(zip(lines, original)) if a != b), min(len(lines), len(original)))
            if text != "".join(original) and max(end_row for _, _, end_row, _, _ in spans) - first >= same:
                raise CannotFix("a change of lines another edit changed")
            starts = [0]
            for line in lines:
                starts.append(starts[-1] + len(line))
            offsets = sorted(
                ((starts[r - first] + c, starts[er - first] + ec, new) for r, c, er, ec, new in spans), reverse=True
            )
            following = len(text)
            for a, b, new in offsets:  # from the end, so that earlier offsets stay valid
                if b > following:
                    raise CannotFix("edits of one statement that overlap")
                text = text[:a] + new + text[b:]
                following = a
            regions.put(first, end, text)
        if rewrites:
            text = regions.current(first, end)
            for change in rewrites:
                text = self._rewritten(text, self._indent_of(located.stmt), change)
            regions.put(first, end, text)
        if any(kind == "lead" for kind, _ in edits):
            # its leading lines went above the import inserted before it
            assert located.block is not None
            start = self._boundary(located.block, located.index)
            regions.put(start, end, regions.current(first, end))

    def _rewritten(self, text: str, indent: str, change: Callable[[Any], Any]) -> str:
        """`text` (one statement at `indent`) parsed alone by LibCST, changed and rendered
        back at its indentation; the lines the change left keep their bytes."""
        from rtlint.core.parsing import parse_cst
        from rtlint.fix.edits import apply_edits

        lines = split_lines(text)
        dedented = "".join(line[len(indent) :] if line.startswith(indent) else line for line in lines)
        module = parse_cst(dedented)
        if len(module.body) != 1:
            raise CannotFix("the statement is not one statement of its own")
        self._local = module
        try:
            new = module.with_changes(body=[change(module.body[0])]).code
        finally:
            self._local = None
        ending = _ENDING.search(dedented[-2:])
        if ending and dedented.endswith(ending.group()) and not new.endswith(("\n", "\r")):
            new += ending.group()  # LibCST drops a lone "\r" that ends the module it prints
        # the lines the change did not touch keep their bytes; the others take the indentation
        edits = [
            dataclasses.replace(
                e, content="".join(indent + line if line.strip() else line for line in split_lines(e.content))
            )
            for e in diff_edits(dedented, new)
        ]
        return apply_edits(text, edits)

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
            self._emptied(regions, block, indent)
            return
        # a region per edit, so that the line-length fit (`fit(new, old)`) sees each one
        for start, stop, op in ops:
            text = self._op_text(regions, block, start, stop, op, indent)
            end = self._boundary(block, stop)
            if op[0] == "remove" and start == 0 and stop < len(statements) and all(o[0] != stop for o in ops):
                # the block's first statements removed: the blank lines after them go too (the
                # next statement starts the block, or the module after its header)
                while (
                    end < len(self.lines) and not self.lines[end].strip() and end < self._first_line(statements[stop])
                ):
                    end += 1
            regions.put(self._boundary(block, start), end, text)

    def _emptied(self, regions: Regions, block: _Block, indent: str) -> None:
        """Every statement of the block removed: an `else:` (or a `finally:` beside handlers)
        goes with its header line; a module is left empty; any other block keeps a `pass`."""
        start, stop = self._boundary(block, 0), self._boundary(block, len(block.statements))
        owner, statements = block.owner, block.statements
        droppable = statements is getattr(owner, "orelse", None) and isinstance(
            owner, (*_TRY, ast.For, ast.AsyncFor, ast.While, ast.If)
        )
        droppable = droppable or isinstance(owner, _TRY) and statements is owner.finalbody and bool(owner.handlers)
        if isinstance(owner, ast.Module):
            regions.put(start, stop, "")
            return
        header = start - 1
        if droppable and header >= 0 and self.lines[header].lstrip().startswith(("else", "finally")):
            regions.put(header, stop, "")
            return
        regions.put(start, stop, indent + "pass" + self.newline)

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
        header, lifted = op[1], op[2]
        pieces = [self._piece(regions, block, index, indent, lifted) for index in range(start, stop)]
        lead = pieces[0][0]
        body = pieces[0][1] + "".join(lead + code for lead, code in pieces[1:])
        return lead + indent + header + ":" + self.newline + reindent(body, indent, indent + self.unit)

    def _piece(self, regions: Regions, block: _Block, index: int, indent: str, lifted: frozenset) -> tuple[str, str]:
        """(leading lines, code) of statement `index` of a wrapped range, its text with the
        edits inside it; an `async with` to lift gives its body at its own indentation."""
        stmt = block.statements[index]
        start, first, stop = self._boundary(block, index), self._first_line(stmt), self._boundary(block, index + 1)
        lead = regions.current(start, first)
        if id(stmt) not in lifted:
            return lead, regions.current(first, stop)
        inner = self._blocks[id(stmt.body)]
        inner_start, inner_first = self._boundary(inner, 0), self._first_line(stmt.body[0])
        inner_indent = self._indent_of(stmt.body[0])
        lead += reindent(regions.current(inner_start, inner_first), inner_indent, indent)
        return lead, reindent(regions.current(inner_first, stop), inner_indent, indent)

    def _inserted(self, code: str, indent: str) -> str:
        """Code a rule wrote, at `indent`: each block level in the file's indentation unit,
        bracketed continuations keep the spaces after their statement's indentation, blank
        lines stay empty, every line ends with the file's line ending."""
        lines = code.splitlines()
        kinds = _code_kinds(code, len(lines))
        out = []
        for line, (kind, own) in zip(lines, kinds):
            if kind == "verbatim" or not line.strip():
                out.append((line if kind == "verbatim" else "") + self.newline)
                continue
            if kind != "code" or len(own) % 4 or not line.startswith(own):
                raise CannotFix("inserted code that is not plain statements")
            out.append(indent + self.unit * (len(own) // 4) + line[len(own) :] + self.newline)
        return "".join(out)


@functools.lru_cache(maxsize=64)
def _code_kinds(code: str, count: int) -> tuple[tuple[str, object], ...]:
    """line_kinds of code a rule wrote: a rule writes the same lines for many findings (the
    lock of every class of a file), and tokenizing them again was a twentieth of a JSON
    report's time on a file of fixable findings."""
    return tuple(line_kinds(code, count))


__all__ = ["Editor", "Located", "Original", "Statement", "default_indent"]
