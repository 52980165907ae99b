"""Provider sessions (design.md, "Rules for provider-plugin authors"): a class of a
`livekit-plugins-*` package that derives from the framework's session type and implements
the push itself. Its *mirror* is the attribute its push diffs a context against; *handlers*
are its other functions, which follow the server's events; the push's *helpers* are the
methods it calls (the builder of its item events among them).

    sessions = provider_sessions(file)          # ProviderSession per class, memoised
    session.mirrors, session.push, session.helpers, session.functions()
    mirror_inserts(session, function)           # self.<mirror>.insert(...) calls
    removal_deletes(session)                    # loops over the diff's to_remove that delete

The words are options (`mirror-attributes`, `mirror-types`, `diff-functions`,
`diff-removals`), beside the vocabulary's `session-types` and `push-methods`.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from rtlint.core.astnodes import children, walk

from ...._analysis.index import ClassInfo, Function, FunctionNode, Index, annotation_names, final_name, index
from ...._analysis.locks import MethodFacts, lock_model
from ..vocabulary import setting, vocabulary

if TYPE_CHECKING:
    from rtlint.core.context import FileContext

DELETE_WORDS = ("delete", "Delete", "DELETE")  # what a delete sent for a removal says (RTL010's token too)
# `<x>.<mirror>.insert(` or `<x>.<mirror>.items.append|insert|extend(`: a mirror insert, for the pre-filter
MIRROR_INSERT = (
    ("insert", "append", "extend"),
    re.compile(rb"\.\w+\s*\.\s*(?:items\s*\.\s*(?:append|insert|extend)|insert)\s*\("),
)
_LOGGING = {"debug", "info", "warning", "warn", "error", "exception", "critical", "log", "print"}
_EMITTER = {"emit", "on", "once", "off"}  # the event emitter's own methods
_MUTATORS = {"append", "extend", "insert", "add", "update", "setdefault", "__setitem__"}


@dataclass(frozen=True)
class Span:
    """A stretch of source in `ast`'s terms (1-based lines, byte columns), for a finding
    that is not one node (a class's `class Name`) or a text between two nodes."""

    lineno: int
    col_offset: int
    end_lineno: int
    end_col_offset: int


@dataclass(eq=False)
class ProviderSession:
    info: ClassInfo
    classes: list[ClassInfo]  # the class and its bases in the file, nearest first
    methods: dict[str, Any]  # name -> node, a base's method unless the class overrides it
    facts: dict[str, MethodFacts]  # the lock model's facts of those methods (calls, locks)
    push: list[str]  # the push methods the class implements
    helpers: set[str]  # methods the push calls, transitively
    mirrors: set[str] = field(default_factory=set)
    declared: set[str] = field(default_factory=set)  # the mirrors named by the options or a type
    mirror_properties: set[str] = field(default_factory=set)
    _functions: list[Function] | None = field(default=None, repr=False)
    _writes: dict[int, tuple[list[ast.Assign], list[ast.Call]]] | None = field(default=None, repr=False)

    def method_functions(self, idx: Index, names: Iterable[str]) -> Iterator[Function]:
        """The methods of these names and the functions nested in them."""
        for name in names:
            node = self.methods.get(name)
            if node is None:
                continue
            yield idx.function_of[id(node)]
            for inner in idx.method_nodes.get(id(node), []):
                if isinstance(inner, FunctionNode) and id(inner) in idx.function_of:
                    yield idx.function_of[id(inner)]

    def functions(self, idx: Index) -> list[Function]:
        if self._functions is None:
            self._functions = list(self.method_functions(idx, self.methods))
        return self._functions

    def pushing(self, idx: Index) -> list[Function]:
        """The push methods and their helpers, nested functions included."""
        return list(self.method_functions(idx, [*self.push, *sorted(self.helpers)]))

    def writes(self, idx: Index, function: Function) -> tuple[list[ast.Assign], list[ast.Call]]:
        """What the function's own body does to the mirror: `self.<mirror> = ...`, and
        `self.<mirror>.insert(...)` or `self.<mirror>.items.append/insert/extend(...)`. One
        pass over the class's functions, the first time one is asked about."""
        if self._writes is None:
            self._writes = {id(f.node): _mirror_writes(self, idx, f) for f in self.functions(idx)}
        return self._writes.get(id(function.node)) or _mirror_writes(self, idx, function)

    def is_mirror(self, node: ast.AST, function: Function) -> bool:
        """`self.<mirror>`, or `self.<property>` of a property that answers from the mirror."""
        return (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id == function.self_name
            and (node.attr in self.mirrors or node.attr in self.mirror_properties)
        )


def required_tokens(settings, declared: bool = False) -> list[tuple[Any, ...]]:
    """A provider session names a session type, has a mirror (`declared`: one named by the
    options or a type, not only what the push diffs against), and defines the push: a push
    method's name right after `def` (the files that only call it are the framework's and
    the applications', which the other rules read)."""

    def get(name: str) -> tuple[str, ...]:
        return tuple(setting(settings, name))

    methods = get("push-methods")
    names = b"|".join(re.escape(m.encode()) for m in methods)
    defined = re.compile(rb"\bdef[ \t]+(?:" + names + rb")\b")
    return [
        get("session-types"),
        (*get("mirror-attributes"), *get("mirror-types"), *(() if declared else get("diff-functions"))),
        ((methods, defined),),
    ]


def provider_sessions(file: FileContext) -> list[ProviderSession]:
    return file.memo("livekit.realtime.provider", lambda: _sessions(file))


def _sessions(file: FileContext) -> list[ProviderSession]:
    idx = index(file)
    words = vocabulary(file)
    types, push_names = words.realtime_types, words.push_methods
    locks = lock_model(file)
    found = []
    for info in idx.classes:
        classes = [info, *idx.bases(info)]
        names = [_base_name(b) for c in classes for b in c.node.bases]
        if not any(n == t or n.endswith(t) for n in names for t in types):
            continue
        methods: dict[str, Any] = {}
        facts: dict[str, MethodFacts] = {}
        for cls in reversed(classes):  # the nearest definition wins
            methods.update(cls.methods)
            facts.update(locks.facts(cls))
        push = sorted(n for n in methods if n in push_names)
        if not push:
            continue  # the class does not implement the push: nothing of it to judge here
        session = ProviderSession(info, classes, methods, facts, push, _reached(set(push), facts) - set(push))
        _learn_mirrors(file, idx, session)
        found.append(session)
    return found


def _base_name(base: ast.expr) -> str:
    while isinstance(base, ast.Subscript):  # llm.RealtimeSession[Literal[...]]
        base = base.value
    return final_name(base) or ""


def _reached(start: set[str], facts: dict[str, MethodFacts]) -> set[str]:
    found, todo = set(start), list(start)
    while todo:
        name = todo.pop()
        for callee in facts[name].calls if name in facts else ():
            if callee in facts and callee not in found:
                found.add(callee)
                todo.append(callee)
    return found


def _learn_mirrors(file: FileContext, idx: Index, session: ProviderSession) -> None:
    """The configured attributes the class uses, attributes of a mirror type, and what the
    push and its helpers diff the pushed context against."""
    words = vocabulary(file)
    configured, types, diffs = words.mirror_attributes, words.mirror_types, words.diff_functions
    mirrors = session.declared
    for cls in session.classes:  # one pass over the class's nodes, its methods' included
        for node in idx.class_nodes.get(id(cls.node), ()):
            kind = type(node)
            if kind is ast.Attribute:
                if node.attr in configured and type(node.value) is ast.Name:
                    mirrors.add(node.attr)
            elif kind is ast.AnnAssign:
                if type(node.target) is ast.Attribute and types.intersection(annotation_names(node.annotation)):
                    mirrors.add(node.target.attr)
            elif kind is ast.Assign and type(node.value) is ast.Call and final_name(node.value.func) in types:
                mirrors.update(t.attr for t in node.targets if type(t) is ast.Attribute)
    diffed: set[str] = set()
    for function in session.pushing(idx):
        for node in idx.nodes(function.node):
            if isinstance(node, ast.Call) and node.args and final_name(node.func) in diffs:
                diffed |= _attributes_behind(idx, function, node.args[0])
    properties = {
        name
        for name, node in session.methods.items()
        if any(final_name(d) in ("property", "cached_property") for d in node.decorator_list)
    }
    for name in diffed & properties:  # `diff(self.chat_ctx, ...)`: what the property reads
        function = idx.function_of[id(session.methods[name])]
        diffed |= {n.attr for n in idx.nodes(function.node) if self_attribute(n, function)}
    mirrors -= properties
    session.mirrors = mirrors | (diffed - properties)
    mirrors = session.mirrors
    for name in properties:
        function = idx.function_of[id(session.methods[name])]
        if any(self_attribute(n, function) and n.attr in mirrors for n in idx.nodes(function.node)):
            session.mirror_properties.add(name)


def _attributes_behind(idx: Index, function: Function, expr: ast.expr) -> set[str]:
    """`self.<x>` attributes an expression reads, directly or through a local name it was
    assigned from in the same function (`remote = self._x.to_chat_ctx()`)."""
    found = {n.attr for n in walk(expr) if self_attribute(n, function)}
    names = {n.id for n in walk(expr) if isinstance(n, ast.Name)}
    for node in idx.nodes(function.node):
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id in names for t in node.targets):
            found |= {n.attr for n in walk(node.value) if self_attribute(n, function)}
    return found


def self_attribute(node: ast.AST, function: Function) -> bool:
    return (
        isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and function.self_name is not None
        and node.value.id == function.self_name
    )


# -- what the session does with its mirror ----------------------------------------------
def mirror_inserts(session: ProviderSession, idx: Index, function: Function) -> list[ast.Call]:
    """`self.<mirror>.insert(...)` and `self.<mirror>.items.append/insert/extend(...)`."""
    return session.writes(idx, function)[1]


def mirror_assignments(session: ProviderSession, idx: Index, function: Function) -> list[ast.Assign]:
    """`self.<mirror> = ...` in the function's own body."""
    return session.writes(idx, function)[0]


def _mirror_writes(session: ProviderSession, idx: Index, function: Function) -> tuple[list, list]:
    assignments, inserts = [], []
    mirrors = session.mirrors
    for node in idx.nodes(function.node):
        kind = type(node)
        if kind is ast.Assign:
            if any(
                type(t) is ast.Attribute and t.attr in mirrors and self_attribute(t, function) for t in node.targets
            ):
                assignments.append(node)
        elif kind is ast.Call and type(node.func) is ast.Attribute:
            receiver, method = node.func.value, node.func.attr
            if (
                method in ("append", "insert", "extend")
                and type(receiver) is ast.Attribute
                and receiver.attr == "items"
            ):
                receiver, method = receiver.value, "insert"
            if method == "insert" and self_attribute(receiver, function) and receiver.attr in mirrors:
                inserts.append(node)
    return assignments, inserts


def removal_deletes(file: FileContext, session: ProviderSession) -> list[tuple[Function, ast.AST]]:
    """Loops (and comprehensions) of the push or its helpers over the diff's removals whose
    body sends a delete: a name, attribute or string that says "delete" (outside logging
    calls), there or in a function of the file it calls."""
    idx = index(file)
    removals = vocabulary(file).diff_removals
    found = []
    for function in session.pushing(idx):
        for node in idx.nodes(function.node):
            for iterated, body in _loops(node):
                if any(isinstance(n, ast.Attribute) and n.attr in removals for n in walk(iterated)):
                    if _deletes(idx, session, function, body, depth=2):
                        found.append((function, node))
    return found


def _loops(node: ast.AST) -> Iterator[tuple[ast.AST, list[ast.AST]]]:
    if isinstance(node, (ast.For, ast.AsyncFor)):
        yield node.iter, list(node.body)
    elif isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)):
        element = [node.key, node.value] if isinstance(node, ast.DictComp) else [node.elt]
        for generator in node.generators:
            yield generator.iter, [*element, *generator.ifs]


def _deletes(idx: Index, session: ProviderSession, function: Function, body: list[ast.AST], depth: int) -> bool:
    for node in _outside_logging(body):
        text = node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else None
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            text = node.value
        if text and any(word in text for word in DELETE_WORDS):
            return True
        if depth and isinstance(node, ast.Call):
            target = callee(idx, session, function, node)
            if target is not None and _deletes(idx, session, target, list(children(target.node)), depth - 1):
                return True
    return False


def _outside_logging(nodes: list[ast.AST]) -> Iterator[ast.AST]:
    stack = list(reversed(nodes))
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Call) and (final_name(node.func) or "") in _LOGGING:
            continue
        yield node
        if not isinstance(node, (*FunctionNode, ast.Lambda, ast.ClassDef)):
            stack.extend(reversed(children(node)))


def callee(idx: Index, session: ProviderSession, function: Function, call: ast.Call) -> Function | None:
    """The function of the file a call runs: `self.<method>(...)`, a function nested in
    the caller (or its outer functions), or a module-level function."""
    func = call.func
    if self_attribute(func, function) and func.attr in session.methods:
        return idx.function_of.get(id(session.methods[func.attr]))
    if isinstance(func, ast.Name):
        scope: Function | None = function
        while scope is not None:
            for node in idx.nodes(scope.node):
                if isinstance(node, FunctionNode) and node.name == func.id:
                    return idx.function_of.get(id(node))
            scope = scope.outer
        for node in idx.tree.body:
            if isinstance(node, FunctionNode) and node.name == func.id:
                return idx.function_of.get(id(node))
    return None


def runs_unseen_code(idx: Index, session: ProviderSession, function: Function, call: ast.Call) -> bool:
    """Whether a call of the function may run code this file does not show, with the session
    in hand: `super().<m>(...)`, a method the class inherits from outside the file, or a
    function of another module given `self` (or `self.emit`)."""
    func = call.func
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Call) and final_name(func.value.func) == "super":
        return True
    if self_attribute(func, function):
        return func.attr not in session.methods and func.attr not in _EMITTER
    if callee(idx, session, function, call) is not None:
        return False
    return any(
        isinstance(a, ast.Name) and a.id == function.self_name or self_attribute(a, function) and a.attr in _EMITTER
        for a in [*call.args, *(k.value for k in call.keywords)]
    )


def mutated_attributes(session: ProviderSession, idx: Index, functions: Iterable[Function]) -> set[str]:
    """Attributes of `self` the functions assign, store into or mutate in place."""
    found: set[str] = set()
    for function in functions:
        for node in idx.nodes(function.node):
            if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for target in targets:
                    inner = target.value if isinstance(target, ast.Subscript) else target
                    if self_attribute(inner, function):
                        found.add(inner.attr)
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _MUTATORS:
                if self_attribute(node.func.value, function):
                    found.add(node.func.value.attr)
    return found
