"""The lock codemod shared by RTL001 and RTL004: put a region of statements under
`async with self.<push lock>:`, creating the lock (and `import asyncio`) where missing.

The plan is made at detection time on the `ast` tree (so the finding can say whether and
why the fix is unsafe) and carried out on the LibCST tree by statement paths.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Any

from typing import TYPE_CHECKING

from rtlint.context import StatementPath

if TYPE_CHECKING:
    from rtlint.cstedit import Editor

from ._realtime import Function, Module, _awaited_calls, dotted, is_lock_factory, module_anchor, walk_function


@dataclass(frozen=True)
class LockPlan:
    applicability: str | None  # "safe", "unsafe", or None when no fix is sound
    reason: str  # why the fix is unsafe or impossible ("" when safe)
    lock: str  # the lock attribute (or module-level name)
    lock_expression: str  # e.g. "self._rt_chat_ctx_lock"
    first: StatementPath
    last: StatementPath
    create_in: StatementPath | None  # __init__ to add the lock to
    create_after: StatementPath | None  # statement of __init__ to add it after
    create_at_class: StatementPath | None  # class body to add a class-level lock to
    create_at_module: bool
    lock_factory: str  # e.g. "asyncio.Lock()"
    add_import: bool
    module_anchor: tuple[StatementPath, bool]  # where module-level lines go, and whether after it


def region(a: StatementPath, b: StatementPath) -> tuple[StatementPath, StatementPath]:
    """The statements of one block that hold both `a` and `b`, as (first, last) paths."""
    k = 0
    while k < min(len(a), len(b)) and a[k] == b[k]:
        k += 1
    if k == len(a) or k == len(b):  # one statement holds the other
        enclosing = a[:k] if k == len(a) else b[:k]
        return enclosing, enclosing
    step_a, step_b = a[k], b[k]
    if step_a[:-1] == step_b[:-1]:  # same block: the statements between them
        lower, upper = sorted((a[: k + 1], b[: k + 1]), key=lambda path: path[-1][-1])
        return lower, upper
    return a[:k], a[:k]  # different branches of one compound statement: all of it


def _statement_at(module: Module, path: StatementPath) -> ast.stmt:
    node: Any = module.file.tree
    for step in path:
        field = step[0]
        if field == "handlers":
            node = node.handlers[step[1]].body[step[2]]
        elif field == "cases":
            node = node.cases[step[1]].body[step[2]]
        else:
            node = getattr(node, field)[step[1]]
    return node


def _block_statements(module: Module, first: StatementPath, last: StatementPath) -> list[ast.stmt]:
    parent = first[:-1]
    step = first[-1]
    return [_statement_at(module, parent + (step[:-1] + (i,),)) for i in range(step[-1], last[-1][-1] + 1)]


def plan(module: Module, function: Function, first: StatementPath, last: StatementPath) -> LockPlan:
    cls = function.cls
    self_name = function.self_name
    lock = (cls.push_lock if cls else None) or module.push_lock_name
    statements = _block_statements(module, first, last)
    reasons_never: list[str] = []
    reasons_unsafe: list[str] = []

    has_class = cls is not None and self_name is not None
    lock_expression = f"{self_name}.{lock}" if has_class else lock
    for stmt in statements:
        nodes = [stmt, *walk_function(stmt)] if not isinstance(stmt, ast.AsyncWith) else list(walk_function(stmt))
        for node in nodes:
            if isinstance(node, (ast.Yield, ast.YieldFrom)):
                reasons_unsafe.append(f"the region yields at line {node.lineno} while holding the lock")
            elif isinstance(node, ast.AsyncWith) and node is not stmt:
                if any(dotted(item.context_expr) == lock_expression for item in node.items):
                    reasons_never.append(f"the region already takes {lock_expression} at line {node.lineno}")
            elif isinstance(node, ast.Await) and has_class:
                for call in _awaited_calls(node):
                    func = call.func
                    if (
                        isinstance(func, ast.Attribute)
                        and dotted(func.value) == self_name
                        and func.attr in cls.lock_takers.get(lock, ())
                    ):
                        reasons_never.append(
                            f"the region calls {self_name}.{func.attr}() at line {call.lineno}, which takes "
                            f"{lock_expression} (asyncio locks are not re-entrant)"
                        )
    create_in = create_after = create_at_class = None
    create_at_module = False
    if not has_class:
        reasons_unsafe.append("there is no class to hold the lock (a module-level lock would serialize every session)")
        create_at_module = not _module_has_lock(module, lock)
    elif lock not in cls.lock_attributes and cls.push_lock != lock:
        init = cls.init
        if init is not None and init.body:
            create_in = module.path(init)
            create_after = module.path(_lock_anchor(init))
        else:
            reasons_unsafe.append(f"{cls.node.name} has no __init__, so the lock would be a class attribute")
            create_at_class = module.path(cls.node)
    needs_lock = create_in is not None or create_at_class is not None or create_at_module
    factory, add_import = _lock_factory(module) if needs_lock else ("", False)
    if reasons_never:
        applicability, reason = None, "; ".join(dict.fromkeys(reasons_never))
    elif reasons_unsafe:
        applicability, reason = "unsafe", "; ".join(dict.fromkeys(reasons_unsafe))
    else:
        applicability, reason = "safe", ""
    return LockPlan(
        applicability, reason, lock, lock_expression, first, last, create_in, create_after,
        create_at_class, create_at_module, factory, add_import, module_anchor(module),
    )


def _module_has_lock(module: Module, name: str) -> bool:
    return any(
        isinstance(stmt, ast.Assign) and any(dotted(t) == name for t in stmt.targets)
        for stmt in module.file.tree.body
    )


def _lock_anchor(init: ast.AST) -> ast.stmt:
    """The statement of __init__ to add the lock after: the last lock created there (next
    to the class's other locks), else the last statement."""
    anchor = None
    for stmt in init.body:
        if isinstance(stmt, (ast.Assign, ast.AnnAssign)) and is_lock_factory(stmt.value):
            anchor = stmt
    if anchor is not None:
        return anchor
    last = init.body[-1]
    if isinstance(last, ast.Return) and len(init.body) > 1:
        return init.body[-2]
    return last


def _lock_factory(module: Module) -> tuple[str, bool]:
    """How to write `asyncio.Lock()` in this module, and whether `import asyncio` is needed."""
    for stmt in module.file.tree.body:
        if isinstance(stmt, ast.Import):
            for alias in stmt.names:
                if alias.name == "asyncio":
                    return f"{alias.asname or 'asyncio'}.Lock()", False
        elif isinstance(stmt, ast.ImportFrom) and stmt.module == "asyncio" and stmt.level == 0:
            for alias in stmt.names:
                if alias.name == "Lock":
                    return f"{alias.asname or 'Lock'}()", False
    return "asyncio.Lock()", True


def apply(plan: LockPlan, editor: "Editor") -> None:
    """Record the plan's edits on `editor`."""
    first, last = editor.locate(plan.first), editor.locate(plan.last)
    header = f"async with {plan.lock_expression}"

    def same_lock(node: Any) -> bool:
        import libcst as cst

        return (
            isinstance(node, cst.With)
            and node.asynchronous is not None
            and len(node.items) == 1
            and node.items[0].asname is None
            and editor.code(node.items[0].item).strip() == plan.lock_expression
        )

    editor.wrap(first, last, header, flatten=same_lock)
    if plan.create_in is not None:
        anchor = editor.locate(plan.create_after)
        self_name = plan.lock_expression.split(".", 1)[0]
        editor.insert_after(anchor, [editor.statement(f"{self_name}.{plan.lock} = {plan.lock_factory}\n")])
    elif plan.create_at_class is not None:
        owner = editor.locate(plan.create_at_class).node
        block = getattr(owner, "body", None)
        if block is None or not getattr(block, "body", None) or not hasattr(block, "indent"):
            from rtlint.cstedit import CannotFix

            raise CannotFix("the class body is on one line")
        from rtlint.cstedit import Located

        entry = block.body[0]
        editor.insert_before(Located(block, 0, entry, entry, False), [editor.statement(f"{plan.lock} = {plan.lock_factory}\n")])
    lines = []
    if plan.add_import:
        lines.append("import asyncio\n")
    if plan.create_at_module:
        lines.append(f"{plan.lock} = {plan.lock_factory}\n")
    if lines:
        path, after = plan.module_anchor
        anchor = editor.locate(path)
        statements = [editor.statement(code) for code in lines]
        (editor.insert_after if after else editor.insert_before)(anchor, statements)
