"""Edits shared by the rules' fixes, made through the fixer's editor: on the text where the
text says unambiguously what changes, else as a local LibCST rewrite of the one statement.

test.visit(or_into(editor, "flag", "flag_abandoned", negated=False))   # (flag or flag_abandoned)
removal_code("ctx", "remove", [("msg", False)], "contextlib.suppress", "ValueError")  # [statement code, ...]
drop_keyword(editor, located, call, "exclude_function_call")  # f(a=1, b=2) -> f(a=1)
"""

from __future__ import annotations

import ast
from collections.abc import Collection
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import libcst as cst

    from rtlint.fix.editor import Editor


class Untextual(Exception):
    """The text alone does not say where the edit goes (brackets, a comment, a name found
    more than once): the helper rewrites the statement with LibCST instead."""


def squash(code: str) -> str:
    """Code without white space, to compare an `ast` segment with LibCST's text of a node."""
    return "".join(code.split())


def removal_code(
    target: str, method: str, names: list[tuple[str, bool]], suppress: str, errors: str, unset: Collection[str] = ()
) -> list[str]:
    """Statements that remove each name from `target` with `method` (each element, for a
    name that holds a list: `(name, True)`), where it is, ignoring `errors` (`suppress` is
    the spelling of `contextlib.suppress`). A name of `unset` may still be None (it was bound
    to None before the code that sets it): it is removed only when it is set."""

    def remove(name: str, listed: bool) -> list[str]:
        if listed:
            return [
                f"for _rtlint_item in {name}:",
                f"    with {suppress}({errors}):",
                f"        {target}.{method}(_rtlint_item)",
            ]
        return [f"with {suppress}({errors}):", f"    {target}.{method}({name})"]

    def code(lines: list[str]) -> str:
        return "".join(line + "\n" for line in lines)

    statements = []
    plain = [name for name, listed in names if not listed and name not in unset]
    if plain:  # one `with` for the names that are always set
        statements.append(code([f"with {suppress}({errors}):", *(f"    {target}.{method}({n})" for n in plain)]))
    for name, listed in names:
        if name in unset:
            statements.append(code([f"if {name} is not None:", *(f"    {line}" for line in remove(name, listed))]))
        elif listed:
            statements.append(code(remove(name, listed)))
    return statements


def widen_guard(editor: Editor, located, expression: str, flag: str, negated: bool) -> None:
    """OR `flag` into the guard's test wherever `expression` (squashed code) is used there:
    `(e or flag)`, or `(not e or flag)` where `negated` and the `e` is under a `not`."""
    try:
        segments = _guard_segments(editor, located, expression, flag, negated)
    except Untextual:
        editor.rewrite(
            located,
            lambda updated: updated.with_changes(test=updated.test.visit(or_into(editor, expression, flag, negated))),
        )
        return
    editor.replace_segments(located, segments)


def _guard_segments(editor: Editor, located, expression: str, flag: str, negated: bool) -> list[tuple[ast.AST, str]]:
    import re

    if not re.fullmatch(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*", expression):
        raise Untextual("a guard expression other than a name")

    def matches(node: ast.AST) -> bool:
        if not isinstance(node, (ast.Name, ast.Attribute)) or squash(editor.segment(node)) != expression:
            return False
        if not isinstance(node.ctx, ast.Load) or node.lineno != node.end_lineno:
            raise Untextual("a guard expression that is not a plain use")
        if may_have_brackets(editor, node):  # LibCST's code of `(e)` has the brackets
            raise Untextual("a guard expression in brackets")
        return True

    segments = []
    for node in ast.walk(located.stmt.test):
        if negated and isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not) and matches(node.operand):
            segments.append((node, f"(not {editor.segment(node.operand)} or {flag})"))
        elif not negated and matches(node):
            segments.append((node, f"({editor.segment(node)} or {flag})"))
    return segments


def may_have_brackets(
    editor: Editor, node: ast.AST, statement: ast.stmt | None = None, call: ast.Call | None = None
) -> bool:
    """Whether the node's code may have brackets of its own (in LibCST's tree they belong to
    it; the `ast` position leaves them out): a `(` right before it and a `)` right after, or
    where the line's edge hides what is there. A node that begins its statement has none,
    nor an argument right after its call's own `(`."""
    (row, column), (end_row, end_column) = editor.position(node, "start"), editor.position(node, "end")
    if statement is not None and editor.position(statement, "start") == (row, column):
        return False
    before, after = editor.lines[row][:column].rstrip(), editor.lines[end_row][end_column:].strip()
    if not before:
        return True
    if call is not None and (row, len(before) - 1) == call_opening(editor, call):
        return False
    return before.endswith("(") and (not after or after.startswith(")"))


def call_opening(editor: Editor, call: ast.Call) -> tuple[int, int] | None:
    """Where the call's `(` is, when it is on the line its callee ends on."""
    row, column = editor.position(call.func, "end")
    rest = editor.lines[row][column:]
    gap = len(rest) - len(rest.lstrip(" "))
    return (row, column + gap) if rest[gap:].startswith("(") else None


def or_into(editor: Editor, expression: str, flag: str, negated: bool) -> cst.CSTTransformer:
    """A LibCST transformer that ORs `flag` into every expression whose code is `expression`
    (squashed): `(e or flag)`, or `(not e or flag)` where `negated` and the `e` is under a
    `not`."""
    import libcst as cst

    class OrInto(cst.CSTTransformer):
        def _matches(self, node) -> bool:
            return squash(editor.code(node)) == expression

        def on_leave(self, original, updated):
            result = super().on_leave(original, updated)
            if negated:
                if (
                    isinstance(original, cst.UnaryOperation)
                    and isinstance(original.operator, cst.Not)
                    and self._matches(original.expression)
                ):
                    return editor.expression(f"(not {editor.code(original.expression).strip()} or {flag})")
            elif isinstance(original, cst.BaseExpression) and self._matches(original):
                return editor.expression(f"({editor.code(original).strip()} or {flag})")
            return result

        # a keyword's name and an attribute's name are not uses of the expression
        def leave_Arg(self, original, updated):
            return updated.with_changes(keyword=original.keyword)

        def leave_Attribute(self, original, updated):
            return updated.with_changes(attr=original.attr)

    return OrInto()


def drop_keyword(editor: Editor, located, call: ast.Call, name: str) -> None:
    """Take the keyword argument `name=...` out of `call` (an `ast` node of the located
    statement) with the comma that joins it to its neighbours: its own lines where it has
    them, else the text up to the next argument (or from the one before it); a call left
    without arguments is written `f()`. A comment or a backslash in what goes makes it a
    LibCST rewrite of the statement."""
    try:
        editor.replace_spans(located, [_keyword_span(editor, call, name)])
        return
    except Untextual:
        pass
    import libcst as cst

    from rtlint.core.fixplan import CannotFix

    class DropKeyword(cst.CSTTransformer):
        done = 0

        def leave_Call(self, original, updated):
            args = list(updated.args)
            at = next((i for i, a in enumerate(args) if a.keyword is not None and a.keyword.value == name), None)
            if at is None:
                return updated
            self.done += 1
            removed = args.pop(at)
            if not args:
                return updated.with_changes(args=[], whitespace_before_args=cst.SimpleWhitespace(""))
            if at == len(args):  # the last argument: the one before it takes its comma and line end
                args[-1] = args[-1].with_changes(comma=removed.comma, whitespace_after_arg=removed.whitespace_after_arg)
            return updated.with_changes(args=args)

    def change(statement):
        transformer = DropKeyword()
        result = statement.visit(transformer)
        if transformer.done != 1:
            raise CannotFix(f"`{name}=` is no longer in one call of the statement")
        return result

    editor.rewrite(located, change)


def _keyword_span(editor: Editor, call: ast.Call, name: str) -> tuple[int, int, int, int, str]:
    """drop_keyword's text to delete, as (row, column, end row, end column, "")."""
    arguments = sorted([*call.args, *call.keywords], key=lambda a: (a.lineno, a.col_offset))
    keyword = next(k for k in call.keywords if k.arg == name)
    at = arguments.index(keyword)
    (row, column), (end_row, end_column) = editor.position(keyword, "start"), editor.position(keyword, "end")
    before, after = editor.lines[row][:column], editor.lines[end_row][end_column:]
    if len(arguments) == 1:
        opening = call_opening(editor, call)
        if opening is None:
            raise Untextual("a call whose bracket is on another line")
        close_row, close_column = editor.position(call, "end")
        span = (opening[0], opening[1] + 1, close_row, close_column - 1)
    elif not before.strip() and after.strip() in (",", ""):
        span = (row, 0, end_row + 1, 0)  # the keyword's lines, its comma and line end
    elif at + 1 < len(arguments):
        span = (row, column, *editor.position(arguments[at + 1], "start"))
    else:
        span = (*editor.position(arguments[at - 1], "end"), end_row, end_column)
    first, start, last, stop = span
    removed = "".join(editor.lines[first : last + 1])[start : len("".join(editor.lines[first:last])) + stop]
    if "#" in removed or "\\" in removed:
        raise Untextual("a comment or a backslash in the arguments")
    return (*span, "")
