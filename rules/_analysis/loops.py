"""Loops: order inside one pass, early exits, and the loops that fill a list.

`precedes` of the control-flow graph counts a later pass of a loop (a statement at the end
of a loop body precedes one at its top). Some questions are about one pass: "was the
current item appended before this `break`", "does the commit follow the push". For those:

    runs_before(file, function_node, a, b)   # a can run before b without a new pass of a
                                             # loop body holding both (cfg reaches_within;
                                             # else cfg precedes)
    runs_between(file, function_node, a, b, nodes)  # the nodes that can run between, one pass
    names_bound_between(file, function_node, a, b)  # names (re)bound between, one pass
    assignments_reaching(file, function_node, name, use)  # its assignments that reach use
    early_exits(loop)                        # its breaks and returns, not the stream's end
    filling_loops(file, function_node)       # loops (nested functions too) adding to lists
    abandoning_loops(file, function_node, "L")   # those filling L that leave early
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rtlint.core.astnodes import children

from .cfg import graph
from .index import FunctionNode, Index, TryNode, dotted, final_name, index, walk_function
from .values import ValueFlow

if TYPE_CHECKING:
    from rtlint.core.context import FileContext

Loop = (ast.For, ast.AsyncFor, ast.While)
_STOPS = {"StopAsyncIteration", "StopIteration"}


def common_loop(file: FileContext, a: ast.AST, b: ast.AST) -> ast.For | ast.AsyncFor | ast.While | None:
    """The innermost loop that runs both on each pass (in its body, or its `for` target or
    `while` test; not its `else:`), inside their function."""
    idx = index(file)
    passes_b = {id(loop) for loop, child in _loops_around(idx, b) if _each_pass(loop, child)}
    for loop, child in _loops_around(idx, a):
        if _each_pass(loop, child) and id(loop) in passes_b:
            return loop
    return None


def _loops_around(idx: Index, node: ast.AST) -> Iterator[tuple[ast.AST, ast.AST]]:
    """(loop, its child holding `node`) for every loop around `node` in its function."""
    previous = node
    for ancestor in idx.ancestors(node):
        if isinstance(ancestor, (*FunctionNode, ast.ClassDef, ast.Lambda)):
            return
        if isinstance(ancestor, Loop):
            yield ancestor, previous
        previous = ancestor


def _each_pass(loop: ast.AST, child: ast.AST) -> bool:
    return child in loop.body or child is getattr(loop, "target", None) or child is getattr(loop, "test", None)


def runs_before(file: FileContext, function: ast.AST, a: ast.AST, b: ast.AST) -> bool:
    """Whether `a` can run before `b` in one pass of the innermost loop whose body holds
    both (without leaving that body: not only on the next pass), or on any path when no
    loop body holds both."""
    g = graph(file, function)
    loop = common_loop(file, a, b)
    return g.precedes(a, b) if loop is None else g.reaches_within(a, b, loop.body)


def runs_between(
    file: FileContext, function: ast.AST, a: ast.AST, b: ast.AST, nodes: Iterable[ast.AST]
) -> list[ast.AST]:
    """The `nodes` (owned by the function) that can run after `a` and before `b` in one
    pass, in the sense of `runs_before`."""
    return [n for n in nodes if runs_before(file, function, a, n) and runs_before(file, function, n, b)]


def names_bound_between(file: FileContext, function: ast.AST, a: ast.AST, b: ast.AST) -> set[str]:
    """The names (re)bound after `a` and before `b` in one pass."""
    stores = [n for n in index(file).nodes(function) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)]
    return {n.id for n in runs_between(file, function, a, b, stores)}


def assignments_reaching(file: FileContext, function: ast.AST, name: str, use: ast.AST) -> list[ast.stmt | None]:
    """The assignments (`=`, annotated, augmented) of `name` whose value reaches `use` and
    that run before it in one pass; None stands for a parameter."""
    values = file.memo(
        ("rules._analysis.loops.reaching", id(function)),
        lambda: ValueFlow(graph(file, function), function, lambda n: frozenset()),
    )
    found: list[ast.stmt | None] = []
    for d in values.reaching(name, use):
        stmt = None if isinstance(d.node, ast.arg) else index(file).statement_of(d.node)
        if (
            stmt is None
            or isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.AugAssign))
            and runs_before(file, function, stmt, use)
        ):
            found.append(stmt)
    return list(dict.fromkeys(found))


def early_exits(loop: ast.AST) -> Iterator[ast.stmt]:
    """`break` statements of this loop (not of loops inside it) and `return` statements in it,
    except the ones that end the loop because the stream ended (`except StopAsyncIteration`)."""
    stack: list[tuple[ast.AST, int, bool]] = [(s, 0, False) for s in reversed(loop.body)]
    while stack:
        node, depth, at_end = stack.pop()
        if isinstance(node, ast.Break) and depth == 0 and not at_end:
            yield node
        elif isinstance(node, ast.Return) and not at_end:
            yield node
        if not isinstance(node, (*FunctionNode, ast.ClassDef, ast.Lambda)):
            stack.extend(reversed(_exit_children(node, depth, at_end)))


def _exit_children(node: ast.AST, depth: int, at_end: bool) -> list[tuple[ast.AST, int, bool]]:
    if isinstance(node, TryNode):
        found = [(s, depth, at_end) for s in node.body]
        for handler in node.handlers:
            types = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
            stops = bool({final_name(t) for t in types} & _STOPS)
            found += [(s, depth, at_end or stops) for s in handler.body]
        return found + [(s, depth, at_end) for s in [*node.orelse, *node.finalbody]]
    if isinstance(node, ast.Match):
        return [(s, depth, at_end) for case in node.cases for s in case.body]
    if isinstance(node, Loop):  # a break in the loop's else clause belongs to the outer loop
        return [(s, depth + 1, at_end) for s in node.body] + [(s, depth, at_end) for s in node.orelse]
    return [(c, depth, at_end) for c in children(node) if isinstance(c, ast.stmt)]


def stream_pull(loop: ast.While) -> tuple[ast.stmt, str, str | None] | None:
    """`item = await anext(stream)` (or `stream.__anext__()`) in the loop: (statement, item, stream)."""
    for stmt in loop.body:
        for inner in walk_function(stmt):
            if not (
                isinstance(inner, ast.Assign) and len(inner.targets) == 1 and isinstance(inner.targets[0], ast.Name)
            ):
                continue
            call = inner.value.value if isinstance(inner.value, ast.Await) else None
            if not isinstance(call, ast.Call):
                continue
            if final_name(call.func) == "anext" and call.args:
                return inner, inner.targets[0].id, dotted(call.args[0])
            if isinstance(call.func, ast.Attribute) and call.func.attr == "__anext__":
                return inner, inner.targets[0].id, dotted(call.func.value)
    return None


def added_to(node: ast.AST) -> str | None:
    """The list a node adds to: `L.append(x)`, `L.extend(xs)`, `L.insert(i, x)`, `L += [x]`."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        if node.func.attr in ("append", "extend", "insert") and isinstance(node.func.value, ast.Name):
            return node.func.value.id
    elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
        return node.target.id
    return None


@dataclass
class FillingLoop:
    """A loop over a stream or iterable, in a function or a function nested in it."""

    node: ast.For | ast.AsyncFor | ast.While
    scope: ast.AST  # the function the loop is in
    target: str | None  # the variable holding the current item
    stream: str | None  # a stream that can be drained (async, a name or attribute)
    pull: ast.stmt | None  # `msg = await anext(stream)` in a while loop
    adds: dict[str, list[ast.AST]]  # list name -> the append/extend/insert/+= that add to it
    bindings: set[str]  # names the scope binds itself (a nested function's own list)


def filling_loops(file: FileContext, function: ast.AST) -> list[FillingLoop]:
    """Every loop over a stream that adds to a list, in the function and in the functions
    nested in it (memoised: there are many lists to try them against)."""
    return file.memo(("rules._analysis.loops", id(function)), lambda: _filling_loops(file, function))


def _filling_loops(file: FileContext, function: ast.AST) -> list[FillingLoop]:
    idx = index(file)
    scopes = [function] + [
        f.node for f in idx.functions if f.node is not function and any(a is function for a in idx.ancestors(f.node))
    ]
    found = []
    for scope in scopes:
        own = idx.nodes(scope)
        bound = set() if scope is function else _own_names(scope, own)
        for node in own:
            loop = _filling_loop(node, scope, bound) if isinstance(node, Loop) else None
            if loop is not None:
                found.append(loop)
    return found


def _filling_loop(node: ast.AST, scope: ast.AST, bound: set[str]) -> FillingLoop | None:
    target = stream = pull = None
    if isinstance(node, ast.While):
        pulled = stream_pull(node)
        if pulled is None:
            return None  # not a loop over a stream
        pull, target, stream = pulled
    else:
        target = node.target.id if isinstance(node.target, ast.Name) else None
        if isinstance(node, ast.AsyncFor) and not isinstance(node.iter, ast.Call):
            stream = dotted(node.iter)
    adds: dict[str, list[ast.AST]] = {}
    for stmt in node.body:
        for inner in walk_function(stmt):
            name = added_to(inner)
            if name:
                adds.setdefault(name, []).append(inner)
    return FillingLoop(node, scope, target, stream, pull, adds, bound) if adds else None


@dataclass
class AbandoningLoop:
    """A loop over a stream filling one list that can leave early, abandoning the rest."""

    node: ast.For | ast.AsyncFor | ast.While
    function: ast.AST  # the function the loop is in (the list's, or one nested in it)
    target: str | None  # the variable holding the current item
    stream: str | None  # a stream that can be drained
    pull: ast.stmt | None  # `msg = await anext(stream)` in a while loop
    appends: list[ast.AST]  # what adds to the list
    exits: list[ast.stmt]


def abandoning_loops(file: FileContext, function: ast.AST, name: str) -> list[AbandoningLoop]:
    """The filling loops of `function` (nested functions sharing the list included) that add
    to the list `name` and leave early. A `return` from `function` itself does not count:
    it skips the code after the loop too, so nothing there misses the abandoned items."""
    loops = []
    for c in filling_loops(file, function):
        if name in c.adds and name not in c.bindings:
            exits = [e for e in early_exits(c.node) if not (isinstance(e, ast.Return) and c.scope is function)]
            if exits:
                loops.append(AbandoningLoop(c.node, c.scope, c.target, c.stream, c.pull, list(c.adds[name]), exits))
    return loops


def _own_names(function: ast.AST, own: list[ast.AST]) -> set[str]:
    """Names a nested function binds itself (parameters, assignments): not the outer list."""
    args = function.args
    names = {a.arg for a in [*args.posonlyargs, *args.args, *args.kwonlyargs]}
    return names | {n.id for n in own if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}


__all__ = [
    "AbandoningLoop",
    "FillingLoop",
    "abandoning_loops",
    "added_to",
    "assignments_reaching",
    "common_loop",
    "early_exits",
    "filling_loops",
    "names_bound_between",
    "runs_before",
    "runs_between",
    "stream_pull",
]
