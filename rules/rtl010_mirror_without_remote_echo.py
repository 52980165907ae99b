"""RTL010 mirror-without-remote-echo (LiveKit PR 5114, issue 4960's symptom)."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from rtlint.core.context import FileContext
from rtlint.core.findings import Finding
from rtlint.core.rule import Invalid, Rule
from rtlint.core.settings import Option

from ._analysis.index import Function, FunctionNode, Index, index, subtree
from ._frameworks.livekit.realtime.provider import (
    DELETE_WORDS,
    MIRROR_INSERT,
    ProviderSession,
    Span,
    callee,
    mirror_assignments,
    mirror_inserts,
    provider_sessions,
    removal_deletes,
    required_tokens,
    runs_unseen_code,
)
from ._frameworks.livekit.vocabulary import EMIT_METHOD, PROVIDER_OPTIONS, setting

OPTIONS = (
    *PROVIDER_OPTIONS,
    Option(
        "remote-echo-events",
        ["remote_item_added"],
        "events a provider session emits for each server item it mirrors (the framework's placeholders)",
    ),
)


class MirrorWithoutRemoteEcho(Rule):
    """
    ## What it does
    Finds a provider plugin's realtime session (a class deriving from `RealtimeSession`
    that implements `update_chat_ctx`) that inserts the server's items into its mirror
    (`self._remote_chat_ctx`) in an event handler, deletes the diff's `to_remove` in its
    push, and never emits `remote_item_added`. Reported at the class.

    ## Why is this bad?
    The push diffs the context it is handed against the mirror, and every mirrored item
    that context lacks is deleted server-side. A server-created item (a reply, a
    `function_call`) enters the mirror when the server announces it, but the agent's own
    context only gets it later (a function call when its tool starts running). Since
    livekit-agents 1.5.0 (PR 5114) the framework closes that gap: on `remote_item_added`
    it adds the item to the agent's context as a placeholder at once. A session that never
    emits the event leaves the gap open, and a context pushed in it (an application's
    `update_chat_ctx(agent.chat_ctx.copy())`, a tool output pushed before the tool runs)
    deletes the in-flight `function_call`: the model then answers a call it no longer has
    (issue 4960; livekit-plugins-stepfun 1.8.1.post0 has this shape).

    ## Example
    ```python
    class RealtimeSession(llm.RealtimeSession):
        def _handle_conversation_item_created(self, event):
            item = _to_livekit_item(event.item)
            self._remote_chat_ctx.insert(event.previous_item_id, item)
    ```

    Use instead:
    ```python
    class RealtimeSession(llm.RealtimeSession):
        def _handle_conversation_item_created(self, event):
            item = _to_livekit_item(event.item)
            self._remote_chat_ctx.insert(event.previous_item_id, item)
            self.emit(
                "remote_item_added",
                llm.RemoteItemAddedEvent(previous_item_id=event.previous_item_id, item=item),
            )
    ```
    Emit it for every item the handler mirrors (livekit-plugins-openai does so since
    1.5.0); the framework ignores the items it pushed itself.

    ## Fix
    None: where the event goes and what it carries depend on the handler.

    ## Fix safety
    There is no fix to apply. The finding says which handler mirrors and which push
    deletes, so the emit can be written beside the insert.

    Not a finding: a session that emits the event anywhere in the class (or in a function
    of the file that its handler calls); a handler that hands the session to code this
    file does not show (`super().<handler>(event)`, an inherited method, a helper of
    another module given `self`), which may emit it; a push that never deletes (it only
    logs `to_remove`); a mirror that only the push writes (no server items in it); a class
    that is not a realtime session.
    """

    code = "RTL010"
    name = "mirror-without-remote-echo"
    summary = (
        "a realtime session mirrors server items and deletes the diff's to_remove, but never emits remote_item_added"
    )
    options = OPTIONS

    VALID = [
        """
class Session(llm.RealtimeSession):
    async def update_chat_ctx(self, chat_ctx):
        diff = compute_chat_ctx_diff(self._remote_chat_ctx.to_chat_ctx(), chat_ctx)
        for item_id in diff.to_remove:
            self.send_event({"type": "conversation.item.delete", "item_id": item_id})

    def _handle_item_created(self, event):
        self._remote_chat_ctx.insert(event.previous_item_id, event.item)
        self.emit("remote_item_added", RemoteItemAddedEvent(event.previous_item_id, event.item))
""",
    ]
    INVALID = [
        Invalid(
            """
class Session(llm.RealtimeSession):
    async def update_chat_ctx(self, chat_ctx):
        diff = compute_chat_ctx_diff(self._remote_chat_ctx.to_chat_ctx(), chat_ctx)
        for item_id in diff.to_remove:
            self.send_event({"type": "conversation.item.delete", "item_id": item_id})

    def _handle_item_created(self, event):
        self._remote_chat_ctx.insert(event.previous_item_id, event.item)
""",
            lines=(2,),
        )
    ]

    def required_tokens(self) -> list[tuple[object, ...]]:
        return [
            *required_tokens(self.settings),
            tuple(setting(self.settings, "diff-removals")),
            DELETE_WORDS,
            (MIRROR_INSERT,),
        ]

    def check(self, file: FileContext) -> Iterator[Finding]:
        idx = index(file)
        events = set(file.settings.get("remote-echo-events", ("remote_item_added",)))
        for session in provider_sessions(file):
            mirrored = _handler_inserts(session, idx)
            if not mirrored:
                continue
            deletes = removal_deletes(file, session)
            if not deletes or _echoes(session, idx, events) or _may_echo(session, idx, mirrored):
                continue
            own = {id(m) for m in session.info.methods.values()}
            if not any(id(f.method.node) in own for f, _ in [*mirrored, *deletes] if f.method is not None):
                continue  # all of it is inherited from a base of the file, reported there
            yield self.report(
                file,
                _header(file, session.info.node),
                _message(session, mirrored[0], deletes[0], events),
                symbol=session.info.qualname,
            )


def _handler_inserts(session: ProviderSession, idx: Index) -> list[tuple[Function, ast.Call]]:
    """Mirror inserts outside the push and its helpers, `__init__` and the functions that
    reset or rebuild the mirror: what the session's event handlers mirror."""
    pushing = {id(f.node) for f in session.pushing(idx)}
    found = []
    for function in session.functions(idx):
        method = function.method
        if id(function.node) in pushing or method is None or method.node.name == "__init__":
            continue
        if mirror_assignments(session, idx, function):
            continue
        found.extend((function, call) for call in mirror_inserts(session, idx, function))
    return found


def _echoes(session: ProviderSession, idx: Index, events: set[str]) -> bool:
    """Whether the class (its methods, lambdas and nested functions included, or a function
    of the module they call) emits one of the events, or an event this file cannot name."""
    module_functions = {n.name: n for n in idx.tree.body if isinstance(n, FunctionNode)}
    seen: set[int] = set()
    todo = [idx.method_nodes.get(id(node), []) for node in session.methods.values()]
    while todo:
        for node in todo.pop():
            if type(node) is not ast.Call:
                continue
            func = node.func
            if type(func) is ast.Attribute and func.attr == EMIT_METHOD and node.args:
                event = _constant(idx, node.args[0])
                if event is None or event in events:
                    return True
            elif type(func) is ast.Name and func.id in module_functions:
                target = module_functions[func.id]
                if id(target) not in seen:
                    seen.add(id(target))
                    todo.append(list(subtree(target)))
    return False


def _constant(idx: Index, node: ast.expr) -> str | None:
    """The string an event name is: a literal, or a module-level or class-level constant."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    name = node.attr if isinstance(node, ast.Attribute) else node.id if isinstance(node, ast.Name) else None
    for statement in [*idx.tree.body, *(s for c in idx.classes for s in c.node.body)]:
        if isinstance(statement, ast.Assign) and isinstance(statement.value, ast.Constant):
            if any(isinstance(t, ast.Name) and t.id == name for t in statement.targets):
                value = statement.value.value
                return value if isinstance(value, str) else None
    return None


def _may_echo(session: ProviderSession, idx: Index, mirrored: list[tuple[Function, ast.Call]]) -> bool:
    """Whether a handler that mirrors hands the session to code the file does not show."""
    seen: set[int] = set()
    todo = [function for function, _ in mirrored]
    while todo:
        function = todo.pop()
        if id(function.node) in seen:
            continue
        seen.add(id(function.node))
        for node in idx.nodes(function.node):
            if isinstance(node, ast.Call):
                if runs_unseen_code(idx, session, function, node):
                    return True
                target = callee(idx, session, function, node)
                if target is not None:
                    todo.append(target)
    return False


def _header(file: FileContext, node: ast.ClassDef) -> Span:
    """Where a class is reported: its `class Name` words, not its whole body."""
    line = file.lines[node.lineno - 1].encode("utf-8")
    start = line.find(node.name.encode("utf-8"), node.col_offset)
    end = start + len(node.name.encode("utf-8")) if start >= 0 else node.col_offset + len(b"class")
    return Span(node.lineno, node.col_offset, node.lineno, end)


def _message(
    session: ProviderSession,
    mirrored: tuple[Function, ast.Call],
    deletes: tuple[Function, ast.AST],
    events: set[str],
) -> str:
    handler, insert = mirrored
    pusher, loop = deletes
    mirror = ast.unparse(insert.func.value).removesuffix(".items")
    event = sorted(events)[0] if events else "remote_item_added"
    return (
        f"{session.info.node.name} mirrors server items into {mirror} ({handler.node.name}, line {insert.lineno}) "
        f"and {pusher.node.name} deletes the diff's removals (line {loop.lineno}), but it never emits "
        f'"{event}": the framework adds no placeholder for a server item, so a context pushed before a tool '
        f"runs deletes the in-flight function_call"
    )
