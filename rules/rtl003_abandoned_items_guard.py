"""RTL003 abandoned-items-guard (the never-played message leak)."""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import TYPE_CHECKING, Iterator, Sequence

from rtlint.astnodes import walk
from rtlint.context import FileContext, StatementPath
from rtlint.findings import Applicability, Finding
from rtlint.rule import Invalid, Option, Rule

from ._analysis.blocks import body_start, statement_holding
from ._analysis.flags import (
    Flag,
    attribute_path,
    attribute_read,
    empty_list_target,
    flag_in_guard,
    flags_from,
    fresh,
    marked_before,
    names_in,
    parent_in,
)
from ._analysis.index import Function, index
from ._analysis.loops import early_exits, filling_loops, runs_before
from ._edits import or_into, squash
from ._realtime import OPTIONS, Push, analyse, required_tokens
from ._realtime.contexts import pushed_source

if TYPE_CHECKING:
    from rtlint.cstedit import Editor

# -- detection ------------------------------------------------------------------------------


@dataclass
class _Loop:
    """A loop over a stream that fills the list, with its early exits."""

    node: ast.For | ast.AsyncFor | ast.While
    function: ast.AST  # the function the loop is in (the guard's, or one nested in it)
    target: str | None  # the variable holding the current item
    stream: str | None  # a stream that can be drained
    pull: ast.stmt | None  # `msg = await anext(stream)` in a while loop
    appends: list[ast.AST]
    exits: list[ast.stmt]


@dataclass
class _Guard:
    function: Function
    definition: ast.stmt  # `L = []`
    name: str
    loops: list[_Loop]
    guard: ast.If
    flag: Flag
    push: Push


def _guards(file: FileContext) -> Iterator[_Guard]:
    pushes = analyse(file).pushes
    for function in index(file).functions:
        own_pushes = [p for p in pushes if p.function.node is function.node]
        if isinstance(function.node, ast.AsyncFunctionDef) and own_pushes:
            yield from _guards_in(file, function, own_pushes)


def _guards_in(file: FileContext, function: Function, pushes: list[Push]) -> Iterator[_Guard]:
    own = index(file).nodes(function.node)
    guards = [n for n in own if isinstance(n, ast.If)]
    for definition in own:
        name = empty_list_target(definition)
        loops = _loops_filling(file, function.node, name) if name else []
        if not loops:
            continue
        flags = list(flags_from(own, name))
        for guard in guards:
            if not runs_before(file, function.node, definition, guard):
                continue
            push = next((p for p in pushes if statement_holding(file, guard.body, p.stmt) is not None), None)
            flag = flag_in_guard(guard, name, flags) if push else None
            if flag is not None and not _already_tracked(file, guard, loops):
                yield _Guard(function, definition, name, loops, guard, flag, push)


def _loops_filling(file: FileContext, function: ast.AST, name: str) -> list[_Loop]:
    """Loops over a stream (here, or in nested functions sharing the list) that add to it
    and leave early; a `return` from the guard's own function skips the guard: not this bug."""
    loops = []
    for c in filling_loops(file, function):
        if name in c.adds and name not in c.bindings:
            exits = [e for e in early_exits(c.node) if not (isinstance(e, ast.Return) and c.scope is function)]
            if exits:
                loops.append(_Loop(c.node, c.scope, c.target, c.stream, c.pull, list(c.adds[name]), exits))
    return loops


def _already_tracked(file: FileContext, guard: ast.If, loops: list[_Loop]) -> bool:
    """Whether the guard uses a variable that is set right before every early exit."""
    in_guard = {n.id for n in walk(guard.test) if isinstance(n, ast.Name)}
    exits = [(loop.function, e) for loop in loops for e in loop.exits]
    return any(all(marked_before(file, f, e, name) for f, e in exits) for name in in_guard)


# -- the fix --------------------------------------------------------------------------------


@dataclass(frozen=True)
class ExitPlan:
    path: StatementPath
    record_current: str | None  # code of the current item's id, when it never entered the list
    drain: str | None  # the stream whose rest to drain here


@dataclass(frozen=True)
class AbandonPlan:
    flag: str  # e.g. "message_outputs_abandoned"
    ids: str | None  # e.g. "message_outputs_abandoned_ids"; None when ids cannot be known
    id_attribute: str | None
    drain_variable: str
    declare_after: StatementPath  # the list's creation
    nonlocal_at: tuple[tuple[StatementPath, bool], ...]  # (first statement, insert after it)
    exits: tuple[ExitPlan, ...]
    skipped: tuple[tuple[StatementPath, str], ...]  # (`flag = True` statement, id code) in the flag loop
    guard: StatementPath
    widen: str  # code of the guard's flag expression to widen
    negated: bool  # the flag is used as `not flag`
    drop_before: StatementPath | None  # statement of the guard's body holding the push
    pushed: str | None  # the context the cleanup pushes (abandoned items are dropped from it)
    applicability: Applicability = "safe"  # always: the flag only widens the guard
    reason: str = ""

    def apply(self, editor: Editor) -> None:
        declarations = [f"{self.flag} = False\n"] + ([f"{self.ids}: list[str] = []\n"] if self.ids else [])
        editor.insert_after(editor.locate(self.declare_after), [editor.statement(c) for c in declarations])
        for path, after_docstring in self.nonlocal_at:
            insert = editor.insert_after if after_docstring else editor.insert_before
            insert(editor.locate(path), [editor.statement(f"nonlocal {self.flag}\n")])
        for exit in self.exits:
            lines = [f"{self.flag} = True\n"]
            if exit.record_current:
                lines.append(f"{self.ids}.append({exit.record_current})\n")
            if exit.drain:
                lines.append(
                    f"async for {self.drain_variable} in {exit.drain}:\n"
                    f"    {self.ids}.append({self.drain_variable}.{self.id_attribute})\n"
                )
            editor.insert_before(editor.locate(exit.path), [editor.statement(code) for code in lines])
        for path, expression in self.skipped:
            editor.insert_after(editor.locate(path), [editor.statement(f"{self.ids}.append({expression})\n")])
        widen = or_into(editor, self.widen, self.flag, self.negated)
        editor.replace(editor.locate(self.guard), lambda updated: updated.with_changes(test=updated.test.visit(widen)))
        if self.drop_before is not None and self.pushed:
            drop = f"{self.pushed}.items[:] = [\n    item for item in {self.pushed}.items if item.id not in {self.ids}\n]\n"
            editor.insert_before(editor.locate(self.drop_before), [editor.statement(drop)])


def _plan(file: FileContext, found: _Guard, candidates: Sequence[str]) -> AbandonPlan:
    """A flag set at every early exit and ORed into the guard; with an id attribute, the
    abandoned items' ids too, dropped from the context the cleanup pushes."""
    function = found.function.node
    nested = [loop.function for loop in found.loops if loop.function is not function]
    taken = names_in(function)
    flag_name = fresh(f"{found.name}_abandoned", taken)
    id_attribute = attribute_read(function, [loop.target for loop in found.loops], candidates)
    ids = fresh(f"{found.name}_abandoned_ids", taken | {flag_name}) if id_attribute else None
    flag, guard = found.flag, found.guard
    skipped: list[tuple[StatementPath, str]] = []
    if ids and flag.loop is not None and isinstance(flag.loop.target, (ast.Name, ast.Tuple)):
        expression = attribute_path(flag.loop, id_attribute)
        skipped = [(file.path_of(stmt), expression) for stmt in flag.sets] if expression else []
    drop_before, pushed = _drop_target(file, found) if ids else (None, None)
    widen = flag.node if flag.name is None else next(
        n for n in walk(guard.test) if isinstance(n, ast.Name) and n.id == flag.name
    )
    parent = parent_in(guard.test, widen)
    return AbandonPlan(
        flag=flag_name, ids=ids, id_attribute=id_attribute, drain_variable=fresh("_rtlint_abandoned", taken),
        declare_after=file.path_of(found.definition), nonlocal_at=tuple(dict.fromkeys(body_start(file, f) for f in nested)),
        exits=tuple(_exit_plans(file, found.loops, ids, id_attribute)), skipped=tuple(skipped),
        guard=file.path_of(guard), widen=squash(file.segment(widen)),
        negated=isinstance(parent, ast.UnaryOp) and isinstance(parent.op, ast.Not),
        drop_before=drop_before, pushed=pushed,
    )


def _exit_plans(file: FileContext, loops: list[_Loop], ids: str | None, id_attribute: str | None) -> Iterator[ExitPlan]:
    """At each exit: record the current item when it cannot have entered the list yet (no
    append and, in a `while`, the pull ran earlier in this pass), and drain the stream."""
    for loop in loops:
        for stmt in loop.exits:
            record = None
            if ids and loop.target and not any(runs_before(file, loop.function, a, stmt) for a in loop.appends):
                if loop.pull is None or runs_before(file, loop.function, loop.pull, stmt):
                    record = f"{loop.target}.{id_attribute}"
            yield ExitPlan(file.path_of(stmt), record, loop.stream if ids else None)


def _drop_target(file: FileContext, found: _Guard) -> tuple[StatementPath | None, str | None]:
    """Where to drop the abandoned ids (the guard's statement holding the push), and from
    which context: the one the cleanup pushes, or what it was copied from."""
    anchor = statement_holding(file, found.guard.body, found.push.stmt)
    if anchor is None or found.push.argument is None:
        return None, None
    text = pushed_source(file, found.function.node, anchor, found.push)
    return (file.path_of(anchor), text) if text else (None, None)


# -- the rule and its documentation -----------------------------------------------------------
class AbandonedItemsGuard(Rule):
    """
    ## What it does
    Finds a cleanup push guarded by a flag that is computed only from a list `L` (a loop
    over `L` that sets it, `any(...)` or `all(...)` over `L`, ...), where `L` is filled by a
    loop over a stream that can leave early (`break`, or `return` from a nested function)
    and so abandon the stream's remaining items, which never enter `L`.

    ## Why is this bad?
    The cleanup is meant to remove the abandoned items server-side, but the flag scans `L`,
    the very list they were left out of, so it can never fire for them. In LiveKit Agents,
    `_process_messages` breaks out of the message stream when the speech is interrupted,
    and the never-played messages stayed in the server conversation: the model later
    referred to answers the user never heard (the never-played message leak).

    ## Example
    ```python
    outputs = []
    async for msg in stream:
        if interrupted():
            break
        outputs.append(await play(msg))
    any_skipped = any(o.skipped for o in outputs)
    if any_skipped:
        await self._rt_session.update_chat_ctx(self._agent._chat_ctx)
    ```

    Use instead: set a flag at every early exit and OR it into the guard, and make the
    cleanup push a context without the abandoned items:
    ```python
    outputs = []
    outputs_abandoned = False
    outputs_abandoned_ids: list[str] = []
    async for msg in stream:
        if interrupted():
            outputs_abandoned = True
            outputs_abandoned_ids.append(msg.message_id)
            async for _rtlint_abandoned in stream:
                outputs_abandoned_ids.append(_rtlint_abandoned.message_id)
            break
        outputs.append(await play(msg))
    any_skipped = any(o.skipped for o in outputs)
    if (any_skipped or outputs_abandoned):
        self._agent._chat_ctx.items[:] = [
            item for item in self._agent._chat_ctx.items if item.id not in outputs_abandoned_ids
        ]
        await self._rt_session.update_chat_ctx(self._agent._chat_ctx)
    ```

    ## Fix
    Declares `<L>_abandoned = False` beside `L`, sets it at every early exit of the loop
    (with `nonlocal` when the loop is in a nested function) and ORs it into the guard
    (`(not flag or L_abandoned)` for a negated flag).

    The flag alone is not enough where the server's items are echoed into the local context
    as placeholders (LiveKit's `_on_remote_item_added`): the cleanup would push a context
    that still holds them and delete nothing. So the fix also records the ids of the items
    the cleanup is for: at each early exit, the current item (when it had not entered `L`)
    and, for an `async for` (or `await anext(...)`) over a stream, the rest of the stream,
    drained; in a loop over `L` that sets the flag, the entries that set it. Before the
    cleanup push, those ids are dropped from the pushed context. The id attribute is the
    first of `abandoned-item-ids` that the code reads from the items (`msg.message_id`).

    ## Fix safety
    Draining waits for the stream to end, as the loop itself would have; a stream that never
    ends after an early exit would hold the cleanup. When the ids cannot be known (the code
    reads no id attribute from the items), the fix adds the flag only and the message says
    so. A synchronous loop over a list records only the current item.

    Not a finding: a loop with no early exit; a guard that already uses a variable set at
    every early exit; a flag that is not derived from the list; a `return` that leaves the
    function of the guard (the guard never runs on that path).
    """

    code = "RTL003"
    name = "abandoned-items-guard"
    summary = "a cleanup guard is computed from a list that omits the items abandoned at an early exit"
    fix_availability = "always"
    options = OPTIONS + (
        Option(
            "abandoned-item-ids",
            ["message_id", "item_id", "id"],
            "attributes that identify a stream item, tried in order (the first one the code uses)",
        ),
    )

    VALID = [
        """
class A:
    async def f(self, stream):
        outputs = []
        async for msg in stream:
            outputs.append(msg)
        any_skipped = any(o.skipped for o in outputs)
        if any_skipped:
            await self._rt_session.update_chat_ctx(self._agent._chat_ctx)
""",
    ]
    INVALID = [
        Invalid(
            """
class A:
    async def f(self, stream, handle):
        outputs = []
        async for msg in stream:
            if handle.interrupted:
                break
            outputs.append(msg)
        any_skipped = any(o.skipped for o in outputs)
        if handle.interrupted and any_skipped:
            await self._rt_session.update_chat_ctx(self._agent._chat_ctx)
""",
            lines=(10,),
        )
    ]

    def required_tokens(self) -> list[tuple[str, ...]]:
        return required_tokens(self.settings)


    def check(self, file: FileContext) -> Iterator[Finding]:
        for found in _guards(file):
            plan = _plan(file, found, self.settings.get("abandoned-item-ids", ()))
            exit_lines = sorted({e.lineno for loop in found.loops for e in loop.exits})
            many = len(exit_lines) > 1
            what = f"`{found.flag.name}`" if found.flag.name else "its scan"
            message = (
                f"cleanup guard depends on {what}, computed only from `{found.name}`; the items abandoned at "
                f"the early exit{'s' * many} (line{'s' * many} {', '.join(map(str, exit_lines))}) never "
                f"enter `{found.name}`, so the cleanup push at line {found.push.call.lineno} cannot run for them"
            )
            if plan.ids is None:
                message += " (the fix adds the flag only: no id attribute of the items is used, so copies echoed into the pushed context are not dropped)"
            guard = found.guard
            finding = self.report(file, guard, message, plan=plan, symbol=found.function.qualname)
            # the guard is the `if` line; it ends where its test ends
            finding.end_line, finding.end_column = file.position(guard.test.end_lineno, guard.test.end_col_offset)
            yield finding
