"""A spawned helper that writes a Pipecat context back from a copy taken before the spawn
(design.md, RTL006 on Pipecat): `snapshot = list(ctx.get_messages())`, then
`asyncio.create_task(self._save(snapshot))` where `_save` (defined in the file) ends with
`context.set_messages(messages)`. When the task runs, whatever the aggregators committed since
the copy (the user's turn, a tool call, a reply) is replaced by the copy.

The helper must be defined in the file (an async method of the class or of a base in the file
called on `self`, or an async function nested in the spawning function or at module level,
undecorated) and must write back, outside any nested function, a value that provably comes
from the copy: a parameter whose argument at the spawn carries a copy, or anything the helper
computes from it (its flow: `_parameter_flow`), or a nested helper's copy of the enclosing
function, taken before the spawn. A write is `<shared context>.set_messages(value)`,
`transform_messages(lambda _: value)` (ignoring its argument) or the push of an
`LLMMessagesUpdateFrame(messages=value)` or of a Transform frame ignoring its argument. A
write RTL005 already reports in the helper (a closure's copy written after an await, or in a
frame) is left to it.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from rtlint.core.astnodes import walk

from ..._analysis.index import Function, FunctionNode, parameters
from ..._analysis.values import Copy, FlowRules, ValueFlow, local_names
from . import DIRECT_WRITES, PUSHES, TRANSFORM, UPDATE, Module, frame_argument, frame_of
from .writes import ignored_argument, stale_writes


@dataclass
class SpawnedWrite:
    helper: Function
    write: ast.Call  # the helper's write (or the Update frame's constructor)
    name: str  # the helper's name for the copy
    copy: Copy  # the caller's copy it writes back
    fix_refused: str | None  # why awaiting the helper in place would not end the race, else None


def spawned_write(module: Module, function: Function, spawn: ast.Call, coroutine: ast.AST) -> SpawnedWrite | None:
    """The write-back of the copy a spawned helper call (`coroutine`) makes, else None."""
    if not (isinstance(coroutine, ast.Call) and not any(isinstance(a, ast.Starred) for a in coroutine.args)):
        return None
    resolved = _helper(module, function, coroutine.func)
    if resolved is None:
        return None
    helper, bound = resolved
    flow = module.flow(function)
    carried = _parameter_flow(module, helper)
    first = parameters(helper.node)[0].arg if bound and parameters(helper.node) else None
    for write, written, receiver in _writes(module, helper):
        copies: list[Copy] = []
        name = ""
        for parameter in sorted(carried.origins(written) - {first}):  # a parameter, or computed from one
            argument = _argument(coroutine, helper.node, bound, parameter)
            copies = flow.copies_in(argument) if argument is not None else []
            if copies:
                name = parameter
                break
        if not copies and helper.outer is function:  # the enclosing function's copy, read by the closure
            inner = module.flow(helper)
            outer = [c for c in inner.copies_in(written) if id(c.node) in flow.copy_of]
            if outer and _before(module, function, spawn, outer[0]):
                copies, name = outer, _copy_name(written, inner, outer[0])
        if not copies or not _shared(module, function, helper, coroutine, bound, receiver):
            continue
        if any(s.call is write for s in stale_writes(module, helper)):
            continue  # RTL005's: the helper's own await separates the copy from the write
        refused = _refused(module, function, helper, spawn, write, receiver, copies[0])
        return SpawnedWrite(helper, write, name, copies[0], refused)
    return None


def _helper(module: Module, function: Function, callee: ast.expr) -> tuple[Function, bool] | None:
    """The async function of the file a call runs, and whether `self` is bound to its first
    parameter (a method called on `self`)."""
    index = module.index
    found: ast.AST | None = None
    bound = False
    if isinstance(callee, ast.Attribute) and isinstance(callee.value, ast.Name):
        if function.cls is None or callee.value.id != function.self_name:
            return None
        for cls in (function.cls, *index.bases(function.cls)):
            if callee.attr in cls.methods:
                found, bound = cls.methods[callee.attr], True
                break
    elif isinstance(callee, ast.Name):
        scope: Function | None = function
        while scope is not None and found is None:
            defined = [n for n in index.nodes(scope.node) if isinstance(n, FunctionNode) and n.name == callee.id]
            if defined:
                found = defined[0] if len(defined) == 1 else None
                break
            scope = scope.outer
        else:
            defined = [n for n in module.file.tree.body if isinstance(n, FunctionNode) and n.name == callee.id]
            found = defined[0] if len(defined) == 1 else None
    if not isinstance(found, ast.AsyncFunctionDef) or found.decorator_list:
        return None
    helper = index.function_of.get(id(found))
    return (helper, bound) if helper is not None else None


def _parameter_flow(module: Module, helper: Function) -> ValueFlow:
    """Which of the helper's parameters a value carries: the parameter itself, or anything
    computed from it (a slice, a list of its items, a summary or inference of it, awaited)."""

    def carries(call: ast.Call, origins) -> frozenset:
        parts = [*call.args, *(k.value for k in call.keywords)]
        if isinstance(call.func, ast.Attribute):
            parts.append(call.func.value)
        found: set = set()
        for part in parts:
            found |= origins(part)
        return frozenset(found)

    return module.file.memo(
        ("rules._frameworks.pipecat.helpers", id(helper.node)),
        lambda: ValueFlow(
            module.graph(helper),
            helper.node,
            lambda node: frozenset({node.arg}) if isinstance(node, ast.arg) else frozenset(),
            FlowRules(carries=carries),
        ),
    )


def _before(module: Module, function: Function, spawn: ast.Call, copy: Copy) -> bool:
    """The closure's copy is made before the spawn (on some path)."""
    g = module.graph(function)
    return id(copy.node) in g.point_of and g.precedes(copy.node, spawn)


def _copy_name(written: ast.expr, inner, copy: Copy) -> str:
    """The name the helper reads the copy by (the first name in the written value carrying it)."""
    for node in walk(written):
        if isinstance(node, ast.Name) and any(c is copy for c in inner.copies_in(node)):
            return node.id
    return ast.unparse(written) if len(ast.unparse(written)) < 40 else "the copy"


def _writes(module: Module, helper: Function):
    """(the write, the value it writes back, the context it writes or None for a frame) of the
    helper's writes: `set_messages(v)`, `transform_messages(lambda _: v)`, and the pushes of an
    `LLMMessagesUpdateFrame(messages=v)` or of a Transform frame that ignores its argument."""
    pushed = _pushed_frames(module, helper)
    for call in module.calls(helper):
        func = call.func
        if isinstance(func, ast.Attribute) and func.attr in DIRECT_WRITES and call.args:
            written = call.args[0] if func.attr == "set_messages" else ignored_argument(call.args[0])
            if written is not None:
                yield call, written, func.value
        elif frame_of(call) in (UPDATE, TRANSFORM) and id(call) in pushed:
            if frame_of(call) == UPDATE:
                written = frame_argument(call, "messages")
            else:
                written = ignored_argument(frame_argument(call, "transform"))
            if written is not None:
                yield call, written, None


def _pushed_frames(module: Module, helper: Function) -> set[int]:
    """The frames the helper pushes or queues, written in the call or bound once to a name."""
    calls = module.calls(helper)
    found: set[int] = set()
    for call in calls:
        if not (isinstance(call.func, ast.Attribute) and call.func.attr in PUSHES and call.args):
            continue
        frame = module.pushed_frame(call)
        if frame is None and isinstance(call.args[0], ast.Name):
            values = [
                n.value
                for n in module.index.nodes(helper.node)
                if isinstance(n, ast.Assign)
                and any(isinstance(t, ast.Name) and t.id == call.args[0].id for t in n.targets)
            ]
            frame = values[0] if len(values) == 1 and frame_of(values[0]) else None
        if frame is not None:
            found.add(id(frame))
    return found


def _argument(call: ast.Call, helper: ast.AST, bound: bool, name: str) -> ast.expr | None:
    """The argument of `call` that the helper's parameter `name` receives."""
    positional = [*helper.args.posonlyargs, *helper.args.args][1 if bound else 0 :]
    for i, argument in enumerate(positional):
        if argument.arg == name and i < len(call.args):
            return call.args[i]
    return next((k.value for k in call.keywords if k.arg == name), None)


def _shared(module: Module, function: Function, helper: Function, call: ast.Call, bound: bool, receiver) -> bool:
    """The context a direct write writes is one others write: in the helper's words, or the
    caller's argument (a parameter) or binding (a free variable) for it."""
    if receiver is None:
        return True  # a frame: it reaches the pipeline's context
    if module.is_shared_context(receiver, helper):
        return True
    if isinstance(receiver, ast.Name):
        if receiver.id in {a.arg for a in parameters(helper.node)}:
            argument = _argument(call, helper.node, bound, receiver.id)
            flow = module.flow(function)
            return argument is not None and (module.is_shared_context(argument, function) or flow.live(argument))
        if receiver.id not in local_names(helper.node) and helper.outer is function:
            return module.is_shared_context(receiver, function)
    return False


def _refused(module, function, helper, spawn, write, receiver, copy: Copy) -> str | None:
    """Why `await <helper>` in place would still write back a stale copy, else None."""
    if receiver is None:
        return (
            f"the helper pushes {frame_of(write)} of the copy, applied after every frame queued ahead of it "
            f"however it is awaited; push an LLMMessagesTransformFrame that computes from its argument"
        )
    g = module.graph(helper)
    awaits = g.awaits_between(None, g.locate(write), write)
    if awaits:
        return (
            f"the helper awaits (line {awaits[0].node.lineno}) before it writes the copy back, and what is committed "
            f"meanwhile is lost however it is awaited; take the copy in the helper after its last await"
        )
    caller = module.graph(function)
    reads = [r for r in copy.reads if id(r) in caller.point_of]
    if not reads:
        return "the copy is taken outside this function; take it in the helper"
    for read in reads:
        awaits = caller.awaits_between(caller.locate(read), caller.locate(spawn), spawn)
        if awaits:
            return (
                f"the await at line {awaits[0].node.lineno} runs between the copy and the spawn, and what is "
                f"committed meanwhile is lost however the helper is awaited; take the copy after it"
            )
    return None


__all__ = ["SpawnedWrite", "spawned_write"]
