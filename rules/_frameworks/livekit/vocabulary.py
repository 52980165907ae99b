"""LiveKit's one vocabulary (design.md, "Rules for LiveKit"): every word the LiveKit rules
know, as `[tool.rtlint]` options, and the words that are not options (the edit methods of a
`ChatContext`, how a context travels through calls, the push's signature).

- The realtime side: a *realtime session* answers `chat_ctx` from a *mirror* of the server
  conversation and *pushes* a context with an awaited `update_chat_ctx(ctx)`; the *push
  lock* serializes snapshot-and-push in a class (RTL001-RTL004).
- The application side: *agents* and *tasks*, *agent sessions*, their *local contexts*
  (`agent.chat_ctx`, `session.history`), write-backs and task spawners (RTL005-RTL007).
- The provider side: a provider's session class, its mirror attributes and types, the diff
  its push makes (RTL010, RTL011).

`vocabulary(file)` is built once per file from the file's settings; the rules' option
tuples (`REALTIME_OPTIONS`, `APPLICATION_OPTIONS`, `PROVIDER_OPTIONS`) say which keys each
rule reads (its page lists them).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from rtlint.core.settings import Option, Settings

from ..._analysis.index import annotation_names, final_name
from ..._analysis.values import FlowRules

if TYPE_CHECKING:
    from rtlint.core.context import FileContext

# the push methods and the realtime session types: one option each for every LiveKit rule
PUSH_METHODS = Option("push-methods", ["update_chat_ctx"], "session methods that push a context (awaited)")
SESSION_TYPES = Option(
    "session-types",
    ["RealtimeSession"],
    "type names that mark a realtime session in annotations (a name ending in one counts too)",
)

REALTIME_OPTIONS = (
    Option(
        "session-names",
        ["rt_session", "_rt_session", "realtime_session", "_realtime_session"],
        "names and attribute names that hold a realtime session",
    ),
    SESSION_TYPES,
    Option("mirror-properties", ["chat_ctx"], "session properties that answer from the mirror"),
    PUSH_METHODS,
    Option("push-lock", "_rt_chat_ctx_lock", "the push lock attribute rtlint looks for and creates"),
)

APPLICATION_OPTIONS = (
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

PROVIDER_OPTIONS = (
    SESSION_TYPES,
    PUSH_METHODS,
    Option(
        "mirror-attributes",
        ["_remote_chat_ctx"],
        "attributes in which a provider's session keeps its mirror of the server conversation",
    ),
    Option(
        "mirror-types",
        ["RemoteChatContext"],
        "types of a provider session's mirror (an attribute annotated with one, or assigned one, is a mirror)",
    ),
    Option(
        "diff-functions",
        ["compute_chat_ctx_diff"],
        "functions that diff a session's mirror (their first argument) against the context it is pushed",
    ),
    Option("diff-removals", ["to_remove"], "attributes of a diff that list the items the push deletes"),
)

# every LiveKit key, once
OPTIONS = tuple({o.name: o for o in (*REALTIME_OPTIONS, *APPLICATION_OPTIONS, *PROVIDER_OPTIONS)}.values())
_DEFAULTS = {o.name: o.default for o in OPTIONS}


def setting(settings: Settings, name: str) -> Any:
    """A LiveKit option's value, its default where the settings lack it."""
    return settings.get(name, _DEFAULTS[name])


def _words(settings: Settings, name: str) -> tuple[str, ...]:
    return tuple(setting(settings, name))


@dataclass(frozen=True)
class Vocabulary:
    """The words of one file's settings (`vocabulary(file)`)."""

    push_methods: frozenset[str]
    push_lock: str
    # realtime sessions (the realtime rules' `session-names`, `session-types`)
    realtime_session_names: frozenset[str]
    realtime_types: tuple[str, ...]
    mirror_properties: frozenset[str]
    session_updates: frozenset[str]  # realtime-session methods that push their `chat_ctx=`
    # agents, tasks, agent sessions and their local contexts
    agent_types: tuple[str, ...]
    agent_names: frozenset[str]
    agent_session_types: tuple[str, ...]
    agent_session_names: frozenset[str]
    local_contexts: frozenset[str]
    copying_contexts: frozenset[str]
    context_types: tuple[str, ...]
    hook_table: tuple[tuple[str, str], ...]
    spawners: frozenset[str]
    receiver_types: tuple[str, ...]  # configured push receivers
    callbacks: frozenset[str]  # methods (or `@decorators`) the framework calls later
    # provider sessions
    mirror_attributes: frozenset[str]
    mirror_types: frozenset[str]
    diff_functions: frozenset[str]
    diff_removals: frozenset[str]

    @classmethod
    def from_settings(cls, settings: Settings) -> Vocabulary:
        def get(name: str) -> tuple[str, ...]:
            return _words(settings, name)

        hooks = []
        for entry in get("snapshot-parameters"):
            function, _, parameter = entry.partition(":")
            if parameter:
                hooks.append((function.strip(), parameter.strip()))
        return cls(
            push_methods=frozenset(get("push-methods")),
            push_lock=setting(settings, "push-lock"),
            realtime_session_names=frozenset(get("session-names")),
            realtime_types=get("session-types"),
            mirror_properties=frozenset(get("mirror-properties")),
            session_updates=frozenset(get("session-update-methods")),
            agent_types=get("agent-types"),
            agent_names=frozenset(get("agent-names")),
            agent_session_types=get("agent-session-types"),
            agent_session_names=frozenset(get("agent-session-names")),
            local_contexts=frozenset(get("local-contexts")),
            copying_contexts=frozenset(get("copying-contexts")),
            context_types=get("context-types"),
            hook_table=tuple(hooks),
            spawners=frozenset(get("task-spawners")),
            receiver_types=get("push-receiver-types"),
            callbacks=frozenset(get("callback-methods")),
            mirror_attributes=frozenset(get("mirror-attributes")),
            mirror_types=frozenset(get("mirror-types")),
            diff_functions=frozenset(get("diff-functions")),
            diff_removals=frozenset(get("diff-removals")),
        )

    # -- types --------------------------------------------------------------------------
    def is_agent_type(self, name: str) -> bool:
        return any(name == t or name.endswith(t) for t in self.agent_types)

    def is_agent_session_type(self, name: str) -> bool:
        return any(name == t or name.endswith(t) for t in self.agent_session_types)

    def is_realtime_type(self, name: str) -> bool:
        return any(name == t or name.endswith(t) for t in self.realtime_types)

    def is_context_annotation(self, annotation: ast.AST | None) -> bool:
        return any(n in self.context_types for n in annotation_names(annotation))

    def is_agent_annotation(self, annotation: ast.AST | None) -> bool:
        return any(self.is_agent_type(n) for n in annotation_names(annotation))

    def is_agent_session_annotation(self, annotation: ast.AST | None) -> bool:
        return any(self.is_agent_session_type(n) for n in annotation_names(annotation))

    def is_realtime_annotation(self, annotation: ast.AST | None) -> bool:
        return any(self.is_realtime_type(n) for n in annotation_names(annotation))

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
        return node.func.value, pushed_argument(node)

    def push_shaped(self, call: ast.Call) -> bool:
        """The call has a push's signature: one context (positional or `chat_ctx=`) and
        only the push's keywords (`*args`/`**kwargs` could be anything: yes)."""
        if any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
            return True
        keywords = {k.arg for k in call.keywords}
        return len(call.args) + (CONTEXT_KEYWORD in keywords) == 1 and keywords <= PUSH_KEYWORDS

    def is_spawner(self, node: ast.AST) -> bool:
        return isinstance(node, ast.Call) and final_name(node.func) in self.spawners


def vocabulary(file: FileContext) -> Vocabulary:
    """The file's vocabulary, built once from its settings."""
    return file.memo("livekit.vocabulary", lambda: Vocabulary.from_settings(file.settings))


# -- words that are not options -------------------------------------------------------------

# the keyword a push (and `_update_session`) takes its context by, and the keywords of
# LiveKit's push signatures (`Agent.update_chat_ctx(chat_ctx, *,
# exclude_invalid_function_calls=True)`, `RealtimeSession.update_chat_ctx(chat_ctx)`)
CONTEXT_KEYWORD = "chat_ctx"
PUSH_KEYWORDS = frozenset({CONTEXT_KEYWORD, "exclude_invalid_function_calls"})


# a context's methods and attributes the rules and their fixes name
ITEMS = "items"  # `<ctx>.items`, the list of a context's items
COPY_METHOD = "copy"  # `<ctx>.copy(...)`, a snapshot
ADD_MESSAGE = "add_message"  # `<ctx>.add_message(...)`, which returns the new message
UPSERT_METHOD = "_upsert_item"  # replaces an item of the same id
EMIT_METHOD = "emit"  # a provider session's event emitter: `self.emit("event", ...)`
# what a fix names a copy it binds, a fresh copy it takes before a write-back, and a message
# it binds to put it into that copy
CONTEXT_NAME = "chat_ctx"
FRESH_COPY_NAME = "fresh_ctx"
ADDED_MESSAGE_NAME = "added_message"


def copy_code(context: str, arguments: str = "") -> str:
    """A fix's copy of a context, as code: `agent.chat_ctx.copy()`."""
    return f"{context}.{COPY_METHOD}({arguments})"


def absent_code(context: str, item: str) -> str:
    """A fix's test that a context does not hold an item yet (a later pass of a loop would
    add it again): `fresh_ctx.get_by_id(msg.id) is None`."""
    return f"{context}.get_by_id({item}.id) is None"


def pushed_argument(call: ast.Call) -> ast.expr | None:
    """The context a push sends: its first argument, or its `chat_ctx=`."""
    if call.args:
        return call.args[0]
    return next((k.value for k in call.keywords if k.arg == CONTEXT_KEYWORD), None)


def is_session_call(node: ast.AST | None) -> bool:
    """`<agent session>.session()`, LiveKit's way to make a realtime session."""
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "session"


# edits of a context that only add items, and the ones that change it otherwise (RTL005)
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
# the edits RTL007 finds discarded: on a context, on its `items`, and the ones whose result
# is the edited context itself
DISCARDABLE_EDITS = {"add_message", "insert", "remove", "truncate", "merge"}
DISCARDABLE_ITEM_EDITS = {"append", "extend", "insert", "remove", "pop", "clear", "sort", "reverse"}
EDITS_RETURNING_CONTEXT = {"truncate", "merge"}
# methods whose result is (a transformed) copy of their receiver: still a snapshot's content
DERIVING_METHODS = {"copy", "_summarize", "summarize", "truncate", "merge"}


def _derives(call: ast.Call, origins) -> frozenset:
    if isinstance(call.func, ast.Attribute) and call.func.attr in DERIVING_METHODS:
        return origins(call.func.value)
    return frozenset()


# how a snapshot of a local context travels: a copy, `_summarize`, `truncate` or `merge` of it
SNAPSHOT_FLOW = FlowRules(carries=_derives)

# methods of a context whose result is still (a copy of) that context or its items, and the
# calls that build a context from their arguments
_NON_CARRYING_METHODS = {
    "add_message",  # returns the new item, not the context
    "to_dict",
    "to_provider_format",
    "is_equivalent",
    "get_by_id",
    "index_by_id",
    "find_insertion_index",
    "to_proto",
    "model_dump",
    "model_dump_json",
    "text_content",
}
_CARRYING_CALLS = {"list", "tuple", "copy", "deepcopy", "sorted", "reversed"}
MUTATORS = frozenset({"extend", "append", "insert", "add_message", "_upsert_item", "merge"})


def _carries(call: ast.Call, origins: Callable[[ast.AST], frozenset]) -> frozenset:
    func = call.func
    if isinstance(func, ast.Attribute) and func.attr not in _NON_CARRYING_METHODS:
        carried = origins(func.value)
        if carried:
            return carried
    callee = final_name(func) or ""
    if callee in _CARRYING_CALLS or callee.endswith("Context"):
        result: frozenset = frozenset()
        for argument in [*call.args, *(k.value for k in call.keywords)]:
            result |= origins(argument)
        return result
    return frozenset()


# how a chat context travels: copies, slices, `items.extend`, context constructors
CONTEXT_FLOW = FlowRules(carries=_carries, mutators=MUTATORS, containers=frozenset({"items"}))


# -- the raw-bytes pre-filters -----------------------------------------------------------


def push_tokens(settings: Settings) -> list[tuple[Any, ...]]:
    """Every realtime rule needs an awaited push, and a push is an attribute call: a push
    method's name (a cheap substring test) right after a `.` (blanks, line continuations and
    comments may come between), which leaves out the files that only define the method."""
    methods = _words(settings, "push-methods")
    return [methods, (method_call(methods),)]


def session_update_tokens(settings: Settings) -> tuple:
    """RTL005's pre-filter alternative for a push by `_update_session(chat_ctx=...)`: a
    session-update method's name (a substring) called as a method."""
    methods = _words(settings, "session-update-methods")
    return (tuple(m.encode() for m in methods), method_call(methods))


def discarded_edit_tokens(settings: Settings) -> tuple[tuple[str, ...], tuple[tuple[Any, re.Pattern[bytes]], ...]]:
    """RTL007's three shapes on the raw bytes, each searched only where its name is (the
    regex scans every dot): `.copy(...).<edit>`, `.chat_ctx.<edit>` (a copying context),
    `update_chat_ctx(<receiver>.<edit>`; and the names, any of which a file must hold."""
    copying, pushes = _words(settings, "copying-contexts"), _words(settings, "push-methods")
    edit = (
        rb"\s*\.\s*(?:"
        + "|".join(sorted(DISCARDABLE_EDITS)).encode()
        + b"|"
        + ITEMS.encode()
        + rb"\s*\.\s*(?:"
        + "|".join(sorted(DISCARDABLE_ITEM_EDITS)).encode()
        + rb"))\b"
    )
    arguments = rb"\((?:[^()]|\((?:[^()]|\([^()]*\))*\))*\)"  # two levels of nested parentheses
    names = b"|".join(re.escape(n.encode()) for n in copying)
    methods = b"|".join(re.escape(m.encode()) for m in pushes)
    shapes = (
        (COPY_METHOD, re.compile(rb"\.\s*" + COPY_METHOD.encode() + rb"\s*" + arguments + edit)),
        (copying, re.compile(rb"\.\s*(?:" + names + rb")" + edit)),
        (pushes, re.compile(rb"(?:" + methods + rb")\s*\(\s*[\w.]*(?:" + arguments + rb"[\w.]*)*" + edit)),
    )
    return (COPY_METHOD, *copying, *pushes), shapes


def method_call(methods) -> re.Pattern[bytes]:
    """`.` then one of `methods` as a word, with blanks, line continuations and comments
    between. A comment runs to its line's end (the lookahead), so the repetition splits a run
    of `#` one way only: no backtracking blow-up on a line of many `#`."""
    names = b"|".join(re.escape(m.encode()) for m in methods)
    return re.compile(rb"\.(?:[ \t\f\r\n\\]|#[^\r\n]*(?=[\r\n]))*(?:" + names + rb")\b")
