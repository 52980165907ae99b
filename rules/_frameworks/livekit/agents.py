"""The application vocabulary of RTL005-RTL007 (design.md, "Rules for application code"):
agents and tasks, agent sessions, their local contexts, snapshots of them, write-backs and
task spawners. Names only: how values flow between names is the shared analysis' job.

Terms: a *local context* is an agent's or task's conversation (`agent.chat_ctx`,
`self.chat_ctx` in an `Agent`/`AgentTask` subclass, `session.history`); a *snapshot* is a
`.copy(...)` of one, a read of a property that answers with a copy (LiveKit's
`Agent.chat_ctx`), or a context handed in as a parameter (annotated `ChatContext`, or named
by the hook table): a copy taken before the function started. A *write-back* is a push
(`update_chat_ctx(...)`) on an agent or task.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rtlint.core.settings import Option

from ..._analysis.cfg import Graph, Point, graph
from ..._analysis.index import Function, Index, annotation_names, dotted, final_name, index, parameters
from ..._analysis.members import Attribute, Stale, attribute
from ..._analysis.types import Types, accepts_one_argument, types
from ..._analysis.values import FlowRules, ValueFlow
from .realtime.vocabulary import PUSH_METHODS, method_call
from .realtime.vocabulary import required_tokens as push_tokens

if TYPE_CHECKING:
    from rtlint.core.context import FileContext

OPTIONS = (
    PUSH_METHODS,
    Option(
        "agent-types",
        ["Agent", "AgentTask"],
        "base classes and annotations that mark an agent or task (a name ending in one counts too)",
    ),
    Option("agent-names", ["agent", "_agent", "current_agent"], "names and attributes that hold an agent or task"),
    Option("agent-session-types", ["AgentSession"], "annotations that mark an agent session (its `history`)"),
    Option("agent-session-names", ["session", "_session"], "names and attributes that hold an agent session"),
    Option(
        "local-contexts",
        ["chat_ctx", "_chat_ctx", "history"],
        "attributes of an agent, task or agent session that hold its conversation",
    ),
    Option(
        "copying-contexts",
        ["chat_ctx"],
        "local-context properties whose read answers with a read-only copy (LiveKit's Agent.chat_ctx)",
    ),
    Option("context-types", ["ChatContext"], "type names of a conversation, in annotations"),
    Option(
        "snapshot-parameters",
        ["on_user_turn_completed:turn_ctx", "llm_node:chat_ctx", "*:turn_ctx"],
        "the hook table: `function:parameter` pairs whose context is a copy taken before the function "
        "started (`*` for any function)",
    ),
    Option(
        "session-update-methods",
        ["_update_session"],
        "realtime-session methods that push their `chat_ctx=` argument (LiveKit's `RealtimeSession._update_session`)",
    ),
    Option(
        "push-receiver-types",
        [],
        "further types whose push-method calls are pushes (a wrapper of your own around an agent or session)",
    ),
    Option(
        "callback-methods",
        ["on_exit", "on_user_turn_completed", "llm_node", "@function_tool"],
        "methods of an agent or task that the framework calls later, after other turns (`@name` for the ones a "
        "decorator marks): a snapshot stored on `self` before them is stale there",
    ),
    Option(
        "task-spawners",
        ["create_task", "ensure_future"],
        "functions and methods that run a coroutine as a detached task",
    ),
)

# edits of a context that only add items, and the ones that change it otherwise
ADDITIVE_EDITS = {"add_message", "insert"}
ADDITIVE_ITEM_EDITS = {"append", "extend"}  # on `<ctx>.items`
OTHER_EDITS = {
    "remove",
    "truncate",
    "merge",
    "_summarize",
    "summarize",
    "_upsert_item",
    "clear",
    "pop",
    "sort",
    "reverse",
}
OTHER_ITEM_EDITS = {"insert", "remove", "pop", "clear", "sort", "reverse"}
# the keywords of LiveKit's push signatures (`Agent.update_chat_ctx(chat_ctx, *,
# exclude_invalid_function_calls=True)`, `RealtimeSession.update_chat_ctx(chat_ctx)`)
PUSH_KEYWORDS = frozenset({"chat_ctx", "exclude_invalid_function_calls"})
# methods whose result is (a transformed) copy of their receiver: still the snapshot's content
DERIVING_METHODS = {"copy", "_summarize", "summarize", "truncate", "merge"}


AGENT, OTHER = "agent", "other"  # keys of the agent flow


@dataclass(frozen=True)
class Vocabulary:
    push_methods: frozenset[str]
    agent_types: tuple[str, ...]
    agent_names: frozenset[str]
    session_types: tuple[str, ...]
    session_names: frozenset[str]
    local_contexts: frozenset[str]
    copying_contexts: frozenset[str]
    context_types: tuple[str, ...]
    hook_table: tuple[tuple[str, str], ...]
    spawners: frozenset[str]
    receiver_types: tuple[str, ...]  # configured push receivers
    session_updates: frozenset[str]  # realtime-session methods that push their `chat_ctx=`
    callbacks: frozenset[str]  # methods (or `@decorators`) the framework calls later
    realtime_types: tuple[str, ...]  # the realtime rules' `session-types`

    @classmethod
    def from_settings(cls, settings) -> Vocabulary:
        def get(name: str) -> tuple[str, ...]:
            return tuple(settings.get(name, next(o.default for o in OPTIONS if o.name == name)))

        hooks = []
        for entry in get("snapshot-parameters"):
            function, _, parameter = entry.partition(":")
            if parameter:
                hooks.append((function.strip(), parameter.strip()))
        return cls(
            frozenset(get("push-methods")),
            get("agent-types"),
            frozenset(get("agent-names")),
            get("agent-session-types"),
            frozenset(get("agent-session-names")),
            frozenset(get("local-contexts")),
            frozenset(get("copying-contexts")),
            get("context-types"),
            tuple(hooks),
            frozenset(get("task-spawners")),
            get("push-receiver-types"),
            frozenset(get("session-update-methods")),
            frozenset(get("callback-methods")),
            tuple(settings.get("session-types", ("RealtimeSession",))),
        )

    # -- types --------------------------------------------------------------------------
    def is_agent_type(self, name: str) -> bool:
        return any(name == t or name.endswith(t) for t in self.agent_types)

    def is_session_type(self, name: str) -> bool:
        return any(name == t or name.endswith(t) for t in self.session_types)

    def is_realtime_type(self, name: str) -> bool:
        return any(name == t or name.endswith(t) for t in self.realtime_types)

    def is_context_annotation(self, annotation: ast.AST | None) -> bool:
        return any(n in self.context_types for n in annotation_names(annotation))

    def is_agent_annotation(self, annotation: ast.AST | None) -> bool:
        return any(self.is_agent_type(n) for n in annotation_names(annotation))

    def is_session_annotation(self, annotation: ast.AST | None) -> bool:
        return any(self.is_session_type(n) for n in annotation_names(annotation))

    def is_snapshot_parameter(self, function: str, parameter: ast.arg) -> bool:
        if self.is_context_annotation(parameter.annotation):
            return True
        return any(p == parameter.arg and f in ("*", function) for f, p in self.hook_table)

    # -- calls ----------------------------------------------------------------------------
    def push_call(self, node: ast.AST) -> tuple[ast.expr, ast.expr | None] | None:
        """(receiver, pushed context) of `<receiver>.update_chat_ctx(ctx)`, else None."""
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
            return None
        if node.func.attr not in self.push_methods:
            return None
        argument = node.args[0] if node.args else next((k.value for k in node.keywords if k.arg == "chat_ctx"), None)
        return node.func.value, argument

    def push_shaped(self, call: ast.Call) -> bool:
        """The call has a push's signature: one context (positional or `chat_ctx=`) and
        only the push's keywords (`*args`/`**kwargs` could be anything: yes)."""
        if any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
            return True
        keywords = {k.arg for k in call.keywords}
        return len(call.args) + ("chat_ctx" in keywords) == 1 and keywords <= PUSH_KEYWORDS

    def is_spawner(self, node: ast.AST) -> bool:
        return isinstance(node, ast.Call) and final_name(node.func) in self.spawners


def session_update_tokens(settings) -> tuple:
    """RTL005's pre-filter alternative for a push by `_update_session(chat_ctx=...)`: a
    session-update method's name (a substring) called as a method."""
    methods = tuple(settings.get("session-update-methods", ("_update_session",)))
    return (tuple(m.encode() for m in methods), method_call(methods))


# -- the analysis of one file -------------------------------------------------------------


@dataclass(frozen=True)
class Snapshot:
    """A snapshot of a local context: where it is taken and what of."""

    node: ast.AST  # the `.copy(...)` call, the property read, or the parameter's `ast.arg`
    kind: str  # "copy", "read" or "parameter"
    owner: str | None  # source text of the context's owner (`agent`, `self.session`), None for a parameter
    context: str | None  # source text of the context copied (`self.chat_ctx`), None for a parameter
    copy_arguments: str  # the text inside `.copy(...)`, repeated by a fresh copy

    def describe(self) -> str:
        if self.kind == "parameter":
            return f"`{self.node.arg}`, a copy taken before the function started"
        taken = "copied" if self.kind == "copy" else "read (a copy)"
        return f"`{self.context}` {taken} at line {self.node.lineno}"


class AppModule:
    """Agents, snapshots, write-backs and spawns of one file, on the shared analysis."""

    def __init__(self, file: FileContext) -> None:
        self.file = file
        self.vocabulary = Vocabulary.from_settings(file.settings)
        self.index: Index = index(file)
        self.types: Types = types(file)
        self.snapshots: dict[int, Snapshot] = {}  # key id(node) -> snapshot
        self._agent_flows: dict[int, ValueFlow] = {}
        self._flows: dict[int, ValueFlow] = {}
        self._calls: dict[int, list[ast.Call]] = {}
        self.agent_classes = self._agent_classes()
        self.agent_class_names = {c.node.name for c in self.index.classes if id(c.node) in self.agent_classes}
        self._agent_attributes: set[str] | None = None

    # -- agents ---------------------------------------------------------------------------
    def _agent_classes(self) -> set[int]:
        found: set[int] = set()
        for info in self.index.classes:
            names = [final_name(b) or "" for b in info.node.bases]
            names += [b.node.name for b in self.index.bases(info)]
            if any(self.vocabulary.is_agent_type(n) for n in names):
                found.add(id(info.node))
        return found

    @property
    def agent_attributes(self) -> set[str]:
        if self._agent_attributes is None:
            self._agent_attributes = self._learn_agent_attributes()
        return self._agent_attributes

    def is_agent_annotation(self, annotation: ast.AST | None) -> bool:
        """An agent or task type by the vocabulary, or an agent class of the file (`desk:
        SalesDesk` where `class SalesDesk(Agent)`)."""
        return any(
            self.vocabulary.is_agent_type(n) or n in self.agent_class_names for n in annotation_names(annotation)
        )

    def _learn_agent_attributes(self) -> set[str]:
        """Attributes annotated as agents, assigned an agent-annotated parameter, or an
        instance of an agent class of the file (`self._desk = SalesDesk()`)."""
        found = set()
        for node in self.index.assignments:
            if isinstance(node, ast.AnnAssign):
                if self.is_agent_annotation(node.annotation):
                    name = final_name(node.target)
                    if name:
                        found.add(name)
                continue
            targets = [t.attr for t in node.targets if isinstance(t, ast.Attribute)]
            if not targets:
                continue
            if isinstance(node.value, ast.Call) and final_name(node.value.func) in self.agent_class_names:
                found.update(targets)
                continue
            if not isinstance(node.value, ast.Name):
                continue
            function = self.index.function_of_node(node)
            parameter = (
                next((a for a in parameters(function.node) if a.arg == node.value.id), None) if function else None
            )
            if parameter is not None and self.is_agent_annotation(parameter.annotation):
                found.update(targets)
        return found

    def is_agent_class(self, function: Function) -> bool:
        return function.cls is not None and id(function.cls.node) in self.agent_classes

    def _agent_source(self, function: Function):
        vocabulary = self.vocabulary

        def sources(node: ast.AST) -> frozenset:
            if isinstance(node, ast.arg):
                agent = (
                    (node.arg == function.self_name and self.is_agent_class(function))
                    or self.is_agent_annotation(node.annotation)
                    or node.arg in vocabulary.agent_names
                )
                return frozenset({AGENT}) if agent else frozenset()
            if isinstance(node, ast.Name):
                if node.id == function.self_name and self.is_agent_class(function):
                    return frozenset({AGENT})
                return frozenset({AGENT}) if node.id in vocabulary.agent_names else frozenset()
            if isinstance(node, ast.Attribute):  # an attribute is an agent by its own name only
                agent = node.attr in vocabulary.agent_names or node.attr in self.agent_attributes
                return frozenset({AGENT if agent else OTHER})
            return frozenset()

        return sources

    def agent_flow(self, function: Function) -> ValueFlow:
        if id(function.node) not in self._agent_flows:
            outer = self.agent_flow(function.outer) if function.outer else None
            self._agent_flows[id(function.node)] = ValueFlow(
                self.graph(function), function.node, self._agent_source(function), outer=outer
            )
        return self._agent_flows[id(function.node)]

    def is_agent(self, expr: ast.AST, function: Function) -> bool:
        """By the expression's own name where that decides it (an attribute, `self`, a
        parameter, an agent name), else through the agent flow (local aliases)."""
        sources = self._agent_source(function)
        if isinstance(expr, ast.Attribute):
            return AGENT in sources(expr)
        if isinstance(expr, ast.Name):
            if sources(expr):
                return True
            parameter = next((a for a in parameters(function.node) if a.arg == expr.id), None)
            if parameter is not None and not self._rebound(function, expr.id):
                return bool(sources(parameter))
        return AGENT in self.agent_flow(function).origins(expr)

    def _rebound(self, function: Function, name: str) -> bool:
        return any(
            isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Store)
            for node in self.index.nodes(function.node)
        )

    def calls(self, function: Function) -> list[ast.Call]:
        """The calls a function owns, listed once for the three rules."""
        key = id(function.node)
        if key not in self._calls:
            self._calls[key] = [n for n in self.index.nodes(function.node) if isinstance(n, ast.Call)]
        return self._calls[key]

    def is_session(self, expr: ast.AST, function: Function) -> bool:
        name = final_name(expr)
        if name in self.vocabulary.session_names:
            return True
        if isinstance(expr, ast.Name):
            return any(
                a.arg == expr.id and self.vocabulary.is_session_annotation(a.annotation)
                for a in parameters(function.node)
            )
        return False

    def graph(self, function: Function) -> Graph:
        return graph(self.file, function.node)

    # -- receivers ------------------------------------------------------------------------
    def pushing_type(self, name: str) -> bool:
        """An agent, task, agent session, realtime session or configured receiver type, by
        its name or the class hierarchy in the file."""
        vocabulary = self.vocabulary
        return any(
            vocabulary.is_agent_type(n)
            or vocabulary.is_session_type(n)
            or vocabulary.is_realtime_type(n)
            or n in vocabulary.receiver_types
            for n in self.types.lineage(name)
        )

    def push_of(self, node: ast.AST, function: Function | None) -> tuple[ast.expr, ast.expr | None] | None:
        """(receiver, pushed context) of a push: a push method called on an agent, task,
        session or configured type (by annotation, assignment, the class hierarchy in the
        file, or the vocabulary's names). On a receiver whose type the file names and that
        is none of them, the call must have the push's signature, and so must the method
        where the file defines it: `CrmSync().update_chat_ctx(customer_id, notes=...)` is
        not a push. A receiver the file says nothing about is one by name or by signature."""
        found = self.vocabulary.push_call(node)
        if found is None:
            return None
        receiver = found[0]
        names = self.types.of(receiver, function)
        if names is not None:
            if any(self.pushing_type(n) for n in names):
                return found
            if not self.vocabulary.push_shaped(node):
                return None
            defined = [d for d in (self.types.method(n, node.func.attr) for n in names) if d is not None]
            return found if not defined or any(accepts_one_argument(d) for d in defined) else None
        if function is not None and (self.is_agent(receiver, function) or self.is_session(receiver, function)):
            return found
        return found if self.vocabulary.push_shaped(node) else None

    # -- snapshots --------------------------------------------------------------------------
    def is_local_context(self, expr: ast.AST, function: Function) -> bool:
        """`<agent or session>.<local context>`."""
        return (
            isinstance(expr, ast.Attribute)
            and expr.attr in self.vocabulary.local_contexts
            and (self.is_agent(expr.value, function) or self.is_session(expr.value, function))
        )

    def _snapshot_source(self, function: Function):
        vocabulary, segment = self.vocabulary, self.file.segment

        def sources(node: ast.AST) -> frozenset:
            found = None
            if isinstance(node, ast.arg):
                if vocabulary.is_snapshot_parameter(function.node.name, node):
                    found = Snapshot(node, "parameter", None, None, "")
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "copy":
                context = node.func.value
                if self.is_local_context(context, function):
                    inner = segment(node)[len(segment(node.func)) :].strip()[1:-1].strip()
                    found = Snapshot(node, "copy", segment(context.value), segment(context), inner)
            elif (
                isinstance(node, ast.Attribute)
                and node.attr in vocabulary.copying_contexts
                and isinstance(node.ctx, ast.Load)
                and self.is_agent(node.value, function)
            ):
                found = Snapshot(node, "read", segment(node.value), segment(node), "")
            if found is None:
                return frozenset()
            self.snapshots[id(node)] = found
            return frozenset({id(node)})

        return sources

    def snapshot_flow(self, function: Function) -> ValueFlow:
        """Which snapshots a value carries (a copy, `_summarize`, `truncate` or `merge` of a
        snapshot is still that snapshot's content)."""
        if id(function.node) not in self._flows:
            outer = self.snapshot_flow(function.outer) if function.outer else None
            self._flows[id(function.node)] = ValueFlow(
                self.graph(function), function.node, self._snapshot_source(function), _SNAPSHOT_RULES, outer=outer
            )
        return self._flows[id(function.node)]

    # -- write-backs ----------------------------------------------------------------------
    def write_backs(self, function: Function) -> Iterator[tuple[ast.Call, ast.expr, ast.expr]]:
        """(call, receiver, pushed context) of every push on an agent or task."""
        for node in self.calls(function):
            found = self.push_of(node, function)
            if found is not None and found[1] is not None and self.is_agent(found[0], function):
                yield node, found[0], found[1]

    def session_pushes(self, function: Function) -> Iterator[tuple[ast.Call, ast.expr, ast.expr]]:
        """(call, session, pushed context) of every push on a realtime session (the realtime
        vocabulary's sessions: names, annotations, `.session()` assignments, aliases):
        `update_chat_ctx(ctx)` and `_update_session(chat_ctx=ctx)`."""
        from .realtime.sessions import analyse as realtime

        vocabulary, sessions = self.vocabulary, None
        for node in self.calls(function):
            if not isinstance(node.func, ast.Attribute):
                continue
            method = node.func.attr
            if method in vocabulary.push_methods:
                pushed = (
                    node.args[0] if node.args else next((k.value for k in node.keywords if k.arg == "chat_ctx"), None)
                )
            elif method in vocabulary.session_updates:
                pushed = next((k.value for k in node.keywords if k.arg == "chat_ctx"), None)
            else:
                continue
            if pushed is None:
                continue
            sessions = sessions or realtime(self.file)
            if sessions.is_session(node.func.value, function):
                yield node, node.func.value, pushed

    # -- snapshots stored on `self` ---------------------------------------------------------
    def stored(self, function: Function, pushed: ast.AST) -> Attribute | None:
        """The model of `self.<attr>` when the pushed value is that attribute of the method's
        own instance (rules._analysis.members), the assignments followed being snapshots."""
        if not (
            function.cls is not None
            and isinstance(pushed, ast.Attribute)
            and isinstance(pushed.value, ast.Name)
            and pushed.value.id == function.self_name
        ):
            return None
        return attribute(self.file, function.cls, pushed.attr, self._classify)

    def _classify(self, method: Function, value: ast.expr) -> str:
        if self.snapshot_flow(method).origins(value):
            return "keep"
        if isinstance(value, ast.Constant) and value.value is None:
            return "none"
        return "other"

    def stored_snapshots(self, model: Attribute) -> list[tuple[Function, Snapshot]]:
        """(writer, the snapshot it stores) of every assignment of the attribute."""
        found = []
        for writer in model.writers:
            for key in sorted(self.snapshot_flow(writer.method).origins(writer.value)):
                found.append((writer.method, self.snapshots[key]))
        return sorted(found, key=lambda f: f[1].node.lineno)

    def stale_stored(self, function: Function, pushed: ast.AST) -> tuple[Attribute, Stale] | None:
        """A snapshot stored on `self.<attr>` by another method, written back where every way
        of reaching the write-back passes an await after the last refresh, or in a method
        the framework calls later (`callback-methods`)."""
        model = self.stored(function, pushed)
        if model is None:
            return None
        stale = model.stale_at(function, pushed, self.is_callback)
        return (model, stale) if stale is not None else None

    def is_callback(self, function: Function) -> bool:
        callbacks = self.vocabulary.callbacks
        decorated = any(
            f"@{final_name(d.func if isinstance(d, ast.Call) else d)}" in callbacks
            for d in function.node.decorator_list
        )
        return decorated or (self.is_agent_class(function) and function.node.name in callbacks)

    def awaits_before(self, function: Function, snapshot: Snapshot, call: ast.AST) -> list[Point]:
        """Await points that can run after the snapshot (the function's start, for a
        parameter) and before `call`, on a path that does not take the snapshot again (a
        snapshot re-taken in every loop pass is fresh). For a snapshot of an enclosing
        function: the awaits of this function before `call`, else those of the enclosing
        function between the snapshot and a call of this one (a retry loop's earlier passes
        included); a nested function that is never called by name there (a callback) is
        not followed."""
        g = self.graph(function)
        in_graph = snapshot.kind != "parameter" and id(snapshot.node) in g.point_of
        start = g.locate(snapshot.node) if in_graph else None
        found = g.awaits_between(start, g.locate(call), call)
        if found or in_graph or snapshot.kind == "parameter" or function.outer is None:
            return found
        outer = function.outer
        for site in self.calls(outer):
            if isinstance(site.func, ast.Name) and site.func.id == function.node.name:
                found = self.awaits_before(outer, snapshot, site)
                if found:
                    return found
        return []


def _carries(call: ast.Call, origins) -> frozenset:
    if isinstance(call.func, ast.Attribute) and call.func.attr in DERIVING_METHODS:
        return origins(call.func.value)
    return frozenset()


_SNAPSHOT_RULES = FlowRules(carries=_carries)


def analyse(file: FileContext) -> AppModule:
    return file.memo("rules._frameworks.livekit", lambda: AppModule(file))


__all__ = [
    "OPTIONS",
    "Vocabulary",
    "AppModule",
    "Snapshot",
    "analyse",
    "dotted",
    "push_tokens",
    "session_update_tokens",
]
