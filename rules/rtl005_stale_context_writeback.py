"""RTL005 stale-context-writeback (LiveKit Agents issue 2454 family)."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass

from rtlint.core.findings import Finding
from rtlint.core.rule import Invalid, Rule

from . import _appfix as fx
from ._analysis.cfg import Point
from ._analysis.flags import fresh, names_in
from ._analysis.index import Function, awaited_calls, snippet
from ._frameworks import framework_of, pipecat
from ._frameworks.livekit import (
    APPLICATION_OPTIONS,
    ContextSnapshot,
    Module,
    analyse,
    push_tokens,
    reported_pushes,
    session_update_tokens,
)
from ._frameworks.livekit import flow as mirror_flow
from ._frameworks.livekit.vocabulary import (
    ADD_MESSAGE,
    ADDED_MESSAGE_NAME,
    ADDITIVE_EDITS,
    ADDITIVE_ITEM_EDITS,
    CONTEXT_NAME,
    FRESH_COPY_NAME,
    ITEMS,
    OTHER_EDITS,
    OTHER_ITEM_EDITS,
    absent_code,
    copy_code,
)
from ._frameworks.pipecat.writes import stale_writes


@dataclass
class _Edit:
    call: ast.AST  # the edit (a call, or an assignment statement)
    method: str
    additive: bool
    item: str | None = None  # the name of what it adds, when it has one
    bind: bool = False  # an `add_message(...)` statement that the fix binds to a name


class StaleContextWriteback(Rule):
    """
    ## What it does
    Finds a write-back (`update_chat_ctx(ctx)` on an agent or task, awaited or not) of a
    snapshot of a local context, where an `await` (or `async for`, `async with`) other than
    the write-back itself can run between the snapshot and the write-back on some path,
    loops included. A snapshot is a `.copy(...)` of an agent's, task's or session's
    context, a read of `agent.chat_ctx` (it answers with a copy), anything derived from one
    (`._summarize()`, `.truncate()`, `.merge()`), or a context handed in as a parameter: one
    annotated `ChatContext`, or named by the hook table (`on_user_turn_completed`'s
    `turn_ctx`, `llm_node`'s `chat_ctx`, and any parameter called `turn_ctx`), which the
    framework copied before the function started.

    It also follows a copy or a read of an agent's context into a push on a realtime
    session, new or reconnected (`await rt.update_chat_ctx(ctx)`,
    `await rt._update_session(chat_ctx=ctx)`, on a session created after the copy or an
    existing one), with an await between on some path: retries in a loop, and a push made
    by a nested function that the function calls after the await (livekit-agents 1.8.9
    `llm/realtime_fallback_adapter.py`, `_swap`: the agent's context is read, the old
    session closed, and `_bring_up` replays the read into the new one). The message
    names the session.

    And it follows a snapshot kept on an attribute (`self._history = self.chat_ctx.copy()`)
    to a write-back of it: in the same method after an await, or in another method of the
    class where every way of reaching the write-back passes an await after the last
    refresh of the attribute (an assignment, or a call of a method that makes one): the
    method's own awaits, those of the methods that call it (`await self._kb.preload()`,
    then `await self._restore()`), or the framework calling it later (`callback-methods`:
    `on_exit`, `on_user_turn_completed`, `llm_node` and `@function_tool` tools). The
    message names the method that stored the snapshot and the await.

    On Pipecat (a file that imports from `pipecat`), finds a stale write of an `LLMContext`:
    a direct write (`set_messages(copy)`, or `transform_messages(f)` where `f` ignores its
    argument) with an await between the copy and the write, and a frame write, which is
    stale always: an `LLMMessagesUpdateFrame` whose messages come from a copy, or an
    `LLMMessagesTransformFrame` whose function ignores its argument. `get_messages()` and
    `.messages` answer with the context's own list (live); a copy is `list(x)`, `x.copy()`,
    a slice, `[*x]`, `x + [...]`, a comprehension, `get_messages(<filter>)`, and anything
    computed from one (a summary).

    ## Why is this bad?
    While the function waits (a RAG lookup, a memory recall, a summary), the framework goes
    on committing items to the same context: the user's transcribed or audio turn, tool
    outputs, a reply. The write-back then replaces the whole context with the snapshot,
    which has none of them: they are lost locally, and with a realtime model the diff of the
    write-back deletes them server-side. In `on_user_turn_completed` with a realtime model
    and client-side turn detection the user's committed audio turn arrives exactly then, so
    the turn the model is about to answer is deleted (livekit-memorysync 1.1.1 with
    `persist_injection=True` does this on every turn that injects a memory).

    Into a realtime session: while the old session closes and the new one starts, the
    framework commits the interrupted reply and the user's next turn to the agent's
    context; the replay lacks them, so the new conversation never has them (and pushes
    made meanwhile are often dropped behind a "swapping" flag).

    On Pipecat every aggregator, function-call handler and processor writes the one list, in
    its own task. A memory processor that copies `frame.context.get_messages()`, awaits a
    recall and calls `set_messages(copy)` erases the user turn the user aggregator committed
    during the recall. A frame is applied when the aggregator reaches it, after everything
    queued ahead of it: an Update frame built from a copy erases an Append queued before it,
    and a tool's Update erases the tool call the assistant aggregator records after the
    handler returns (why Pipecat added `LLMMessagesTransformFrame`, PR 4231).

    ## Example
    ```python
    async def on_user_turn_completed(self, turn_ctx, new_message):
        rag_content = await my_rag_lookup(new_message.text_content)
        turn_ctx.add_message(role="assistant", content=rag_content)
        await self.update_chat_ctx(turn_ctx)
    ```

    Use instead:
    ```python
    async def on_user_turn_completed(self, turn_ctx, new_message):
        rag_content = await my_rag_lookup(new_message.text_content)
        added_message = turn_ctx.add_message(role="assistant", content=rag_content)
        fresh_ctx = self.chat_ctx.copy()
        fresh_ctx.items.append(added_message)
        await self.update_chat_ctx(fresh_ctx)
    ```

    On Pipecat:
    ```python
    async def transfer_to_billing(params):
        await params.llm.push_frame(
            LLMMessagesUpdateFrame(messages=[billing(m) for m in params.context.get_messages()])
        )
    ```

    Use instead:
    ```python
    async def transfer_to_billing(params):
        await params.llm.push_frame(
            LLMMessagesTransformFrame(transform=lambda messages: [billing(m) for m in messages])
        )
    ```

    ## Fix
    When every edit of the snapshot between its creation and the write-back only adds
    items (`add_message`, `insert`, `items.append`, `items.extend`) and each added item has
    a name: the edits stay (the current turn still sees them; an `add_message` statement is
    bound to `added_message`), and right before the write-back a fresh copy of the
    receiver's context (`fresh_ctx = self.chat_ctx.copy(...)`, with the snapshot's copy
    arguments) gets the same additions and is written back instead. Nothing awaits between
    the fresh copy and the write-back. A write-back that can run again after the additions
    (a retry loop) re-applies an item only if the fresh copy lacks it, so nothing is added
    twice.

    A context handed in as a parameter is taken to be a copy of the receiver's context
    (`turn_ctx` is a copy of this agent's `chat_ctx`). On a push into a realtime session
    the fresh copy is of the snapshot's own context (`self._agent.chat_ctx.copy()`, with
    its copy arguments), taken right before the push, inside the nested function that
    pushes where the push is there.

    On Pipecat: an Update frame whose messages are a pure function of the live list or of an
    exact copy (a comprehension with one `for`, `list(map(f, x))`, `list(filter(f, x))`, a
    slice by constants) becomes `LLMMessagesTransformFrame(transform=lambda messages: <the same
    of messages>)`; `copy + [new]` (or `[*copy, new]`) becomes `LLMMessagesAppendFrame` of
    `[new]` (other arguments such as `run_llm=` kept; the frame's name joins the file's
    `from pipecat.frames.frames import ...`); `set_messages(copy)` of an exact copy whose
    edits only add (`copy.append(x)`, `copy.extend(xs)`, and the prepend `copy.insert(0, m)`,
    each once on every path) becomes `transform_messages(lambda current: [m, *current, x,
    *xs])` at the same place, after the last await (prepends first, the last one made in
    front), and an added expression is bound to `added_message` first so the copy keeps it;
    what an `extend` adds is bound as a list (`added_messages = list(...)`), since it is read
    twice and an iterator would be empty the second time. A prepend is replayed because the
    front of the copy is the front of the live list, whatever was appended meanwhile; an
    `insert` at any other index gets no fix (an index into the copy names another place of the
    live list once messages were added), nor does an addition under an `if` or in a loop.
    A frame fix removes what it leaves unused (ruff's F841): the copy's binding, and a binding
    the Transform's function now computes (`kept = [...]`), when nothing else reads them and
    their value does nothing but read and copy (`list(...)`, `.copy()`, `get_messages()`, a
    slice, a list display); a binding whose value may do more (a call of your own) is kept,
    for you to remove. A frame's name no longer used leaves the import. The direct-write fix
    does the same with the copy: when nothing but its additions and the write read it, its
    binding and its edits go (an added expression stays bound, `added_message = ...`, where
    the edit was); kept, the copy would be a list edited and never read (RTL007).

    ## Fix safety
    No fix, and the message says why, when an edit removes, reorders or transforms the
    snapshot (`remove`, `truncate`, slice assignment, `_summarize`, `merge`), when an
    addition has no name or does not run on every path to the write-back, when the snapshot
    is not of the receiver's context (another agent's, `session.history`), or when the
    written-back value comes from more than one snapshot. Then re-take the snapshot after
    the await, or take a fresh copy after it and merge into it what the snapshot produced
    (that is not a finding). Unsafe when the write-back is detached (RTL006): a fresh copy
    taken before a push that runs later can go stale again; `--unsafe-fixes` also awaits it.
    On a push into a realtime session, also no fix when the pushed context is a read of a
    session's mirror on another path (the real `_swap` replays the old session's
    `chat_ctx` when no agent session is bound: a fresh copy of the agent's context would
    replace that path too), or when the snapshot is edited in an enclosing function and
    pushed by a nested one. No fix for a snapshot stored on an attribute by another method:
    take a fresh copy in the method that writes back, right before the write-back.

    On Pipecat, no fix for a copy that is filtered or transformed and written back directly,
    for edits that remove or reorder, for a write in a loop, for an Update frame of anything
    else (a summary: build it in a Transform frame's function from the list it is given), and
    for a Transform frame that ignores its argument.

    Not a finding: snapshot, synchronous edits and write-back with no await between; a
    snapshot taken after the last await; writing back the live object (`self._chat_ctx`);
    a snapshot handed to a new agent (`NewAgent(chat_ctx=ctx)`); a parameter the hook table
    does not name; a snapshot of a realtime session's own mirror, or a push of one that
    RTL001 or RTL004 already reports (one defect, one finding: once RTL004's fix puts such
    a push under the push lock, the same `--fix` run takes the fresh copy under it); a
    context parameter pushed into a realtime session (the caller's to keep fresh); a nested
    function called before any await, or never called by name (a callback). Precision
    first for attributes: nothing is reported when a method that refreshes the attribute is
    handed out as a value (an event callback such as `session.on("conversation_item_added",
    self._on_item)`: it can run during any await), when the attribute is ever set to
    something that is not a snapshot (`ChatContext.empty()`, a result of a call) or from a
    nested function, when some way to the write-back refreshes it after the last await, or
    when the write-back is in a public method that nothing in the class calls and that
    has no await of its own before it (its callers are not known: name it in
    `callback-methods` if the framework calls it later).
    On Pipecat: an Append frame; a Transform that computes from its argument; `add_message`
    after the await; a replacement with data not read from the context (a reset, a restore
    from a file); a copy taken after the last await; a write through a live alias
    (`set_messages(alias)` changes nothing); a context the function built itself
    (`LLMContext(...)`, which nothing else writes).

    Known limit: the analysis follows a snapshot within one function, into the closures it
    defines and to their calls, and through attributes of `self` within one class (not an
    attribute of another object, `self._progress.snapshot`). A snapshot passed to a helper
    function that writes it back
    is not followed, unless the helper's parameter is annotated `ChatContext` or named by
    the hook table (then the helper's own awaits are checked).
    """

    code = "RTL005"
    name = "stale-context-writeback"
    summary = "a snapshot of a local context is written back after an await"
    fix_availability = "sometimes"
    options = APPLICATION_OPTIONS + pipecat.OPTIONS

    VALID = [
        """
from pipecat.frames.frames import LLMMessagesAppendFrame

async def remind(self, note):
    await self.push_frame(LLMMessagesAppendFrame(messages=[{"role": "system", "content": note}]))
""",
        """
from livekit.agents import Agent

class A(Agent):
    async def on_user_turn_completed(self, turn_ctx, new_message):
        info = await lookup(new_message.text_content)
        ctx = self.chat_ctx.copy()
        ctx.add_message(role="assistant", content=info)
        await self.update_chat_ctx(ctx)
""",
    ]
    INVALID = [
        Invalid(
            """
from livekit.agents import Agent

class A(Agent):
    async def on_user_turn_completed(self, turn_ctx, new_message):
        info = await lookup(new_message.text_content)
        turn_ctx.add_message(role="assistant", content=info)
        await self.update_chat_ctx(turn_ctx)
""",
            lines=(8,),
            expected_fix="""
from livekit.agents import Agent

class A(Agent):
    async def on_user_turn_completed(self, turn_ctx, new_message):
        info = await lookup(new_message.text_content)
        added_message = turn_ctx.add_message(role="assistant", content=info)
        fresh_ctx = self.chat_ctx.copy()
        fresh_ctx.items.append(added_message)
        await self.update_chat_ctx(fresh_ctx)
""",
        ),
        Invalid(
            """
from pipecat.frames.frames import LLMMessagesUpdateFrame

async def greet(worker, context):
    await worker.queue_frame(LLMMessagesUpdateFrame(messages=context.get_messages() + [HELLO]))
""",
            lines=(5,),
            expected_fix="""
from pipecat.frames.frames import LLMMessagesAppendFrame

async def greet(worker, context):
    await worker.queue_frame(LLMMessagesAppendFrame(messages=[HELLO]))
""",
        ),
        Invalid(
            """
from pipecat.processors.aggregators.llm_context import LLMContext

async def remember(context: LLMContext, store):
    messages = list(context.get_messages())
    memory = await store.recall(messages[-1]["content"])
    messages.insert(0, memory)
    context.set_messages(messages)
""",
            lines=(8,),
            expected_fix="""
from pipecat.processors.aggregators.llm_context import LLMContext

async def remember(context: LLMContext, store):
    messages = list(context.get_messages())
    memory = await store.recall(messages[-1]["content"])
    messages.insert(0, memory)
    context.transform_messages(lambda current: [memory, *current])
""",
        ),
    ]

    def required_tokens(self) -> list[tuple]:
        return either_framework(self.settings)

    def check(self, file) -> Iterator[Finding]:
        if framework_of(file) is pipecat:
            yield from self._check_pipecat(file)
            return
        module = analyse(file)
        realtime = reported = None
        for function in module.index.functions:
            if not isinstance(function.node, ast.AsyncFunctionDef):
                continue  # nothing can run in between without an await
            done = set()  # one finding per push
            for call, receiver, pushed in module.write_backs(function):
                realtime = realtime if realtime is not None else _realtime_pushes(file)
                if id(call) in realtime:
                    continue  # a push on a realtime session: judged below
                finding = self._check_write_back(module, function, call, receiver, pushed)
                if finding is not None:
                    done.add(id(call))
                    yield finding
            for call, session, pushed in module.session_pushes(function):
                reported = reported if reported is not None else _reported_pushes(file)
                if id(call) in reported or id(call) in done:
                    continue  # RTL001's or RTL004's finding: one defect, one finding
                finding = self._check_session_push(module, function, call, session, pushed)
                if finding is not None:
                    yield finding

    def _check_stored(self, module: Module, function: Function, call, receiver, pushed, into_session: bool):
        """A snapshot stored on `self.<attr>` by another method and written back here."""
        found = module.stale_stored(function, pushed)
        if found is None:
            return None
        model, stale = found
        stored = [(w, s) for w, s in module.stored_snapshots(model) if not (into_session and s.kind == "parameter")]
        if not stored:
            return None
        file = module.file
        writer, snapshot = stored[0]
        more = f" (and {len(stored) - 1} more)" if len(stored) > 1 else ""
        target = f"{file.segment(receiver)}.{call.func.attr}"
        into = f" into the realtime session `{file.segment(receiver)}`" if into_session else ""
        if stale.point is not None:
            where = "this method" if stale.method is function else f"`{stale.method.node.name}`"
            after = f"{_describe_await(stale.point, call)} (in {where}) runs after it on every path to this write-back"
        else:
            after = f"`{stale.method.node.name}` runs later, when the framework calls it after other turns"
        message = (
            f"{target} writes back `self.{model.name}`{into}, {snapshot.describe()} and stored by "
            f"`{writer.qualname}`{more}, and {after}: what the framework commits to the context meanwhile (the "
            f"user's turn, a tool output, a reply) is lost, and deleted server-side on a realtime model"
        )
        plan = fx.no_fix(
            f"the snapshot is stored on `self.{model.name}` by another method (`{writer.node.name}`); take a fresh "
            f"copy of the context in `{function.node.name}` right before the write-back"
        )
        return self.report(file, call, message, plan=plan, symbol=function.qualname)

    def _check_session_push(self, module: Module, function: Function, call, session, pushed) -> Finding | None:
        """A snapshot of a local context (a copy or a read, not a parameter) pushed into a
        realtime session, new or reconnected, with an await between."""
        flow = module.snapshot_flow(function)
        keys = [k for k in flow.origins(pushed) if module.context_snapshots[k].kind != "parameter"]
        keys.sort(key=lambda k: (module.context_snapshots[k].node.lineno, k))
        if _refreshed_meanwhile(module, function, pushed):
            return None
        if not flow.origins(pushed):
            return self._check_stored(module, function, call, session, pushed, into_session=True)
        stale = _first_stale(module, function, call, keys)
        if stale is None:
            return None
        key, snapshot, awaits = stale
        file = module.file
        target = f"{file.segment(session)}.{call.func.attr}"
        if len(keys) > 1:
            plan = fx.no_fix("the pushed context comes from more than one snapshot")
        else:
            plan = _session_plan(module, function, call, session, pushed, snapshot, key)
        message = (
            f"{target} pushes {snapshot.describe()} into the realtime session `{file.segment(session)}`, and "
            f"{_describe_await(awaits[0], call)} can run in between: what the framework commits to the "
            f"context meanwhile (the user's turn, a tool output, an interrupted reply) is missing from that "
            f"session's conversation"
        )
        return self.report(file, call, message, plan=plan, symbol=function.qualname)

    def _check_write_back(self, module: Module, function: Function, call, receiver, pushed) -> Finding | None:
        flow = module.snapshot_flow(function)
        keys = sorted(flow.origins(pushed), key=lambda k: (module.context_snapshots[k].node.lineno, k))
        if _refreshed_meanwhile(module, function, pushed):
            return None
        if not keys:
            return self._check_stored(module, function, call, receiver, pushed, into_session=False)
        stale = _first_stale(module, function, call, keys)
        if stale is None:
            return None
        key, snapshot, awaits = stale
        file = module.file
        target = f"{file.segment(receiver)}.{call.func.attr}"
        plan = (
            _plan(module, function, call, receiver, snapshot, key)
            if len(keys) == 1
            else fx.no_fix("the written-back context comes from more than one snapshot")
        )
        message = (
            f"{target} writes back {snapshot.describe()}, and {_describe_await(awaits[0], call)} can run "
            f"in between: what the framework commits to the context meanwhile (the user's turn, a tool "
            f"output, a reply) is lost, and deleted server-side on a realtime model"
        )
        return self.report(file, call, message, plan=plan, symbol=function.qualname)

    def _check_pipecat(self, file) -> Iterator[Finding]:
        module = pipecat.analyse(file)
        for function in module.index.functions:
            for stale in stale_writes(module, function):
                read = stale.copy.reads[0] if stale.copy.reads else stale.copy.node
                what = f"`{snippet(file, stale.written)}`, a copy of the messages read at line {read.lineno}"
                if stale.frame is None:
                    message = (
                        f"{file.segment(stale.call.func)} writes back {what}, and "
                        f"{_describe_await(stale.awaits[0], stale.call)} can run in between: what the aggregators "
                        f"commit meanwhile (the user's turn, a tool call, a reply) is lost"
                    )
                else:
                    message = (
                        f"{stale.frame} replaces the context with {what}; the frame is applied after every frame "
                        f"queued ahead of it, and what those add (an Append, the user's turn, a tool call) is lost"
                    )
                yield self.report(file, stale.call, message, plan=stale.plan, symbol=function.qualname)


def either_framework(settings) -> list[tuple]:
    """A LiveKit push (its method name, called, or a session update's), or Pipecat's words
    (see rules._frameworks)."""
    methods, (called,) = push_tokens(settings)
    return [((methods, called), session_update_tokens(settings), pipecat.write_tokens())]


def _first_stale(module: Module, function: Function, call, keys):
    """The first snapshot of `keys` that an await can separate from `call`: (its key, the
    snapshot, the awaits), or None."""
    for key in keys:
        snapshot = module.context_snapshots[key]
        awaits = module.awaits_before(function, snapshot, call)
        if awaits:
            return key, snapshot, awaits
    return None


def _refreshed_meanwhile(module: Module, function: Function, pushed) -> bool:
    """The pushed `self.<attr>` is refreshed by a method that can run at any await (one handed
    out as a callback): whether the write-back sees the old snapshot is not known."""
    model = module.stored(function, pushed)
    return model is not None and model.concurrent


def _reported_pushes(file) -> set[int]:
    """The pushes RTL001 or RTL004 report (or report the snapshot of)."""
    return reported_pushes(analyse(file))


def _mirror_origins(file, function: Function, pushed) -> bool:
    """Whether the pushed value also carries a snapshot of a session's mirror."""
    return bool(mirror_flow(analyse(file), function).origins(pushed))


def _realtime_pushes(file) -> set[int]:
    """The pushes the realtime vocabulary knows as pushes on a realtime session (memoised:
    the realtime rules compute the same analysis of the file)."""
    return {id(push.call) for push in analyse(file).pushes}


def _describe_await(point: Point, call: ast.AST) -> str:
    node = point.node
    if point.kind == "async-for":
        return f"the `async for` at line {node.lineno}"
    if point.kind.startswith("async-with"):
        return f"the `async with` at line {node.lineno}"
    if isinstance(node, ast.Await) and node.value is call:
        return f"this write-back's own await (line {node.lineno}) in an earlier pass of the loop"
    return f"the await at line {node.lineno}"


# -- the fix --------------------------------------------------------------------------------


def _session_plan(module: Module, function: Function, call, session, pushed, snapshot: ContextSnapshot, key: int):
    """RTL005's fix on a push into a realtime session: a fresh copy of the snapshot's own
    context (the agent's) right before the push, where RTL005's fix applies."""
    file = module.file
    if _mirror_origins(file, function, pushed):
        return fx.no_fix(
            f"on another path the pushed context is a read of a realtime session's mirror, which a fresh copy of "
            f"`{snapshot.context}` would replace; take the fresh copy on the agent's path only"
        )
    owner = module.index.function_of_node(snapshot.node)
    if owner is not None and owner is not function and _has_edits(module, owner, snapshot, key):
        return fx.no_fix(
            f"the snapshot is edited in `{owner.node.name}`, outside the function that pushes it; re-take it "
            f"right before the push, or merge what it produced into a fresh copy there"
        )
    return _plan(module, function, call, session, snapshot, key, into_session=True)


def _has_edits(module: Module, owner: Function, snapshot: ContextSnapshot, key: int) -> bool:
    flow = module.snapshot_flow(owner)
    for node in module.index.nodes(owner.node):
        if node is snapshot.node or not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
            continue
        target = node.func.value
        if isinstance(target, ast.Attribute) and target.attr == ITEMS:
            target = target.value
        if node.func.attr in ADDITIVE_EDITS | OTHER_EDITS | ADDITIVE_ITEM_EDITS | OTHER_ITEM_EDITS:
            if key in flow.origins(target):
                return True
    return False


def _plan(
    module: Module, function: Function, call, receiver, snapshot: ContextSnapshot, key: int, into_session: bool = False
) -> fx.Plan:
    file, vocabulary = module.file, module.vocabulary
    receiver_text = file.segment(receiver)
    if into_session:  # the fresh copy is of the snapshot's own context, not the session's mirror
        fresh_copy = copy_code(snapshot.context, snapshot.copy_arguments)
    elif snapshot.kind == "parameter":
        context = next(iter(sorted(vocabulary.copying_contexts)), CONTEXT_NAME)
        fresh_copy = copy_code(f"{receiver_text}.{context}")
    elif snapshot.owner != receiver_text:
        return fx.no_fix(f"the snapshot is of `{snapshot.context}`, not of {receiver_text}'s context")
    else:
        fresh_copy = copy_code(snapshot.context, snapshot.copy_arguments)
    applicability = "safe"
    reason = ""
    detached = _detached(module, call)
    if detached is None:
        return fx.no_fix("the write-back is neither awaited nor spawned here")
    if detached:
        applicability = "unsafe"
        reason = (
            "the write-back is detached (see RTL006), "
            "and a fresh copy taken before a push that runs later can go stale again"
        )
    edits = list(_edits(module, function, snapshot, key, call))
    for edit in edits:
        if not edit.additive:
            line = getattr(edit.call, "lineno", "?")
            return fx.no_fix(
                f"`{edit.method}` at line {line} changes the snapshot in a way a fresh copy cannot replay; re-take "
                f"the snapshot after the await, or merge what it produced into a fresh copy taken after it"
            )
    g = module.graph(function)
    again = g.precedes(call, call)
    taken = names_in(function.node)
    for edit in edits:
        problem = _nameable(module, function, edit, call, again)
        if problem:
            return fx.no_fix(problem)
    return _build(module, function, call, fresh_copy, edits, again, taken, applicability, reason)


def _detached(module: Module, call: ast.AST) -> bool | None:
    """False when the write-back is awaited (directly or through a wrapper), True when it
    is handed to a task spawner, None otherwise."""
    for ancestor in module.index.ancestors(call):
        if isinstance(ancestor, ast.Await):
            return False if any(c is call for c in awaited_calls(ancestor)) else None
        if module.vocabulary.is_spawner(ancestor):
            return True
        if isinstance(ancestor, ast.stmt):
            return None
    return None


def _edits(module: Module, function: Function, snapshot: ContextSnapshot, key: int, call: ast.AST) -> Iterator[_Edit]:
    """Edits of the snapshot that can run between its creation and the write-back."""
    flow, g = module.snapshot_flow(function), module.graph(function)
    in_graph = snapshot.kind != "parameter" and id(snapshot.node) in g.point_of

    def between(node: ast.AST) -> bool:
        return (not in_graph or g.precedes(snapshot.node, node)) and g.precedes(node, call)

    def carries(node: ast.AST) -> bool:
        return key in flow.origins(node)

    for node in module.index.nodes(function.node):
        if node is call or node is snapshot.node:
            continue
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            method, target = node.func.attr, node.func.value
            on_items = isinstance(target, ast.Attribute) and target.attr == ITEMS
            if on_items and method in ADDITIVE_ITEM_EDITS | OTHER_ITEM_EDITS and carries(target.value):
                if between(node):
                    yield _item_edit(node, f"items.{method}", method in ADDITIVE_ITEM_EDITS)
            elif method in ADDITIVE_EDITS | OTHER_EDITS and carries(target) and between(node):
                if method == ADD_MESSAGE:
                    yield _message_edit(module, node)
                else:
                    yield _item_edit(node, method, method in ADDITIVE_EDITS)
        elif isinstance(node, (ast.Assign, ast.AugAssign, ast.Delete)):
            targets = node.targets if isinstance(node, (ast.Assign, ast.Delete)) else [node.target]
            for target in targets:
                if isinstance(target, (ast.Subscript, ast.Attribute)) and carries(target.value) and between(node):
                    yield _Edit(node, "assignment to its items", False)


def _item_edit(node: ast.Call, method: str, additive: bool) -> _Edit:
    argument = node.args[0] if len(node.args) == 1 and not node.keywords else None
    item = argument.id if isinstance(argument, ast.Name) else None
    return _Edit(node, method, additive, item)


def _message_edit(module: Module, node: ast.Call) -> _Edit:
    parent = module.index.parents.get(id(node))
    if isinstance(parent, ast.Expr):
        return _Edit(node, "items.append", True, None, bind=True)
    if isinstance(parent, ast.Assign) and len(parent.targets) == 1 and isinstance(parent.targets[0], ast.Name):
        return _Edit(node, "items.append", True, parent.targets[0].id)
    return _Edit(node, "items.append", True, None)


def _nameable(module: Module, function: Function, edit: _Edit, call, again: bool) -> str:
    """Why the edit's addition cannot be re-applied by name ("" when it can)."""
    line = edit.call.lineno
    if edit.item is None and not edit.bind:
        return f"what the edit at line {line} adds has no name to re-apply it by"
    g = module.graph(function)
    if not g.dominates(edit.call, call):
        return f"the edit at line {line} does not run on every path to the write-back"
    if edit.item is not None and _bindings(module, function, edit.item) > 1:
        return f"`{edit.item}` (added at line {line}) is bound more than once"
    if again and not g.precedes(call, edit.call) and edit.method == "items.extend":
        return f"the write-back can run again after the `items.extend` at line {line}, which would add its items twice"
    return ""


def _bindings(module: Module, function: Function, name: str) -> int:
    return sum(
        1
        for node in module.index.nodes(function.node)
        if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Store)
    )


def _build(module, function, call, fresh_copy, edits, again, taken, applicability, reason) -> fx.Plan:
    file, g = module.file, module.graph(function)
    fresh_name = fresh(FRESH_COPY_NAME, taken)
    taken = taken | {fresh_name}
    steps, lines = [], [f"{fresh_name} = {fresh_copy}\n"]
    for edit in edits:
        item = edit.item
        if edit.bind:
            item = fresh(ADDED_MESSAGE_NAME, taken)
            taken.add(item)
            path = file.path_of(module.index.statement_of(edit.call))
            steps.append(lambda editor, p=path, n=item: fx.bind_expression_statement(editor, editor.locate(p), n))
        apply = f"{fresh_name}.{edit.method}({item})\n"
        if again and not g.precedes(call, edit.call):
            apply = f"if {absent_code(fresh_name, item)}:\n    {apply}"
        lines.append(apply)
    statement = module.index.statement_of(call)
    path = file.path_of(statement)
    push = file.segment(call)

    def write(editor) -> None:
        located = editor.locate(path)
        editor.insert_before(located, [editor.statement(line) for line in lines])
        fx.write_push_argument(editor, located, push, fresh_name)

    steps.append(write)
    return fx.Plan(applicability, reason, steps)
