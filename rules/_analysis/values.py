"""Value flow: where the value of a name or expression comes from.

`ValueFlow` answers `origins(expr)`: the set of *origin keys* its value carries. Sources are
pluggable: `sources(node)` returns the keys a node produces itself (a snapshot read, a
parameter's `ast.arg`, ...) or an empty set. Through reaching definitions on the function's
control-flow graph (loops and branches included), the flow follows assignments, aliases,
tuple unpacking (`a, b = x, y`), walrus, `with ... as`, attributes set in the same function
(`self._pending = ...` then `self._pending`), closures' free variables (bound in the
enclosing function) and parameters. `FlowRules` says which calls carry their inputs into
their result and which calls change a local value in place (sinks are the caller's part:
ask `origins` of a sink's argument).

    flow = ValueFlow(graph, function_node, sources=lambda n: ..., rules=FlowRules(...))
    flow.origins(call.args[0])            # frozenset of source keys

`bound_names` is the flow-insensitive companion: the names bound (transitively) to values a
predicate recognises, e.g. every local alias of a session.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Hashable, Iterable, Iterator
from dataclasses import dataclass, field

from rtlint.core.astnodes import walk

from .cfg import Graph
from .index import dotted, parameters, walk_function


@dataclass(frozen=True)
class FlowRules:
    """How values travel through calls. `carries(call, origins)` is what the call's result
    carries, given `origins` to ask about its parts (default: nothing); `mutators` are method names that
    put their arguments into their receiver; `containers` are attributes that hold their
    owner's content (`ctx.items`), so storing into or mutating them changes the owner."""

    carries: Callable[[ast.Call, Callable[[ast.AST], frozenset]], frozenset] = lambda call, origins: frozenset()
    mutators: frozenset[str] = frozenset()
    containers: frozenset[str] = frozenset()


@dataclass(eq=False)
class Definition:
    name: str  # a local name, or the dotted text of an attribute ("self._pending")
    node: ast.AST  # where the binding happens (a target, a call, an `ast.arg`)
    value: ast.AST | None  # the expression whose origins it binds (None: nothing tracked)
    kills: bool  # a plain (re)binding, as opposed to an in-place change
    origins: frozenset = field(default_factory=frozenset)


class ValueFlow:
    def __init__(
        self,
        graph: Graph,
        function: ast.AST,
        sources: Callable[[ast.AST], frozenset],
        rules: FlowRules = FlowRules(),
        outer: ValueFlow | None = None,
    ) -> None:
        self.graph = graph
        self.function = function
        self.sources = sources
        self.rules = rules
        self.outer = outer
        self.definitions: list[Definition] = []
        self.by_name: dict[str, list[Definition]] = {}
        self._comprehension_names = _comprehension_names(function)
        self._collect()
        self._reaching_in = self._reaching()
        self._solve()

    # -- definitions -------------------------------------------------------------------
    def _collect(self) -> None:
        if hasattr(self.function, "args"):
            for argument in parameters(self.function):
                self._define(Definition(argument.arg, argument, argument, True))
        for node in walk_function(self.function):
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    self._bind(target, node.value)
            elif isinstance(node, ast.AnnAssign) and node.value is not None:
                self._bind(node.target, node.value)
            elif isinstance(node, ast.NamedExpr):
                self._bind(node.target, node.value)
            elif isinstance(node, ast.AugAssign):
                self._change(node.target, node.value, node.target)
            elif isinstance(node, (ast.For, ast.AsyncFor)):
                for name in _names(node.target):
                    self._define(Definition(name.id, name, None, True))
            elif isinstance(node, (ast.With, ast.AsyncWith)):
                for item in node.items:
                    if isinstance(item.optional_vars, ast.Name):
                        self._define(Definition(item.optional_vars.id, item.optional_vars, item.context_expr, True))
            elif (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in self.rules.mutators
            ):
                arguments = ast.Tuple([*node.args, *(k.value for k in node.keywords)], ast.Load())
                self._change(node.func.value, arguments, node)

    def _define(self, definition: Definition) -> None:
        self.definitions.append(definition)
        self.by_name.setdefault(definition.name, []).append(definition)

    def _bind(self, target: ast.AST, value: ast.AST | None) -> None:
        if isinstance(target, ast.Name):
            self._define(Definition(target.id, target, value, True))
        elif isinstance(target, (ast.Tuple, ast.List)):
            for element in target.elts:  # unpacking: element by element when the shapes match
                inner = element.value if isinstance(element, ast.Starred) else element
                self._bind(inner, _element(value, target, element))
        elif isinstance(target, ast.Attribute) and target.attr not in self.rules.containers and dotted(target):
            self._define(Definition(dotted(target) or "", target, value, True))
        elif isinstance(target, (ast.Attribute, ast.Subscript)) and value is not None:
            self._change(target.value if isinstance(target, ast.Subscript) else target, value, target)

    def _change(self, receiver: ast.AST, value: ast.AST, at: ast.AST) -> None:
        """`x.items = v`, `x[:] = v`, `x += v`, `x.extend(v)`: the local `x` now carries `v` too."""
        text = dotted(receiver) or ""
        for container in self.rules.containers:
            if text.endswith("." + container):
                text = text[: -len(container) - 1]
        if text and "." not in text:
            self._define(Definition(text, at, value, False))

    # -- reaching definitions on the graph ----------------------------------------------
    def _reaching(self) -> list[frozenset[int]]:
        """Per unit, the definitions (indexes) that reach its start."""
        graph = self.graph
        local: dict[int, list[tuple[int, int]]] = {}  # unit -> (order, definition index)
        entry_defs: set[int] = set()
        for i, d in enumerate(self.definitions):
            if isinstance(d.node, ast.arg):
                entry_defs.add(i)
                continue
            if id(d.node) not in graph.point_of:
                continue  # inside a lambda: not in the graph
            for point in graph.copies(d.node):  # both copies of a `finally`
                local.setdefault(point.unit, []).append((point.order, i))
        for entries in local.values():
            entries.sort()
        self._local = local
        units = len(graph.successors)
        reach_in: list[set[int]] = [set() for _ in range(units)]
        reach_in[graph.entry] |= entry_defs
        work = list(range(units))
        while work:
            unit = work.pop()
            out = self._through(unit, reach_in[unit], None)
            for successor in graph.successors[unit]:
                if not out <= reach_in[successor]:
                    reach_in[successor] |= out
                    work.append(successor)
        return [frozenset(s) for s in reach_in]

    def _through(self, unit: int, incoming: Iterable[int], before: int | None) -> set[int]:
        current = set(incoming)
        for order, i in self._local.get(unit, ()):
            if before is not None and order >= before:
                break
            d = self.definitions[i]
            if d.kills:
                current = {j for j in current if self.definitions[j].name != d.name}
            current.add(i)
        return current

    def reaching(self, name: str, use: ast.AST) -> list[Definition]:
        """The definitions of `name` that can reach `use` (none for a comprehension's own
        variable: its scope binds it)."""
        if id(use) in self._comprehension_names:
            return []
        if id(use) not in self.graph.point_of:  # not in the graph (inside a lambda): any definition
            return list(self.by_name.get(name, ()))
        current: set[int] = set()
        for point in self.graph.copies(use):
            current |= self._through(point.unit, self._reaching_in[point.unit], point.order)
        return [self.definitions[i] for i in sorted(current) if self.definitions[i].name == name]

    def _solve(self) -> None:
        """Origins of every definition, to a fixpoint (loops feed definitions back)."""
        changed = True
        while changed:
            changed = False
            for d in self.definitions:
                found = self.sources(d.node) if isinstance(d.node, ast.arg) else self.origins(d.value)
                if not found <= d.origins:
                    d.origins = d.origins | found
                    changed = True

    # -- origins -----------------------------------------------------------------------
    def origins(self, node: ast.AST | None) -> frozenset:
        """The source keys the value of `node` carries."""
        if node is None:
            return frozenset()
        own = self.sources(node)
        if own:
            return own
        if isinstance(node, ast.Name):
            return self.origins_of_name(node.id, node)
        if isinstance(node, ast.Attribute):
            text = dotted(node)
            if text is not None and text in self.by_name:
                carried = self.origins_of_name(text, node)
                if carried:
                    return carried
            return self.origins(node.value)
        if isinstance(node, (ast.Subscript, ast.Starred, ast.NamedExpr, ast.Await)):
            return self.origins(node.value)
        if isinstance(node, ast.Call):
            return self.rules.carries(node, self.origins)
        if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
            return _union(self.origins(e) for e in node.elts)
        if isinstance(node, ast.BinOp):
            return self.origins(node.left) | self.origins(node.right)
        if isinstance(node, ast.BoolOp):
            return _union(self.origins(v) for v in node.values)
        if isinstance(node, ast.IfExp):
            return self.origins(node.body) | self.origins(node.orelse)
        if isinstance(node, (ast.ListComp, ast.GeneratorExp, ast.SetComp)):
            return _union(self.origins(g.iter) for g in node.generators)
        return frozenset()

    def origins_of_name(self, name: str, use: ast.AST) -> frozenset:
        if name not in self.by_name and self.outer is not None and "." not in name:
            return self.outer.origins_anywhere(name)  # a free variable of a closure
        return _union(d.origins for d in self.reaching(name, use))

    def origins_anywhere(self, name: str) -> frozenset:
        """Every origin `name` is bound to in this function (a closure may run at any time)."""
        if name not in self.by_name and self.outer is not None:
            return self.outer.origins_anywhere(name)
        return _union(d.origins for d in self.by_name.get(name, ()))


def _element(value: ast.AST | None, target: ast.Tuple | ast.List, element: ast.AST) -> ast.AST | None:
    if isinstance(value, (ast.Tuple, ast.List)) and len(value.elts) == len(target.elts):
        if not any(isinstance(e, ast.Starred) for e in (*value.elts, *target.elts)):
            return value.elts[target.elts.index(element)]
    return None


def _comprehension_names(function: ast.AST) -> set[int]:
    """The uses of names that a comprehension of `function` binds in its own scope (its
    targets), everywhere in it but its first iterable (evaluated in the function's scope)."""
    found: set[int] = set()
    for node in walk_function(function):
        if isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)):
            bound = {n.id for g in node.generators for n in _names(g.target)}
            outside = set(map(id, walk(node.generators[0].iter)))
            found.update(
                id(n) for n in walk(node) if isinstance(n, ast.Name) and n.id in bound and id(n) not in outside
            )
    return found


def _names(target: ast.AST) -> Iterator[ast.Name]:
    for node in walk(target):
        if isinstance(node, ast.Name):
            yield node


def _union(sets: Iterable[frozenset]) -> frozenset:
    result: set[Hashable] = set()
    for s in sets:
        result |= s
    return frozenset(result)


def local_names(function: ast.AST) -> set[str]:
    """Names a function binds itself (parameters, assignments, loop and `with` targets)."""
    names = {a.arg for a in parameters(function)} if hasattr(function, "args") else set()
    for node in walk_function(function):
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            names.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
    return names


def bound_names(
    nodes: Iterable[ast.AST],
    known: dict[str, list[ast.AST]],
    is_value: Callable[[ast.AST, dict[str, list[ast.AST]]], bool],
    annotated: Callable[[ast.AnnAssign], bool] = lambda node: False,
) -> dict[str, list[ast.AST]]:
    """The names (with their binding nodes) bound to a value `is_value` recognises, directly
    or through other such names (`a = rt; b = a`), `known` included; flow-insensitive."""
    pairs = [
        (node, target, value)
        for node in nodes
        if isinstance(node, _BINDERS)
        for target, value in _bindings(node)
        if isinstance(target, ast.Name)
    ]
    aliases = dict(known)
    changed = True
    while changed:
        changed = False
        for node, target, value in pairs:
            if target.id in aliases:
                continue
            if (isinstance(node, ast.AnnAssign) and annotated(node)) or (
                value is not None and is_value(value, aliases)
            ):
                aliases[target.id] = [node]
                changed = True
    return aliases


_BINDERS = (ast.Assign, ast.AnnAssign, ast.NamedExpr)


def _bindings(node: ast.AST) -> Iterator[tuple[ast.AST, ast.AST | None]]:
    target: ast.AST | None = None
    value: ast.AST | None = None
    if isinstance(node, ast.Assign) and len(node.targets) == 1:
        target, value = node.targets[0], node.value
    elif isinstance(node, (ast.AnnAssign, ast.NamedExpr)):
        target, value = node.target, node.value
    if isinstance(target, (ast.Tuple, ast.List)):
        if isinstance(value, (ast.Tuple, ast.List)) and len(target.elts) == len(value.elts):
            yield from zip(target.elts, value.elts)
        return
    if target is not None:
        yield target, value


def single_binding(nodes: Iterable[ast.AST], name: str) -> ast.AST | None:
    """The one expression `name` is ever assigned in these nodes, else None."""
    values = [v for node in nodes for t, v in _bindings(node) if isinstance(t, ast.Name) and t.id == name]
    texts = {dotted(v) for v in values}
    return values[0] if len(values) >= 1 and len(texts) == 1 and None not in texts else None


# -- live aliases and copies -------------------------------------------------------------


@dataclass(eq=False)
class Copy:
    """A new list made from a live list (or from another copy): `node` makes it, `reads` are
    the nodes where the live list's content was read (the copy of a copy keeps its source's),
    `exact` whether it holds the same items in the same order as its source."""

    node: ast.AST
    reads: tuple[ast.AST, ...]
    exact: bool


LIVE, COPY = "live", "copy"


class AliasFlow(ValueFlow):
    """Which live lists a value is an alias of, and which copies of one it holds.

    Framework-free: the caller says which expressions answer with a live list and which form
    a copy. `lists(node)` gives, for an expression that reads a context's list, the context
    expression it reads (a value that carries live keys shares them: a context built on a live
    alias), and `shared(context)` whether that context is one others write (its list is live);
    `copies(node)` gives `(operand, exact)` for a call that copies its operand (`list(x)`,
    `x.copy()`), `shares(call)` the argument whose list a call's result shares (a context
    built on it). Slices, `[*x]`, `x + [...]` and comprehensions over a live list or a copy
    are copies; so is the result of any other call with such an argument (a summary of it).
    Origin keys are `(LIVE, id(node))` and `(COPY, id(node))`; `copy_of[id]` describes a copy.
    """

    def __init__(
        self,
        graph: Graph,
        function: ast.AST,
        lists: Callable[[ast.AST], ast.AST | None],
        shared: Callable[[ast.AST], bool],
        copies: Callable[[ast.Call], tuple[ast.AST, bool] | None],
        shares: Callable[[ast.Call], ast.AST | None] = lambda call: None,
        outer: AliasFlow | None = None,
    ) -> None:
        self._lists, self._shared, self._copies, self._shares = lists, shared, copies, shares
        self.copy_of: dict[int, Copy] = {}
        self.live_nodes: dict[int, ast.AST] = {}
        rules = FlowRules(mutators=frozenset({"append", "extend", "insert"}))  # a list filled from a copy
        super().__init__(graph, function, lambda node: frozenset(), rules, outer=outer)

    def _collect(self) -> None:
        """A loop's target holds an element of what it iterates: computed from it (a copy)."""
        super()._collect()
        for node in walk_function(self.function):
            if isinstance(node, (ast.For, ast.AsyncFor)) and isinstance(node.target, ast.Name):
                element = ast.copy_location(ast.Subscript(node.iter, ast.Constant(0), ast.Load()), node.iter)
                for definition in self.by_name.get(node.target.id, ()):
                    if definition.node is node.target:
                        definition.value = element

    def origins_of_name(self, name: str, use: ast.AST) -> frozenset:
        """A live list stays the live list whatever is appended to it: what its bindings carry
        decides, and the in-place changes count only for a name bound to no live list."""
        if name not in self.by_name and self.outer is not None and "." not in name:
            return self.outer.origins_anywhere(name)
        definitions = self.reaching(name, use)
        bound = _union(d.origins for d in definitions if d.kills)
        if any(k[0] == LIVE for k in bound):
            return bound
        return _union(d.origins for d in definitions)

    def live(self, node: ast.AST | None) -> bool:
        """The value is (on some path) a live list, and on none a copy."""
        keys = self.origins(node)
        return any(k[0] == LIVE for k in keys) and not any(k[0] == COPY for k in keys)

    def copies_in(self, node: ast.AST | None) -> list[Copy]:
        """The copies `node` may hold, in source order: a copy written in the code before one
        the flow derives from it (an edit's synthetic node has no position), never by `id`,
        which differs from run to run."""
        copies = [self.copy(k[1]) for k in self.origins(node) if k[0] == COPY]
        return sorted(copies, key=_source_order)

    def copy(self, key: int) -> Copy:
        """The copy a `(COPY, key)` origin names: made in this function, or in an enclosing
        one whose copy a closure reads (a free variable)."""
        flow: AliasFlow | None = self
        while flow is not None:
            if key in flow.copy_of:
                return flow.copy_of[key]
            flow = flow.outer if isinstance(flow.outer, AliasFlow) else None
        raise KeyError(key)

    def _live_node(self, key: int) -> ast.AST | None:
        flow: AliasFlow | None = self
        while flow is not None:
            if key in flow.live_nodes:
                return flow.live_nodes[key]
            flow = flow.outer if isinstance(flow.outer, AliasFlow) else None
        return None

    def origins(self, node: ast.AST | None) -> frozenset:
        if node is None:
            return frozenset()
        context = self._lists(node)
        if context is not None:
            carried = self.origins(context) if context is not node else frozenset()
            if any(k[0] == LIVE for k in carried):
                return frozenset(k for k in carried if k[0] == LIVE)
            if self._shared(context):
                self.live_nodes[id(node)] = node
                return frozenset({(LIVE, id(node))})
            return frozenset()
        if isinstance(node, ast.Call):
            return self._call(node)
        if isinstance(node, ast.Subscript):
            inner = self.origins(node.value)
            exact = isinstance(node.slice, ast.Slice) and not (node.slice.lower or node.slice.upper or node.slice.step)
            return self._copy(node, inner, exact) if inner else inner
        if isinstance(node, (ast.List, ast.Tuple)):
            inner = _union(self.origins(e) for e in node.elts)
            exact = len(node.elts) == 1 and isinstance(node.elts[0], ast.Starred)
            return self._copy(node, inner, exact) if inner else inner
        if isinstance(node, ast.Dict):  # a message built from one of a copy's
            inner = _union(self.origins(v) for v in [*node.keys, *node.values] if v is not None)
            return self._copy(node, inner, False) if inner else inner
        if isinstance(node, ast.BinOp) or isinstance(node, (ast.ListComp, ast.GeneratorExp, ast.SetComp)):
            inner = super().origins(node)
            return self._copy(node, inner, False) if inner else inner
        return super().origins(node)

    def _call(self, call: ast.Call) -> frozenset:
        shared = self._shares(call)
        if shared is not None:
            return frozenset(k for k in self.origins(shared) if k[0] == LIVE)
        copied = self._copies(call)
        if copied is not None:
            operand, exact = copied
            inner = self.origins(operand)
            if not inner and self._shared(operand):  # `get_messages(<filter>)` of a shared context
                inner = frozenset({(LIVE, id(call))})
            return self._copy(call, inner, exact) if inner else inner
        if isinstance(call.func, ast.Attribute) and self.origins(call.func.value):
            return frozenset()  # a method of the list itself (`index`, `count`, `pop`): not a list
        inner = _union(self.origins(a) for a in [*call.args, *(k.value for k in call.keywords)])
        return self._copy(call, inner, False) if inner else inner  # computed from it: a summary

    def _copy(self, node: ast.AST, inner: frozenset, exact: bool) -> frozenset:
        reads: list[ast.AST] = []
        for kind, key in sorted(inner, key=str):
            if kind == LIVE:  # read where the live list is
                reads.append(self._live_node(key) or node)
            else:
                source = self.copy(key)
                reads.extend(source.reads)
                exact = exact and source.exact
        known = self.copy_of.get(id(node))
        if known is None:
            self.copy_of[id(node)] = Copy(node, tuple(dict.fromkeys(reads)), exact)
        else:  # a loop feeds more origins in: widen
            known.reads = tuple(dict.fromkeys((*known.reads, *reads)))
            known.exact = known.exact and exact
        return frozenset({(COPY, id(node))})


__all__ = [
    "COPY",
    "LIVE",
    "AliasFlow",
    "Copy",
    "Definition",
    "FlowRules",
    "ValueFlow",
    "bound_names",
    "local_names",
    "single_binding",
]


def _source_order(copy: Copy) -> tuple:
    node = copy.node
    line = getattr(node, "lineno", None)
    return (line is None, line or 0, getattr(node, "col_offset", 0), not copy.exact)
