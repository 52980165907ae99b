"""LibCST edits the application rules' fixes share: changing one expression inside a statement
(found by its source text, since the `ast` and LibCST trees share statement paths, not
expression positions), binding an expression statement to a name, and fresh local names."""

from __future__ import annotations

import ast
from typing import Any, Callable

import libcst as cst

from rtlint.cstedit import CannotFix, Editor, Located


def _bare(code: str) -> str:
    """Source text without surrounding parentheses or blanks, for comparing expressions."""
    text = code.strip()
    while text.startswith("(") and text.endswith(")"):
        try:
            ast.parse(text[1:-1], mode="eval")
        except SyntaxError:
            break
        text = text[1:-1].strip()
    return " ".join(text.split())


class _ReplaceExpression(cst.CSTTransformer):
    def __init__(self, module: cst.Module, old: str, new: Callable[[Any], cst.BaseExpression]) -> None:
        super().__init__()
        self.module = module
        self.old = _bare(old)
        self.new = new
        self.done = False

    def on_visit(self, node: cst.CSTNode) -> bool:
        return not self.done

    def on_leave(self, original: cst.CSTNode, updated: cst.CSTNode) -> Any:
        if self.done or not isinstance(original, cst.BaseExpression):
            return updated
        if _bare(self.module.code_for_node(original)) == self.old:
            self.done = True
            return self.new(updated)
        return updated


def replace_expression(editor: Editor, located: Located, old: str, new: Callable[[Any], cst.BaseExpression]) -> None:
    """In the located statement, replace the first expression whose text is `old` (innermost
    first, left to right) by `new(that expression)`."""

    def change(statement: Any) -> Any:
        transformer = _ReplaceExpression(editor.module, old, new)
        result = statement.visit(transformer)
        if not transformer.done:
            raise CannotFix(f"`{old}` is no longer in the statement")
        return result

    editor.replace(located, change)


def bind_expression_statement(editor: Editor, located: Located, name: str) -> None:
    """`call(...)` as a statement becomes `name = call(...)` (comments kept)."""

    def change(statement: Any) -> Any:
        small = statement.body[0] if isinstance(statement, cst.SimpleStatementLine) else statement
        if not isinstance(small, cst.Expr):
            raise CannotFix("the edit is not a statement of its own")
        assign = cst.Assign(targets=[cst.AssignTarget(cst.Name(name))], value=small.value)
        if isinstance(statement, cst.SimpleStatementLine):
            return statement.with_changes(body=[assign])
        return assign

    editor.replace(located, change)


def fresh_name(base: str, taken: set[str]) -> str:
    """`base`, or `base_2`, `base_3`, ... whichever the function does not use yet."""
    if base not in taken:
        return base
    index = 2
    while f"{base}_{index}" in taken:
        index += 1
    return f"{base}_{index}"


def names_in(node: ast.AST) -> set[str]:
    """Every identifier a function binds or reads (parameters included)."""
    found: set[str] = set()
    for child in ast.walk(node):
        if isinstance(child, ast.Name):
            found.add(child.id)
        elif isinstance(child, ast.arg):
            found.add(child.arg)
    return found
