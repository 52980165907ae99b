"""RTL003 abandoned-items-guard (the never-played message leak)."""

from __future__ import annotations

import ast
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rtlint.core.context import FileContext, StatementPath
from rtlint.core.findings import Applicability, Finding
from rtlint.core.rule import Invalid, Option, Rule

from ._analysis.blocks import body_start, statement_holding
from ._analysis.flags import (
    Flag,
    attribute_path,
    attribute_read,
    empty_list_target,
    flag_in_guard,
    flag_operand,
    flags_from,
    fresh,
    marks_every_exit,
    names_in,
)
from ._analysis.index import Function, index
from ._analysis.loops import AbandoningLoop, abandoning_loops, runs_before
from ._edits import squash, widen_guard
from ._frameworks.livekit import REALTIME_OPTIONS, Push, analyse, push_tokens
from ._frameworks.livekit.realtime.contexts import pushed_source

if TYPE_CHECKING:
    from rtlint.fix.editor import Editor


# -- detection ------------------------------------------------------------------------------
@dataclass
class _Guard:
    function: Function
    definition: ast.stmt  # `L = []`
    name: str
    loops: list[AbandoningLoop]  # loops over a stream filling `L` that leave early
    guard: ast.If
    flag: Flag
    push: Push


def _guards(file: FileContext) -> Iterator[_Guard]:
    for function in index(file).functions:
        pushes = analyse(file).pushes_in(function.node)
        if isinstance(function.node, ast.AsyncFunctionDef) and pushes:
            yield from _guards_in(file, function, pushes)


def _guards_in(file: FileContext, function: Function, pushes: list[Push]) -> Iterator[_Guard]:
    own = index(file).nodes(function.node)
    guards = [n for n in own if isinstance(n, ast.If)]
    for definition in own:
        name = empty_list_target(definition)
        loops = abandoning_loops(file, function.node, name) if name else []
        if not loops:
            continue
        flags = list(flags_from(own, name))
        exits = [(loop.function, e) for loop in loops for e in loop.exits]
        for guard in guards:
            if not runs_before(file, function.node, definition, guard):
                continue
            push = next((p for p in pushes if statement_holding(file, guard.body, p.stmt) is not None), None)
            flag = flag_in_guard(guard, name, flags) if push else None
            if flag is not None and not marks_every_exit(file, guard.test, exits):  # else tracked already
                yield _Guard(function, definition, name, loops, guard, flag, push)


# -- the fix --------------------------------------------------------------------------------
@dataclass(frozen=True)
class AbandonPlan:
    flag: str  # e.g. "message_outputs_abandoned"
    ids: str | None  # e.g. "message_outputs_abandoned_ids"; None when ids cannot be known
    guard: StatementPath
    widen: str  # code of the guard's flag expression, to OR the flag into
    negated: bool  # the flag is used as `not flag`
    inserts: tuple[tuple[StatementPath, bool, tuple[str, ...]], ...]  # (statement, after it?, code)
    applicability: Applicability = "safe"  # unsafe where it drains a stream not known to end
    reason: str = ""

    def apply(self, editor: Editor) -> None:
        widen_guard(editor, editor.locate(self.guard), self.widen, self.flag, self.negated)
        for path, after, code in self.inserts:
            insert = editor.insert_after if after else editor.insert_before
            insert(editor.locate(path), [editor.statement(c) for c in code])


def _plan(file: FileContext, found: _Guard, candidates: Sequence[str], ending: Sequence[str]) -> AbandonPlan:
    """A flag declared beside the list, set at every early exit and ORed into the guard; with
    an id attribute, the abandoned items' ids too, dropped from the context the cleanup pushes."""
    function, flag = found.function.node, found.flag
    taken = names_in(function)
    flag_name = fresh(f"{found.name}_abandoned", taken)
    id_attribute = attribute_read(function, [loop.target for loop in found.loops], candidates)
    ids = fresh(f"{found.name}_abandoned_ids", taken | {flag_name}) if id_attribute else None
    declarations = (f"{flag_name} = False\n",) + ((f"{ids}: list[str] = []\n",) if ids else ())
    inserts = [(file.path_of(found.definition), True, declarations)]
    nested = [loop.function for loop in found.loops if loop.function is not function]
    inserts += [
        (path, after, (f"nonlocal {flag_name}\n",))
        for path, after in dict.fromkeys(body_start(file, f) for f in nested)
    ]
    drain = fresh("_rtlint_abandoned", taken)
    for loop in found.loops:
        inserts += [
            (file.path_of(e), False, tuple(_exit_code(file, loop, e, flag_name, ids, id_attribute, drain)))
            for e in loop.exits
        ]
    if ids and flag.loop is not None and isinstance(flag.loop.target, (ast.Name, ast.Tuple)):
        expression = attribute_path(flag.loop, id_attribute)  # the entries that set the flag
        inserts += (
            [(file.path_of(stmt), True, (f"{ids}.append({expression})\n",)) for stmt in flag.sets] if expression else []
        )
    inserts += _drop(file, found, ids) if ids else []
    widen, negated = flag_operand(found.guard, flag)
    # the drain waits for the stream's end: safe only for a stream known to end
    endless = sorted({loop.stream for loop in found.loops if ids and loop.stream and not _ends(loop.stream, ending)})
    reason = (
        f"at the early exit it drains {', '.join(f'`{s}`' for s in endless)} to record the abandoned items' ids, "
        "and a stream that does not end after the exit holds up the cleanup (name it in `ending-streams` if it "
        "always ends)"
        if endless
        else ""
    )
    return AbandonPlan(
        flag_name,
        ids,
        file.path_of(found.guard),
        squash(file.segment(widen)),
        negated,
        tuple(inserts),
        applicability="unsafe" if endless else "safe",
        reason=reason,
    )


def _ends(stream: str, ending: Sequence[str]) -> bool:
    """Whether `ending-streams` names the stream: its whole dotted name or its last part."""
    return stream in ending or stream.rsplit(".", 1)[-1] in ending


def _exit_code(
    file: FileContext,
    loop: AbandoningLoop,
    stmt: ast.stmt,
    flag: str,
    ids: str | None,
    id_attribute: str | None,
    drain: str,
) -> Iterator[str]:
    """At an exit: set the flag; record the current item when it cannot have entered the
    list yet (no append and, in a `while`, the pull ran earlier in this pass); drain the stream."""
    yield f"{flag} = True\n"
    if ids and loop.target and not any(runs_before(file, loop.function, a, stmt) for a in loop.appends):
        if loop.pull is None or runs_before(file, loop.function, loop.pull, stmt):
            yield f"{ids}.append({loop.target}.{id_attribute})\n"
    if ids and loop.stream:
        yield f"async for {drain} in {loop.stream}:\n    {ids}.append({drain}.{id_attribute})\n"


def _drop(file: FileContext, found: _Guard, ids: str) -> list[tuple[StatementPath, bool, tuple[str, ...]]]:
    """Drop the abandoned ids before the guard's statement holding the push, from the context
    the cleanup pushes (or what it was copied from)."""
    anchor = statement_holding(file, found.guard.body, found.push.stmt)
    pushed = (
        pushed_source(file, found.function.node, anchor, found.push)
        if anchor is not None and found.push.argument is not None
        else None
    )
    if not pushed:
        return []
    return [
        (
            file.path_of(anchor),
            False,
            (f"{pushed}.items[:] = [\n    item for item in {pushed}.items if item.id not in {ids}\n]\n",),
        )
    ]


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
        outputs.append(await play(msg.message_id, msg))
    any_skipped = any(o.skipped for o in outputs)
    if any_skipped:
        await self._rt_session.update_chat_ctx(self._agent._chat_ctx)
    ```

    Use instead: flag every early exit, and drop the abandoned items from the cleanup push
    (what `--fix --unsafe-fixes` writes, or `--fix` with `stream` in `ending-streams`):
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
        outputs.append(await play(msg.message_id, msg))
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
    that still holds them and delete nothing. So the fix also records the abandoned items'
    ids: at each early exit, the current item (if it had not entered `L`) and the rest of an
    `async for` (or `await anext(...)`) stream, drained; in a loop over `L` that sets the
    flag, the entries that set it. The cleanup drops those ids from the context it pushes.
    The id attribute: the first of `abandoned-item-ids` the code reads (`msg.message_id`).

    ## Fix safety
    Draining waits for the stream to end, as the loop itself would have, and a stream that
    never ends after an early exit (a server that does not close the response once
    interrupted, say) would hold up the cleanup for good. So a fix that drains is unsafe
    (only with `--unsafe-fixes`), and the message names the stream, unless the stream is
    known to end: name it in `ending-streams` (`["message_stream"]` where the framework
    closes it when an interrupted response is done, as LiveKit Agents does) and the fix is
    safe. A fix that drains nothing (the flag, and the current item's id) is always safe.
    When the ids cannot be known (the code reads no id attribute from the items), the fix
    adds the flag only and the message says so. A synchronous loop over a list records only
    the current item.

    Not a finding: a loop with no early exit; a guard that already uses a variable set at
    every early exit; a flag that is not derived from the list; a `return` that leaves the
    function of the guard (the guard never runs on that path).
    """

    code = "RTL003"
    name = "abandoned-items-guard"
    summary = "a cleanup guard is computed from a list that omits the items abandoned at an early exit"
    fix_availability = "always"
    options = REALTIME_OPTIONS + (
        Option(
            "abandoned-item-ids",
            ["message_id", "item_id", "id"],
            "attributes that identify a stream item, tried in order (the first one the code uses)",
        ),
        Option(
            "ending-streams",
            [],
            "streams known to end after an early exit of the loop over them (a name or attribute such as "
            '"message_stream", or the whole dotted expression): the fix\'s drain of them is safe',
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
        return push_tokens(self.settings)

    def check(self, file: FileContext) -> Iterator[Finding]:
        for found in _guards(file):
            plan = _plan(
                file, found, self.settings.get("abandoned-item-ids", ()), self.settings.get("ending-streams", ())
            )
            exit_lines = sorted({e.lineno for loop in found.loops for e in loop.exits})
            many = len(exit_lines) > 1
            what = f"`{found.flag.name}`" if found.flag.name else "its scan"
            message = (
                f"cleanup guard depends on {what}, computed only from `{found.name}`; the items abandoned at "
                f"the early exit{'s' * many} (line{'s' * many} {', '.join(map(str, exit_lines))}) never "
                f"enter `{found.name}`, so the cleanup push at line {found.push.call.lineno} cannot run for them"
            )
            if plan.ids is None:
                message += (
                    " (the fix adds the flag only: no id attribute of the items is used, "
                    "so copies echoed into the pushed context are not dropped)"
                )
            finding = self.report(file, found.guard, message, plan=plan, symbol=found.function.qualname)
            test = found.guard.test  # the finding is the `if` line: it ends where the test ends
            finding.end_line, finding.end_column = file.position(test.end_lineno, test.end_col_offset)
            yield finding
