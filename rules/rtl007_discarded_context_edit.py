"""RTL007 discarded-context-edit."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator

from rtlint.core.astnodes import walk
from rtlint.core.findings import Finding
from rtlint.core.rule import Invalid, Rule

from . import _appfix as fx
from ._analysis.cfg import is_await
from ._analysis.flags import fresh, names_in
from ._analysis.index import Function, dotted
from ._frameworks import framework_of, pipecat
from ._frameworks.livekit import APPLICATION_OPTIONS, Module, analyse
from ._frameworks.livekit.vocabulary import (
    ADD_MESSAGE,
    CONTEXT_NAME,
    COPY_METHOD,
    ITEMS,
    copy_code,
    discarded_edit_tokens,
)
from ._frameworks.livekit.vocabulary import DISCARDABLE_EDITS as EDITS
from ._frameworks.livekit.vocabulary import DISCARDABLE_ITEM_EDITS as ITEM_EDITS
from ._frameworks.livekit.vocabulary import EDITS_RETURNING_CONTEXT as RETURNS_CONTEXT
from ._frameworks.pipecat.discarded import discarded_edits

_TRAILING_COMMENT = re.compile(r"\s*(#.*)$")


class DiscardedContextEdit(Rule):
    """
    ## What it does
    Finds an edit of a context that can never reach one: an edit method (`add_message`,
    `insert`, `remove`, `truncate`, `merge`, `items.append`, ...) called on a copy that
    nothing keeps (`agent.chat_ctx.copy().add_message(...)` as a statement); an edit of a
    read-only view (`agent.chat_ctx` answers with a read-only copy, so
    `agent.chat_ctx.add_message(...)` raises at run time); or an edit whose return value is
    written back instead of the context (`update_chat_ctx(ctx.add_message(...))` pushes
    the new message, or `None`, not `ctx`).

    On Pipecat: an edit method (`append`, `extend`, `insert`, `pop`, ...) called on a copy of
    the messages that nothing keeps (`context.get_messages().copy().append(m)`, `list(...)`,
    a slice, `copy.deepcopy(...)`, `get_messages(<filter>)`), an `add_message` on a context
    built on such a copy, a scratch copy bound to a name that is only edited and never read,
    and a context frame (Append, Update, Transform) built and never pushed (a statement, or a
    name bound to it and never used).

    ## Why is this bad?
    The author meant the context to change, and it does not: the message is lost (and the
    write-back that follows pushes the unchanged context), the call raises
    `RuntimeError: trying to modify a read-only chat context`, or the push receives a
    `ChatMessage` where a context belongs. LiveKit's bank-ivr example (`add_event_message`)
    adds every IVR event to a copy that is thrown away, then writes back the unchanged
    context.

    On Pipecat the note appended to a copy, or carried by a frame nobody pushes, never
    reaches the `LLMContext` the aggregators and the LLM read: the model never sees it.

    ## Example
    ```python
    async def add_event_message(agent, *, content):
        agent.chat_ctx.copy().add_message(role="user", content=content)
        await agent.update_chat_ctx(agent.chat_ctx)
    ```

    Use instead:
    ```python
    async def add_event_message(agent, *, content):
        chat_ctx = agent.chat_ctx.copy()
        chat_ctx.add_message(role="user", content=content)
        await agent.update_chat_ctx(chat_ctx)
    ```

    ## Fix
    Where a write-back of the same source follows in the same block (for an edit of a
    copy or a view), or the edit's result is itself written back: bind a copy
    (`chat_ctx = agent.chat_ctx.copy()`), make the edit on it, and write the copy back.
    For a returned value written back, the edit becomes its own statement before the
    write-back, which then pushes the edited context.

    ## Fix safety
    Safe. No fix when no write-back of the same source follows in the same block (the
    copy would have nowhere to go: was the edit meant for this turn only, or for good?),
    when the write-back pushes another context, or when an await runs between the edit
    and that write-back (a copy taken at the edit would be stale by then, RTL005).

    On Pipecat there is no fix (the message says so): whether the change was meant for the
    live context (`context.add_message(m)`) or for the next completion only (an Append frame)
    is the author's choice.

    Not a finding: edits of a bound copy, of the live context (`self._chat_ctx`,
    `session.history`) or of a hook's `turn_ctx`; reads of copies and views; `truncate`
    and `merge` results written back (they return the context); copies handed to a task
    or a new agent; an edit's result handed to a method named like a push that is not
    one (a user class's `log.update_chat_ctx(message, source=...)`: RTL006's page says
    what a push is). An agent is also known by the class hierarchy in the file: an
    attribute annotated `SalesDesk`, where `class SalesDesk(Agent)`, reads `chat_ctx` as
    a read-only copy.

    Known limit: `merge` (or `truncate`) on a read-only view whose result is kept
    (`merged = old_agent.chat_ctx.merge(other)`, then `merged.items` used) is not reported.
    Whether it raises depends on the framework's version: LiveKit's read-only list blocks
    `insert`, which `merge` uses, from 1.8 on (and LiveKit itself changed such a line to
    `old_agent.chat_ctx.copy().merge(...)`), but not in earlier releases and forks, where the
    merge lands in the view's own fresh list and the kept result is correct.
    """

    code = "RTL007"
    name = "discarded-context-edit"
    summary = "a context edit is made on a copy nothing keeps, on a read-only view, or its result is written back"
    fix_availability = "sometimes"
    options = APPLICATION_OPTIONS + pipecat.OPTIONS

    VALID = [
        """
async def f(agent, text):
    ctx = agent.chat_ctx.copy()
    ctx.add_message(role="system", content=text)
    await agent.update_chat_ctx(ctx)
""",
    ]
    INVALID = [
        Invalid(
            """
async def f(agent, text):
    agent.chat_ctx.copy().add_message(role="system", content=text)
    await agent.update_chat_ctx(agent.chat_ctx)
""",
            lines=(3,),
            expected_fix="""
async def f(agent, text):
    chat_ctx = agent.chat_ctx.copy()
    chat_ctx.add_message(role="system", content=text)
    await agent.update_chat_ctx(chat_ctx)
""",
        )
    ]

    def required_tokens(self) -> list[tuple]:
        """One of the three shapes, on the raw bytes: `.copy(...).<edit>`, `.chat_ctx.<edit>`
        (a copying context), `update_chat_ctx(<receiver>.<edit>`."""
        names, shapes = discarded_edit_tokens(self.settings)
        reads, frames = pipecat.tokens(self.settings), pipecat.change_tokens()
        names = (*names, *(w.decode() for w in (*reads[0], *frames[0])))
        return [names, (*shapes, reads, frames)]  # the names first: a file with none is dismissed at once

    def check(self, file) -> Iterator[Finding]:
        if framework_of(file) is pipecat:
            module = pipecat.analyse(file)
            for function in module.index.functions:
                for node, message in discarded_edits(module, function):
                    message += "; no fix: push an Append frame or edit the live context (`context.add_message`)"
                    yield self.report(file, node, message, symbol=function.qualname)
            return
        module = analyse(file)
        for function in module.index.functions:
            for node in module.calls(function):
                if isinstance(node.func, ast.Attribute):
                    finding = self._check_edit(module, function, node)
                    if finding is not None:
                        yield finding

    def _check_edit(self, module: Module, function: Function, edit: ast.Call) -> Finding | None:
        method, target = edit.func.attr, edit.func.value
        if isinstance(target, ast.Attribute) and target.attr == ITEMS and method in ITEM_EDITS:
            target, method = target.value, f"{ITEMS}.{method}"
        elif method not in EDITS:
            return None
        parent = module.index.parents.get(id(edit))
        push = module.push_of(parent, function) if parent is not None else None
        written_back = push is not None and push[1] is edit and method not in RETURNS_CONTEXT
        statement = isinstance(parent, ast.Expr)
        kind = _kind(module, function, target)
        file = module.file
        if kind == "copy" and (statement or written_back):
            message = (
                f"`{method}` edits a copy that nothing keeps (`{_short(file, target)}`): "
                "the edit never reaches a context"
            )
        elif kind == "view" and (statement or method not in RETURNS_CONTEXT):
            message = (
                f"`{_short(file, target)}` is a read-only copy (the property answers with one): `{method}` on it "
                f"raises at run time"
            )
        elif written_back:
            returned = "a message" if method == ADD_MESSAGE else "None"
            message = f"the write-back pushes what `{method}` returns ({returned}), not the context it edited"
        else:
            return None
        if written_back:
            plan = _plan_written_back(module, parent, edit, target, kind)
        elif statement:
            plan = _plan_statement(module, function, edit, target, kind)
        else:
            plan = fx.no_fix("the edit is not a statement of its own")
        return self.report(file, edit, message, plan=plan, symbol=function.qualname)


def _kind(module: Module, function: Function, target: ast.AST) -> str | None:
    """ "copy" for `<context>.copy(...)`, "view" for a read-only `agent.chat_ctx`, else None."""
    vocabulary = module.vocabulary
    if isinstance(target, ast.Call) and isinstance(target.func, ast.Attribute) and target.func.attr == COPY_METHOD:
        context = target.func.value
        if isinstance(context, ast.Attribute) and (
            context.attr in vocabulary.copying_contexts or module.is_local_context(context, function)
        ):
            return "copy"
        if module.snapshot_flow(function).origins(context):
            return "copy"
    if (
        isinstance(target, ast.Attribute)
        and target.attr in vocabulary.copying_contexts
        and module.is_agent(target.value, function)
    ):
        return "view"
    return None


def _short(file, node: ast.AST) -> str:
    text = " ".join(file.segment(node).split())
    return text if len(text) <= 50 else text[:47] + "..."


def _copy_of(file, target: ast.AST, kind: str | None) -> str | None:
    """The expression a bound copy is made from, or None when the target is kept as is."""
    if kind == "copy":
        return file.segment(target)
    if kind == "view":
        return copy_code(file.segment(target))
    return None


def _plan_statement(module: Module, function: Function, edit: ast.Call, target: ast.AST, kind: str) -> fx.Plan:
    file, index = module.file, module.index
    source = target.func.value if kind == "copy" else target
    owner, source_text = file.segment(source.value) if isinstance(source, ast.Attribute) else None, file.segment(source)
    statement = index.statement_of(edit)
    block = _block_of(index, statement)
    write_back = None
    for later in block[block.index(statement) + 1 :]:
        for node in walk(later):
            push = module.push_of(node, function)
            if push is not None and push[1] is not None and file.segment(push[0]) == owner:
                write_back = (node, push[1])
                break
        if write_back:
            break
    if write_back is None:
        return fx.no_fix(f"no write-back of `{_short(file, source)}` follows in the same block")
    call, pushed = write_back
    if file.segment(pushed) != source_text:
        return fx.no_fix(f"the write-back at line {call.lineno} pushes another context than `{_short(file, source)}`")
    if module.graph(function).may_run_between(edit, call, is_await):
        return fx.no_fix(
            f"an await runs between the edit and the write-back at line {call.lineno}; a copy taken at the edit "
            f"would be stale by then"
        )
    name = fresh(CONTEXT_NAME, names_in(function.node))
    binding = f"{name} = {_copy_of(file, target, kind)}\n"
    edit_path, push_path = file.path_of(statement), file.path_of(index.statement_of(call))
    target_text, push_text = file.segment(target), file.segment(call)

    def apply(editor) -> None:
        located = editor.locate(edit_path)
        editor.insert_before(located, [editor.statement(binding)])
        fx.replace_expression(editor, located, target_text, lambda node: fx.name_node(name), text=lambda node: name)
        fx.write_push_argument(editor, editor.locate(push_path), push_text, name)

    return fx.Plan("safe", "", [apply])


def _block_of(index, statement: ast.stmt) -> list[ast.stmt]:
    parent = index.parents.get(id(statement))
    for field in ("body", "orelse", "finalbody"):
        block = getattr(parent, field, None)
        if isinstance(block, list) and any(s is statement for s in block):
            return block
    return [statement]


def _plan_written_back(module: Module, call: ast.Call, edit: ast.Call, target: ast.AST, kind: str | None) -> fx.Plan:
    file, index = module.file, module.index
    function = index.function_of_node(call)
    copy = _copy_of(file, target, kind)
    if copy is None and not (isinstance(target, (ast.Name, ast.Attribute)) and dotted(target)):
        return fx.no_fix("the edited context has no name to write back")
    name = fresh(CONTEXT_NAME, names_in(function.node)) if copy is not None else file.segment(target)
    statement = index.statement_of(call)
    edit_text = name + file.segment(edit)[len(file.segment(target)) :]
    # continuation lines are rendered relative to the block's indentation (LibCST adds it)
    edit_text = fx.dedent_continuation(edit_text, edit.col_offset)
    rest = file.lines[edit.end_lineno - 1][edit.end_col_offset :]
    comment = _TRAILING_COMMENT.match(rest.rstrip("\r\n"))
    if comment:  # a comment right after the edit goes with it
        edit_text += "  " + comment.group(1)
    lines = ([f"{name} = {copy}\n"] if copy is not None else []) + [edit_text + "\n"]
    path, push_text = file.path_of(statement), file.segment(call)

    def apply(editor) -> None:
        located = editor.locate(path)
        editor.insert_before(located, [editor.statement(line) for line in lines])
        fx.write_push_argument(editor, located, push_text, name)

    return fx.Plan("safe", "", [apply])
