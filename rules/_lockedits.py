"""The edits a `LockPlan` records on the fixer's editor: the region wrapped in `async with`
(an inner `async with` of the same lock lifted), the lock created in `__init__`, at class
or module level, the import, and the lock's name added to `__slots__` (a local rewrite of
that one statement)."""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rtlint.fix.editor import Editor

    from ._lockfix import LockPlan


def apply_lock_plan(plan: LockPlan, editor: Editor) -> None:
    first, last = editor.locate(plan.first), editor.locate(plan.last)
    editor.wrap(first, last, f"async with {plan.lock_expression}", flatten=lambda stmt: _same_lock(stmt, plan, editor))
    creation = editor.statement(f"{plan.lock} = {plan.lock_factory}\n")
    if plan.create_in_init_after is not None:
        self_name = plan.lock_expression.split(".", 1)[0]
        statement = editor.statement(f"{self_name}.{plan.lock} = {plan.lock_factory}\n")
        editor.insert_after(editor.locate(plan.create_in_init_after), [statement])
    elif plan.create_at_class is not None:
        entry = editor.locate((*plan.create_at_class, ("body", 0)))
        definition = isinstance(entry.stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
        if definition and not editor.leading_lines(entry):  # a blank line before the first method (pycodestyle)
            creation = editor.statement(creation.code + "\n")
        editor.insert_before(entry, [creation])
    if plan.slots is not None:
        editor.rewrite(editor.locate(plan.slots), lambda line: _add_slot(line, plan.lock))
    if plan.import_at is not None:
        path, after = plan.import_at
        editor.insert_import(editor.locate(path), after, "import asyncio\n")
    if plan.create_at_module is not None:
        path, after = plan.create_at_module
        statement = editor.statement("\n" + creation.code)  # a blank line above it
        (editor.insert_after if after else editor.insert_before)(editor.locate(path), [statement])


def _same_lock(stmt: ast.stmt, plan: LockPlan, editor: Editor) -> bool:
    """An `async with` of the plan's lock (by any of the names the check resolved), alone,
    `as _` or with a name its body never mentions: its body is lifted into the new block."""
    if not (isinstance(stmt, ast.AsyncWith) and len(stmt.items) == 1):
        return False
    item = stmt.items[0]
    if editor.segment(item.context_expr).strip() not in plan.flatten:
        return False
    name = item.optional_vars
    if name is None:
        return True
    return isinstance(name, ast.Name) and not any(
        name.id in (getattr(node, "id", None), getattr(node, "attr", None), getattr(node, "arg", None))
        for child in stmt.body
        for node in ast.walk(child)
    )


def _add_slot(line: Any, name: str) -> Any:
    """`__slots__ = ("a", "b")` -> `__slots__ = ("a", "b", "<name>")` (LibCST nodes)."""
    import libcst as cst

    assign = line.body[0]
    value = assign.value
    elements = list(value.elements)
    new = cst.Element(cst.SimpleString(f'"{name}"'))
    if elements:
        last = elements[-1]
        if last.comma is not cst.MaybeSentinel.DEFAULT and last.comma is not None:
            new = new.with_changes(comma=last.comma)  # a trailing comma: keep its layout
        elements[-1] = last.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
    elements.append(new)
    if isinstance(value, cst.Tuple) and len(elements) == 1:
        elements[0] = elements[0].with_changes(comma=cst.Comma())
    return line.with_changes(body=[assign.with_changes(value=value.with_changes(elements=elements))])
