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
from dataclasses import dataclass
from typing import Iterator

from rtlint.rule import Option

OPTIONS = (
    Option("push-methods", ["update_chat_ctx"], "session methods that push a context (awaited)"),
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
        "task-spawners",
        ["create_task", "ensure_future"],
        "functions and methods that run a coroutine as a detached task",
    ),
)

# edits of a context that only add items, and the ones that change it otherwise
ADDITIVE_EDITS = {"add_message", "insert"}
ADDITIVE_ITEM_EDITS = {"append", "extend"}  # on `<ctx>.items`
OTHER_EDITS = {"remove", "truncate", "merge", "_summarize", "summarize", "_upsert_item", "clear", "pop", "sort", "reverse"}
OTHER_ITEM_EDITS = {"insert", "remove", "pop", "clear", "sort", "reverse"}
# methods whose result is (a transformed) copy of their receiver: still the snapshot's content
DERIVING_METHODS = {"copy", "_summarize", "summarize", "truncate", "merge"}


def final_name(node: ast.AST | None) -> str | None:
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Subscript):  # AgentTask[Result]
        return final_name(node.value)
    return None


def annotation_names(annotation: ast.AST | None) -> Iterator[str]:
    if annotation is None:
        return
    for node in ast.walk(annotation):
        if isinstance(node, (ast.Name, ast.Attribute)):
            yield final_name(node) or ""
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            try:
                yield from annotation_names(ast.parse(node.value, mode="eval"))
            except (SyntaxError, ValueError, RecursionError):
                pass


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

    @classmethod
    def from_settings(cls, settings) -> Vocabulary:  # noqa: ANN001
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
        )

    # -- types --------------------------------------------------------------------------
    def is_agent_type(self, name: str) -> bool:
        return any(name == t or name.endswith(t) for t in self.agent_types)

    def is_session_type(self, name: str) -> bool:
        return any(name == t or name.endswith(t) for t in self.session_types)

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

    def is_spawner(self, node: ast.AST) -> bool:
        return isinstance(node, ast.Call) and final_name(node.func) in self.spawners
