"""The index of one module, built in one pre-order pass: parents, classes and their methods,
functions (with the class their `self` refers to), and the nodes each function owns (its
body without nested functions, classes or lambdas). Later questions read these lists
instead of walking the tree again (a walk of a 5,000-line file costs ~0.1 s).

    idx = index(file)                      # memoised per file
    for function in idx.functions:         # Function: node, qualname, cls, self_name, outer
        for node in idx.nodes(function.node): ...
    idx.statement_of(expr); idx.function_of_node(expr); idx.path(stmt)
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING

from rtlint.core.astnodes import FIELDS, children, node_fields, walk

from .paths import StatementPath, statement_at

if TYPE_CHECKING:
    from rtlint.core.context import FileContext

FunctionNode = (ast.FunctionDef, ast.AsyncFunctionDef)
TryNode = (ast.Try, getattr(ast, "TryStar", ast.Try))
AnyFunction = ast.FunctionDef | ast.AsyncFunctionDef
_OPAQUE = (*FunctionNode, ast.ClassDef, ast.Lambda)  # bodies that are not the function's own
_SCOPES = frozenset(_OPAQUE)  # looked up by exact type: a parsed tree holds no subclasses
_ASSIGNS = frozenset({ast.Assign, ast.AnnAssign})


@dataclass(eq=False)
class ClassInfo:
    node: ast.ClassDef
    qualname: str
    methods: dict[str, AnyFunction] = field(default_factory=dict)

    @property
    def init(self) -> AnyFunction | None:
        return self.methods.get("__init__")


@dataclass(eq=False)
class Function:
    node: AnyFunction
    qualname: str
    cls: ClassInfo | None  # the class whose instance `self_name` refers to
    self_name: str | None
    outer: Function | None  # the function this one is nested in

    @property
    def method(self) -> Function | None:
        """The method of `cls` this function is, or is nested in."""
        current: Function | None = self
        while current is not None and current.outer is not None:
            current = current.outer
        return current if current is not None and current.cls is not None else None


def dotted(node: ast.AST | None) -> str | None:
    """`a.b.c` for a chain of names and attributes, else None."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return None


def final_name(node: ast.AST | None) -> str | None:
    """`c` of `a.b.c`, `c`, or `a.c[T]` (a subscripted generic, `AgentTask[Result]`), else None."""
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Subscript):
        return final_name(node.value)
    return None


def snippet(file: FileContext, node: ast.AST, limit: int = 60) -> str:
    """`node`'s source on one line (white space folded) for a message, cut to `limit` with "..."."""
    text = " ".join(file.segment(node).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def walk_function(node: ast.AST) -> list[ast.AST]:
    """Nodes of a function body (or of any node, itself first), not entering nested
    functions, classes or lambdas, in pre-order. Kept on the node: rules ask for the same
    body many times (the list lives as long as the tree, which no rule changes). What is
    kept never holds the node itself: that would make a cycle, which only the cyclic
    collector frees, on every node asked about (a big file's whole tree, at the end)."""
    below = node.__dict__.get("_rtlint_body")
    if below is None:
        found = _walk_function(node)
        below = node._rtlint_body = found if isinstance(node, FunctionNode) else found[1:]  # type: ignore[attr-defined]
    return below if isinstance(node, FunctionNode) else [node, *below]


def _walk_function(node: ast.AST) -> list[ast.AST]:
    found: list[ast.AST] = []
    stack = children(node) if isinstance(node, FunctionNode) else [node]
    stack.reverse()
    while stack:
        current = stack.pop()
        found.append(current)
        if isinstance(current, _OPAQUE):
            continue
        below = children(current)
        below.reverse()
        stack.extend(below)
    return found


def subtree(node: ast.AST) -> Iterator[ast.AST]:
    """`node` and everything below it (iterative, like ast.walk; no `ctx` nodes)."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(children(current))


def self_parameter(function: AnyFunction) -> str | None:
    if any(final_name(d) in ("staticmethod", "classmethod") for d in function.decorator_list):
        return None
    arguments = [*function.args.posonlyargs, *function.args.args]
    return arguments[0].arg if arguments else None


def parameters(function: AnyFunction) -> list[ast.arg]:
    a = function.args
    extra = [x for x in (a.vararg, a.kwarg) if x is not None]
    return [*a.posonlyargs, *a.args, *a.kwonlyargs, *extra]


class Index:
    def __init__(self, tree: ast.Module, file: FileContext | None = None) -> None:
        self.tree = tree
        self.file = file
        self.parents: dict[int, ast.AST] = {}
        self.classes: list[ClassInfo] = []
        self.functions: list[Function] = []
        self.function_of: dict[int, Function] = {}  # id(function node) -> Function
        self.owned: dict[int, list[ast.AST]] = {id(tree): []}
        self.class_nodes: dict[int, list[ast.AST]] = {}  # a class's nodes, methods included
        self.method_nodes: dict[int, list[ast.AST]] = {}  # a method's nodes, nested functions included
        self.assignments: list[ast.Assign | ast.AnnAssign] = []
        self._build(tree)

    def _build(self, tree: ast.Module) -> None:
        # A stack entry is (node, scope). A scope is the tuple (owned list, class-nodes list or
        # None, method-nodes list or None, qualname prefix, class whose body this is, enclosing
        # Function, innermost class, method node, the scope of the nodes below a class's own
        # children), made once per class, function or lambda and shared by all of its nodes:
        # this pass visits every node of the file and was as costly as the parse.
        parents, assignments, fields_of = self.parents, self.assignments, FIELDS
        top = (self.owned[id(tree)], None, None, "", None, None, None, None, None)
        stack: list[tuple] = []
        push, pop = stack.append, stack.pop
        for child in reversed(children(tree)):
            parents[id(child)] = tree
            push((child, top))
        while stack:
            node, scope = pop()
            scope[0].append(node)
            if scope[1] is not None:
                scope[1].append(node)
                if scope[2] is not None:
                    scope[2].append(node)
            kind = node.__class__
            if kind in _SCOPES:
                scope = self._enter(node, kind, scope)
            else:
                if kind in _ASSIGNS:
                    assignments.append(node)
                if scope[8] is not None:  # a child of a class: its own children are not the class body
                    scope = scope[8]
            fields = fields_of.get(kind)
            if fields is None:
                fields = node_fields(kind)
            if not fields:  # a name, a constant: no children
                continue
            below = []  # `children(node)`, inlined: the call cost as much as the rest
            for name in fields:
                value = getattr(node, name, None)
                if value.__class__ is list:
                    for item in value:
                        if isinstance(item, ast.AST):
                            below.append(item)
                elif isinstance(value, ast.AST):
                    below.append(value)
            for child in reversed(below):
                parents[id(child)] = node
                push((child, scope))

    def _enter(self, node: ast.AST, kind: type, scope: tuple) -> tuple:
        """The scope of the nodes below a class, function or lambda `node`."""
        _, class_list, method_list, prefix, body_of, outer, cls, method, _ = scope
        owned = self.owned[id(node)] = []
        if kind is ast.ClassDef:
            assert isinstance(node, ast.ClassDef)
            info = ClassInfo(node, prefix + node.name)
            self.classes.append(info)
            class_list = self.class_nodes[id(node)] = []
            prefix = info.qualname + "."
            deeper = (owned, class_list, None, prefix, None, None, info, None, None)
            return (owned, class_list, None, prefix, info, None, info, None, deeper)
        if kind is ast.Lambda:
            return (owned, class_list, method_list, prefix, None, outer, cls, method, None)
        assert isinstance(node, FunctionNode)
        function = self._function(node, prefix, body_of, outer)
        if body_of is not None:
            method_list = self.method_nodes[id(node)] = []
            method = node
        return (owned, class_list, method_list, function.qualname + ".", None, function, cls, method, None)

    def _function(self, node: AnyFunction, prefix: str, body_of: ClassInfo | None, outer: Function | None) -> Function:
        if body_of is not None:
            body_of.methods[node.name] = node
        self_name = self_parameter(node) if body_of is not None else None
        cls = body_of or (outer.cls if outer else None)
        self_name = self_name or (outer.self_name if outer else None)
        if self_name and body_of is None and any(a.arg == self_name for a in parameters(node)):
            cls, self_name = None, None  # a nested function rebinding `self`
        function = Function(node, prefix + node.name, cls, self_name, outer)
        self.functions.append(function)
        self.function_of[id(node)] = function
        return function

    # -- queries -------------------------------------------------------------------------
    def nodes(self, function_node: ast.AST) -> list[ast.AST]:
        """The nodes of a function body, as `walk_function` yields them."""
        owned = self.owned.get(id(function_node))
        return owned if owned is not None else list(walk_function(function_node))

    def ancestors(self, node: ast.AST) -> Iterator[ast.AST]:
        current = self.parents.get(id(node))
        while current is not None:
            yield current
            current = self.parents.get(id(current))

    def statement_of(self, node: ast.AST) -> ast.stmt:
        current = node
        while not isinstance(current, ast.stmt):
            current = self.parents[id(current)]
        return current

    def function_of_node(self, node: ast.AST) -> Function | None:
        for ancestor in self.ancestors(node):
            if isinstance(ancestor, FunctionNode):
                return self.function_of.get(id(ancestor))
        return None

    def bases(self, info: ClassInfo) -> list[ClassInfo]:
        """The classes of this module that `info` derives from, nearest first."""
        by_name = self.__dict__.get("_classes_by_name")
        if by_name is None:  # once per module: a file of many classes asks for every one's bases
            by_name = self.__dict__["_classes_by_name"] = {c.node.name: c for c in self.classes}
        found: list[ClassInfo] = []
        queue = [final_name(b) for b in info.node.bases]
        while queue:
            base = by_name.get(queue.pop(0) or "")
            if base is not None and base is not info and base not in found:
                found.append(base)
                queue.extend(final_name(b) for b in base.node.bases)
        return found

    def init_of(self, info: ClassInfo) -> AnyFunction | None:
        """The `__init__` that builds instances of the class: its own, or an inherited one."""
        for candidate in (info, *self.bases(info)):
            if candidate.init is not None:
                return candidate.init
        return None

    def path(self, stmt: ast.stmt) -> StatementPath:
        assert self.file is not None, "paths need the file the index was built for"
        return self.file.path_of(stmt)

    def statement_at(self, path: StatementPath) -> ast.stmt:
        return statement_at(self.tree, path)


def index(file: FileContext) -> Index:
    return file.memo("rules._analysis.index", lambda: Index(file.tree, file))


def annotation_names(annotation: ast.AST | None) -> Iterator[str]:
    """The names an annotation mentions (`a.B`, `Optional[C]`, `"D | None"` strings too)."""
    if annotation is None:
        return
    for node in walk(annotation):
        if isinstance(node, ast.Name):
            yield node.id
        elif isinstance(node, ast.Attribute):
            yield node.attr
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            yield from _string_annotation_names(node.value)


@lru_cache(maxsize=4096)
def _string_annotation_names(text: str) -> tuple[str, ...]:
    """The names in a string annotation, parsed once per text."""
    try:
        return tuple(annotation_names(ast.parse(text, mode="eval")))
    except (SyntaxError, ValueError, RecursionError):
        return ()


def awaited_calls(await_node: ast.Await) -> Iterator[ast.Call]:
    """Calls whose coroutine this await runs: `await f(x)`, and calls passed to wrappers
    such as `await asyncio.wait_for(f(x), 5)` or `asyncio.shield(f(x))`."""
    stack: list[ast.AST] = [await_node.value]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Call):
            yield node
            stack.extend(node.args)
            stack.extend(k.value for k in node.keywords)
        elif isinstance(node, (ast.Starred, ast.NamedExpr)):
            stack.append(node.value)
