"""What the application rules' fixes share: a plan (applicability, reason, edits), changing
one expression inside a statement (found by its source text: the `ast` and LibCST trees share
statement paths, not expression positions), and binding an expression statement to a name (fresh local
names: rules._analysis.flags)."""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from rtlint.core.astnodes import walk

from ._edits import Untextual, call_opening, may_have_brackets

if TYPE_CHECKING:
    from rtlint.fix.editor import Editor, Located


def cannot_fix(reason: str) -> Exception:
    from rtlint.core.fixplan import CannotFix

    return CannotFix(reason)


@dataclass
class Plan:
    """A fix plan (rtlint.core.fixplan's protocol): `applicability` "safe", "unsafe" or None
    (no sound fix, `reason` says why), and the steps that record its edits."""

    applicability: str | None
    reason: str = ""
    steps: list[Callable[[Editor], None]] = field(default_factory=list)

    def apply(self, editor: Editor) -> None:
        if self.applicability is None:
            raise cannot_fix(self.reason)
        for step in self.steps:
            step(editor)


def no_fix(reason: str) -> Plan:
    return Plan(None, reason)


def same_code_text(code: str) -> str:
    """Source text without surrounding parentheses or blanks, for comparing expressions."""
    text = code.strip()
    while text.startswith("(") and text.endswith(")"):
        try:  # stripped: a bracketed expression over several lines starts with a newline
            ast.parse(text[1:-1].strip(), mode="eval")
        except SyntaxError:
            break
        text = text[1:-1].strip()
    return " ".join(text.split())


def _replacer(module: Any, old: str, new: Callable[[Any], Any]) -> Any:
    import libcst as cst

    class ReplaceExpression(cst.CSTTransformer):
        done = False

        def on_visit(self, node: cst.CSTNode) -> bool:
            return not self.done

        def on_leave(self, original: cst.CSTNode, updated: cst.CSTNode) -> Any:
            if self.done or not isinstance(original, cst.BaseExpression):
                return updated
            if same_code_text(module.code_for_node(original)) == wanted:
                self.done = True
                return new(updated)
            return updated

    wanted = same_code_text(old)
    return ReplaceExpression()


def replace_in(editor: Editor, statement: Any, old: str, new: Callable[[Any], Any]) -> Any:
    """`statement` with its first expression whose text is `old` (innermost first, left to
    right) replaced by `new(that expression)`."""
    transformer = _replacer(editor.module, old, new)
    result = statement.visit(transformer)
    if not transformer.done:
        raise cannot_fix(f"`{old}` is no longer in the statement")
    return result


def replace_expression(
    editor: Editor, located: Located, old: str, new: Callable[[Any], Any], text: Callable[[ast.expr], str] | None = None
) -> None:
    """The expression `old` (source text) in the statement replaced: on the text by
    text(`ast` node), the code that replaces it; where the text is ambiguous, by a LibCST
    rewrite of the statement with new(LibCST node)."""
    try:
        node = _matching(editor, located.stmt, old)
        if text is None or may_have_brackets(editor, node, located.stmt):  # LibCST's node takes its brackets
            raise Untextual("an expression in brackets")
        code = text(node)
    except Untextual:
        editor.rewrite(located, lambda statement: replace_in(editor, statement, old, new))
        return
    editor.replace_segments(located, [(node, code)])


def write_push_argument(editor: Editor, located: Located, push: str, name: str) -> None:
    """The push call `push` (its source text) in the statement, its context argument
    replaced by `name` (when that was its only argument, written on one line)."""
    try:
        _write_push_argument(editor, located, push, name)
    except Untextual:
        editor.rewrite(located, lambda node: push_with_argument(editor, node, push, name))


def _write_push_argument(editor: Editor, located: Located, push: str, name: str) -> None:
    call = _matching(editor, located.stmt, push)
    if not isinstance(call, ast.Call) or not (call.args or call.keywords):
        raise cannot_fix("the push is no longer a call")
    ordered = sorted([*call.args, *call.keywords], key=lambda a: (a.lineno, a.col_offset))
    target = next((k for k in call.keywords if k.arg == "chat_ctx"), ordered[0])
    if isinstance(target, ast.Starred) or isinstance(target, ast.keyword) and target.arg is None:
        raise Untextual("an unpacked argument")
    value = target.value if isinstance(target, ast.keyword) else target
    if len(ordered) > 1:
        if may_have_brackets(editor, value):
            raise Untextual("an argument in brackets")
        editor.replace_segments(located, [(value, name)])
        return
    # the only argument: the call on one line, `push(name)` (its comments inside go too)
    opening = call_opening(editor, call)
    if opening is None:
        raise Untextual("a call whose bracket is on another line")
    row, column = opening
    keyword = ""
    if isinstance(target, ast.keyword):
        (key_row, key_column), (value_row, value_column) = (
            editor.position(target, "start"),
            editor.position(value, "start"),
        )
        if key_row != value_row:
            raise Untextual("a keyword argument over several lines")
        keyword = editor.lines[key_row][key_column:value_column]
    end_row, end_column = editor.position(call, "end")
    editor.replace_spans(located, [(row, column + 1, end_row, end_column - 1, keyword + name)])


def unbracketed_code(editor: Editor, node: ast.AST, call: ast.Call | None = None) -> str:
    """The source of an expression (an argument of `call`) that has no brackets of its own
    (else a LibCST rewrite decides)."""
    if may_have_brackets(editor, node, call=call):
        raise Untextual("an expression in brackets")
    return editor.segment(node)


def name_node(name: str) -> Any:
    """A LibCST Name (for a rewrite's side of a fix)."""
    import libcst as cst

    return cst.Name(name)


def _matching(editor: Editor, statement: ast.stmt, old: str) -> ast.expr:
    """The one expression of the statement whose source text is `old`, as replace_in finds
    it in LibCST's tree; anything LibCST might match otherwise goes to LibCST."""
    wanted = same_code_text(old)
    found = [n for n in walk(statement) if isinstance(n, ast.expr) and same_code_text(editor.segment(n)) == wanted]
    if len(found) != 1 or isinstance(found[0], ast.Name) and not isinstance(found[0].ctx, ast.Load):
        raise Untextual("an expression found other than once")
    if wanted.isidentifier():  # LibCST's tree has names where `ast` has strings: `x.old`, `f(old=1)`
        for node in walk(statement):
            if getattr(node, "attr", None) == wanted or isinstance(node, (ast.keyword, ast.arg)) and node.arg == wanted:
                raise Untextual("a name that is also an attribute or keyword")
    return found[0]


def push_with_argument(editor: Editor, statement: Any, push: str, name: str) -> Any:
    """The push call `push` (its source text) in `statement`, its context argument replaced
    by `name` and, when that was its only argument, written on one line."""

    import libcst as cst

    def change(call: Any) -> Any:
        if not isinstance(call, cst.Call) or not call.args:
            raise cannot_fix("the push is no longer a call")
        first = call.args[0]
        index = 0
        for i, arg in enumerate(call.args):
            if arg.keyword is not None and arg.keyword.value == "chat_ctx":
                first, index = arg, i
        args = list(call.args)
        args[index] = first.with_changes(value=cst.Name(name))
        if len(args) == 1:
            args[0] = args[0].with_changes(
                comma=cst.MaybeSentinel.DEFAULT, whitespace_after_arg=cst.SimpleWhitespace("")
            )
            return call.with_changes(args=args, whitespace_before_args=cst.SimpleWhitespace(""))
        return call.with_changes(args=args)

    return replace_in(editor, statement, push, change)


def bind_expression_statement(editor: Editor, located: Located, name: str) -> None:
    """`call(...)` as a statement becomes `name = call(...)` (comments kept)."""
    if not isinstance(located.stmt, ast.Expr):
        raise cannot_fix("the edit is not a statement of its own")
    row, column = editor.position(located.stmt, "start")
    editor.replace_spans(located, [(row, column, row, column, f"{name} = ")])


def dedent_continuation(text: str, by: int) -> str:
    """`text` (an expression's source, its first line already placed) with every further
    line moved `by` columns left, as far as it has blanks to lose."""
    lines = text.split("\n")
    out = [lines[0]]
    for line in lines[1:]:
        blanks = len(line) - len(line.lstrip(" "))
        out.append(line[min(by, blanks) :] if by > 0 else " " * -by + line)
    return "\n".join(out)
