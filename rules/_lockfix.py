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

from ._realtime import Function, Module, _awaited_calls, dotted, import_anchor, is_lock_factory, module_anchor, walk_function


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
    import_at: tuple[StatementPath, bool]  # where `import asyncio` goes, and whether after it
    slots: StatementPath | None  # a `__slots__` literal to add the lock to
    module_anchor: tuple[StatementPath, bool]  # where a module-level lock goes


def safety_note(plan: LockPlan) -> str:
    """What a finding's message adds when its fix is unsafe or impossible, and why."""
    if plan.applicability == "safe":
        return ""
    state = "fix is unsafe" if plan.applicability == "unsafe" else "not fixable"
    return f" ({state}: {plan.reason})"


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


def _block_statements(module: Module, first: StatementPath, last: StatementPath) -> list[ast.stmt]:
    parent = first[:-1]
    step = first[-1]
    return [module.statement_at(parent + (step[:-1] + (i,),)) for i in range(step[-1], last[-1][-1] + 1)]


def flattenable(stmt: ast.AST, lock_expression: str) -> bool:
    """An `async with <the lock>:` (alone, `as _` or an unused name) whose body can be lifted
    into the new block instead of taking the lock a second time."""
    if not isinstance(stmt, ast.AsyncWith) or len(stmt.items) != 1:
        return False
    item = stmt.items[0]
    if dotted(item.context_expr) != lock_expression:
        return False
    if item.optional_vars is None:
        return True
    if not isinstance(item.optional_vars, ast.Name):
        return False
    name = item.optional_vars.id
    return not any(isinstance(n, ast.Name) and n.id == name for s in stmt.body for n in ast.walk(s))


def _reentry(module: Module, function: Function, statements: list[ast.stmt], lock: str, lock_expression: str) -> list[str]:
    """Why holding the lock over `statements` would deadlock (asyncio locks are not re-entrant)."""
    cls, self_name = function.cls, function.self_name
    takers = cls.lock_takers.get(lock, set()) if cls is not None else set()
    if cls is not None and lock not in cls.lock_takers:
        takers = module._methods_taking(cls, lock)
    reasons: list[str] = []
    tasks: dict[str, tuple[str, int]] = {}  # name bound to a task that takes the lock
    for stmt in statements:
        top = [stmt] if not flattenable(stmt, lock_expression) else []
        for node in [*top, *walk_function(stmt)]:
            if isinstance(node, ast.AsyncWith) and node is not stmt or node is stmt and isinstance(node, ast.AsyncWith) and not flattenable(node, lock_expression):
                if any(dotted(item.context_expr) == lock_expression for item in node.items):
                    reasons.append(f"the region already takes {lock_expression} at line {node.lineno}")
            if not (cls is not None and self_name):
                continue
            if isinstance(node, ast.Await):
                for call in _awaited_calls(node):
                    func = call.func
                    if isinstance(func, ast.Attribute) and dotted(func.value) == self_name and func.attr in takers:
                        reasons.append(f"it awaits {self_name}.{func.attr}() at line {call.lineno}, which takes {lock_expression}")
                    for argument in call.args:
                        if isinstance(argument, ast.Name) and argument.id in tasks:
                            method, line = tasks[argument.id]
                            reasons.append(f"it awaits a task of {self_name}.{method}() (line {line}), which takes {lock_expression}")
                if isinstance(node.value, ast.Name) and node.value.id in tasks:
                    method, line = tasks[node.value.id]
                    reasons.append(f"it awaits a task of {self_name}.{method}() (line {line}), which takes {lock_expression}")
            elif isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                # `task = asyncio.create_task(self._m())`: awaiting it later waits for the lock
                for call in (n for n in ast.walk(node.value) if isinstance(n, ast.Call)):
                    func = call.func
                    if isinstance(func, ast.Attribute) and dotted(func.value) == self_name and func.attr in takers:
                        tasks[node.targets[0].id] = (func.attr, call.lineno)
    if cls is not None and self_name:
        method = _method_name(module, function)
        if method:
            for caller, line in module.callers_holding(cls, lock, method):
                reasons.append(f"{self_name}.{caller}() holds {lock_expression} when it calls {method}() (line {line})")
    return reasons


def _method_name(module: Module, function: Function) -> str | None:
    """The method of the class that `function` is, or is nested in."""
    current: Function | None = function
    while current is not None and current.outer is not None:
        current = current.outer
    return current.node.name if current is not None and current.cls is not None else None


def plan(module: Module, function: Function, first: StatementPath, last: StatementPath) -> LockPlan:
    cls = function.cls
    self_name = function.self_name
    lock = (cls.push_lock if cls else None) or module.push_lock_name
    statements = _block_statements(module, first, last)
    has_class = cls is not None and self_name is not None
    lock_expression = f"{self_name}.{lock}" if has_class else lock
    reasons_never = _reentry(module, function, statements, lock, lock_expression)
    reasons_unsafe: list[str] = []
    for stmt in statements:
        for node in [stmt, *walk_function(stmt)]:
            if isinstance(node, (ast.Yield, ast.YieldFrom)):
                reasons_unsafe.append(f"the region yields at line {node.lineno} while holding the lock")
    create_in = create_after = create_at_class = slots = None
    create_at_module = False
    if not has_class:
        reasons_unsafe.append(
            "there is no class to hold the lock: a module-level lock serializes every session, and "
            "before Python 3.10 it is bound to the event loop of its first use"
        )
        create_at_module = not _module_has_lock(module, lock)
    elif lock not in cls.lock_attributes and cls.push_lock != lock:
        init = module.init_of(cls)
        if init is not None and init.body:
            create_in = module.path(init)
            create_after = module.path(_lock_anchor(init))
        else:
            reasons_unsafe.append(
                f"{cls.node.name} has no __init__, so the lock would be a class attribute shared by "
                "every instance (and before Python 3.10 bound to the event loop of its first use)"
            )
            create_at_class = module.path(cls.node)
        slots = _slots(module, cls)
        if slots == ():
            reasons_unsafe.append(f"{cls.node.name} declares __slots__ that rtlint cannot extend with {lock}")
            slots = None
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
        create_at_class, create_at_module, factory, add_import, import_anchor(module, "asyncio"),
        slots, module_anchor(module),
    )


def _slots(module: Module, cls) -> StatementPath | tuple | None:
    """The `__slots__ = (...)` of the class to add the lock to; () when there is one rtlint
    cannot edit (not a literal of strings); None when there is none."""
    for stmt in cls.node.body:
        if isinstance(stmt, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__slots__" for t in stmt.targets):
            value = stmt.value
            if isinstance(value, (ast.Tuple, ast.List)) and all(
                isinstance(e, ast.Constant) and isinstance(e.value, str) for e in value.elts
            ):
                return module.path(stmt)
            return ()
    return None


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
    import libcst as cst

    first, last = editor.locate(plan.first), editor.locate(plan.last)
    header = f"async with {plan.lock_expression}"

    def same_lock(node: Any) -> bool:
        if not (isinstance(node, cst.With) and node.asynchronous is not None and len(node.items) == 1):
            return False
        item = node.items[0]
        if editor.code(item.item).strip() != plan.lock_expression:
            return False
        if item.asname is None:
            return True
        name = item.asname.name
        if not isinstance(name, cst.Name):
            return False
        import libcst.matchers as m

        return not m.findall(node.body, m.Name(value=name.value))

    editor.wrap(first, last, header, flatten=same_lock)
    if plan.create_in is not None:
        anchor = editor.locate(plan.create_after)
        self_name = plan.lock_expression.split(".", 1)[0]
        editor.insert_after(anchor, [editor.statement(f"{self_name}.{plan.lock} = {plan.lock_factory}\n")])
    elif plan.create_at_class is not None:
        owner = editor.locate(plan.create_at_class).node
        block = owner.body
        if not isinstance(block, cst.IndentedBlock) or not block.body:
            from rtlint.cstedit import CannotFix

            raise CannotFix("the class body is on one line")
        from rtlint.cstedit import Located

        entry = block.body[0]
        statement = editor.statement(f"{plan.lock} = {plan.lock_factory}\n")
        editor.insert_before(Located(block, 0, entry, entry, False, (block,)), [statement])
        if not entry.leading_lines and isinstance(entry, (cst.FunctionDef, cst.ClassDef)):
            # a blank line between the lock and the first method, as pycodestyle wants
            editor.replace(
                Located(block, 0, entry, entry, False, (block, entry)),
                lambda n: n.with_changes(leading_lines=[cst.EmptyLine(indent=False)]),
            )
    if plan.slots is not None:
        slots = editor.locate(plan.slots)
        editor.replace(slots, lambda line: _add_slot(line, plan.lock))
    if plan.add_import:
        path, after = plan.import_at
        editor.insert_import(editor.locate(path), after, "import asyncio\n")
    if plan.create_at_module:
        path, after = plan.module_anchor
        statement = editor.statement(f"{plan.lock} = {plan.lock_factory}\n")
        statement = statement.with_changes(leading_lines=[cst.EmptyLine(indent=False)])
        (editor.insert_after if after else editor.insert_before)(editor.locate(path), [statement])


def _add_slot(line: Any, name: str) -> Any:
    """`__slots__ = ("a", "b")` -> `__slots__ = ("a", "b", "<name>")`."""
    import libcst as cst

    assign = line.body[0]
    value = assign.value
    elements = list(value.elements)
    new = cst.Element(cst.SimpleString(f'"{name}"'))
    if elements:
        last = elements[-1]
        if last.comma is cst.MaybeSentinel.DEFAULT or last.comma is None:
            elements[-1] = last.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
        else:  # a trailing comma: keep its layout for the new element
            new = new.with_changes(comma=last.comma)
            elements[-1] = last.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
    elements.append(new)
    if isinstance(value, cst.Tuple) and len(elements) == 1:
        elements[0] = elements[0].with_changes(comma=cst.Comma())
    return line.with_changes(body=[assign.with_changes(value=value.with_changes(elements=elements))])
