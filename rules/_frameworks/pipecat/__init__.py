"""Pipecat's vocabulary (design.md, "Pipecat (the second framework)"), for pipecat-ai 1.14.0:
an `LLMContext` keeps the conversation in one list that many tasks write; `get_messages()`
and `.messages` answer with that list itself (live), `list(x)`, `x.copy()`, slices,
comprehensions, `get_messages(<filter>)` and anything computed from them are copies;
`set_messages(m)` replaces the contents in place, `transform_messages(f)` runs `f` on the live
list, and the context frames (Append, Update, Transform) are applied when an aggregator
processes them, after every frame queued ahead of them.

`analyse(file)` gives a `Module`: `flow(function)` (an `AliasFlow`: live aliases and copies),
`direct_writes`, `frame_writes`, `pushed_frame`, `is_spawner`, and what the fixes need
(`frame_import`).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rtlint.core.settings import Option

from ..._analysis.cfg import Graph, graph
from ..._analysis.index import Function, Index, annotation_names, final_name, index, parameters
from ..._analysis.values import AliasFlow

if TYPE_CHECKING:
    from rtlint.core.context import FileContext

NAME = "pipecat"
OPTIONS = (
    Option(
        "pipecat.context-names",
        ["context", "_context", "llm_context", "_llm_context"],
        "names and attributes that hold a shared LLMContext (`frame.context`, `params.context`, `self._context`)",
    ),
    Option("pipecat.context-types", ["LLMContext", "OpenAILLMContext"], "type names of an LLMContext, in annotations"),
    Option(
        "pipecat.live-calls",
        ["get_current_context"],
        "calls that answer with a context's live list of messages (pipecat-flows' FlowManager.get_current_context)",
    ),
    Option(
        "pipecat.task-spawners",
        ["create_task", "ensure_future"],
        "functions and methods that run a coroutine as a detached task (asyncio's, FrameProcessor.create_task, "
        "the task manager's)",
    ),
    Option(
        "pipecat.owner-types",
        ["Aggregator"],
        "base classes (a name ending in one counts) whose subclasses own the context: their live edits are meant",
    ),
)

# the frames that change or read the context when an aggregator or the LLM processes them
UPDATE, APPEND, TRANSFORM = "LLMMessagesUpdateFrame", "LLMMessagesAppendFrame", "LLMMessagesTransformFrame"
CONTEXT_FRAMES = frozenset({UPDATE, APPEND, TRANSFORM, "LLMContextFrame", "LLMRunFrame"})
FRAMES_MODULE = "pipecat.frames.frames"
PUSHES = frozenset({"push_frame", "queue_frame", "queue_frames"})  # FrameProcessor's, PipelineWorker's
DIRECT_WRITES = frozenset({"set_messages", "transform_messages"})
# in-place edits of a list, and of a context (add_message(s) append to its live list)
LIST_EDITS = frozenset({"pop", "remove", "clear", "reverse", "sort", "insert", "append", "extend"})
CONTEXT_EDITS = frozenset({"add_message", "add_messages"})
EXACT_COPIES = frozenset({"list", "copy", "deepcopy"})
DERIVED_COPIES = frozenset({"sorted"})


def owns(file: FileContext) -> bool:
    """The file imports from `pipecat` or a `pipecat_*` package (pipecat-flows: at module
    level, or under `if`/`try` there) and not from `livekit`."""
    return file.memo("rules._frameworks.pipecat.owns", lambda: _imports(file) == {"pipecat"})


def _imports(file: FileContext) -> set[str]:
    if "pipecat" not in file.text:
        return set()
    found: set[str] = set()
    stack = list(file.tree.body)
    while stack:
        stmt = stack.pop()
        if isinstance(stmt, ast.ImportFrom) and stmt.level == 0 and stmt.module:
            found.add(stmt.module.split(".")[0])
        elif isinstance(stmt, ast.Import):
            found.update(alias.name.split(".")[0] for alias in stmt.names)
        elif isinstance(stmt, (ast.If, ast.Try)):
            stack.extend(stmt.body)
            stack.extend(stmt.orelse)
            stack.extend(getattr(stmt, "finalbody", ()))
            for handler in getattr(stmt, "handlers", ()):
                stack.extend(handler.body)
    return {"pipecat" if n.startswith("pipecat") else n for n in found} & {"pipecat", "livekit"}


def _words(words: tuple[bytes, ...]) -> tuple:
    """A pre-filter alternative: one of `words` (each match holds its hint, as the engine asks).
    That the file imports from pipecat is asked after the parse (`owns`)."""
    import re

    return (words, re.compile(b"|".join(re.escape(w) for w in words)))


def tokens(settings) -> tuple:
    """RTL008's alternative: a read of a context's live list (`get_messages`, a live call,
    `<context name or aggregator>.messages`; `.messages` of a context under another name needs
    the name in `context-names`)."""
    vocabulary = Vocabulary.from_settings(settings)
    calls = (b"get_messages", *(n.encode() for n in sorted(vocabulary.live_calls)))
    types = (*vocabulary.context_types, *vocabulary.owner_types)
    return ((b"messages", *calls[1:]), _LiveRead(calls, vocabulary.context_names, types))


class _LiveRead:
    """`search(raw)` finds what the pattern `CALL|(?:\\b(?:NAME)|[Aa]ggregator)\\s*\\.\\s*messages\\b`
    finds (CALL a live call, NAME a context name), from each `.messages` backwards: the
    pattern itself has no literal to start from, so the engine tried it at every byte of the
    file (~0.2 s on the pipecat-ai wheel, as much as parsing a tenth of it)."""

    _WHITE = frozenset(b" \t\n\r\f\v")  # what `\\s` matches in a bytes pattern

    def __init__(self, calls: tuple[bytes, ...], names: frozenset[str], types: tuple[str, ...] = ()) -> None:
        import re

        self._calls = re.compile(b"|".join(re.escape(c) for c in calls))
        self._attribute = re.compile(rb"\.\s*messages\b")
        self._names = tuple(sorted(n.encode() for n in names))
        # a parameter annotated with a context type (or an owner's, a name ending in one): the
        # analysis takes its `.messages` as live whatever its name (`ctx: LLMContext`)
        self._types = re.compile(rb"|".join(re.escape(t.encode()) for t in sorted(types))) if types else None
        self._annotation = (
            rb"\s*:[\w\s.\[\]|\"']*?(?:" + b"|".join(re.escape(t.encode()) for t in sorted(types)) + rb")"
        )

    def search(self, raw: bytes) -> object | None:
        import re

        found = self._calls.search(raw)
        if found is not None:
            return found
        white = self._WHITE
        annotated: dict[bytes, bool] | bool | None = None  # per receiver; False: no context type in the file
        for attribute in self._attribute.finditer(raw):
            end = attribute.start()  # where the receiver's name ends
            while end > 0 and raw[end - 1] in white:
                end -= 1
            if raw.endswith((b"aggregator", b"Aggregator"), 0, end):
                return attribute
            for name in self._names:
                start = end - len(name)
                if start >= 0 and raw.startswith(name, start) and _word(raw, start - 1) != _word(raw, start):
                    return attribute
            if annotated is None:
                annotated = {} if self._types is not None and self._types.search(raw) else False
            if annotated is not False:
                start = end
                while start > 0 and _word(raw, start - 1):
                    start -= 1
                receiver = raw[start:end]
                if receiver and receiver not in annotated:
                    pattern = rb"(?<!\w)" + re.escape(receiver) + self._annotation
                    annotated[receiver] = re.search(pattern, raw) is not None
                if receiver and annotated[receiver]:
                    return attribute
        return None


def _word(raw: bytes, at: int) -> bool:
    """The byte at `at` is one of a word, as `\\b` of a bytes pattern counts (ASCII letters,
    digits and `_`); not before the start."""
    return at >= 0 and (raw[at : at + 1].isalnum() or raw[at] == 0x5F)


def write_tokens() -> tuple:
    """RTL005's alternative: a write of the context (direct, or an Update or Transform frame)."""
    return _words((b"set_messages", b"transform_messages", UPDATE.encode(), TRANSFORM.encode()))


def change_tokens() -> tuple:
    """RTL007's alternative: a frame that changes the context (Append, Update, Transform) named
    in the file (built and never pushed; the other context frames change nothing)."""
    return _words((APPEND.encode(), UPDATE.encode(), TRANSFORM.encode()))


def push_tokens() -> tuple:
    """RTL006's alternative: a context frame named in the file (pushed or queued, or bound to a name)."""
    return _words(tuple(sorted(f.encode() for f in CONTEXT_FRAMES)))


def spawn_tokens() -> tuple:
    """RTL006's alternative: a context frame named in the file, or a direct write (a spawned
    helper that writes the context back)."""
    return _words(tuple(sorted([*(f.encode() for f in CONTEXT_FRAMES), *(w.encode() for w in DIRECT_WRITES)])))


@dataclass(frozen=True)
class Vocabulary:
    context_names: frozenset[str]
    context_types: frozenset[str]
    live_calls: frozenset[str]
    spawners: frozenset[str]
    owner_types: tuple[str, ...]

    @classmethod
    def from_settings(cls, settings) -> Vocabulary:
        def get(name: str) -> tuple[str, ...]:
            return tuple(settings.get(f"pipecat.{name}", next(o.default for o in OPTIONS if o.name.endswith(name))))

        return cls(
            frozenset(get("context-names")),
            frozenset(get("context-types")),
            frozenset(get("live-calls")),
            frozenset(get("task-spawners")),
            get("owner-types"),
        )


def frame_of(node: ast.AST | None) -> str | None:
    """The context frame a call constructs (`LLMMessagesUpdateFrame(...)`, `frames.LLMRunFrame()`)."""
    if isinstance(node, ast.Call):
        name = final_name(node.func)
        if name in CONTEXT_FRAMES:
            return name
    return None


def frame_argument(call: ast.Call, keyword: str) -> ast.expr | None:
    """The frame's first field (`messages=` or `transform=`), by keyword or position."""
    found = next((k.value for k in call.keywords if k.arg == keyword), None)
    return found if found is not None else (call.args[0] if call.args else None)


class Module:
    """Pipecat's words on one file, on the shared analysis."""

    def __init__(self, file: FileContext) -> None:
        self.file = file
        self.vocabulary = Vocabulary.from_settings(file.settings)
        self.index: Index = index(file)
        self._calls: dict[int, list[ast.Call]] = {}
        self._reads: dict[int, bool] = {}

    def graph(self, function: Function) -> Graph:
        return graph(self.file, function.node)

    def calls(self, function: Function) -> list[ast.Call]:
        key = id(function.node)
        if key not in self._calls:
            self._calls[key] = [n for n in self.index.nodes(function.node) if isinstance(n, ast.Call)]
        return self._calls[key]

    # -- live lists and copies -------------------------------------------------------------
    def flow(self, function: Function) -> AliasFlow:
        # memoised on the file, not kept here: a flow calls back into this object, and the
        # two would make a cycle that outlives the file's analyses (FileContext.release)
        def compute() -> AliasFlow:
            outer = self.flow(function.outer) if function.outer else None
            return AliasFlow(
                self.graph(function),
                function.node,
                lists=self._lists,
                shared=lambda node, f=function: self.is_shared_context(node, f),
                copies=self._copies,
                shares=self._shares,
                outer=outer,
            )

        return self.file.memo(("pipecat.flow", id(function.node)), compute)

    def reads_messages(self, function: Function) -> bool:
        """The function, or one it is nested in, reads a context's messages (an expression
        `_lists` answers for, or a filtering `get_messages(...)`). Without one no value of the
        function is a live list or a copy (`flow` finds none): most functions, whose flow is
        not worth building."""
        key = id(function.node)
        found = self._reads.get(key)
        if found is None:
            found = any(
                self._lists(n) is not None or (isinstance(n, ast.Call) and final_name(n.func) == "get_messages")
                for n in self.index.nodes(function.node)
            ) or (function.outer is not None and self.reads_messages(function.outer))
            self._reads[key] = found
        return found

    def _lists(self, node: ast.AST) -> ast.AST | None:
        """The context whose live list `node` answers with (`node` itself for a live call)."""
        if isinstance(node, ast.Call):
            name = final_name(node.func)
            if name in self.vocabulary.live_calls:
                return node
            if name == "get_messages" and isinstance(node.func, ast.Attribute) and not node.args and not node.keywords:
                return node.func.value
        elif isinstance(node, ast.Attribute) and node.attr == "messages" and isinstance(node.ctx, ast.Load):
            return node.value
        return None

    def is_shared_context(self, node: ast.AST, function: Function) -> bool:
        """A context others write: one named by the options (`frame.context`, `self._context`,
        a parameter `context`), annotated with a context type, or a live call's answer."""
        vocabulary = self.vocabulary
        if isinstance(node, ast.Call):
            return final_name(node.func) in vocabulary.live_calls
        if isinstance(node, ast.Attribute):
            return node.attr in vocabulary.context_names
        if isinstance(node, ast.Name):
            for argument in parameters(function.node):
                if argument.arg == node.id:
                    names = list(annotation_names(argument.annotation))
                    annotated = any(n in vocabulary.context_types for n in names) or any(
                        n.endswith(t) for n in names for t in vocabulary.owner_types
                    )  # an aggregator's `.messages` is its context's list
                    return annotated or node.id in vocabulary.context_names
            return node.id in vocabulary.context_names and not self._built_here(node.id, function)
        return False

    def _built_here(self, name: str, function: Function) -> bool:
        """`name = LLMContext(...)` in the function: a context it made itself."""
        for node in self.index.nodes(function.node):
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
                if any(isinstance(t, ast.Name) and t.id == name for t in node.targets):
                    if final_name(node.value.func) in self.vocabulary.context_types:
                        return True
        return False

    def _copies(self, call: ast.Call) -> tuple[ast.AST, bool] | None:
        func, name = call.func, final_name(call.func)
        if name in EXACT_COPIES | DERIVED_COPIES and len(call.args) == 1 and not isinstance(func, ast.Attribute):
            return call.args[0], name in EXACT_COPIES
        if isinstance(func, ast.Attribute):
            if name in ("copy", "deepcopy") and func.value is not None and not call.args:
                return func.value, True
            if name in ("copy", "deepcopy") and len(call.args) == 1:  # copy.copy(x), copy.deepcopy(x)
                return call.args[0], True
            if name == "get_messages" and (call.args or call.keywords):  # a filter, truncated values
                context = call.args[0] if call.args and not _literal(call.args[0]) else func.value
                return context, False
        return None

    def _shares(self, call: ast.Call) -> ast.AST | None:
        """`LLMContext(messages=alias)`: the new context's list is `alias`."""
        if final_name(call.func) in self.vocabulary.context_types:
            return frame_argument(call, "messages")
        return None

    # -- who the code is -------------------------------------------------------------------
    def is_owner(self, function: Function) -> bool:
        """A method of a class that owns the context (an aggregator subclass)."""
        cls = function.cls
        if cls is None:
            return False
        names = [final_name(b) or "" for b in cls.node.bases] + [b.node.name for b in self.index.bases(cls)]
        return any(n.endswith(t) for n in names for t in self.vocabulary.owner_types)

    def is_spawner(self, node: ast.AST) -> bool:
        return isinstance(node, ast.Call) and final_name(node.func) in self.vocabulary.spawners

    def pushed_frame(self, call: ast.AST) -> ast.Call | None:
        """The context frame a `push_frame`/`queue_frame(s)` call hands on (the frame's
        constructor, written in the call or in a list of `queue_frames`)."""
        if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr in PUSHES):
            return None
        if not call.args:
            return None
        first = call.args[0]
        candidates = first.elts if isinstance(first, (ast.List, ast.Tuple)) else [first]
        return next((c for c in candidates if frame_of(c)), None)

    def frame_import(self, name: str) -> tuple[str, ast.stmt] | None:
        """How a fix names the frame `name`: (the name to write, the module-level
        `from pipecat.frames.frames import ...` to add it after, or None when bound)."""
        for stmt in self.file.tree.body:
            if isinstance(stmt, ast.ImportFrom) and stmt.module == FRAMES_MODULE:
                for alias in stmt.names:
                    if (alias.asname or alias.name) == name:
                        return name, None
        for stmt in self.file.tree.body:
            if isinstance(stmt, ast.ImportFrom) and stmt.module == FRAMES_MODULE:
                return name, stmt
        return None


def _literal(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant)


def analyse(file: FileContext) -> Module:
    return file.memo("rules._frameworks.pipecat", lambda: Module(file))


__all__ = [
    "APPEND",
    "CONTEXT_EDITS",
    "CONTEXT_FRAMES",
    "DIRECT_WRITES",
    "LIST_EDITS",
    "NAME",
    "OPTIONS",
    "PUSHES",
    "TRANSFORM",
    "UPDATE",
    "Module",
    "Vocabulary",
    "analyse",
    "change_tokens",
    "frame_argument",
    "frame_of",
    "owns",
    "push_tokens",
    "spawn_tokens",
    "tokens",
    "write_tokens",
]
