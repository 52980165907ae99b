"""The lock fix shared by RTL001 and RTL004: put a region of statements under
`async with self.<push lock>:`, creating the lock (and `import asyncio`) where missing.

The plan is made at detection time on the `ast` tree, asking the one lock model whether
holding the lock there would take it twice, and carried out on the LibCST tree by statement
paths (`LockPlan.apply`), following the fix-plan protocol of `rtlint.core.fixplan`.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from rtlint.core.findings import Applicability
from rtlint.fix.imports import get_or_import, module_anchor

from ._analysis.index import Function, walk_function
from ._analysis.locks import is_lock_factory
from ._analysis.paths import StatementPath, block_run
from ._frameworks.livekit import Module, lock_takers, push_lock

if TYPE_CHECKING:
    from rtlint.fix.editor import Editor


@dataclass(frozen=True)
class LockPlan:
    applicability: Applicability | None  # None when no fix is sound
    reason: str  # why the fix is unsafe or impossible ("" when safe)
    lock: str  # the lock attribute (or module-level name)
    lock_expression: str  # e.g. "self._rt_chat_ctx_lock"
    first: StatementPath
    last: StatementPath
    flatten: frozenset[str] = frozenset()  # `async with` headers of the lock to lift, not nest
    create_in_init_after: StatementPath | None = None  # statement of __init__ to add the lock after
    create_at_class: StatementPath | None = None  # class body to add a class-level lock to
    create_at_module: tuple[StatementPath, bool] | None = None  # (anchor, after)
    lock_factory: str = "asyncio.Lock()"
    import_at: tuple[StatementPath, bool] | None = None  # where `import asyncio` goes
    slots: StatementPath | None = None  # a `__slots__` literal to add the lock to
    reasons: tuple[str, ...] = field(default=(), compare=False)

    def apply(self, editor: Editor) -> None:
        from ._lockedits import apply_lock_plan

        apply_lock_plan(self, editor)


def plan(module: Module, function: Function, first: StatementPath, last: StatementPath) -> LockPlan:
    """How to hold the push lock over the statements from `first` through `last`."""
    cls, self_name = function.cls, function.self_name
    lock = push_lock(module, cls) or module.vocabulary.push_lock
    has_class = cls is not None and self_name is not None
    expression = f"{self_name}.{lock}" if has_class else lock
    statements = block_run(module.file.tree, first, last)
    takers = lock_takers(module, cls, lock) if cls is not None else set()
    never = module.locks.reentry(function, statements, lock, takers)
    unsafe = [
        f"the region yields at line {node.lineno} while holding the lock"
        for stmt in statements
        for node in [stmt, *walk_function(stmt)]
        if isinstance(node, (ast.Yield, ast.YieldFrom))
    ]
    creation, more = _creation(module, function, lock)
    unsafe += more
    flatten = frozenset(
        module.file.segment(s.items[0].context_expr)
        for s in statements
        if module.locks.flattenable(s, expression, function)
    )
    if never:
        applicability, reason = None, "; ".join(dict.fromkeys(never))
    elif unsafe:
        applicability, reason = "unsafe", "; ".join(dict.fromkeys(unsafe))
    else:
        applicability, reason = "safe", ""
    return LockPlan(applicability, reason, lock, expression, first, last, flatten | {expression}, **creation)


def _creation(module: Module, function: Function, lock: str) -> tuple[dict[str, Any], list[str]]:
    """Where the lock must be created (none when it exists) and why that is unsafe."""
    cls = function.cls
    unsafe: list[str] = []
    where: dict[str, Any] = {}
    if cls is None or function.self_name is None:
        unsafe.append(
            "there is no class to hold the lock: a module-level lock serializes every session, and "
            "before Python 3.10 it is bound to the event loop of its first use"
        )
        if not _module_has_lock(module, lock):
            where["create_at_module"] = module_anchor(module.file.tree)
    elif lock not in module.locks.lock_attributes(cls) and push_lock(module, cls) != lock:
        init = module.index.init_of(cls)
        if init is not None and init.body:
            where["create_in_init_after"] = module.path(_lock_anchor(init))
        else:
            unsafe.append(
                f"{cls.node.name} has no __init__, so the lock would be a class attribute shared by "
                "every instance (and before Python 3.10 bound to the event loop of its first use)"
            )
            where["create_at_class"] = module.path(cls.node)
        slots = _slots(module, cls.node)
        if slots == ():
            unsafe.append(f"{cls.node.name} declares __slots__ that rtlint cannot extend with {lock}")
        elif slots is not None:
            where["slots"] = slots
    if where.keys() & {"create_in_init_after", "create_at_class", "create_at_module"}:
        # once per module: a file with many sessions asks for every one
        factory, import_at = module.file.memo(
            ("rules._lockfix.factory", None), lambda: get_or_import(module.file.tree, "asyncio", "Lock")
        )
        where["lock_factory"] = factory + "()"
        if import_at is not None:
            where["import_at"] = import_at
    return where, unsafe


def _slots(module: Module, cls: ast.ClassDef) -> StatementPath | tuple[()] | None:
    """The `__slots__ = (...)` of the class to add the lock to; () when there is one rtlint
    cannot edit (not a literal of strings); None when there is none."""
    for stmt in cls.body:
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
        isinstance(stmt, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in stmt.targets)
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
