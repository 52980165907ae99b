"""What the realtime rules share: the vocabulary (sessions, mirrors, pushes, locks) and one
analysis of a module, computed once per file on the `ast` tree.

Terms (design.md): a *session* answers `chat_ctx` from a *mirror* of the server conversation
and *pushes* a context with an awaited `update_chat_ctx(ctx)`; a *snapshot* is a read of the
mirror; the *push lock* is the lock that serializes snapshot-and-push in a class.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Iterable, Iterator

from rtlint.context import FileContext, StatementPath
from rtlint.rule import Option

OPTIONS = (
    Option(
        "session-names",
        ["rt_session", "_rt_session", "realtime_session", "_realtime_session"],
        "names and attribute names that hold a realtime session",
    ),
    Option(
        "session-types",
        ["RealtimeSession"],
        "type names that mark a realtime session in annotations (a name ending in one counts too)",
    ),
    Option("mirror-properties", ["chat_ctx"], "session properties that answer from the mirror"),
    Option("push-methods", ["update_chat_ctx"], "session methods that push a context (awaited)"),
    Option("push-lock", "_rt_chat_ctx_lock", "the push lock attribute rtlint looks for and creates"),
)

FunctionNode = (ast.FunctionDef, ast.AsyncFunctionDef)
_LOCK_FACTORIES = {"Lock", "Semaphore", "BoundedSemaphore", "Condition"}
# methods of a context whose result is still (a copy of) that context or its items
_NON_CARRYING_METHODS = {
    "add_message",  # returns the new item, not the context
    "to_dict", "to_provider_format", "is_equivalent", "get_by_id", "index_by_id",
    "find_insertion_index", "to_proto", "model_dump", "model_dump_json", "text_content",
}
_CARRYING_CALLS = {"list", "tuple", "copy", "deepcopy", "sorted", "reversed"}
_MUTATORS = {"extend", "append", "insert", "add_message", "_upsert_item", "merge"}


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
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Name):
        return node.id
    return None


def root_name(node: ast.AST | None) -> str | None:
    while isinstance(node, (ast.Attribute, ast.Subscript, ast.Call)):
        node = node.func if isinstance(node, ast.Call) else node.value
    return node.id if isinstance(node, ast.Name) else None


def walk_function(node: ast.AST) -> Iterator[ast.AST]:
    """Nodes of a function body, not entering nested functions, classes or lambdas."""
    stack = list(ast.iter_child_nodes(node)) if isinstance(node, FunctionNode) else [node]
    stack.reverse()
    while stack:
        current = stack.pop()
        yield current
        if isinstance(current, (*FunctionNode, ast.ClassDef, ast.Lambda)):
            continue
        children = list(ast.iter_child_nodes(current))
        children.reverse()
        stack.extend(children)


def _subtree(node: ast.AST) -> Iterator[ast.AST]:
    """`node` and everything below it (iterative, like ast.walk)."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(ast.iter_child_nodes(current))


def body_statements(node: ast.AST) -> Iterator[ast.stmt]:
    """Statements of a function body in source order, not entering nested definitions."""
    for child in walk_function(node):
        if isinstance(child, ast.stmt):
            yield child


def _annotation_names(annotation: ast.AST | None) -> Iterator[str]:
    if annotation is None:
        return
    for node in ast.walk(annotation):
        if isinstance(node, ast.Name):
            yield node.id
        elif isinstance(node, ast.Attribute):
            yield node.attr
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            yield from _string_annotation_names(node.value)


@lru_cache(maxsize=4096)
def _string_annotation_names(text: str) -> tuple[str, ...]:
    """The names in a string annotation ("RealtimeSession | None"), parsed once per text."""
    try:
        return tuple(_annotation_names(ast.parse(text, mode="eval")))
    except (SyntaxError, ValueError, RecursionError):
        return ()


def is_lock_factory(value: ast.AST | None) -> bool:
    return isinstance(value, ast.Call) and final_name(value.func) in _LOCK_FACTORIES


@dataclass
class ClassInfo:
    node: ast.ClassDef
    qualname: str
    lock_attributes: set[str] = field(default_factory=set)  # assigned a Lock(), or used as one
    methods: dict[str, ast.AST] = field(default_factory=dict)
    push_lock: str | None = None  # decided once every push is known
    lock_takers: dict[str, set[str]] = field(default_factory=dict)  # lock -> methods taking it

    @property
    def init(self) -> ast.AST | None:
        return self.methods.get("__init__")


@dataclass
class Function:
    node: ast.FunctionDef | ast.AsyncFunctionDef
    qualname: str
    cls: ClassInfo | None  # the class whose instance `self_name` refers to
    self_name: str | None
    outer: Function | None


@dataclass
class Push:
    call: ast.Call
    stmt: ast.stmt
    function: Function
    session: ast.expr
    argument: ast.expr | None


@dataclass
class Snapshot:
    node: ast.Attribute  # `<session>.chat_ctx`
    stmt: ast.stmt
    function: Function


@dataclass
class LockBlock:
    stmt: ast.AsyncWith
    lock: str  # dotted text of the lock expression


class Module:
    """The realtime analysis of one file."""

    def __init__(self, file: FileContext) -> None:
        self.file = file
        settings = file.settings
        self.session_names = set(settings.get("session-names", ()))
        self.session_types = tuple(settings.get("session-types", ()))
        self.mirror_properties = set(settings.get("mirror-properties", ()))
        self.push_methods = set(settings.get("push-methods", ()))
        self.push_lock_name = settings.get("push-lock", "_rt_chat_ctx_lock")
        self.parents: dict[int, ast.AST] = {}
        self.classes: list[ClassInfo] = []
        self.functions: list[Function] = []
        self.function_of: dict[int, Function] = {}  # id(function node) -> Function
        self.session_factories: set[str] = set()  # functions annotated to return a session
        self._index(file.tree)
        self._aliases: dict[int, dict[str, list[ast.AST]]] = {}
        self._cache: dict = {}
        self._learn_from_assignments()
        self.pushes: list[Push] = []
        self.snapshots: list[Snapshot] = []
        for function in self.functions:
            self._scan(function)
        self._decide_push_locks()

    # -- structure ---------------------------------------------------------------------
    def _index(self, tree: ast.Module) -> None:
        """One pre-order pass over the tree: parents, the functions and classes, and the nodes
        each function owns (not those of functions nested in it), each class holds and each
        method holds (nested functions included). Every later question reads these lists
        instead of walking the tree again (a walk of a 5,000-line file costs ~0.1 s)."""
        self.owned: dict[int, list[ast.AST]] = {id(tree): []}
        self.class_nodes: dict[int, list[ast.AST]] = {}
        self.method_nodes: dict[int, list[ast.AST]] = {}
        self.assignments: list[ast.AST] = []
        # (node, owner id, qualname prefix, class whose body this is, enclosing Function,
        #  innermost class, the method (function directly in a class) this is in)
        stack: list[tuple] = [(child, id(tree), "", None, None, None, None) for child in reversed(list(ast.iter_child_nodes(tree)))]
        for child in ast.iter_child_nodes(tree):
            self.parents[id(child)] = tree
        while stack:
            node, owner, prefix, body_of, outer, cls, method = stack.pop()
            self.owned[owner].append(node)
            if cls is not None:
                self.class_nodes[id(cls.node)].append(node)
            if method is not None:
                self.method_nodes[id(method)].append(node)
            if isinstance(node, (ast.Assign, ast.AnnAssign)):
                self.assignments.append(node)
            child_owner, child_prefix, child_body_of, child_outer, child_cls, child_method = owner, prefix, None, outer, cls, method
            if isinstance(node, ast.ClassDef):
                info = ClassInfo(node, prefix + node.name)
                self.classes.append(info)
                self.class_nodes[id(node)] = []
                self.owned[id(node)] = []
                child_owner, child_prefix, child_body_of, child_outer, child_cls, child_method = (
                    id(node), info.qualname + ".", info, None, info, None
                )
            elif isinstance(node, FunctionNode):
                function = self._function(node, prefix, body_of, outer)
                self.owned[id(node)] = []
                if body_of is not None:
                    self.method_nodes[id(node)] = []
                    child_method = node
                child_owner, child_prefix, child_outer = id(node), function.qualname + ".", function
            elif isinstance(node, ast.Lambda):
                self.owned[id(node)] = []
                child_owner = id(node)
            children = list(ast.iter_child_nodes(node))
            for child in children:
                self.parents[id(child)] = node
            for child in reversed(children):
                stack.append((child, child_owner, child_prefix, child_body_of, child_outer, child_cls, child_method))
        self._learn_session_attributes()
        for info in self.classes:
            self._learn_locks(info)
        self._inherit()

    def _function(self, node: ast.AST, prefix: str, body_of: ClassInfo | None, outer: Function | None) -> Function:
        if body_of is not None:
            body_of.methods[node.name] = node
        self_name = _self_parameter(node) if body_of is not None else None
        function = Function(
            node,
            prefix + node.name,
            body_of or (outer.cls if outer else None),
            self_name or (outer.self_name if outer else None),
            outer,
        )
        if function.self_name and _rebinds(node, function.self_name) and body_of is None:
            function = Function(node, function.qualname, None, None, outer)
        self.functions.append(function)
        self.function_of[id(node)] = function
        if any(self._is_session_type(n) for n in _annotation_names(node.returns)):
            self.session_factories.add(node.name)
            if any(final_name(d) in ("property", "cached_property") for d in node.decorator_list):
                self.session_names.add(node.name)  # read as an attribute
        return function

    def nodes(self, function_node: ast.AST) -> list[ast.AST]:
        """The nodes of a function body, as `walk_function` yields them, from the index."""
        return self.owned.get(id(function_node)) or list(walk_function(function_node))

    def _is_session_type(self, name: str) -> bool:
        return any(name == t or name.endswith(t) for t in self.session_types)

    def _learn_session_attributes(self) -> None:
        """Attributes annotated as sessions or assigned from `.session()`, module-wide."""
        for node in self.assignments:
            if isinstance(node, ast.AnnAssign):
                if any(self._is_session_type(n) for n in _annotation_names(node.annotation)):
                    name = final_name(node.target)
                    if name:
                        self.session_names.add(name)
            elif isinstance(node, ast.Assign) and _is_session_call(node.value):
                for target in node.targets:
                    if isinstance(target, ast.Attribute):
                        self.session_names.add(target.attr)

    def bases(self, info: ClassInfo) -> list[ClassInfo]:
        """The classes of this module that `info` derives from, nearest first."""
        by_name = {c.node.name: c for c in self.classes}
        found: list[ClassInfo] = []
        queue = [final_name(b) for b in info.node.bases]
        while queue:
            base = by_name.get(queue.pop(0) or "")
            if base is not None and base is not info and base not in found:
                found.append(base)
                queue.extend(final_name(b) for b in base.node.bases)
        return found

    def _inherit(self) -> None:
        for info in self.classes:
            for base in self.bases(info):
                info.lock_attributes |= base.lock_attributes

    def init_of(self, info: ClassInfo) -> ast.AST | None:
        """The `__init__` that builds instances of the class: its own, or an inherited one."""
        if info.init is not None:
            return info.init
        for base in self.bases(info):
            if base.init is not None:
                return base.init
        return None

    def _learn_from_assignments(self) -> None:
        """`self._voice = voice` where `voice` is a session (an annotated parameter, an alias)
        makes `_voice` a session attribute; repeated, since that can reveal more sessions."""
        for _ in range(3):
            learned = set()
            for function in self.functions:
                aliases = self._local_aliases(function)
                for node in self.nodes(function.node):
                    if isinstance(node, ast.Assign):
                        for target in node.targets:
                            if (
                                isinstance(target, ast.Attribute)
                                and target.attr not in self.session_names
                                and self._is_session_expr(node.value, function, aliases)
                            ):
                                learned.add(target.attr)
            if not learned:
                return
            self.session_names |= learned
            self._aliases.clear()

    def _learn_locks(self, info: ClassInfo) -> None:
        for node in self.class_nodes[id(info.node)]:
            if isinstance(node, ast.Assign) and is_lock_factory(node.value):
                for target in node.targets:
                    if isinstance(target, ast.Attribute):
                        info.lock_attributes.add(target.attr)
            elif isinstance(node, ast.AnnAssign) and (
                is_lock_factory(node.value) or "Lock" in set(_annotation_names(node.annotation))
            ):
                name = final_name(node.target)
                if name:
                    info.lock_attributes.add(name)

    # -- sessions ------------------------------------------------------------------------
    def function_of_node(self, node: ast.AST) -> Function | None:
        current = self.parents.get(id(node))
        while current is not None:
            if isinstance(current, FunctionNode):
                return self.function_of.get(id(current))
            current = self.parents.get(id(current))
        return None

    def statement_of(self, node: ast.AST) -> ast.stmt:
        current = node
        while not isinstance(current, ast.stmt):
            current = self.parents[id(current)]
        return current

    def ancestors(self, node: ast.AST) -> Iterator[ast.AST]:
        current = self.parents.get(id(node))
        while current is not None:
            yield current
            current = self.parents.get(id(current))

    def _local_aliases(self, function: Function) -> dict[str, list[ast.AST]]:
        """Local names bound to a session (parameters included), with the binding nodes."""
        key = id(function.node)
        if key in self._aliases:
            return self._aliases[key]
        aliases: dict[str, list[ast.AST]] = {}
        self._aliases[key] = aliases
        arguments = function.node.args
        for argument in [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]:
            if argument.arg in self.session_names or any(
                self._is_session_type(n) for n in _annotation_names(argument.annotation)
            ):
                aliases.setdefault(argument.arg, []).append(argument)
        changed = True
        while changed:  # `a = rt; b = a` needs a second look
            changed = False
            for node in self.nodes(function.node):
                target, value = None, None
                if isinstance(node, ast.Assign) and len(node.targets) == 1:
                    target, value = node.targets[0], node.value
                elif isinstance(node, ast.AnnAssign):
                    target, value = node.target, node.value
                    if isinstance(target, ast.Name) and any(
                        self._is_session_type(n) for n in _annotation_names(node.annotation)
                    ):
                        if target.id not in aliases:
                            aliases[target.id] = [node]
                            changed = True
                        continue
                elif isinstance(node, ast.NamedExpr):
                    target, value = node.target, node.value
                if (
                    isinstance(target, (ast.Tuple, ast.List))
                    and isinstance(value, (ast.Tuple, ast.List))
                    and len(target.elts) == len(value.elts)
                ):  # `rt, agent = self._rt_session, self._agent`
                    for element, element_value in zip(target.elts, value.elts):
                        if (
                            isinstance(element, ast.Name)
                            and element.id not in aliases
                            and self._is_session_expr(element_value, function, aliases)
                        ):
                            aliases[element.id] = [node]
                            changed = True
                    continue
                if isinstance(target, ast.Name) and value is not None and target.id not in aliases:
                    if self._is_session_expr(value, function, aliases):
                        aliases[target.id] = [node]
                        changed = True
        return aliases

    def _is_session_expr(self, node: ast.AST, function: Function, aliases: dict[str, list[ast.AST]]) -> bool:
        if isinstance(node, ast.Name):
            return node.id in aliases or node.id in self.session_names
        if isinstance(node, ast.Attribute):
            return node.attr in self.session_names
        if isinstance(node, ast.Call):
            if _is_session_call(node):
                return True
            return final_name(node.func) in self.session_factories
        if isinstance(node, ast.NamedExpr):
            return self._is_session_expr(node.value, function, aliases)
        return False

    def is_session(self, node: ast.AST, function: Function) -> bool:
        return self._is_session_expr(node, function, self._local_aliases(function))

    # -- pushes and snapshots ----------------------------------------------------------
    def _scan(self, function: Function) -> None:
        if not isinstance(function.node, ast.AsyncFunctionDef):
            return  # no await, so no push can interleave with a snapshot
        for node in self.nodes(function.node):
            if isinstance(node, ast.Attribute) and node.attr in self.mirror_properties:
                if isinstance(node.ctx, ast.Load) and self.is_session(node.value, function):
                    self.snapshots.append(Snapshot(node, self.statement_of(node), function))
            elif isinstance(node, ast.Await):
                for call in _awaited_calls(node):
                    func = call.func
                    if isinstance(func, ast.Attribute) and func.attr in self.push_methods:
                        if self.is_session(func.value, function):
                            argument = call.args[0] if call.args else _keyword(call, "chat_ctx")
                            self.pushes.append(Push(call, self.statement_of(call), function, func.value, argument))

    # -- locks -------------------------------------------------------------------------
    def lock_text(self, item: ast.withitem, cls: ClassInfo | None) -> str | None:
        """The dotted text of a lock acquired by an `async with` item, else None."""
        expr = item.context_expr
        name = final_name(expr)
        text = dotted(expr)
        if name is None or text is None:
            return None
        if (
            name == self.push_lock_name
            or "lock" in name.lower()
            or "mutex" in name.lower()
            or (cls is not None and name in cls.lock_attributes)
        ):
            return text
        return None

    def lock_blocks(self, node: ast.AST, function: Function) -> list[LockBlock]:
        """The `async with <lock>:` statements around `node` inside its function, innermost first."""
        blocks = []
        previous = node
        for ancestor in self.ancestors(node):
            if isinstance(ancestor, FunctionNode):
                break
            if isinstance(ancestor, ast.AsyncWith) and previous in ancestor.body:
                for item in ancestor.items:
                    text = self.lock_text(item, function.cls)
                    if text is not None:
                        blocks.append(LockBlock(ancestor, text))
            previous = ancestor
        return blocks

    def _decide_push_locks(self) -> None:
        """A class's push lock: the configured one if the class has it, else the lock that its
        snapshot-and-push sites are made under (a push of a snapshot counts most), else the
        lock most of its pushes are made under."""
        snapshot_statements = {id(s.stmt) for s in self.snapshots}
        for info in self.classes:
            counts: dict[str, int] = {}
            for push in self.pushes:
                if push.function.cls is not info:
                    continue
                weight = 1
                blocks = self.lock_blocks(push.call, push.function)
                for block in blocks:
                    inside = {id(n) for n in ast.walk(block.stmt) if isinstance(n, ast.stmt)}
                    if inside & snapshot_statements:
                        weight = 10
                for block in blocks:
                    attribute = _self_attribute(block.lock, push.function.self_name)
                    if attribute:
                        counts[attribute] = counts.get(attribute, 0) + weight
            if self.push_lock_name in info.lock_attributes or self.push_lock_name in counts:
                info.push_lock = self.push_lock_name
            elif counts:
                info.push_lock = max(sorted(counts), key=lambda name: counts[name])
            if info.push_lock:
                info.lock_takers[info.push_lock] = self._methods_taking(info, info.push_lock)

    def _method_facts(self, info: ClassInfo) -> dict[str, tuple[str | None, set[str], set[str], list[tuple[str, set[str]]], bool]]:
        """Per method: (self name, methods of self it calls, self locks it takes, for each
        `async with self.<lock>` the self methods called inside it, whether it pushes)."""
        key = ("facts", id(info.node))
        if key in self._cache:
            return self._cache[key]
        pushing = {id(p.function.node) for p in self.pushes}
        facts = {}
        for name, method in info.methods.items():
            self_name = _self_parameter(method)
            calls: set[str] = set()
            locks: set[str] = set()
            held: list[tuple[str, set[str]]] = []
            pushes = id(method) in pushing
            nodes = self.method_nodes.get(id(method), [])
            for node in nodes:
                if isinstance(node, FunctionNode) and id(node) in pushing:
                    pushes = True
                elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                    if self_name and isinstance(node.func.value, ast.Name) and node.func.value.id == self_name:
                        calls.add(node.func.attr)
                elif isinstance(node, ast.AsyncWith) and self_name:
                    for item in node.items:
                        text = dotted(item.context_expr) or ""
                        if text.startswith(self_name + ".") and text.count(".") == 1:
                            lock = text.split(".", 1)[1]
                            locks.add(lock)
                            inside = {
                                n.func.attr
                                for n in _subtree(node)
                                if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
                                and isinstance(n.func.value, ast.Name) and n.func.value.id == self_name
                            }
                            held.append((lock, inside, node.lineno))
            facts[name] = (self_name, calls, locks, held, pushes)
        self._cache[key] = facts
        return facts

    def _methods_taking(self, info: ClassInfo, lock: str) -> set[str]:
        """Methods of the class that acquire `self.<lock>`, directly or through each other,
        counting the ones that push a session: one `--fix` puts every push of the class
        under the lock, so they will take it too."""
        facts = self._method_facts(info)
        taking = {name for name, (_, _, locks, _, pushes) in facts.items() if lock in locks or pushes}
        changed = True
        while changed:
            changed = False
            for name, (_, calls, _, _, _) in facts.items():
                if name not in taking and calls & taking:
                    taking.add(name)
                    changed = True
        return taking

    def callers_holding(self, info: ClassInfo, lock: str, method: str) -> list[tuple[str, int]]:
        """Methods that call `method` (directly or through other methods) while holding
        `self.<lock>`: putting `method`'s push under the lock would deadlock them."""
        facts = self._method_facts(info)
        reaching = {method}
        changed = True
        while changed:  # methods from which `method` is reached
            changed = False
            for name, (_, calls, _, _, _) in facts.items():
                if name not in reaching and calls & reaching:
                    reaching.add(name)
                    changed = True
        found = []
        for name, (_, _, _, held, _) in facts.items():
            for held_lock, inside, line in held:
                if held_lock == lock and inside & reaching:
                    found.append((name, line))
        return found

    def under_lock(self, node: ast.AST, function: Function, lock: str | None) -> LockBlock | None:
        """The innermost `async with` around `node` that takes the class's push lock."""
        if lock is None:
            return None
        for block in self.lock_blocks(node, function):
            if _self_attribute(block.lock, function.self_name) == lock or (
                function.self_name is None and final_name_of_text(block.lock) == lock
            ):
                return block
        return None

    def path(self, stmt: ast.stmt) -> StatementPath:
        return self.file.path_of(stmt)

    def statement_at(self, path: StatementPath) -> ast.stmt:
        """The statement a path names (the inverse of `path`)."""
        node: Any = self.file.tree
        for step in path:
            if step[0] == "handlers":
                node = node.handlers[step[1]].body[step[2]]
            elif step[0] == "cases":
                node = node.cases[step[1]].body[step[2]]
            else:
                node = getattr(node, step[0])[step[1]]
        return node


def final_name_of_text(text: str) -> str:
    return text.rsplit(".", 1)[-1]


def _self_attribute(lock_text: str, self_name: str | None) -> str | None:
    """`_lock` for "self._lock"; None for a lock held elsewhere (a local, another object)."""
    if self_name and lock_text.startswith(self_name + ".") and lock_text.count(".") == 1:
        return lock_text.split(".", 1)[1]
    return None


def _self_parameter(function: ast.AST) -> str | None:
    if any(final_name(d) in ("staticmethod", "classmethod") for d in function.decorator_list):
        return None
    arguments = [*function.args.posonlyargs, *function.args.args]
    return arguments[0].arg if arguments else None


def _rebinds(function: ast.AST, name: str) -> bool:
    arguments = function.args
    return any(a.arg == name for a in [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs])


def _is_session_call(node: ast.AST | None) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "session"


def _keyword(call: ast.Call, name: str) -> ast.expr | None:
    for keyword in call.keywords:
        if keyword.arg == name:
            return keyword.value
    return None


def _awaited_calls(await_node: ast.Await) -> Iterator[ast.Call]:
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


# -- data flow from snapshots --------------------------------------------------------------


@dataclass
class _Definition:
    name: str
    stmt: ast.stmt
    order: tuple[int, int]
    origins: frozenset[int]  # ids of Snapshot nodes the bound value carries
    kills: bool  # a plain (re)binding, as opposed to an in-place mutation


class SnapshotFlow:
    """Which snapshots each expression of a function carries, through local names and
    context-building calls (copy, add_message, items.extend, insert, slicing, ...)."""

    def __init__(self, module: Module, function: Function) -> None:
        self.module = module
        self.function = function
        self.snapshot_ids = {
            id(s.node) for s in module.snapshots if s.function is function
        }
        self.definitions: dict[str, list[_Definition]] = {}
        self._blocks: dict[int, tuple[list[ast.stmt], int]] = {}  # stmt -> (its block, index)
        self._index_blocks(function.node)
        for stmt in sorted(body_statements(function.node), key=_order):
            self._record(stmt)

    def _index_blocks(self, root: ast.AST) -> None:
        for node in [root, *walk_function(root)]:
            for name in ("body", "orelse", "finalbody"):
                block = getattr(node, name, None)
                if isinstance(block, list):
                    for index, stmt in enumerate(block):
                        if isinstance(stmt, ast.stmt):
                            self._blocks[id(stmt)] = (block, index)

    # a definition `d` reaches a use unless a later plain binding "dominates" the use: it
    # sits in a block that encloses the use, before the use's statement in that block
    def _dominates(self, definition: _Definition, use: ast.AST) -> bool:
        located = self._blocks.get(id(definition.stmt))
        if located is None:
            return False
        block, index = located
        use_stmt = self.module.statement_of(use)
        current: ast.AST | None = use_stmt
        while current is not None and current is not self.function.node:
            found = self._blocks.get(id(current))
            if found is not None and found[0] is block:
                return found[1] > index or (found[1] == index and current is not definition.stmt)
            current = self.module.parents.get(id(current))
        return False

    def origins_of_name(self, name: str, use: ast.AST) -> frozenset[int]:
        order = _order(use)
        reaching: list[_Definition] = []
        for definition in self.definitions.get(name, ()):
            if definition.order >= order:
                continue
            if definition.kills:
                reaching = [d for d in reaching if not self._dominates(definition, use)] + [definition]
            else:
                reaching.append(definition)
        result: set[int] = set()
        for definition in reaching:
            result |= definition.origins
        return frozenset(result)

    def origins(self, node: ast.AST | None) -> frozenset[int]:
        """The snapshots whose content the value of `node` carries."""
        if node is None:
            return frozenset()
        if id(node) in self.snapshot_ids:
            return frozenset({id(node)})
        if isinstance(node, ast.Name):
            return self.origins_of_name(node.id, node)
        if isinstance(node, ast.Attribute):
            # `self._pending = snapshot.copy()` ... `update_chat_ctx(self._pending)`, in one function
            text = dotted(node)
            if text is not None and text in self.definitions:
                carried = self.origins_of_name(text, node)
                if carried:
                    return carried
            return self.origins(node.value)
        if isinstance(node, (ast.Subscript, ast.Starred, ast.NamedExpr, ast.Await)):
            return self.origins(node.value)
        if isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Attribute) and func.attr not in _NON_CARRYING_METHODS:
                carried = self.origins(func.value)
                if carried:
                    return carried
            callee = final_name(func) or ""
            if callee in _CARRYING_CALLS or callee.endswith("ChatContext") or callee.endswith("Context"):
                result: set[int] = set()
                for argument in [*node.args, *(k.value for k in node.keywords)]:
                    result |= self.origins(argument)
                return frozenset(result)
            return frozenset()
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

    def _record(self, stmt: ast.stmt) -> None:
        def bind(target: ast.AST, value: ast.AST | None, kills: bool = True) -> None:
            if isinstance(target, ast.Name):
                origins = self.origins(value) if value is not None else frozenset()
                self._add(_Definition(target.id, stmt, _order(stmt, end=True), origins, kills))
            elif isinstance(target, (ast.Tuple, ast.List)):
                for element in target.elts:
                    bind(element, None)
            elif isinstance(target, (ast.Attribute, ast.Subscript)) and value is not None:
                if isinstance(target, ast.Attribute) and target.attr != "items" and dotted(target):
                    # an attribute holding a context for the rest of the function
                    self._add(_Definition(dotted(target), stmt, _order(stmt, end=True), self.origins(value), True))
                    return
                # `ctx.items = snapshot.items` or `ctx.items[:] = ...` changes ctx in place
                inner = target.value if isinstance(target, ast.Subscript) else target
                receiver = dotted(inner) or ""
                root = receiver[: -len(".items")] if receiver.endswith(".items") else receiver
                origins = self.origins(value)
                if root and "." not in root and origins:
                    self._add(_Definition(root, stmt, _order(stmt, end=True), origins, False))

        if isinstance(stmt, ast.Assign):
            for target in stmt.targets:
                bind(target, stmt.value)
        elif isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
            bind(stmt.target, stmt.value)
        elif isinstance(stmt, ast.AugAssign):
            receiver = dotted(stmt.target) or ""
            root = receiver[: -len(".items")] if receiver.endswith(".items") else receiver
            origins = self.origins(stmt.value)
            if root and "." not in root and origins:
                self._add(_Definition(root, stmt, _order(stmt, end=True), origins, False))
        elif isinstance(stmt, (ast.For, ast.AsyncFor)):
            for name in _target_names(stmt.target):
                self._add(_Definition(name, stmt, _order(stmt.iter, end=True), frozenset(), True))
        elif isinstance(stmt, (ast.With, ast.AsyncWith)):
            for item in stmt.items:
                if isinstance(item.optional_vars, ast.Name):
                    origins = self.origins(item.context_expr)
                    self._add(_Definition(item.optional_vars.id, stmt, _order(item.context_expr, end=True), origins, True))
        for node in ast.walk(stmt) if not isinstance(stmt, (ast.If, ast.For, ast.AsyncFor, ast.While, ast.With, ast.AsyncWith, ast.Try, *FunctionNode, ast.ClassDef)) else _header_nodes(stmt):
            if isinstance(node, ast.NamedExpr) and isinstance(node.target, ast.Name):
                self._add(_Definition(node.target.id, stmt, _order(node, end=True), self.origins(node.value), True))
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _MUTATORS:
                # only a context held in a local name (`ctx.items.extend(...)`) is changed in
                # place here; `self._agent._chat_ctx.insert(x)` does not make `self` a copy
                receiver = dotted(node.func.value) or ""
                root = receiver[: -len(".items")] if receiver.endswith(".items") else receiver
                if root and "." not in root:
                    origins = _union(self.origins(a) for a in [*node.args, *(k.value for k in node.keywords)])
                    if origins:
                        self._add(_Definition(root, stmt, _order(node, end=True), origins, False))

    def _add(self, definition: _Definition) -> None:
        self.definitions.setdefault(definition.name, []).append(definition)


def _target_names(target: ast.AST) -> Iterator[str]:
    for node in ast.walk(target):
        if isinstance(node, ast.Name):
            yield node.id


def _header_nodes(stmt: ast.stmt) -> Iterator[ast.AST]:
    """Expressions of a compound statement's header (its test, iterable, context managers)."""
    parts: list[ast.AST] = []
    if isinstance(stmt, (ast.If, ast.While)):
        parts = [stmt.test]
    elif isinstance(stmt, (ast.For, ast.AsyncFor)):
        parts = [stmt.iter]
    elif isinstance(stmt, (ast.With, ast.AsyncWith)):
        parts = [item.context_expr for item in stmt.items]
    for part in parts:
        yield from ast.walk(part)


def _union(sets: Iterable[frozenset[int]]) -> frozenset[int]:
    result: set[int] = set()
    for s in sets:
        result |= s
    return frozenset(result)


def _order(node: ast.AST, end: bool = False) -> tuple[int, int]:
    if end:
        return (getattr(node, "end_lineno", node.lineno) or node.lineno, getattr(node, "end_col_offset", 0) or 0)
    return (node.lineno, node.col_offset)


def analyse(file: FileContext) -> Module:
    return file.memo("rtlint.rules._realtime", lambda: Module(file))


def flow(module: Module, function: Function) -> SnapshotFlow:
    return module.file.memo(("rtlint.rules._realtime.flow", id(function.node)), lambda: SnapshotFlow(module, function))


def required_tokens(settings) -> list[tuple]:
    """Every rule needs an awaited push, and a push is an attribute call: a push method's
    name (a cheap substring test) right after a `.` (blanks, line continuations and comments
    may come between), which leaves out the files that only define the method."""
    import re

    methods = tuple(settings.get("push-methods", ("update_chat_ctx",)))
    names = b"|".join(re.escape(m.encode()) for m in methods)
    called = re.compile(rb"\.(?:[ \t\f\r\n\\]|#[^\r\n]*)*(?:" + names + rb")\b")
    return [methods, (called,)]


# -- RTL001's defect, which RTL004 must not report again ----------------------------------------


@dataclass
class StaleSnapshot:
    snapshot: Snapshot
    push: Push  # the first push the snapshot flows into
    pushes: list[Push]  # every push it flows into


def serialized(module: Module, a: ast.AST, b: ast.AST, function: Function) -> bool:
    """Whether `a` and `b` are both inside one `async with <push lock>:` block."""
    lock = function.cls.push_lock if function.cls else None
    around_b = {id(block.stmt) for block in module.lock_blocks(b, function)}
    for block in module.lock_blocks(a, function):
        if id(block.stmt) not in around_b:
            continue
        if lock is None or _self_attribute(block.lock, function.self_name) == lock or final_name_of_text(block.lock) == lock:
            return True
    return False


def stale_snapshots(module: Module) -> list[StaleSnapshot]:
    def compute() -> list[StaleSnapshot]:
        found = []
        for snapshot in module.snapshots:
            function = snapshot.function
            carried = flow(module, function)
            pushes = [
                p
                for p in module.pushes
                if p.function is function and id(snapshot.node) in carried.origins(p.argument)
            ]
            if not pushes:
                continue  # only read: logged, measured, compared
            pushes.sort(key=lambda p: (p.call.lineno < snapshot.node.lineno, p.call.lineno, p.call.col_offset))
            if all(serialized(module, snapshot.node, p.call, function) for p in pushes):
                continue
            unserialized = [p for p in pushes if not serialized(module, snapshot.node, p.call, function)]
            found.append(StaleSnapshot(snapshot, unserialized[0], unserialized))
        return found

    return module.file.memo("rtlint.rules._realtime.stale", compute)


def module_anchor(module: Module) -> tuple[StatementPath, bool]:
    """Where module-level lines go: after the last import of the file's header (or after its
    docstring and `from __future__` imports), as (path, after)."""
    body = module.file.tree.body
    anchor = None
    for index, stmt in enumerate(body):
        if isinstance(stmt, (ast.Import, ast.ImportFrom)):
            anchor = index
        elif index == 0 and isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
            anchor = index
        else:
            break
    if anchor is None:
        return (("body", 0),), False
    return (("body", anchor),), True


def import_anchor(module: Module, name: str) -> tuple[StatementPath, bool]:
    """Where `import <name>` (a standard-library module) goes, the way isort and ruff sort:
    among the plain standard-library imports in alphabetical order, else before the first
    standard-library `from` import, else before the first import (after `__future__`)."""
    import sys

    stdlib = getattr(sys, "stdlib_module_names", frozenset())
    body = module.file.tree.body
    plain: list[tuple[int, str]] = []
    first_from = first_import = None
    for index, stmt in enumerate(body):
        if isinstance(stmt, ast.Import):
            first_import = index if first_import is None else first_import
            top = stmt.names[0].name.split(".")[0]
            if top in stdlib:
                plain.append((index, stmt.names[0].name))
        elif isinstance(stmt, ast.ImportFrom):
            if stmt.module == "__future__":
                continue
            first_import = index if first_import is None else first_import
            if (stmt.module or "").split(".")[0] in stdlib and stmt.level == 0 and first_from is None:
                first_from = index
        elif not (index == 0 and isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant)):
            break
    for index, other in plain:
        if other > name:
            return (("body", index),), False
    if plain:
        return (("body", plain[-1][0]),), True
    if first_from is not None:
        return (("body", first_from),), False
    if first_import is not None:
        return (("body", first_import),), False
    return module_anchor(module)


def imports_module(module: Module, name: str) -> str | None:
    """The name under which `import <name>` binds the module at top level, if it does."""
    for stmt in module.file.tree.body:
        if isinstance(stmt, ast.Import):
            for alias in stmt.names:
                if alias.name == name:
                    return alias.asname or name
    return None
