"""RTL006 detached-push."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from rtlint.core.astnodes import walk
from rtlint.core.findings import Finding
from rtlint.core.rule import Invalid, Rule

from . import _appfix as fx
from ._analysis.cfg import is_await
from ._analysis.index import Function, snippet
from ._analysis.values import ValueFlow
from ._frameworks import framework_of, pipecat
from ._frameworks.livekit import APPLICATION_OPTIONS, Module, analyse, push_tokens
from ._frameworks.livekit.vocabulary import setting
from ._frameworks.pipecat.helpers import spawned_write


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
    `LLMContextFrame`, `LLMRunFrame`), written in the call or bound once to a name; or a
    spawner around a helper that writes the context back from a copy taken before the spawn
    (`snapshot = list(context.get_messages())`, then `asyncio.create_task(self._save(snapshot))`
    where `_save` ends with `self._context.set_messages(messages)`). The helper must be defined
    in the file (an async method of the class, or of a base in the file, called on `self`; an
    async function nested in the spawning function or at module level; not decorated) and
    write back, outside any nested function, a value that provably comes from the copy: a
    parameter whose argument at the spawn is a copy, as it is (not rebound) or anything the
    helper computes from it (`[messages[0], summary_of(messages)]`, an awaited filter of it),
    or, for a nested helper, the enclosing function's copy taken before the spawn. Its write
    is `set_messages(value)` or `transform_messages(lambda _: value)` on a shared context (by
    the options, or the argument the caller passes for it), or the push of an
    `LLMMessagesUpdateFrame(messages=value)` or of an `LLMMessagesTransformFrame` whose
    function ignores its argument and returns the value.

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

    A spawned write-back helper writes the copy when its task runs: every turn, tool call and
    reply the aggregators commit between the copy and that moment (and, when the helper
    awaits first, during its await) is replaced by the copy. The frame the function pushes
    next (an `LLMRunFrame`) may also run on the context before the write.

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

    A spawned helper that writes back the copy it is handed:
    ```python
    async def on_turn(self, frame):
        snapshot = list(frame.context.get_messages())
        self.create_task(self._pin(snapshot))
        await self.push_frame(LLMRunFrame())

    async def _pin(self, messages):
        messages.insert(1, PINNED)
        self._context.set_messages(messages)
    ```

    Use instead (nothing runs between the copy and the write):
    ```python
    async def on_turn(self, frame):
        snapshot = list(frame.context.get_messages())
        await self._pin(snapshot)
        await self.push_frame(LLMRunFrame())
    ```

    When the helper awaits before it writes (`await self._store.put(messages)`), awaiting
    it in place still loses what is committed during that await: take the copy in the
    helper after its last await, or write with `transform_messages` from the list it is
    given:
    ```python
    async def _save(self):
        await self._store.put(list(self._context.get_messages()))
        self._context.transform_messages(lambda messages: [*messages, SAVED_NOTE])
    ```

    ## Fix
    In an async function, the spawn statement becomes `await <the push>` in place (a
    `name=` or other argument of the spawner is dropped). For a spawned write-back helper,
    only where awaiting it removes the race: the helper writes the copy directly
    (`set_messages`) before any await of its own, and no await of the function runs between
    the copy and the spawn. Otherwise the finding says why there is no fix: a helper that
    awaits before its write, an await between the copy and the spawn (the copy is stale
    however the helper is awaited), or an `LLMMessagesUpdateFrame` of the copy (applied after
    every frame queued ahead of it; push an `LLMMessagesTransformFrame` computing from its
    argument instead).

    On Pipecat, the import of the spawner (`import asyncio`, `from asyncio import
    create_task`) goes with the last spawn that used it, so the fixed file has no unused
    import (ruff's F401); several such spawns in one file are then fixed one per pass.

    ## Fix safety
    Always unsafe (only with `--unsafe-fixes`): the function now waits for the push (on a
    realtime model, for the server's acknowledgement) before it goes on. No fix in a
    synchronous function (the example above shows the helper to write), and none when the
    task the spawner returns is kept (assigned, stored, given a callback): awaiting in
    place would leave nothing for it. On Pipecat a task stored on an attribute
    (`self._task = asyncio.create_task(self.push_frame(LLMMessagesAppendFrame(...)))`) is
    still reported, without a fix, on purpose: a processor keeps the task to cancel it (on an
    interruption, in `cleanup`) or to check it later; awaiting the push in place would leave
    the attribute without a task, make the caller wait, and move the push out of reach of that
    cancellation (cancelling the caller would cancel it instead). Await the push first, and
    keep a task for the work that really runs in the background. A task that the function awaits later is still
    reported when an await point comes between the spawn and that await (what runs there
    runs before the push); with none in between (`task = create_task(push)`, a synchronous
    local commit, `await task`) nothing else can run first, and it is not a finding.

    On Pipecat, not a finding: a spawned coroutine that is neither a push of a context frame
    nor a write-back helper (audio, a watchdog); a helper handed the live list
    (`get_messages()` itself: `set_messages(alias)` changes nothing) or data not read from
    the context (a reset, a restore); a helper the file does not define (imported, or
    decorated); a helper that rebinds its parameter before writing it, or writes something
    else; a helper that only appends (`add_message`, an `LLMMessagesAppendFrame`). A nested
    helper that writes its enclosing function's copy after an await of its own is RTL005's
    finding (the write after the await), not this one's.

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
        """
import asyncio

from pipecat.processors.frame_processor import FrameProcessor

class Pin(FrameProcessor):
    async def on_turn(self, frame):
        asyncio.create_task(self._pin(frame.context.get_messages()))

    async def _pin(self, messages):
        self._context.set_messages(messages)
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
        ),
        Invalid(
            """
import asyncio

from pipecat.processors.frame_processor import FrameProcessor

class Pin(FrameProcessor):
    async def on_turn(self, frame):
        snapshot = list(frame.context.get_messages())
        asyncio.create_task(self._pin(snapshot))

    async def _pin(self, messages):
        self._context.set_messages(messages)
""",
            lines=(9,),
        ),
    ]

    def required_tokens(self) -> list[tuple]:
        spawners = tuple(setting(self.settings, "task-spawners"))
        spawners += tuple(self.settings.get("pipecat.task-spawners", ("create_task", "ensure_future")))
        methods, (called,) = push_tokens(self.settings)
        return [tuple(dict.fromkeys(spawners)), ((methods, called), pipecat.spawn_tokens())]

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
        """A spawner around a push or queue of a context frame, or around a helper that
        writes the context back from a copy taken before the spawn (design.md, Pipecat's RTL006)."""
        module = pipecat.analyse(file)
        found = []  # (function, spawn, coroutine, message, why there is no fix, what the caller waits for)
        for function in module.index.functions:
            for node in module.calls(function):
                if not (module.is_spawner(node) and node.args):
                    continue
                coroutine = node.args[0]
                push = coroutine
                if isinstance(coroutine, ast.Name):
                    push = _bound_once(module, function, coroutine.id)
                frame = _pushed_frame(module, function, push)
                helper = spawned_write(module, function, node, push) if frame is None else None
                if (frame is None and helper is None) or _awaited_at_once(module, function, node):
                    continue
                if frame is not None:
                    message = (
                        f"the push of {pipecat.frame_of(frame)} `{snippet(file, coroutine)}` is handed to "
                        f"{file.segment(node.func)}() and runs later, concurrently with what follows: a frame pushed "
                        f"or queued next (an LLMRunFrame) can overtake it, and the completion runs without its change"
                    )
                    found.append((function, node, coroutine, message, None, "the push"))
                else:
                    read = helper.copy.reads[0].lineno if helper.copy.reads else node.lineno
                    message = (
                        f"`{snippet(file, coroutine)}` is handed to {file.segment(node.func)}() and writes the context "
                        f"back (`{snippet(file, helper.write)}` at line {helper.write.lineno}) from "
                        f"`{helper.name}`, a copy of the messages read at line {read}, when the task runs: what the "
                        f"aggregators commit meanwhile (the user's turn, a tool call, a reply) is lost"
                    )
                    found.append((function, node, coroutine, message, helper.fix_refused, "the helper's write"))
        fixable = [spawn for function, spawn, _, _, refused, _ in found if _in_place(module, function, spawn, refused)]
        for function, spawn, coroutine, message, refused, awaited in found:
            plan = _plan(module, function, spawn, coroutine, refused, awaited, _spawner_import(module, spawn, fixable))
            yield self.report(file, spawn, message, plan=plan, symbol=function.qualname)


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


def _in_place(module, function: Function, spawn: ast.Call, refused: str | None) -> bool:
    """Whether the spawn gets the fix (an async function's spawn statement, nothing refusing it)."""
    parent = module.index.parents.get(id(spawn))
    return (
        isinstance(function.node, ast.AsyncFunctionDef)
        and isinstance(parent, ast.Expr)
        and parent.value is spawn
        and refused is None
    )


def _spawner_import(module, spawn: ast.Call, fixable: list[ast.Call]) -> tuple[ast.stmt, str, bool] | None:
    """The module-level import that binds the spawner's name (`import asyncio`, `from asyncio
    import create_task`) when awaiting in place leaves it unused (ruff's F401): (the import,
    the name, whether this fix removes it). The fix whose spawn is the name's last use
    removes it; while other spawns that get the fix use it too, each fix edits the import
    without changing it, so that the fixes run one per pass and the last one removes it
    (a fix applied alone, in the editor, never removes an import another use needs)."""
    func = spawn.func
    name = func.value.id if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) else None
    name = func.id if isinstance(func, ast.Name) else name
    if name is None:
        return None
    binding = None
    for stmt in module.file.tree.body:
        if isinstance(stmt, (ast.Import, ast.ImportFrom)) and len(stmt.names) == 1:
            alias = stmt.names[0]
            bound = alias.asname or alias.name
            if bound == name and (isinstance(stmt, ast.ImportFrom) or "." not in alias.name):
                binding = stmt
    if binding is None:
        return None
    uses = [n for n in walk(module.file.tree) if isinstance(n, ast.Name) and n.id == name]
    spawners = {id(s.func.value if isinstance(s.func, ast.Attribute) else s.func) for s in fixable}
    if (
        any(id(n) not in spawners for n in uses)
        or id(func.value if isinstance(func, ast.Attribute) else func) not in spawners
    ):
        return None  # the name is used elsewhere too: the import stays
    return binding, name, len(uses) == 1


def _stored_on(module, parent: ast.AST | None, spawn: ast.Call) -> str | None:
    """`self._task = create_task(...)` on Pipecat: the attribute the task is stored in."""
    if not (isinstance(module, pipecat.Module) and isinstance(parent, (ast.Assign, ast.AnnAssign))):
        return None
    targets = parent.targets if isinstance(parent, ast.Assign) else [parent.target]
    if parent.value is spawn and len(targets) == 1 and isinstance(targets[0], ast.Attribute):
        return module.file.segment(targets[0])
    return None


def _plan(
    module: Module,
    function: Function,
    spawn: ast.Call,
    coroutine: ast.expr,
    refused: str | None = None,
    awaited: str = "the push",
    spawner_import: tuple[ast.stmt, str, bool] | None = None,
) -> fx.Plan:
    if not isinstance(function.node, ast.AsyncFunctionDef):
        return fx.no_fix(
            "a synchronous function cannot await; spawn an async helper that copies the context when it runs"
        )
    parent = module.index.parents.get(id(spawn))
    if not (isinstance(parent, ast.Expr) and parent.value is spawn):
        stored = _stored_on(module, parent, spawn)
        if stored is not None:
            return fx.no_fix(
                f"the task is stored in `{stored}`, to be cancelled or awaited later: awaiting the push in place "
                f"would leave nothing there to cancel and make the caller wait (an interruption that cancels "
                f"`{stored}` would no longer stop it); await the push before the work the task is kept for"
            )
        return fx.no_fix("the task it returns is kept; awaiting in place would leave nothing for it")
    if refused is not None:
        return fx.no_fix(refused)
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
        if spawner_import is not None:
            located = editor.locate(import_path)
            if spawner_import[2]:  # the spawn was the name's last use
                editor.remove(located)
            else:  # other spawns use it and get the fix: one fix a pass, the last removes it
                editor.replace_spans(located, [])

    import_path = module.file.path_of(spawner_import[0]) if spawner_import is not None else None
    return fx.Plan("unsafe", f"the function now waits for {awaited} before it goes on", [await_in_place])
