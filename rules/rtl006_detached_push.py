"""RTL006 detached-push."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from rtlint.core.findings import Finding
from rtlint.core.rule import Invalid, Rule

from . import _appfix as fx
from ._analysis.cfg import is_await
from ._analysis.index import Function, snippet
from ._analysis.values import ValueFlow
from ._frameworks import framework_of, pipecat
from ._frameworks.livekit import APPLICATION_OPTIONS, Module, analyse, push_tokens
from ._frameworks.livekit.vocabulary import setting


class DetachedPush(Rule):
    """
    ## What it does
    Finds a push coroutine (`update_chat_ctx(...)`, on an agent, a task or a session) handed
    to a task spawner (`asyncio.create_task`, `asyncio.ensure_future`, `loop.create_task`,
    `TaskGroup.create_task`) instead of being awaited, directly or through a name it was
    bound to (`push = agent.update_chat_ctx(ctx)` ... `create_task(push)`).

    On Pipecat (a file that imports from `pipecat`): a spawner (`asyncio.create_task`,
    `ensure_future`, `loop.create_task`, Pipecat's own `self.create_task` and
    `task_manager.create_task`) around a `push_frame`/`queue_frame`/`queue_frames` of a context
    frame (`LLMMessagesAppendFrame`, `LLMMessagesUpdateFrame`, `LLMMessagesTransformFrame`,
    `LLMContextFrame`, `LLMRunFrame`), written in the call or bound once to a name.

    ## Why is this bad?
    The push starts later and runs concurrently with what follows. A `generate_reply()`
    issued right after it runs on the context as it was before the push, so the reply
    never sees the message the push was meant to add; two detached pushes are
    last-writer-wins, so one of them is lost; and an exception of the push surfaces in a
    task nobody awaits, never in the `try` around the spawn.

    On Pipecat the detached push reaches the next processor's queue only when the task
    runs: an `LLMRunFrame` pushed right after it gets there first, and the completion runs
    on the context without the Append (at the start of a call, the greeting is generated
    without the caller's profile).

    ## Example
    ```python
    async def remember(self, fact):
        ctx = self.chat_ctx.copy()
        ctx.add_message(role="assistant", content=fact)
        asyncio.create_task(self.update_chat_ctx(ctx))
        self.session.generate_reply()
    ```

    Use instead:
    ```python
    async def remember(self, fact):
        ctx = self.chat_ctx.copy()
        ctx.add_message(role="assistant", content=fact)
        await self.update_chat_ctx(ctx)
        self.session.generate_reply()
    ```

    In a synchronous function (an event handler), spawn an async helper that takes its
    copy when it runs and awaits its own push:
    ```python
    def on_transcript(ev):
        asyncio.create_task(self._pin_language(ev.language))

    async def _pin_language(self, language):
        ctx = self.chat_ctx.copy()
        ctx.add_message(role="system", content=f"Answer in {language}.")
        await self.update_chat_ctx(ctx)
    ```

    On Pipecat:
    ```python
    asyncio.create_task(self.push_frame(LLMMessagesAppendFrame(messages=[profile])))
    await self.push_frame(LLMRunFrame())
    ```

    Use instead:
    ```python
    await self.push_frame(LLMMessagesAppendFrame(messages=[profile]))
    await self.push_frame(LLMRunFrame())
    ```

    ## Fix
    In an async function, the spawn statement becomes `await <the push>` in place (a
    `name=` or other argument of the spawner is dropped).

    ## Fix safety
    Always unsafe (only with `--unsafe-fixes`): the function now waits for the push (on a
    realtime model, for the server's acknowledgement) before it goes on. No fix in a
    synchronous function (the example above shows the helper to write), and none when the
    task the spawner returns is kept (assigned, stored, given a callback): awaiting in
    place would leave nothing for it. A task that the function awaits later is still
    reported when an await point comes between the spawn and that await (what runs there
    runs before the push); with none in between (`task = create_task(push)`, a synchronous
    local commit, `await task`) nothing else can run first, and it is not a finding.

    Known limit on Pipecat: a spawned helper that writes the context back from a copy taken
    before the spawn (design.md's third shape) is not followed into the helper; a spawned
    coroutine that is not a push of a context frame (audio, a watchdog) is not a finding.

    Not a finding: an awaited push, also through `asyncio.wait_for`, `asyncio.shield` or
    `asyncio.gather`; a spawned coroutine that is not a push (an async helper that pushes
    when it runs); a push coroutine returned to the caller.

    ## What is a push
    A push method called on an agent, a task, an agent session, a realtime session or a
    type named in `push-receiver-types`, known by annotation, by assignment
    (`self._x = X(...)`, `x = X()`, an annotated parameter), by the class hierarchy in the
    file (`class Desk(Agent)`) or by the vocabulary's names (`agent`, `session`). On a
    receiver whose type the file names and that is none of these (an application's
    `CrmSync`, an imported `MemoryClient`), the call must have the push's signature (one
    context, positional or `chat_ctx=`, and only `exclude_invalid_function_calls=`), and
    so must the method where the file defines it: `crm.update_chat_ctx(customer_id,
    notes=...)` is not a push. A wrapper of your own whose method has the push's
    signature (`update_chat_ctx(self, chat_ctx)`) still is: spawning it detaches the push
    it makes. A receiver the file says nothing about is a push by its name or by the
    call's signature. The same test decides a push for RTL005 and RTL007.
    """

    code = "RTL006"
    name = "detached-push"
    summary = "a push is handed to a task spawner instead of being awaited"
    fix_availability = "sometimes"
    options = APPLICATION_OPTIONS + pipecat.OPTIONS

    VALID = [
        """
async def f(agent, ctx):
    await agent.update_chat_ctx(ctx)
    agent.session.generate_reply()
""",
    ]
    INVALID = [
        Invalid(
            """
import asyncio

async def f(agent, ctx):
    asyncio.create_task(agent.update_chat_ctx(ctx))
    agent.session.generate_reply()
""",
            lines=(5,),
        )
    ]

    def required_tokens(self) -> list[tuple]:
        spawners = tuple(setting(self.settings, "task-spawners"))
        spawners += tuple(self.settings.get("pipecat.task-spawners", ("create_task", "ensure_future")))
        methods, (called,) = push_tokens(self.settings)
        return [tuple(dict.fromkeys(spawners)), ((methods, called), pipecat.push_tokens())]

    def check(self, file) -> Iterator[Finding]:
        if framework_of(file) is pipecat:
            yield from self._check_pipecat(file)
            return
        module = analyse(file)
        vocabulary = module.vocabulary
        for function in module.index.functions:
            pushes: ValueFlow | None = None
            for node in module.calls(function):
                if not (vocabulary.is_spawner(node) and node.args):
                    continue
                coroutine = node.args[0]
                push = module.push_of(coroutine, function)
                if push is None and isinstance(coroutine, ast.Name):
                    pushes = pushes or _push_flow(module, function)
                    push = next(iter(pushes.origins(coroutine)), None)
                if push is not None and not _awaited_at_once(module, function, node):
                    yield self._finding(module, function, node, coroutine)

    def _finding(self, module: Module, function: Function, spawn: ast.Call, coroutine: ast.expr) -> Finding:
        file = module.file
        spawner = file.segment(spawn.func)
        message = (
            f"the push `{snippet(file, coroutine)}` is handed to {spawner}() and runs later, concurrently with "
            f"what follows: a reply generated meanwhile runs on the context before the push, and two detached "
            f"pushes are last-writer-wins"
        )
        plan = _plan(module, function, spawn, coroutine)
        return self.report(file, spawn, message, plan=plan, symbol=function.qualname)

    def _check_pipecat(self, file) -> Iterator[Finding]:
        """A spawner around a push or queue of a context frame (design.md, Pipecat's RTL006)."""
        module = pipecat.analyse(file)
        for function in module.index.functions:
            for node in module.calls(function):
                if not (module.is_spawner(node) and node.args):
                    continue
                coroutine = node.args[0]
                push = coroutine
                if isinstance(coroutine, ast.Name):
                    push = _bound_once(module, function, coroutine.id)
                frame = _pushed_frame(module, function, push)
                if frame is None or _awaited_at_once(module, function, node):
                    continue
                message = (
                    f"the push of {pipecat.frame_of(frame)} `{snippet(file, coroutine)}` is handed to "
                    f"{file.segment(node.func)}() and runs later, concurrently with what follows: a frame pushed or "
                    f"queued next (an LLMRunFrame) can overtake it, and the completion runs without its change"
                )
                plan = _plan(module, function, node, coroutine)
                yield self.report(file, node, message, plan=plan, symbol=function.qualname)


def _pushed_frame(module, function: Function, push: ast.AST | None) -> ast.Call | None:
    """The context frame `push` (a `push_frame`/`queue_frame(s)` call) hands on, also through
    a name bound once to the frame."""
    frame = module.pushed_frame(push)
    if frame is None and isinstance(push, ast.Call) and push.args and isinstance(push.args[0], ast.Name):
        if isinstance(push.func, ast.Attribute) and push.func.attr in pipecat.PUSHES:
            bound = _bound_once(module, function, push.args[0].id)
            frame = bound if pipecat.frame_of(bound) else None
    return frame


def _bound_once(module, function: Function, name: str) -> ast.AST | None:
    """The value of the one plain assignment of `name` in the function, else None."""
    values = [
        node.value
        for node in module.index.nodes(function.node)
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in node.targets)
    ]
    return values[0] if len(values) == 1 else None


def _awaited_at_once(module: Module, function: Function, spawn: ast.Call) -> bool:
    """`task = create_task(push)` ... `await task` with no await point in between: nothing
    else runs before the push is awaited (a push scheduled first, then a local commit)."""
    parent = module.index.parents.get(id(spawn))
    if not (isinstance(parent, ast.Assign) and len(parent.targets) == 1 and isinstance(parent.targets[0], ast.Name)):
        return False
    name, g = parent.targets[0].id, module.graph(function)
    for node in module.index.nodes(function.node):
        if isinstance(node, ast.Await) and isinstance(node.value, ast.Name) and node.value.id == name:
            if g.precedes(spawn, node) and not g.may_run_between(spawn, node, is_await):
                return True
    return False


def _push_flow(module: Module, function: Function) -> ValueFlow:
    """Which push coroutines a name holds (`push = agent.update_chat_ctx(ctx)`)."""

    def sources(node: ast.AST) -> frozenset:
        return frozenset({id(node)}) if module.push_of(node, function) is not None else frozenset()

    return module.file.memo(
        ("rules.rtl006.pushes", id(function.node)),
        lambda: ValueFlow(module.graph(function), function.node, sources),
    )


def _plan(module: Module, function: Function, spawn: ast.Call, coroutine: ast.expr) -> fx.Plan:
    if not isinstance(function.node, ast.AsyncFunctionDef):
        return fx.no_fix(
            "a synchronous function cannot await; spawn an async helper that copies the context when it runs"
        )
    parent = module.index.parents.get(id(spawn))
    if not (isinstance(parent, ast.Expr) and parent.value is spawn):
        return fx.no_fix("the task it returns is kept; awaiting in place would leave nothing for it")
    path = module.file.path_of(parent)
    spawn_text = module.file.segment(spawn)
    pushed = module.file.segment(coroutine)

    def await_in_place(editor) -> None:
        def change(call):  # LibCST's tree
            import libcst as cst

            for arg in call.args:
                if fx.same_code_text(editor.code(arg.value)) == fx.same_code_text(pushed):
                    return cst.Await(expression=arg.value)
            raise fx.cannot_fix("the push is no longer the spawner's argument")

        def text(call: ast.expr) -> str:  # the text editor's: the same, from the `ast` call
            for arg in getattr(call, "args", ()):
                if fx.same_code_text(editor.segment(arg)) == fx.same_code_text(pushed):
                    return "await " + fx.unbracketed_code(editor, arg, call)
            raise fx.cannot_fix("the push is no longer the spawner's argument")

        fx.replace_expression(editor, editor.locate(path), spawn_text, change, text=text)

    return fx.Plan("unsafe", "the function now waits for the push before it goes on", [await_in_place])
