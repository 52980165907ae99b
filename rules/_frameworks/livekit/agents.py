"""The application side of LiveKit (design.md, "Rules for application code"; RTL005-RTL007):
agents and tasks, agent sessions, their local contexts, snapshots of them, write-backs and
task spawners, in the words of `vocabulary`. Names only: how values flow between names is
the shared analysis' job.

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

from ..._analysis.cfg import Graph, Point, graph
from ..._analysis.index import Function, Index, annotation_names, final_name, parameters
from ..._analysis.members import Attribute, Stale, attribute
from ..._analysis.types import Types, accepts_one_argument, types
from ..._analysis.values import ValueFlow
from .vocabulary import CONTEXT_KEYWORD, SNAPSHOT_FLOW, pushed_argument

if TYPE_CHECKING:
    from rtlint.core.context import FileContext

    from .vocabulary import Vocabulary

AGENT, OTHER = "agent", "other"  # keys of the agent flow


# -- the analysis of one file -------------------------------------------------------------


@dataclass(frozen=True)
class ContextSnapshot:
    """A snapshot of an agent's, task's or agent session's local context (RTL005's
    snapshot): where it is taken and what of."""

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


class Agents:
    """The application side of the LiveKit view of one file (a base of `livekit.Module`,
    which sets `file`, `index` and `vocabulary`): agents, snapshots of local contexts,
    write-backs and spawns, on the shared analysis. The realtime side's
    `is_realtime_session` (`realtime.sessions.Sessions`) tells a push into a realtime session."""

    file: FileContext
    index: Index
    vocabulary: Vocabulary

    def _init_agents(self) -> None:
        self.context_snapshots: dict[int, ContextSnapshot] = {}  # key id(node) -> snapshot
        self._calls: dict[int, list[ast.Call]] = {}
        self._agent_classes_found: set[int] | None = None
        self._agent_class_names: set[str] | None = None
        self._agent_attributes: set[str] | None = None
        self._types: Types | None = None

    @property
    def types(self) -> Types:
        if self._types is None:
            self._types = types(self.file)
        return self._types

    @property
    def agent_classes(self) -> set[int]:
        """The classes of the file that derive from an agent or task type (by id of the node)."""
        if self._agent_classes_found is None:
            self._agent_classes_found = self._agent_classes()
        return self._agent_classes_found

    @property
    def agent_class_names(self) -> set[str]:
        if self._agent_class_names is None:
            self._agent_class_names = {c.node.name for c in self.index.classes if id(c.node) in self.agent_classes}
        return self._agent_class_names

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

    # A flow's sources are closures over this object: the flows are memoised on the file, not
    # kept here, so that they and this object are freed with the file's analyses, by
    # reference counts (FileContext.release), instead of making a cycle with it.
    def agent_flow(self, function: Function) -> ValueFlow:
        def compute() -> ValueFlow:
            outer = self.agent_flow(function.outer) if function.outer else None
            return ValueFlow(self.graph(function), function.node, self._agent_source(function), outer=outer)

        return self.file.memo(("livekit.agent_flow", id(function.node)), compute)

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

    def is_agent_session(self, expr: ast.AST, function: Function) -> bool:
        name = final_name(expr)
        if name in self.vocabulary.agent_session_names:
            return True
        if isinstance(expr, ast.Name):
            return any(
                a.arg == expr.id and self.vocabulary.is_agent_session_annotation(a.annotation)
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
            or vocabulary.is_agent_session_type(n)
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
        if function is not None and (self.is_agent(receiver, function) or self.is_agent_session(receiver, function)):
            return found
        return found if self.vocabulary.push_shaped(node) else None

    # -- snapshots --------------------------------------------------------------------------
    def is_local_context(self, expr: ast.AST, function: Function) -> bool:
        """`<agent or session>.<local context>`."""
        return (
            isinstance(expr, ast.Attribute)
            and expr.attr in self.vocabulary.local_contexts
            and (self.is_agent(expr.value, function) or self.is_agent_session(expr.value, function))
        )

    def _snapshot_source(self, function: Function):
        vocabulary, segment = self.vocabulary, self.file.segment

        def sources(node: ast.AST) -> frozenset:
            found = None
            if isinstance(node, ast.arg):
                if vocabulary.is_snapshot_parameter(function.node.name, node):
                    found = ContextSnapshot(node, "parameter", None, None, "")
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "copy":
                context = node.func.value
                if self.is_local_context(context, function):
                    inner = segment(node)[len(segment(node.func)) :].strip()[1:-1].strip()
                    found = ContextSnapshot(node, "copy", segment(context.value), segment(context), inner)
            elif (
                isinstance(node, ast.Attribute)
                and node.attr in vocabulary.copying_contexts
                and isinstance(node.ctx, ast.Load)
                and self.is_agent(node.value, function)
            ):
                found = ContextSnapshot(node, "read", segment(node.value), segment(node), "")
            if found is None:
                return frozenset()
            self.context_snapshots[id(node)] = found
            return frozenset({id(node)})

        return sources

    def snapshot_flow(self, function: Function) -> ValueFlow:
        """Which snapshots a value carries (a copy, `_summarize`, `truncate` or `merge` of a
        snapshot is still that snapshot's content)."""

        def compute() -> ValueFlow:
            outer = self.snapshot_flow(function.outer) if function.outer else None
            source = self._snapshot_source(function)
            return ValueFlow(self.graph(function), function.node, source, SNAPSHOT_FLOW, outer=outer)

        return self.file.memo(("livekit.snapshot_flow", id(function.node)), compute)

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
        vocabulary = self.vocabulary
        for node in self.calls(function):
            if not isinstance(node.func, ast.Attribute):
                continue
            method = node.func.attr
            if method in vocabulary.push_methods:
                pushed = pushed_argument(node)
            elif method in vocabulary.session_updates:
                pushed = next((k.value for k in node.keywords if k.arg == CONTEXT_KEYWORD), None)
            else:
                continue
            if pushed is None:
                continue
            if self.is_realtime_session(node.func.value, function):
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

    def stored_snapshots(self, model: Attribute) -> list[tuple[Function, ContextSnapshot]]:
        """(writer, the snapshot it stores) of every assignment of the attribute."""
        found = []
        for writer in model.writers:
            for key in sorted(self.snapshot_flow(writer.method).origins(writer.value)):
                found.append((writer.method, self.context_snapshots[key]))
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

    def awaits_before(self, function: Function, snapshot: ContextSnapshot, call: ast.AST) -> list[Point]:
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
