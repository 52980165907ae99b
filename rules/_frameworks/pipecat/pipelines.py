"""Where a processor sits in a Pipecat pipeline, read only where the file shows it beyond doubt
(RTL009): a `Pipeline([...])` (or `processors=[...]`) handed to a `PipelineTask`/`PipelineWorker`
(the root pipeline, whose source and sink drop what reaches them, pipecat-ai 1.14.0
`PipelineWorker._source_push_frame` and `_sink_push_frame`), its list written out in the same
function, and each element read as:

- an aggregator: `<pair>.user()`/`.assistant()` of a name bound to `LLMContextAggregatorPair(...)`
  or `create_context_aggregator(...)`, one of the names unpacked from those, an
  `LLMUserAggregator(...)`/`LLMAssistantAggregator(...)` (a class named `...User...Aggregator`),
  or a name bound to any of these;
- transparent (it forwards a context frame it does not handle, as every `FrameProcessor` does):
  a transport's `.input()`/`.output()`, a constructor of a class whose name says nothing of an
  LLM, an aggregator, a pipeline, a switch, a gate or a bridge, or an instance of a class of
  the file that tests no frame for a context frame's type;
- opaque otherwise (a parameter, an attribute, a nested or parallel pipeline, an LLM service,
  a starred list, a conditional): it may apply or relay the frame, and nothing is said past it.

`placements(module, cls)` gives every place an instance of `cls` is put, or None when one of
its constructions is not placed in such a list (used elsewhere, it may sit anywhere).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from ..._analysis.index import ClassInfo, Function, final_name, parameters
from . import APPEND, TRANSFORM, UPDATE

USER, ASSISTANT, TRANSPARENT, OPAQUE = "user", "assistant", "transparent", "opaque"
ROOTS = frozenset({"PipelineTask", "PipelineWorker"})
PAIRS = frozenset({"LLMContextAggregatorPair", "create_context_aggregator"})
# the frames the aggregators apply in either direction and do not pass on (llm_response_universal.py),
# and the one they pass on to the LLM (which reads it from either direction)
MISROUTABLE = frozenset({APPEND, UPDATE, TRANSFORM, "LLMRunFrame", "LLMContextFrame"})
# words in a class name that say it may apply, hold or relay a context frame
_OPAQUE_WORDS = ("LLM", "Aggregator", "Pipeline", "Switch", "Realtime", "Live", "Gate", "Bridge", "Flow", "Context")
_OPAQUE_WORDS += ("Memory", "Multimodal", "Ultravox", "Agent", "Router")  # services that may read or hold the context


@dataclass(frozen=True)
class Placement:
    """An instance of a class at `position` of a root pipeline's list `kinds` (one kind an
    element), built by `construction`, in the `Pipeline(...)` call `pipeline`."""

    pipeline: ast.Call
    kinds: tuple[str, ...]
    position: int
    construction: ast.Call

    def drops(self, upstream: bool) -> bool:
        """A frame pushed this way from here passes no aggregator and nothing that may take it,
        to the pipeline's end: upstream from before a user aggregator, downstream from after an
        assistant aggregator."""
        before, after = self.kinds[: self.position], self.kinds[self.position + 1 :]
        if upstream:
            return USER in after and all(k == TRANSPARENT for k in before)
        return ASSISTANT in before and all(k == TRANSPARENT for k in after)


class _Scope:
    """The names of one function (or the module) bound exactly once, by a plain assignment."""

    def __init__(self, module, function: Function | None) -> None:
        self.module = module
        self.node = function.node if function else module.file.tree
        nodes = module.index.nodes(self.node) if function else module.index.owned[id(self.node)]
        self.nodes = nodes
        stores: dict[str, list[ast.Name]] = {}
        for node in nodes:
            if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
                stores.setdefault(node.id, []).append(node)
        self.parameters = {a.arg for a in parameters(function.node)} if function else set()
        self.bound: dict[str, tuple[ast.Assign, int | None]] = {}  # name -> (assignment, unpacked index)
        for stmt in nodes:
            if not isinstance(stmt, ast.Assign) or len(stmt.targets) != 1:
                continue
            target = stmt.targets[0]
            names = [target] if isinstance(target, ast.Name) else getattr(target, "elts", [])
            for i, name in enumerate(names):
                if isinstance(name, ast.Name) and len(stores.get(name.id, ())) == 1:
                    self.bound[name.id] = (stmt, None if name is target else i)
        self.loads: dict[str, int] = {}
        for node in nodes:
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
                self.loads[node.id] = self.loads.get(node.id, 0) + 1

    def value(self, name: str) -> tuple[ast.expr, int | None] | None:
        """What a name bound once here is bound to (and which unpacked item it is)."""
        if name in self.parameters or name not in self.bound:
            return None
        stmt, item = self.bound[name]
        return stmt.value, item


def _scopes(module, node: ast.AST) -> list[_Scope]:
    """The scope of the function holding `node`, then the module's (a name the function does not
    bind, read from the module)."""
    function = module.index.function_of_node(node)
    memo = module.file.memo
    top = memo(("rules._frameworks.pipecat.pipelines.scope", None), lambda: _Scope(module, None))
    if function is None:
        return [top]
    key = ("rules._frameworks.pipecat.pipelines.scope", id(function.node))
    return [memo(key, lambda: _Scope(module, function)), top]


def _resolve(scopes: list[_Scope], name: str) -> tuple[ast.expr, int | None] | None:
    for scope in scopes:
        if name in scope.parameters:
            return None
        found = scope.value(name)
        if found is not None:
            return found
        if any(isinstance(n, ast.Name) and n.id == name and not isinstance(n.ctx, ast.Load) for n in scope.nodes):
            return None  # bound here otherwise (a loop, a with, several times)
    return None


def root_pipelines(module) -> list[tuple[ast.Call, list[ast.expr]]]:
    """Every `Pipeline([...])` handed to a `PipelineTask`/`PipelineWorker` (not bridged), with
    its list's elements."""
    found = []
    for node in ast.walk(module.file.tree):
        if not (isinstance(node, ast.Call) and final_name(node.func) == "Pipeline"):
            continue
        given = [*node.args, *(k.value for k in node.keywords if k.arg == "processors")]
        if len(given) != 1 or any(k.arg != "processors" for k in node.keywords):
            continue  # a source or a sink of one's own
        scopes = _scopes(module, node)
        elements = _elements(scopes, given[0])
        if elements is not None and _is_root(module, scopes, node):
            found.append((node, elements))
    return found


def _elements(scopes: list[_Scope], argument: ast.expr) -> list[ast.expr] | None:
    if isinstance(argument, ast.Name):
        scope = scopes[0]
        resolved = _resolve(scopes[:1], argument.id)
        if resolved is None or resolved[1] is not None or scope.loads.get(argument.id) != 1:
            return None  # a list used elsewhere may be changed before the pipeline is built
        argument = resolved[0]
    return list(argument.elts) if isinstance(argument, ast.List) else None


def _is_root(module, scopes: list[_Scope], pipeline: ast.Call) -> bool:
    parent = module.index.parents.get(id(pipeline))
    if isinstance(parent, ast.keyword):
        parent = module.index.parents.get(id(parent)) if parent.arg == "pipeline" else None
    if isinstance(parent, ast.Call) and _worker(parent) is pipeline:
        return True
    if isinstance(parent, ast.Assign) and len(parent.targets) == 1 and isinstance(parent.targets[0], ast.Name):
        name = parent.targets[0].id
        if _resolve(scopes[:1], name) is None:
            return False
        return any(
            isinstance(n, ast.Call) and isinstance(_worker(n), ast.Name) and _worker(n).id == name
            for n in scopes[0].nodes
        )
    return False


def _worker(call: ast.Call) -> ast.expr | None:
    """The pipeline a `PipelineTask(...)`/`PipelineWorker(...)` runs, when it is not bridged
    (a bridged worker tees what leaves its pipeline onto a bus, to other workers)."""
    if final_name(call.func) not in ROOTS or any(k.arg == "bridged" for k in call.keywords):
        return None
    given = next((k.value for k in call.keywords if k.arg == "pipeline"), None)
    return given if given is not None else (call.args[0] if call.args else None)


def kind(module, scopes: list[_Scope], element: ast.expr) -> str:
    """An element of a pipeline's list: USER, ASSISTANT, TRANSPARENT or OPAQUE."""
    item = None
    if isinstance(element, ast.Name):
        resolved = _resolve(scopes, element.id)
        if resolved is None:
            return OPAQUE
        element, item = resolved
    if not isinstance(element, ast.Call):
        return OPAQUE
    func = final_name(element.func)
    if item is not None:  # `user, assistant = LLMContextAggregatorPair(...)`
        return (USER, ASSISTANT)[item] if func in PAIRS and item < 2 else OPAQUE
    if isinstance(element.func, ast.Attribute) and not element.args and not element.keywords:
        if func in ("input", "output"):
            return TRANSPARENT  # a transport's ends forward what they do not send or receive
        if func in ("user", "assistant") and _is_pair(scopes, element.func.value):
            return USER if func == "user" else ASSISTANT
        return OPAQUE
    if isinstance(element.func, ast.Name) and func:
        if func.endswith("Aggregator") and ("User" in func or "Assistant" in func):
            return USER if "User" in func else ASSISTANT
        cls = next((c for c in module.index.classes if c.node.name == func), None)
        if cls is not None:
            return OPAQUE if _may_take(module, cls) else TRANSPARENT
        if func[:1].isupper() and not any(w in func for w in _OPAQUE_WORDS):
            return TRANSPARENT
    return OPAQUE


def _is_pair(scopes: list[_Scope], receiver: ast.expr) -> bool:
    if isinstance(receiver, ast.Call):
        return final_name(receiver.func) in PAIRS
    if isinstance(receiver, ast.Name):
        resolved = _resolve(scopes, receiver.id)
        return resolved is not None and resolved[1] is None and _is_pair(scopes, resolved[0])
    return False


def _may_take(module, cls: ClassInfo) -> bool:
    """A class of the file that may apply or relay a context frame: it tests a frame for one of
    their types, or its name (or a base's) says it is an LLM, an aggregator, a pipeline..."""
    names = [cls.node.name, *(final_name(b) or "" for b in cls.node.bases)]
    if any(w in n for n in names for w in _OPAQUE_WORDS):
        return True
    for node in module.index.class_nodes.get(id(cls.node), ()):
        if isinstance(node, ast.Call) and final_name(node.func) == "isinstance" and len(node.args) == 2:
            if any(final_name(t) in MISROUTABLE for t in ast.walk(node.args[1])):
                return True
    return False


def placements(module, cls: ClassInfo) -> list[Placement] | None:
    """Every place an instance of `cls` is put in a root pipeline; None when an instance is
    built that no such list holds, or nothing is placed."""
    found: list[Placement] = []
    for pipeline, elements in _roots(module):
        scopes = _scopes(module, pipeline)
        kinds = tuple(kind(module, scopes, e) for e in elements)
        for position, element in enumerate(elements):
            construction = _construction(scopes, element, cls)
            if construction is not None:
                found.append(Placement(pipeline, kinds, position, construction))
    built = [
        n
        for n in ast.walk(module.file.tree)
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == cls.node.name
    ]
    placed = {id(p.construction) for p in found}
    if not found or any(id(b) not in placed for b in built):
        return None
    return found


def _roots(module) -> list[tuple[ast.Call, list[ast.expr]]]:
    return module.file.memo("rules._frameworks.pipecat.pipelines.roots", lambda: root_pipelines(module))


def _construction(scopes: list[_Scope], element: ast.expr, cls: ClassInfo) -> ast.Call | None:
    if isinstance(element, ast.Name):
        resolved = _resolve(scopes, element.id)
        if resolved is None or resolved[1] is not None:
            return None
        element = resolved[0]
    if isinstance(element, ast.Call) and isinstance(element.func, ast.Name) and element.func.id == cls.node.name:
        return element
    return None


__all__ = ["ASSISTANT", "MISROUTABLE", "OPAQUE", "TRANSPARENT", "USER", "Placement", "placements"]
