"""A per-function control-flow model with await points.

A function's statements are cut into *units*: a simple statement, or one part of a compound
statement (an `if`/`while` test, a `for`'s iterable and its per-pass step, a `with`'s enter
and exit, an `except` clause, a `case`). Edges join units in execution order: branches,
loops with back edges, `try`/`except`/`else`/`finally` (any unit of a `try` body may raise
into its handlers and `finally`), `break`/`continue`/`return`/`raise`. Nested functions,
classes and lambdas are not part of the graph (each function has its own).

Every expression owned by the function has a *point*: its unit and its completion order
inside the unit (post-order, a value before the target it is stored in). A unit runs its
points in order; short-circuits inside one expression are not branches here.
Await points are `await` expressions and three synthetic points: an `async for` pass
(`__anext__`), an `async with` enter and its exit. A `with` has two exits and a `finally`
two copies: one for a normal end, one for an abrupt exit, which goes on where it leads.

    g = graph(file, function_node)          # memoised per file and function
    g.precedes(a, b)                        # a can run before b on some path, loops included
    g.dominates(a, b)                       # every path from the entry to b runs a first
    g.may_run_between(a, b, is_await)       # points that can run after a and before b
    g.states_at(b, initial, transfer)       # the states a forward walk reaches b in
    g.awaits_between(start, end, call)      # awaits from point start to point end, start not re-run
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rtlint.core.astnodes import children, walk

from .index import FunctionNode, walk_function

if TYPE_CHECKING:
    from rtlint.core.context import FileContext

_SCOPES = (*FunctionNode, ast.ClassDef, ast.Lambda)
_COMPREHENSIONS = (ast.DictComp, ast.ListComp, ast.SetComp, ast.GeneratorExp)
# shared singletons of the tree that are not evaluated themselves
_NOT_EVALUATED = (ast.expr_context, ast.operator, ast.boolop, ast.cmpop, ast.unaryop)


@dataclass(eq=False, slots=True)
class Point:
    node: ast.AST  # the expression, or the AsyncFor/AsyncWith statement of a synthetic point
    unit: int
    order: int
    kind: str = "node"  # or "async-for", "async-with-enter", "async-with-exit"


def is_await(point: Point) -> bool:
    """An await point: where other tasks can run."""
    return point.kind != "node" or isinstance(point.node, ast.Await)


@dataclass
class _Frame:
    kind: str  # "loop" or "finally" (a `finally` or a `with` exit that abrupt exits run)
    target: int  # loop: its header (continue); finally: the entry of the cleanup
    after: int = -1  # loop: where break goes


class Graph:
    """The control-flow graph of one function."""

    def __init__(self, function: ast.AST) -> None:
        self.function = function
        self.successors: list[set[int]] = []
        self.points: list[list[Point]] = []  # per unit, in order
        self.statement_unit: dict[int, int] = {}  # id(stmt) -> its first unit
        self.point_of: dict[int, Point] = {}  # id(expression) -> its point (a finally's first copy)
        self._copies: dict[int, list[Point]] = {}  # id(expression) -> its points in every copy
        self._statement_units: dict[int, list[int]] = {}
        self.owner: list[ast.stmt | None] = []  # per unit, the innermost statement it belongs to
        self._building: list[ast.stmt] = []
        self._frames: list[_Frame] = []
        self._raise_to: list[list[int]] = []
        self._forward: dict[int, frozenset[int]] = {}
        self.exit = self._unit()
        body = function.body if isinstance(function, (*FunctionNode, ast.Module)) else [function]
        self.entry = self._block(body, self.exit)

    # -- construction (each statement is built before the ones ahead of it) -------------
    def _unit(self, roots: Iterable[ast.AST] = (), stmt: ast.stmt | None = None) -> int:
        unit = len(self.successors)
        self.successors.append(set())
        self.points.append([])
        self.owner.append(self._building[-1] if self._building else None)
        for root in roots:
            self._add_points(unit, root)
        if stmt is not None:
            self.statement_unit.setdefault(id(stmt), unit)
            self._statement_units.setdefault(id(stmt), []).append(unit)
        if self._raise_to:
            self.successors[unit].update(self._raise_to[-1])
        return unit

    def _add_points(self, unit: int, root: ast.AST) -> None:
        """Post-order points of `root` (a value before the targets it is stored in)."""
        stack: list[tuple[ast.AST, bool]] = [(root, False)]
        while stack:
            node, done = stack.pop()
            if done:
                self._point(Point(node, unit, len(self.points[unit])))
                continue
            stack.append((node, True))
            if isinstance(node, _SCOPES):
                continue  # a definition: its body runs elsewhere
            children = _evaluation_order(node)
            stack.extend((c, False) for c in reversed(children))

    def _point(self, point: Point) -> None:
        self.points[point.unit].append(point)
        if point.kind == "node":
            self.point_of.setdefault(id(point.node), point)
            self._copies.setdefault(id(point.node), []).append(point)

    def _synthetic(self, unit: int, stmt: ast.stmt, kind: str) -> None:
        self._point(Point(stmt, unit, len(self.points[unit]), kind))

    def _edge(self, a: int, b: int) -> None:
        self.successors[a].add(b)

    def _block(self, statements: list[ast.stmt], follow: int) -> int:
        entry = follow
        for stmt in reversed(statements):
            entry = self._statement(stmt, entry)
        return entry

    def _statement(self, stmt: ast.stmt, follow: int) -> int:
        builder = getattr(self, "_" + type(stmt).__name__.lower(), None)
        self._building.append(stmt)
        try:
            if builder is not None:
                return builder(stmt, follow)
            unit = self._unit([stmt], stmt)
            self._edge(unit, follow)
            return unit
        finally:
            self._building.pop()

    def _abrupt(self, stmt: ast.stmt, kind: str) -> int:
        unit = self._unit([stmt], stmt)
        for frame in reversed(self._frames):
            if frame.kind == "finally":
                self._edge(unit, frame.target)
                return unit
            if kind in ("break", "continue"):
                self._edge(unit, frame.after if kind == "break" else frame.target)
                return unit
        if kind in ("return", "raise"):
            self._edge(unit, self.exit)
        return unit

    def _return(self, stmt: ast.Return, follow: int) -> int:
        return self._abrupt(stmt, "return")

    def _raise(self, stmt: ast.Raise, follow: int) -> int:
        unit = self._abrupt(stmt, "raise")
        if self._raise_to:
            self.successors[unit].update(self._raise_to[-1])
        return unit

    def _break(self, stmt: ast.Break, follow: int) -> int:
        return self._abrupt(stmt, "break")

    def _continue(self, stmt: ast.Continue, follow: int) -> int:
        return self._abrupt(stmt, "continue")

    def _if(self, stmt: ast.If, follow: int) -> int:
        test = self._unit([stmt.test], stmt)
        self._edge(test, self._block(stmt.body, follow))
        self._edge(test, self._block(stmt.orelse, follow))
        return test

    def _loop(self, stmt: ast.stmt, header: int, follow: int) -> None:
        after = self._block(stmt.orelse, follow)
        self._frames.append(_Frame("loop", header, follow))
        body = self._block(stmt.body, header)
        self._frames.pop()
        self._edge(header, body)
        if not (isinstance(stmt, ast.While) and isinstance(stmt.test, ast.Constant) and stmt.test.value):
            self._edge(header, after)

    def _while(self, stmt: ast.While, follow: int) -> int:
        header = self._unit([stmt.test], stmt)
        self._loop(stmt, header, follow)
        return header

    def _for(self, stmt: ast.For | ast.AsyncFor, follow: int) -> int:
        start = self._unit([stmt.iter], stmt)
        step = self._unit()
        if isinstance(stmt, ast.AsyncFor):
            self._synthetic(step, stmt, "async-for")
        self._add_points(step, stmt.target)
        self._edge(start, step)
        self._loop(stmt, step, follow)
        return start

    _asyncfor = _for

    def _with(self, stmt: ast.With | ast.AsyncWith, follow: int) -> int:
        # two exits: the normal one goes on after the block, the one an abrupt exit (return,
        # break, continue, raise) runs goes on to where that exit leads
        normal, abrupt = self._unit(), self._unit()
        if isinstance(stmt, ast.AsyncWith):
            self._synthetic(normal, stmt, "async-with-exit")
            self._synthetic(abrupt, stmt, "async-with-exit")
        self._edge(normal, follow)
        self._exits_through(abrupt, _loop_exits(stmt.body))
        self._frames.append(_Frame("finally", abrupt))
        self._raise_to.append([abrupt])
        body = self._block(stmt.body, normal)
        self._raise_to.pop()
        self._frames.pop()
        enter = self._unit([x for item in stmt.items for x in (item.context_expr, item.optional_vars) if x], stmt)
        if isinstance(stmt, ast.AsyncWith):
            self._synthetic(enter, stmt, "async-with-enter")
        self._edge(enter, body)
        return enter

    _asyncwith = _with

    def _exits_through(self, cleanup_end: int, leaves: set[str]) -> None:
        """A cleanup (finally, with exit) also ends an abrupt exit: onwards to the next
        cleanup, to the loop's targets for the `continue`s and `break`s that `leaves` says
        its block has, and out of the function (a raise or return). A raise goes on to no
        loop target: the loop is left too."""
        for frame in reversed(self._frames):
            if frame.kind == "finally":
                self._edge(cleanup_end, frame.target)
                return
            if "continue" in leaves:
                self._edge(cleanup_end, frame.target)
            if "break" in leaves:
                self._edge(cleanup_end, frame.after)
            break
        self._edge(cleanup_end, self.exit)

    def _try(self, stmt: ast.Try, follow: int) -> int:
        if stmt.finalbody:
            # built twice: after a normal end it goes on after the `try`; after an abrupt
            # exit, on to where that exit leads (the first copy names the statements)
            normal, abrupt = self._unit(), self._unit()
            self._edge(normal, follow)
            self._exits_through(abrupt, _loop_exits([*stmt.body, *stmt.handlers, *stmt.orelse]))
            final = self._block(stmt.finalbody, normal)
            abrupt_final = self._block(stmt.finalbody, abrupt)
            self._frames.append(_Frame("finally", abrupt_final))
            self._raise_to.append([abrupt_final])
            follow = final
        else_entry = self._block(stmt.orelse, follow)
        handlers = []
        for handler in stmt.handlers:
            clause = self._unit([x for x in (handler.type,) if x])
            self._edge(clause, self._block(handler.body, follow))
            self.statement_unit.setdefault(id(handler), clause)
            handlers.append(clause)
        self._raise_to.append(handlers + (self._raise_to[-1] if self._raise_to else []))
        body = self._block(stmt.body, else_entry)
        self._raise_to.pop()
        if stmt.finalbody:
            self._raise_to.pop()
            self._frames.pop()
        start = self._unit([], None)
        self.statement_unit[id(stmt)] = start
        self._edge(start, body)
        return start

    _trystar = _try

    def _match(self, stmt: ast.Match, follow: int) -> int:
        entry = follow
        for case in reversed(stmt.cases):
            clause = self._unit([x for x in (case.pattern, case.guard) if x])
            self._edge(clause, self._block(case.body, follow))
            self._edge(clause, entry)
            entry = clause
        subject = self._unit([stmt.subject], stmt)
        self._edge(subject, entry)
        return subject

    # -- queries -------------------------------------------------------------------------
    def locate(self, node: ast.AST) -> Point:
        """The point of an expression or statement (a statement's first unit, before its
        points). KeyError for a node this function does not own."""
        point = self.point_of.get(id(node))
        if point is not None:
            return point
        return Point(node, self.statement_unit[id(node)], -1)

    def copies(self, node: ast.AST) -> list[Point]:
        """Every point of `node`: one, or two inside a `finally`."""
        if id(node) in self._copies:
            return self._copies[id(node)]
        units = self._statement_units.get(id(node))
        if units is None:
            return [self.locate(node)]  # KeyError for a node of another function
        return [Point(node, unit, -1) for unit in units]

    def forward(self, unit: int) -> frozenset[int]:
        """Units reachable from `unit` by one edge or more."""
        if unit not in self._forward:
            self._forward[unit] = _reach(unit, self.successors)
        return self._forward[unit]

    def _predecessor_sets(self) -> list[set[int]]:
        if not hasattr(self, "_predecessors"):
            self._predecessors: list[set[int]] = [set() for _ in self.successors]
            for a, targets in enumerate(self.successors):
                for b in targets:
                    self._predecessors[b].add(a)
        return self._predecessors

    def precedes(self, a: ast.AST, b: ast.AST) -> bool:
        """Whether `a` can run before `b` on some path (in a loop, a later pass counts)."""
        return any(
            (pa.unit == pb.unit and pa.order < pb.order) or pb.unit in self.forward(pa.unit)
            for pa in self.copies(a)
            for pb in self.copies(b)
        )

    def dominates(self, a: ast.AST, b: ast.AST) -> bool:
        """Whether every path from the function's entry to `b` runs `a` first."""
        dominators = self._dominators()
        return all(
            any(pa.order < pb.order if pa.unit == pb.unit else pa.unit in dominators[pb.unit] for pa in self.copies(a))
            for pb in self.copies(b)
        )

    def may_run_between(self, a: ast.AST, b: ast.AST, predicate: Callable[[Point], bool]) -> list[Point]:
        """The points matching `predicate` that can run after `a` and before `b` on some
        path that does not run `a` again (a later pass's `a` starts afresh), loops included
        (`b` may run on the way: its await of an earlier pass counts). Points inside `a`
        or `b` themselves are not between."""
        inside = {id(n) for n in (*walk_function(a), *walk_function(b))}
        candidates: list[Point] = []
        copies_of_a = self.copies(a)
        again = frozenset(p.unit for p in copies_of_a)  # a `finally`'s other copy runs `a` again
        for pa in copies_of_a:
            for pb in self.copies(b):
                candidates += self._between(pa, pb, again)
        found: dict[tuple[int, str], Point] = {}  # a `finally` has two copies of its points
        for point in candidates:
            key = (id(point.node), point.kind)
            if key not in found and not (point.kind == "node" and id(point.node) in inside) and predicate(point):
                found[key] = point
        return sorted(found.values(), key=_source_order)

    def _between(self, pa: Point, pb: Point, again: frozenset[int]) -> list[Point]:
        candidates: list[Point] = []
        if pa.unit == pb.unit and pa.order < pb.order:
            candidates += [p for p in self.points[pa.unit] if pa.order < p.order < pb.order]
        onward = _reach(pa.unit, self.successors, avoid=again)
        if pb.unit in onward and pb.unit != pa.unit:
            candidates += [p for p in self.points[pa.unit] if p.order > pa.order]
            candidates += [p for p in self.points[pb.unit] if p.order < pb.order]
            middle = onward & _reach(pb.unit, self._predecessor_sets(), avoid=again)
            for unit in sorted(middle):
                candidates += self.points[unit]
        return candidates

    def awaits_between(self, start: Point | None, end: Point, call: ast.AST) -> list[Point]:
        """The await points on paths from `start` (None: the function's entry) to `end` that
        do not run `start` again; `end`'s own await counts only from an earlier pass of a
        loop, and awaits inside `call` do not count (`may_run_between` starts from nodes and
        lets `b` run on the way)."""
        avoid = frozenset() if start is None else frozenset({start.unit})
        found: list[Point] = []
        if start is not None and start.unit == end.unit and start.order < end.order:
            found = [p for p in self.points[end.unit] if start.order < p.order < end.order]
        else:
            reach = _reach(start.unit, self.successors, avoid) if start is not None else _from_entry(self)
            if end.unit in reach:
                middle = reach & (_reach(end.unit, self._predecessor_sets(), avoid) | {end.unit})
                if start is not None:
                    found += [p for p in self.points[start.unit] if p.order > start.order]
                found += [p for p in self.points[end.unit] if p.order < end.order]
                again = end.unit in _reach(end.unit, self.successors, avoid)
                for unit in sorted(middle):
                    if unit != end.unit or again:
                        found += self.points[unit]
        inside = {id(n) for n in walk(call)}
        unique = {id(p): p for p in found if is_await(p) and not (p.kind == "node" and id(p.node) in inside)}
        return sorted(unique.values(), key=lambda p: (p.node.lineno, p.node.col_offset, p.order))

    def reaches_within(self, a: ast.AST, b: ast.AST, statements: list[ast.stmt]) -> bool:
        """Whether `b` can run after `a` without leaving `statements` (one block's run of
        statements) on the way: false when only a loop's next pass gets there."""
        inside = {id(n) for s in statements for n in walk_function(s) if isinstance(n, ast.stmt)}
        allowed = {u for u, stmt in enumerate(self.owner) if stmt is not None and id(stmt) in inside}
        for pa in self.copies(a):
            for pb in self.copies(b):
                if pa.unit == pb.unit and pa.order < pb.order:
                    return True
                seen, stack = set(), [u for u in self.successors[pa.unit] if u in allowed]
                while stack:
                    unit = stack.pop()
                    if unit == pb.unit:
                        return True
                    if unit not in seen:
                        seen.add(unit)
                        stack.extend(u for u in self.successors[unit] if u in allowed)
        return False

    def states_at(self, node: ast.AST, initial: object, transfer: Callable[[Point, object], object]) -> frozenset:
        """Every state a forward walk can be in when it reaches `node` (before its own
        points): `initial` at the function's entry, `transfer(point, state)` at each point
        in execution order, loops and branches joined. A small finite set of states makes
        "has every path run an await since the last X" one query."""
        ins: list[set] = [set() for _ in self.successors]
        ins[self.entry].add(initial)
        work = [self.entry]
        while work:
            unit = work.pop()
            out = set()
            for state in ins[unit]:
                for point in self.points[unit]:
                    state = transfer(point, state)
                out.add(state)
            for successor in self.successors[unit]:
                if not out <= ins[successor]:
                    ins[successor] |= out
                    work.append(successor)
        found = set()
        for target in self.copies(node):
            for state in ins[target.unit]:
                for point in self.points[target.unit]:
                    if point.order >= target.order:
                        break
                    state = transfer(point, state)
                found.add(state)
        return frozenset(found)

    def _dominators(self) -> list[set[int]]:
        if not hasattr(self, "_dom"):
            units = range(len(self.successors))
            predecessors = self._predecessor_sets()
            reachable = {self.entry} | _reach(self.entry, self.successors)
            everything = set(reachable)
            dom = [set(everything) for _ in units]
            dom[self.entry] = {self.entry}
            changed = True
            while changed:
                changed = False
                for u in sorted(reachable):
                    if u == self.entry:
                        continue
                    incoming = [dom[p] for p in predecessors[u] if p in reachable]
                    new = set.intersection(*incoming) | {u} if incoming else {u}
                    if new != dom[u]:
                        dom[u], changed = new, True
            self._dom = dom
        return self._dom


def _source_order(point: Point) -> tuple[int, int, int]:
    node = point.node
    if point.kind == "async-with-exit":
        return (node.end_lineno or node.lineno, node.end_col_offset or 0, point.order)
    return (node.lineno, node.col_offset, point.order)


def _evaluation_order(node: ast.AST) -> list[ast.AST]:
    if isinstance(node, ast.Assign):
        return [node.value, *node.targets]
    if isinstance(node, (ast.AugAssign, ast.AnnAssign)):
        return [x for x in (node.value, node.target) if x is not None]
    if isinstance(node, ast.NamedExpr):
        return [node.value, node.target]
    if isinstance(node, _COMPREHENSIONS):
        # the comprehension's own scope runs in place, pass after pass: each generator's
        # iterable, then its target and conditions, then the element (an ast.comprehension
        # has no position: it is no point of its own, its parts are)
        parts = [x for g in node.generators for x in (g.iter, g.target, *g.ifs)]
        return parts + [
            x for x in (getattr(node, "key", None), getattr(node, "value", None), getattr(node, "elt", None)) if x
        ]
    return [c for c in children(node) if not isinstance(c, _NOT_EVALUATED)]


def _loop_exits(statements: list[ast.AST]) -> set[str]:
    """ "break"/"continue" when a statement of `statements` leaves them by one (not one of a
    loop inside them, nor of a nested function)."""
    found: set[str] = set()
    stack = list(statements)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.Break, ast.Continue)):
            found.add(type(node).__name__.lower())
        elif isinstance(node, (ast.For, ast.AsyncFor, ast.While)):
            stack.extend(node.orelse)  # its body's exits are its own; its else's leave it
        elif not isinstance(node, _SCOPES):
            stack.extend(c for c in children(node) if isinstance(c, (ast.stmt, ast.excepthandler, ast.match_case)))
    return found


def _reach(start: int, edges: list[set[int]], avoid: frozenset[int] = frozenset()) -> frozenset[int]:
    """Units reachable from `start` by one edge or more, not going on from those in `avoid`."""
    seen: set[int] = set()
    stack = list(edges[start])
    while stack:
        unit = stack.pop()
        if unit not in seen and unit not in avoid:
            seen.add(unit)
            stack.extend(edges[unit])
    return frozenset(seen)


def _from_entry(g: Graph) -> frozenset[int]:
    """The entry and every unit reachable from it."""
    return frozenset({g.entry}) | _reach(g.entry, g.successors)


def graph(file: FileContext, function: ast.AST) -> Graph:
    return file.memo(("rules._analysis.cfg", id(function)), lambda: Graph(function))
