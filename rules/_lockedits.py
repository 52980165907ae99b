"""The edits a `LockPlan` records on the fixer's editor. Wrapping the region, the lock in
`__init__` and the import are plain statement edits, which the text editor makes too; a
lock at class or module level and `__slots__` edit LibCST nodes (`require_tree`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rtlint.core.fixplan import CannotFix

if TYPE_CHECKING:
    import libcst as cst

    from rtlint.fix.cstedit import Editor

    from ._lockfix import LockPlan


def apply_lock_plan(plan: LockPlan, editor: Editor) -> None:
    if plan.create_at_class is not None or plan.slots is not None or plan.create_at_module is not None:
        editor.require_tree()
    first, last = editor.locate(plan.first), editor.locate(plan.last)
    editor.wrap(first, last, f"async with {plan.lock_expression}", flatten=lambda node: _same_lock(node, plan, editor))
    if plan.create_in_init_after is not None:
        self_name = plan.lock_expression.split(".", 1)[0]
        statement = editor.statement(f"{self_name}.{plan.lock} = {plan.lock_factory}\n")
        editor.insert_after(editor.locate(plan.create_in_init_after), [statement])
    elif plan.create_at_class is not None:
        _create_at_class(plan, editor)
    if plan.slots is not None:
        editor.replace(editor.locate(plan.slots), lambda line: _add_slot(line, plan.lock))
    if plan.import_at is not None:
        path, after = plan.import_at
        editor.insert_import(editor.locate(path), after, "import asyncio\n")
    if plan.create_at_module is not None:
        path, after = plan.create_at_module
        import libcst as cst

        statement = editor.statement(f"{plan.lock} = {plan.lock_factory}\n")
        statement = statement.with_changes(leading_lines=[cst.EmptyLine(indent=False)])
        (editor.insert_after if after else editor.insert_before)(editor.locate(path), [statement])


def _same_lock(node: Any, plan: LockPlan, editor: Editor) -> bool:
    """An `async with` of the plan's lock (by any of the names the check resolved), alone,
    `as _` or with an unused name: its body is lifted into the new block."""
    import libcst as cst

    if not (isinstance(node, cst.With) and node.asynchronous is not None and len(node.items) == 1):
        return False
    item = node.items[0]
    if editor.code(item.item).strip() not in plan.flatten:
        return False
    if item.asname is None:
        return True
    name = item.asname.name
    return isinstance(name, cst.Name) and not _mentions(node.body, name.value)


def _mentions(node: Any, name: str) -> bool:
    """Whether `name` is used anywhere in `node`. (A visitor, not libcst.matchers: importing
    the matchers costs a fix ~0.35 s.)"""
    import libcst as cst

    class NameFinder(cst.CSTVisitor):
        found = False

        def visit_Name(self, node: cst.Name) -> bool:
            self.found = self.found or node.value == name
            return False

    finder = NameFinder()
    node.visit(finder)
    return finder.found


def _create_at_class(plan: LockPlan, editor: Editor) -> None:
    import libcst as cst

    from rtlint.fix.cstedit import Located

    owner = editor.locate(plan.create_at_class).node
    block = owner.body
    if not isinstance(block, cst.IndentedBlock) or not block.body:
        raise CannotFix("the class body is on one line")
    entry = block.body[0]
    statement = editor.statement(f"{plan.lock} = {plan.lock_factory}\n")
    editor.insert_before(Located(block, 0, entry, entry, False, (block,)), [statement])
    if not entry.leading_lines and isinstance(entry, (cst.FunctionDef, cst.ClassDef)):
        # a blank line between the lock and the first method, as pycodestyle wants
        editor.replace(
            Located(block, 0, entry, entry, False, (block, entry)),
            lambda n: n.with_changes(leading_lines=[cst.EmptyLine(indent=False)]),
        )


def _add_slot(line: Any, name: str) -> Any:
    """`__slots__ = ("a", "b")` -> `__slots__ = ("a", "b", "<name>")`."""
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
