"""An attribute of `self` that one method sets and another reads (no framework words).

`Attribute(file, cls, name, classify)` lists the assignments of `self.<name>` in the class's
methods (`classify(method, value)` says "keep" for a value the caller follows, "none" for
an initial `None`, anything else for a value it does not know), the methods that *refresh*
it (assign it, or call a method that does), and answers `stale_at(method, node)`: whether
every way of reaching `node` passes an await after the last refresh, in this method or, for a
method reached only from its callers in the class, in theirs. Precision first: a refresh that
can run at any await (a refreshing method handed out as a value, an event callback), an
assignment of a value not followed, or from a nested function, makes every answer None.

A method reached "from outside" counts as stale without a visible await only when the
caller's `is_callback(method)` says the method runs later (a framework hook or tool), or it
is itself handed out as a value (registered as a callback). A public method that nothing in
the class calls is stale only by its own awaits.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .cfg import Point, graph, is_await
from .index import ClassInfo, Function, index

if TYPE_CHECKING:
    from rtlint.core.context import FileContext

_ENTRY, _FRESH = "entry", "fresh"
_DEPTH = 4


@dataclass(frozen=True)
class Writer:
    method: Function
    target: ast.Attribute  # the `self.<name>` stored to
    value: ast.expr


@dataclass(frozen=True)
class Stale:
    """Why a read is stale: `point`, an await of `method` that runs after the last refresh
    on every path, or (`point` None) `method` runs later as a callback."""

    method: Function
    point: Point | None


class Attribute:
    def __init__(
        self, file: FileContext, cls: ClassInfo, name: str, classify: Callable[[Function, ast.expr], str]
    ) -> None:
        self.file, self.cls, self.name = file, cls, name
        self.index = idx = index(file)
        self.methods = {n: idx.function_of[id(node)] for n, node in cls.methods.items() if id(node) in idx.function_of}
        self.writers: list[Writer] = []
        self.unknown = False
        for method in self.methods.values():
            for node in idx.method_nodes.get(id(method.node), ()):
                self._assignment(method, node, classify)
        self.refreshers = self._refreshers()
        self.callbacks = self._handed_out()
        # a refresh that can run during any await: say nothing
        self.concurrent = bool(self.refreshers & self.callbacks)

    # -- the class's assignments ------------------------------------------------------------
    def _assignment(self, method: Function, node: ast.AST, classify) -> None:
        if isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        elif isinstance(node, ast.AnnAssign):
            targets, value = [node.target], node.value
        elif isinstance(node, (ast.AugAssign, ast.Delete)):
            targets = [node.target] if isinstance(node, ast.AugAssign) else node.targets
            if any(self._is_self_attribute(t, method) for t in targets):
                self.unknown = True
            return
        else:
            return
        for target in targets:
            if isinstance(target, (ast.Tuple, ast.List)):
                if any(self._is_self_attribute(e, method) for e in ast.walk(target)):
                    self.unknown = True
                continue
            if not self._is_self_attribute(target, method) or value is None:
                continue
            owner = self.index.function_of_node(node)
            if owner is not method:
                self.unknown = True  # set by a nested function: when it runs is not known
                continue
            kind = classify(method, value)
            if kind == "keep":
                self.writers.append(Writer(method, target, value))
            elif kind != "none":
                self.unknown = True

    def _is_self_attribute(self, node: ast.AST, method: Function) -> bool:
        return (
            isinstance(node, ast.Attribute)
            and node.attr == self.name
            and isinstance(node.value, ast.Name)
            and node.value.id == method.self_name
        )

    def _self_calls(self, method: Function) -> list[tuple[ast.Call, str]]:
        found = []
        for node in self.index.nodes(method.node):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                receiver = node.func.value
                if (
                    isinstance(receiver, ast.Name)
                    and receiver.id == method.self_name
                    and node.func.attr in self.methods
                ):
                    found.append((node, node.func.attr))
        return found

    def _refreshers(self) -> set[str]:
        found = {w.method.node.name for w in self.writers}
        changed = True
        while changed:
            changed = False
            for name, method in self.methods.items():
                if name not in found and any(callee in found for _, callee in self._self_calls(method)):
                    found.add(name)
                    changed = True
        return found

    def _handed_out(self) -> set[str]:
        """Methods read as a value (`self.session.on("x", self._on_item)`), not called."""
        found = set()
        for method in self.methods.values():
            for node in self.index.method_nodes.get(id(method.node), ()):
                if (
                    isinstance(node, ast.Attribute)
                    and node.attr in self.methods
                    and isinstance(node.ctx, ast.Load)
                    and isinstance(node.value, ast.Name)
                    and node.value.id == method.self_name
                ):
                    parent = self.index.parents.get(id(node))
                    if not (isinstance(parent, ast.Call) and parent.func is node):
                        found.add(node.attr)
        return found

    # -- staleness --------------------------------------------------------------------------
    def stale_at(self, method: Function, node: ast.AST, is_callback: Callable[[Function], bool]) -> Stale | None:
        if self.unknown or self.concurrent or not self.writers:
            return None
        return self._stale(method, node, is_callback, 0)

    def _stale(self, method: Function, node: ast.AST, is_callback, depth: int) -> Stale | None:
        refreshes = {id(w.target) for w in self.writers if w.method is method}
        refreshes |= {id(call) for call, callee in self._self_calls(method) if callee in self.refreshers}

        def transfer(point: Point, state: object) -> object:
            if is_await(point):
                return point
            if id(point.node) in refreshes:
                return _FRESH
            return state

        states = graph(self.file, method.node).states_at(node, _ENTRY, transfer)
        if _FRESH in states or not states:
            return None
        awaits = sorted((s for s in states if isinstance(s, Point)), key=lambda p: (p.node.lineno, p.order))
        if _ENTRY not in states:
            return Stale(method, awaits[0])
        # some path from the method's start has no await: it depends on who calls it
        if method.outer is not None or method.cls is not self.cls:
            return None
        if is_callback(method) or method.node.name in self.callbacks:
            return Stale(method, None)
        if not method.node.name.startswith("_") or depth >= _DEPTH:
            return None  # a public method: its callers outside the class are not known
        sites = [
            (caller, call)
            for caller in self.methods.values()
            for call, callee in self._self_calls(caller)
            if callee == method.node.name
        ]
        if not sites:
            return None
        found = [self._stale(caller, call, is_callback, depth + 1) for caller, call in sites]
        if any(f is None for f in found):
            return None
        return min(found, key=lambda f: f.point is None)


def attribute(file: FileContext, cls: ClassInfo, name: str, classify: Callable[[Function, ast.expr], str]) -> Attribute:
    """The model of `self.<name>` in `cls`, memoised per file (one `classify` per caller)."""
    return file.memo(("rules._analysis.members", id(cls.node), name), lambda: Attribute(file, cls, name, classify))


__all__ = ["Attribute", "Stale", "Writer", "attribute"]
