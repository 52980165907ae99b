"""RTL008 live-context-edit (Pipecat: `get_messages()` answers with the live list)."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from rtlint.core.astnodes import walk
from rtlint.core.findings import Finding
from rtlint.core.rule import Invalid, Rule

from . import _appfix as fx
from ._analysis.index import Function, final_name, snippet
from ._analysis.values import LIVE, AliasFlow
from ._frameworks import framework_of, pipecat
from ._frameworks.pipecat import CONTEXT_EDITS, DIRECT_WRITES, LIST_EDITS, frame_of

# calls that only read a list they are given: not a use of it as a copy of one's own
_READERS = frozenset(
    {"len", "enumerate", "reversed", "sorted", "list", "tuple", "any", "all", "sum", "min", "max", "zip", "iter"}
    | {"next", "isinstance", "bool", "id", "str", "repr", "print"}
)


class LiveContextEdit(Rule):
    """
    ## What it does
    On Pipecat, finds an in-place edit (`pop`, `remove`, `clear`, `reverse`, `sort`,
    `insert`, `append`, `extend`, `del x[...]`, `x[...] = ...`, `x += ...`) of a context's
    live list through an alias (`messages = context.get_messages()`, `.messages`, flows'
    `get_current_context()`), or an `add_message(s)` on a context built on such an alias
    (`LLMContext(messages=messages)`), where the code uses the list as its own copy: after the
    edit it hands it to a call (a file or payload, a side inference, a log) or returns it, and
    never writes it back (`set_messages`, an Update frame).

    ## Why is this bad?
    `get_messages()` does not copy: it answers with the context's own list, the one the
    aggregators and the LLM read. A function that "saves the conversation without the last
    request" by popping the request from what it takes for its copy deletes the user's
    request from the live conversation; a side inference that appends its question to a
    context built on the alias adds it to the user's. The next completion runs without the
    message, or with one nobody said.

    ## Example
    ```python
    async def save_conversation(params):
        messages = params.context.get_messages()
        messages.pop()  # the request to save is not part of the conversation
        json.dump(messages, open(path, "w"))
    ```

    Use instead:
    ```python
    async def save_conversation(params):
        messages = list(params.context.get_messages())
        messages.pop()
        json.dump(messages, open(path, "w"))
    ```

    ## Fix
    Take the copy where the alias is bound: `messages = list(context.get_messages())`.

    ## Fix safety
    Safe: the function no longer changes the live conversation, and sees the same items it
    did at the binding. No fix when the alias is not bound once, directly from the live
    list, in the function (a parameter, an attribute, several bindings); the message says so.

    Not a finding: an edit followed by a write-back of the same alias (the intended live
    edit, `set_messages(messages)`); an edit with no later use as a copy (appending to the
    live list on purpose, as Pipecat's examples do before an `LLMRunFrame`); an edit of a copy
    (`list(...)`, `.copy()`, a slice, a comprehension); an edit in a class that owns the
    context (an aggregator subclass, option `owner-types`). LiveKit's contexts are not lists
    shared this way, so the rule is Pipecat's only.
    """

    code = "RTL008"
    name = "live-context-edit"
    summary = "the context's live message list is edited in place through an alias used as a private copy"
    fix_availability = "sometimes"
    options = pipecat.OPTIONS

    VALID = [
        """
from pipecat.frames.frames import LLMRunFrame

async def on_connected(task, context):
    messages = context.get_messages()
    messages.append({"role": "system", "content": "Say hello."})
    await task.queue_frames([LLMRunFrame()])
""",
    ]
    INVALID = [
        Invalid(
            """
import json
from pipecat.services.llm_service import FunctionCallParams

async def save(params: FunctionCallParams):
    messages = params.context.get_messages()
    messages.pop()
    json.dump(messages, open("out.json", "w"))
""",
            lines=(7,),
            expected_fix="""
import json
from pipecat.services.llm_service import FunctionCallParams

async def save(params: FunctionCallParams):
    messages = list(params.context.get_messages())
    messages.pop()
    json.dump(messages, open("out.json", "w"))
""",
        )
    ]

    def required_tokens(self) -> list[tuple]:
        return [(pipecat.tokens(self.settings),)]

    def check(self, file) -> Iterator[Finding]:
        if framework_of(file) is not pipecat:
            return
        module = pipecat.analyse(file)
        for function in module.index.functions:
            if module.is_owner(function) or not _may_edit(module, function):
                continue
            flow = module.flow(function)
            for edit, alias in _edits(module, function, flow):
                use = _private_use(module, function, flow, edit, alias)
                if use is None or _written_back(module, function, alias):
                    continue
                yield self._finding(module, function, flow, edit, alias, use)

    def _finding(self, module, function, flow, edit, alias: str, use: ast.AST) -> Finding:
        file = module.file
        binding = _binding(module, function, flow, alias)
        bound = f"`{fx.same_code_text(file.segment(binding))}`" if binding is not None else "the live list"
        if isinstance(edit, ast.Call) and getattr(edit.func, "attr", None) in CONTEXT_EDITS:
            bound = f"a context built on {bound}"
        message = (
            f"`{snippet(file, edit, 50)}` edits the context's live list in place (`{alias}` is {bound}, not a "
            f"copy), then uses it as its own copy (`{snippet(file, use, 50)}` at line {use.lineno}) and never "
            f"writes it back: the live conversation changes for the aggregators and the next completion"
        )
        plan = _plan(module, binding)
        return self.report(file, edit, message, plan=plan, symbol=function.qualname)


def _edits(module, function: Function, flow: AliasFlow) -> Iterator[tuple[ast.AST, str]]:
    """(edit, the alias's name) of every in-place edit of a live list through a local name."""
    for node in module.index.nodes(function.node):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            target, method = node.func.value, node.func.attr
            if isinstance(target, ast.Name) and method in LIST_EDITS | CONTEXT_EDITS and flow.live(target):
                if (method in CONTEXT_EDITS) == _is_context(flow, target):
                    yield node, target.id
        elif isinstance(node, (ast.Assign, ast.AugAssign, ast.Delete)):
            targets = node.targets if isinstance(node, (ast.Assign, ast.Delete)) else [node.target]
            for target in targets:
                name = target.value if isinstance(target, ast.Subscript) else target
                in_place = isinstance(target, ast.Subscript) or isinstance(node, ast.AugAssign)
                if in_place and isinstance(name, ast.Name) and flow.live(name) and not _is_context(flow, name):
                    yield node, name.id


def _may_edit(module, function: Function) -> bool:
    """An edit method called on a name, or a name's item assigned or deleted, or `name +=`: the
    cheap test before the value flow."""
    edits = False
    for node in module.index.nodes(function.node):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            if node.func.attr in LIST_EDITS | CONTEXT_EDITS and isinstance(node.func.value, ast.Name):
                edits = True
                break
        elif isinstance(node, (ast.Delete, ast.AugAssign)) or (
            isinstance(node, ast.Assign) and any(isinstance(t, ast.Subscript) for t in node.targets)
        ):
            edits = True
            break
    if not edits:
        return False
    scope: Function | None = function  # and a live read in it or a function it is nested in
    while scope is not None:
        if any(module._lists(n) is not None for n in module.index.nodes(scope.node)):
            return True
        scope = scope.outer
    return False


def _is_context(flow: AliasFlow, name: ast.Name) -> bool:
    """The name holds a context built on a live list (`LLMContext(messages=alias)`), not the list."""
    return any(
        isinstance(d.value, ast.Call) and flow._shares(d.value) is not None for d in flow.reaching(name.id, name)
    )


def _private_use(module, function: Function, flow: AliasFlow, edit: ast.AST, alias: str) -> ast.AST | None:
    """A use of the alias, before or after the edit, as a value of one's own: inside an argument of
    a call that is neither a write-back nor a plain read (a context built on it included: a side
    inference), inside a returned or yielded value, or iterated by a `for` after the edit."""
    g, parents = module.graph(function), module.index.parents
    for node in module.index.nodes(function.node):
        if not (isinstance(node, ast.Name) and node.id == alias and isinstance(node.ctx, ast.Load)):
            continue
        if any(n is node for n in walk(edit)):
            continue
        child, parent = node, parents.get(id(node))
        while isinstance(parent, _CARRIERS) and not (isinstance(parent, ast.Attribute) and parent.value is child):
            child, parent = parent, parents.get(id(parent))
        if isinstance(parent, ast.Call) and parent.func is not child and _sink(module, parent):
            return parent
        if isinstance(parent, (ast.Return, ast.Yield)) and parent.value is child:
            return node
        if isinstance(parent, (ast.For, ast.AsyncFor)) and parent.iter is child and id(node) in g.point_of:
            if g.precedes(edit, node):
                return node
    return None


# expressions a use of the alias travels up through to what receives it
_CARRIERS = (
    ast.keyword,
    ast.Subscript,
    ast.Slice,
    ast.Dict,
    ast.List,
    ast.Tuple,
    ast.Starred,
    ast.JoinedStr,
    ast.FormattedValue,
    ast.comprehension,
    ast.ListComp,
    ast.GeneratorExp,
    ast.SetComp,
    ast.DictComp,
    ast.Await,
)


def _sink(module, call: ast.Call) -> bool:
    name = final_name(call.func)
    if name in _READERS or name in DIRECT_WRITES or frame_of(call):
        return False
    return not (isinstance(call.func, ast.Attribute) and name in LIST_EDITS | CONTEXT_EDITS)


def _written_back(module, function: Function, alias: str) -> bool:
    """A write-back of the alias in the function: `set_messages(alias)`, a frame of it."""
    for call in module.calls(function):
        name = final_name(call.func)
        if name in DIRECT_WRITES or frame_of(call):
            arguments = [*call.args, *(k.value for k in call.keywords)]
            if any(isinstance(a, ast.Name) and a.id == alias for a in arguments):
                return True
    return False


def _binding(module, function: Function, flow: AliasFlow, alias: str) -> ast.AST | None:
    """The live list's expression where the alias (or the list a context shares) is bound, once."""
    definitions = [d for d in flow.by_name.get(alias, []) if d.kills]
    if len(definitions) != 1 or definitions[0].value is None:
        return None
    keys = [k for k in definitions[0].origins if k[0] == LIVE]
    nodes = [flow.live_nodes.get(k[1]) for k in keys]
    return nodes[0] if len(nodes) == 1 and nodes[0] is not None else None


def _plan(module, binding: ast.AST | None) -> fx.Plan:
    if binding is None:
        return fx.no_fix("the alias is not bound once, in this function, to the live list")
    statement = module.index.statement_of(binding)
    if not isinstance(statement, ast.Assign):
        return fx.no_fix("the live list is not read in an assignment; copy it with list(...) where it is read")
    file = module.file
    path, text = file.path_of(statement), f"list({file.segment(binding)})"

    def apply(editor) -> None:
        editor.replace_segments(editor.locate(path), [(binding, text)])

    return fx.Plan("safe", "", [apply])
