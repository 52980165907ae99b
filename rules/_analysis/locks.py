"""One lock model: which `async with` holds which lock, which methods take a lock, which
callers hold it, and why taking it again would deadlock (asyncio locks are not re-entrant).

A lock is named by the dotted text of the expression that holds it, after resolving a
local read into a name first (`lock = self._x` ... `async with lock:` holds `self._x`).
An item is a lock when its last name says so ("lock", "mutex"), when the class assigns the
attribute a `Lock()`/`Semaphore()`/`Condition()` (or annotates it `Lock`), or when it is
one of the extra names the caller gives (a configured lock). Multi-item `async with a, b:`
and `as _` forms hold each of their locks.

    model = lock_model(file, extra_names=("_rt_chat_ctx_lock",))
    model.regions(node, function)                 # Region(stmt, item, lock), innermost first
    model.holds(node, function, "_lock")          # the region holding self._lock, or None
    model.serialized(a, b, function, "_lock")     # one region holding that lock around both
    model.methods_taking(cls, "_lock", seeds)     # methods that take it, through calls
    model.callers_holding(cls, "_lock", "m")      # (caller, line) holding it when reaching m
    model.reentry(function, statements, "_lock")  # why holding it over statements deadlocks
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rtlint.core.astnodes import walk

from .index import (
    ClassInfo,
    Function,
    FunctionNode,
    Index,
    annotation_names,
    awaited_calls,
    dotted,
    final_name,
    index,
    subtree,
    walk_function,
)
from .values import single_binding

if TYPE_CHECKING:
    from rtlint.core.context import FileContext

LOCK_FACTORIES = {"Lock", "Semaphore", "BoundedSemaphore", "Condition"}


def is_lock_factory(value: ast.AST | None) -> bool:
    return isinstance(value, ast.Call) and final_name(value.func) in LOCK_FACTORIES


@dataclass(frozen=True)
class Region:
    stmt: ast.AsyncWith
    item: ast.withitem
    lock: str  # the dotted text of the lock held, aliases resolved


@dataclass
class MethodFacts:
    self_name: str | None
    calls: set[str]  # methods of self it calls
    locks: set[str]  # self attributes it takes in `async with`
    held: list[tuple[str, set[str], int]]  # per `async with self.<lock>`: lock, self methods called inside, line


class LockModel:
    def __init__(self, idx: Index, extra_names: Iterable[str] = ()) -> None:
        self.index = idx
        self.extra_names = set(extra_names)
        self.attributes: dict[int, set[str]] = {id(c.node): self._learn(c) for c in idx.classes}
        for info in idx.classes:
            for base in idx.bases(info):
                self.attributes[id(info.node)] |= self.attributes[id(base.node)]
        self._facts: dict[int, dict[str, MethodFacts]] = {}

    def _learn(self, info: ClassInfo) -> set[str]:
        found: set[str] = set()
        for node in self.index.class_nodes[id(info.node)]:
            if isinstance(node, ast.Assign) and is_lock_factory(node.value):
                found |= {t.attr for t in node.targets if isinstance(t, ast.Attribute)}
            elif isinstance(node, ast.AnnAssign) and (
                is_lock_factory(node.value) or "Lock" in set(annotation_names(node.annotation))
            ):
                name = final_name(node.target)
                if name:
                    found.add(name)
        return found

    def lock_attributes(self, info: ClassInfo) -> set[str]:
        """Attributes the class (or a base) assigns a lock to."""
        return self.attributes[id(info.node)]

    # -- regions -----------------------------------------------------------------------
    def resolve(self, expr: ast.AST, function: Function | None) -> str | None:
        """The dotted text of the lock `expr` holds: a local name read from an attribute
        (here or in an enclosing function, for a closure) resolves to that attribute."""
        text = dotted(expr)
        current = function
        while isinstance(expr, ast.Name) and current is not None:
            value = single_binding(self.index.nodes(current.node), expr.id)
            if value is not None:
                return dotted(value)
            if any(a.arg == expr.id for a in _arguments(current.node)):
                return text
            current = current.outer
        return text

    def lock_text(self, item: ast.withitem, function: Function | None) -> str | None:
        """The lock an `async with` item holds, else None."""
        text = self.resolve(item.context_expr, function)
        if text is None:
            return None
        name = text.rsplit(".", 1)[-1]
        cls = function.cls if function is not None else None
        if name in self.extra_names or "lock" in name.lower() or "mutex" in name.lower():
            return text
        return text if cls is not None and name in self.lock_attributes(cls) else None

    def regions(self, node: ast.AST, function: Function | None) -> list[Region]:
        """The `async with <lock>:` regions around `node` inside its function, innermost first."""
        found = []
        previous = node
        for ancestor in self.index.ancestors(node):
            if isinstance(ancestor, FunctionNode):
                break
            if isinstance(ancestor, ast.AsyncWith) and previous in ancestor.body:
                for item in ancestor.items:
                    text = self.lock_text(item, function)
                    if text is not None:
                        found.append(Region(ancestor, item, text))
            previous = ancestor
        return found

    @staticmethod
    def is_lock(region: Region, function: Function | None, attribute: str) -> bool:
        """Whether the region holds `<self>.<attribute>` (any `<x>.<attribute>` without a self)."""
        self_name = function.self_name if function is not None else None
        if self_name:
            return region.lock == f"{self_name}.{attribute}"
        return region.lock.rsplit(".", 1)[-1] == attribute

    def holds(self, node: ast.AST, function: Function, attribute: str | None) -> Region | None:
        if attribute is None:
            return None
        return next((r for r in self.regions(node, function) if self.is_lock(r, function, attribute)), None)

    def serialized(self, a: ast.AST, b: ast.AST, function: Function, attribute: str | None) -> bool:
        """Whether one region of the lock (any lock when `attribute` is None) holds both."""
        around_b = {id(r.stmt) for r in self.regions(b, function)}
        return any(
            id(r.stmt) in around_b and (attribute is None or self.is_lock(r, function, attribute))
            for r in self.regions(a, function)
        )

    def flattenable(self, stmt: ast.AST, lock_expression: str, function: Function | None) -> bool:
        """An `async with <the lock>:` (alone, `as _` or an unused name) whose body can be
        lifted into a new block of the same lock instead of taking it a second time."""
        if not isinstance(stmt, ast.AsyncWith) or len(stmt.items) != 1:
            return False
        item = stmt.items[0]
        if self.resolve(item.context_expr, function) != lock_expression:
            return False
        if item.optional_vars is None:
            return True
        if not isinstance(item.optional_vars, ast.Name):
            return False
        name = item.optional_vars.id
        return not any(isinstance(n, ast.Name) and n.id == name for s in stmt.body for n in walk(s))

    # -- methods -------------------------------------------------------------------------
    def facts(self, info: ClassInfo) -> dict[str, MethodFacts]:
        if id(info.node) not in self._facts:
            self._facts[id(info.node)] = {name: self._method(m) for name, m in info.methods.items()}
        return self._facts[id(info.node)]

    def _method(self, method: ast.AST) -> MethodFacts:
        function = self.index.function_of.get(id(method))
        self_name = function.self_name if function is not None else None
        facts = MethodFacts(self_name, set(), set(), [])
        for node in self.index.method_nodes.get(id(method), []):
            if isinstance(node, ast.Call) and _self_call(node, self_name):
                facts.calls.add(node.func.attr)
            elif isinstance(node, ast.AsyncWith) and self_name:
                owner = self.index.function_of_node(node)
                for item in node.items:
                    text = self.resolve(item.context_expr, owner) or ""
                    if text.startswith(self_name + ".") and text.count(".") == 1:
                        lock = text.split(".", 1)[1]
                        facts.locks.add(lock)
                        inside = {
                            n.func.attr for n in subtree(node) if isinstance(n, ast.Call) and _self_call(n, self_name)
                        }
                        facts.held.append((lock, inside, node.lineno))
        return facts

    def methods_taking(self, info: ClassInfo, lock: str, seeds: Iterable[str] = ()) -> set[str]:
        """Methods that take `self.<lock>`, directly or through each other; `seeds` count as
        taking it (methods that will, once fixed)."""
        facts = self.facts(info)
        seeds = set(seeds)
        taking = {name for name, f in facts.items() if lock in f.locks or name in seeds}
        return _closure(taking, facts)

    def callers_holding(self, info: ClassInfo, lock: str, method: str) -> list[tuple[str, int]]:
        """Methods that reach `method` (directly or through others) while holding `self.<lock>`."""
        facts = self.facts(info)
        reaching = _closure({method}, facts)
        return [
            (name, line)
            for name, f in facts.items()
            for held, inside, line in f.held
            if held == lock and inside & reaching
        ]

    def reentry(self, function: Function, statements: list[ast.stmt], lock: str, takers: set[str]) -> list[str]:
        """Why holding `lock` over `statements` would take it again: the region already
        takes it, awaits a method (or a task of one) in `takers`, or a caller holds it."""
        cls, self_name = function.cls, function.self_name
        expression = f"{self_name}.{lock}" if cls is not None and self_name else lock
        reasons: list[str] = []
        tasks: dict[str, tuple[str, int]] = {}  # name bound to a task of a taker
        for stmt in statements:
            flat = self.flattenable(stmt, expression, function)
            for node in [*([] if flat else [stmt]), *walk_function(stmt)]:
                if isinstance(node, ast.AsyncWith) and not (node is stmt and flat):
                    if any(self.resolve(i.context_expr, function) == expression for i in node.items):
                        reasons.append(f"the region already takes {expression} at line {node.lineno}")
                if cls is None or not self_name:
                    continue
                if isinstance(node, ast.Await):
                    reasons += _awaits_taker(node, self_name, takers, tasks, expression)
                elif isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                    for call in (n for n in walk(node.value) if isinstance(n, ast.Call)):
                        if _self_call(call, self_name) and call.func.attr in takers:
                            tasks[node.targets[0].id] = (call.func.attr, call.lineno)
        method = function.method
        if cls is not None and self_name and method is not None:
            for caller, line in self.callers_holding(cls, lock, method.node.name):
                reasons.append(
                    f"{self_name}.{caller}() holds {expression} when it calls {method.node.name}() (line {line})"
                )
        return list(dict.fromkeys(reasons))


def _awaits_taker(node: ast.Await, self_name: str, takers: set[str], tasks: dict, expression: str) -> list[str]:
    reasons = []
    for call in awaited_calls(node):
        if _self_call(call, self_name) and call.func.attr in takers:
            reasons.append(f"it awaits {self_name}.{call.func.attr}() at line {call.lineno}, which takes {expression}")
        for argument in call.args:
            if isinstance(argument, ast.Name) and argument.id in tasks:
                method, line = tasks[argument.id]
                reasons.append(f"it awaits a task of {self_name}.{method}() (line {line}), which takes {expression}")
    if isinstance(node.value, ast.Name) and node.value.id in tasks:
        method, line = tasks[node.value.id]
        reasons.append(f"it awaits a task of {self_name}.{method}() (line {line}), which takes {expression}")
    return reasons


def _self_call(node: ast.Call, self_name: str | None) -> bool:
    func = node.func
    return (
        bool(self_name)
        and isinstance(func, ast.Attribute)
        and isinstance(func.value, ast.Name)
        and func.value.id == self_name
    )


def _closure(start: set[str], facts: dict[str, MethodFacts]) -> set[str]:
    """`start` and every method that calls one of them, transitively."""
    found = set(start)
    changed = True
    while changed:
        changed = False
        for name, f in facts.items():
            if name not in found and f.calls & found:
                found.add(name)
                changed = True
    return found


def _arguments(node: ast.AST) -> list[ast.arg]:
    a = node.args
    return [*a.posonlyargs, *a.args, *a.kwonlyargs]


def lock_model(file: FileContext, extra_names: Iterable[str] = ()) -> LockModel:
    names = tuple(sorted(extra_names))
    return file.memo(("rules._analysis.locks", names), lambda: LockModel(index(file), names))
