"""The realtime vocabulary (design.md): a *session* answers `chat_ctx` from a *mirror* of the
server conversation and *pushes* a context with an awaited `update_chat_ctx(ctx)`; a
*snapshot* is a read of the mirror; the *push lock* serializes snapshot-and-push in a class.
The words are options, so another framework's names can be configured.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from rtlint.core.settings import Option, Settings

from ...._analysis.index import annotation_names, final_name
from ...._analysis.values import FlowRules

# LiveKit's push methods: one option for the realtime rules and the application rules
PUSH_METHODS = Option("push-methods", ["update_chat_ctx"], "session methods that push a context (awaited)")

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
    PUSH_METHODS,
    Option("push-lock", "_rt_chat_ctx_lock", "the push lock attribute rtlint looks for and creates"),
)


@dataclass
class Vocabulary:
    session_names: set[str]  # grows as the module reveals more session attributes
    session_types: tuple[str, ...]
    mirror_properties: set[str]
    push_methods: set[str]
    push_lock: str

    @classmethod
    def from_settings(cls, settings: Settings) -> Vocabulary:
        return cls(
            set(settings.get("session-names", ())),
            tuple(settings.get("session-types", ())),
            set(settings.get("mirror-properties", ())),
            set(settings.get("push-methods", ())),
            settings.get("push-lock", "_rt_chat_ctx_lock"),
        )

    def is_session_type(self, name: str) -> bool:
        return any(name == t or name.endswith(t) for t in self.session_types)

    def annotated_session(self, annotation: ast.AST | None) -> bool:
        return any(self.is_session_type(n) for n in annotation_names(annotation))


def is_session_call(node: ast.AST | None) -> bool:
    """`<agent session>.session()`, LiveKit's way to make a realtime session."""
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "session"


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


def required_tokens(settings: Settings) -> list[tuple[Any, ...]]:
    """Every realtime rule needs an awaited push, and a push is an attribute call: a push
    method's name (a cheap substring test) right after a `.` (blanks, line continuations and
    comments may come between), which leaves out the files that only define the method."""
    methods = tuple(settings.get("push-methods", ("update_chat_ctx",)))
    return [methods, (method_call(methods),)]


def method_call(methods) -> re.Pattern[bytes]:
    """`.` then one of `methods` as a word, with blanks, line continuations and comments
    between. A comment runs to its line's end (the lookahead), so the repetition splits a run
    of `#` one way only: no backtracking blow-up on a line of many `#`."""
    names = b"|".join(re.escape(m.encode()) for m in methods)
    return re.compile(rb"\.(?:[ \t\f\r\n\\]|#[^\r\n]*(?=[\r\n]))*(?:" + names + rb")\b")
