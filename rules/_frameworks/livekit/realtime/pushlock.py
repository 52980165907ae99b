"""Which pushes a snapshot reaches, and the push lock that must serialize them.

A class's push lock is the configured one if the class has or uses it, else the lock its
snapshot-and-push sites are made under (a push of a snapshot counts most), else the lock
most of its pushes are made under. A snapshot is *stale* when it flows into a push and
some path from it to the push does not hold that lock throughout (RTL001); every lock
question goes to the one lock model of `rules._analysis.locks`.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rtlint.core.astnodes import walk

from ...._analysis.cfg import graph
from ...._analysis.index import ClassInfo, Function, FunctionNode
from ...._analysis.locks import Region
from ...._analysis.values import ValueFlow
from ..vocabulary import CONTEXT_FLOW
from .sessions import MirrorSnapshot, Push

if TYPE_CHECKING:
    from ..module import Module


def flow(module: Module, function: Function) -> ValueFlow:
    """The snapshots (by id of their node) each value of `function` carries."""

    def compute() -> ValueFlow:
        ids = {id(s.node) for s in module.mirror_snapshots_in(function.node)}
        outer = flow(module, function.outer) if function.outer is not None else None
        return ValueFlow(
            graph(module.file, function.node),
            function.node,
            lambda node: frozenset({id(node)}) if id(node) in ids else frozenset(),
            CONTEXT_FLOW,
            outer,
        )

    return module.file.memo(("livekit.realtime.flow", id(function.node)), compute)


def push_lock(module: Module, info: ClassInfo | None) -> str | None:
    if info is None:
        return None
    return module.file.memo(("livekit.realtime.push_lock", id(info.node)), lambda: _decide(module, info))


def _decide(module: Module, info: ClassInfo) -> str | None:
    snapshot_statements = module.file.memo(
        ("livekit.realtime.snapshot_statements", None), lambda: {id(s.stmt) for s in module.mirror_snapshots}
    )
    counts: dict[str, int] = {}
    for push in module.pushes_of_class(info.node):
        regions = module.locks.regions(push.call, push.function)
        weight = 10 if any(_holds_statement(r, snapshot_statements) for r in regions) else 1
        for region in regions:
            attribute = self_attribute(region.lock, push.function.self_name)
            if attribute:
                counts[attribute] = counts.get(attribute, 0) + weight
    configured = module.vocabulary.push_lock
    if configured in module.locks.lock_attributes(info) or configured in counts:
        return configured
    return max(sorted(counts), key=lambda name: counts[name]) if counts else None


def _holds_statement(region: Region, statements: set[int]) -> bool:
    return any(isinstance(n, ast.stmt) and id(n) in statements for n in walk(region.stmt))


def self_attribute(lock: str, self_name: str | None) -> str | None:
    """`_lock` for "self._lock"; None for a lock held elsewhere (a local, another object)."""
    if self_name and lock.startswith(self_name + ".") and lock.count(".") == 1:
        return lock.split(".", 1)[1]
    return None


def under_push_lock(module: Module, node: ast.AST, function: Function) -> Region | None:
    """The innermost region around `node` that holds its class's push lock."""
    return module.locks.holds(node, function, push_lock(module, function.cls))


def serialized(module: Module, a: ast.AST, b: ast.AST, function: Function) -> bool:
    """Whether one region of the push lock (of any lock, in a class without one) holds `a`
    and `b` and is not left on any path from `a` to `b` (a loop's next pass re-takes it)."""
    lock = push_lock(module, function.cls)
    around_b = {id(r.stmt) for r in module.locks.regions(b, function)}
    g = graph(module.file, function.node)
    for region in module.locks.regions(a, function):
        if id(region.stmt) not in around_b or not (lock is None or module.locks.is_lock(region, function, lock)):
            continue
        exits = g.may_run_between(a, b, lambda p, r=region.stmt: p.kind == "async-with-exit" and p.node is r)
        if not exits:
            return True
    return False


def pushing_methods(module: Module, info: ClassInfo) -> set[str]:
    """Methods of the class that push a session, themselves or in a nested function."""
    pushing = module.file.memo(("livekit.realtime.pushing", None), lambda: {id(p.function.node) for p in module.pushes})
    return {
        name
        for name, method in info.methods.items()
        if id(method) in pushing
        or any(isinstance(n, FunctionNode) and id(n) in pushing for n in module.index.method_nodes.get(id(method), []))
    }


def lock_takers(module: Module, info: ClassInfo, lock: str) -> set[str]:
    """Methods that take `self.<lock>`, counting the ones that push: one `--fix` puts every
    push of the class under the lock, so they will take it too."""
    key = ("livekit.realtime.takers", id(info.node), lock)
    return module.file.memo(key, lambda: module.locks.methods_taking(info, lock, pushing_methods(module, info)))


@dataclass
class StaleSnapshot:
    snapshot: MirrorSnapshot
    push: Push  # the first push the snapshot flows into
    pushes: list[Push]  # every push it flows into unserialized


def stale_snapshots(module: Module) -> list[StaleSnapshot]:
    def compute() -> list[StaleSnapshot]:
        found = []
        for snapshot in module.mirror_snapshots:
            function = snapshot.function
            carried = flow(module, function)
            pushes = [p for p in module.pushes_in(function.node) if id(snapshot.node) in carried.origins(p.argument)]
            pushes.sort(key=lambda p: (p.call.lineno < snapshot.node.lineno, p.call.lineno, p.call.col_offset))
            unserialized = [p for p in pushes if not serialized(module, snapshot.node, p.call, function)]
            if unserialized:  # a snapshot that is only read (logged, compared) is no finding
                found.append(StaleSnapshot(snapshot, unserialized[0], unserialized))
        return found

    return module.file.memo("livekit.realtime.stale", compute)


def unserialized_pushes(module: Module) -> list[Push]:
    """RTL004's defect: in a class where some push is made under the push lock, the other
    pushes that are not (a push whose snapshot is already stale, RTL001's, left out)."""

    def compute() -> list[Push]:
        already = {id(p.call) for stale in stale_snapshots(module) for p in stale.pushes}
        found = []
        for info in module.classes:
            if push_lock(module, info) is None:
                continue
            pushes = module.pushes_of_class(info.node)
            if not any(under_push_lock(module, p.call, p.function) for p in pushes):
                continue  # nothing in this class is serialized yet: RTL001 speaks first
            found += [
                p for p in pushes if id(p.call) not in already and not under_push_lock(module, p.call, p.function)
            ]
        return found

    return module.file.memo("livekit.realtime.unserialized", compute)


def reported_pushes(module: Module) -> set[int]:
    """The pushes (by id of the call) that RTL001 or RTL004 report or report the snapshot
    of: one defect, one finding, so the application rules say nothing more there."""
    return {id(p.call) for stale in stale_snapshots(module) for p in stale.pushes} | {
        id(p.call) for p in unserialized_pushes(module)
    }
