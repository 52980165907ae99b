"""RTL001 stale-mirror-snapshot (LiveKit Agents issue 7880)."""

from __future__ import annotations

import ast
import dataclasses
from collections.abc import Iterator

from rtlint.core.context import FileContext
from rtlint.core.findings import Finding
from rtlint.core.rule import Invalid, Rule

from . import _lockfix
from ._analysis.cfg import Graph, Point, graph
from ._analysis.index import Function, dotted, walk_function
from ._analysis.paths import StatementPath, block_run, region
from ._frameworks.livekit import (
    REALTIME_OPTIONS,
    Module,
    StaleSnapshot,
    analyse,
    push_lock,
    push_tokens,
    stale_snapshots,
)

_NO_REGION = "no block of statements holds the snapshot and the push on every path between them"


class StaleMirrorSnapshot(Rule):
    """
    ## What it does
    Finds a snapshot of a realtime session's mirror (`self._rt_session.chat_ctx.copy()`)
    that flows, through local names and context-building calls (`add_message`,
    `items.extend`, `insert`, slicing, ...), into an awaited push (`update_chat_ctx`), where
    the snapshot and the push are not both inside one `async with <push lock>:` block that
    stays held from the snapshot to the push (a loop's next pass takes the lock anew).

    ## Why is this bad?
    The mirror only catches up when the server acknowledges a push. While another push
    awaits its acknowledgement, a snapshot taken now lacks that push's items, and when this
    push is diffed against the caught-up mirror those items look deleted: a
    `conversation.item.delete` goes out for them. In LiveKit Agents 1.8.8 a text user turn
    queued during a tool-output push deleted the `function_call_output` server-side, and
    every later reply was generated without the tool result (issue 7880).

    ## Example
    ```python
    async def say(self, text):
        chat_ctx = self._rt_session.chat_ctx.copy()
        chat_ctx.add_message(role="user", content=text)
        await self._rt_session.update_chat_ctx(chat_ctx)
    ```

    Use instead:
    ```python
    async def say(self, text):
        async with self._rt_chat_ctx_lock:
            chat_ctx = self._rt_session.chat_ctx.copy()
            chat_ctx.add_message(role="user", content=text)
            await self._rt_session.update_chat_ctx(chat_ctx)
    ```
    The lock must be held by every push of the class (RTL004 finds the others), so that no
    snapshot is taken while a push awaits its acknowledgement.

    ## Fix
    Wraps the statements from the snapshot through the push (the `try`/`except` around the
    push included; the whole loop when the push comes on a later pass, or when only some
    passes take the snapshot they all push) in
    `async with self.<push lock>:`, using the class's lock, or adding
    `self._rt_chat_ctx_lock = asyncio.Lock()` to `__init__` (and `import asyncio`).

    ## Fix safety
    Not fixed when the region would take the lock again: it awaits a method of the class that
    takes it (or will, once every push of the class is locked), or a task of one, or a
    method that holds the lock calls this one (asyncio locks are not re-entrant), or when
    no block of statements holds the snapshot and the push on every path between them.
    Unsafe (only with `--unsafe-fixes`) when the region yields while holding the lock, when
    the class has no `__init__` (the lock becomes a class attribute shared by every
    instance), when its `__slots__` cannot be extended, or when there is no class (a
    module-level lock serializes every session). The message says which.

    Not a finding: a snapshot that is only read; a copy of the agent's own context; a
    synchronous function; a snapshot and push already under one push lock.
    """

    code = "RTL001"
    name = "stale-mirror-snapshot"
    summary = "a snapshot of the session mirror is pushed without holding the push lock"
    fix_availability = "sometimes"
    options = REALTIME_OPTIONS

    VALID = [
        """
class A:
    async def f(self):
        async with self._rt_chat_ctx_lock:
            ctx = self._rt_session.chat_ctx.copy()
            await self._rt_session.update_chat_ctx(ctx)
""",
        """
class A:
    async def f(self):
        n = len(self._rt_session.chat_ctx.items)
        await self._rt_session.update_chat_ctx(self._agent.chat_ctx.copy())
""",
    ]
    INVALID = [
        Invalid(
            """
import asyncio

class A:
    def __init__(self):
        self._lock = asyncio.Lock()

    async def f(self):
        ctx = self._rt_session.chat_ctx.copy()
        await self._rt_session.update_chat_ctx(ctx)
""",
            lines=(9,),
            expected_fix="""
import asyncio

class A:
    def __init__(self):
        self._lock = asyncio.Lock()
        self._rt_chat_ctx_lock = asyncio.Lock()

    async def f(self):
        async with self._rt_chat_ctx_lock:
            ctx = self._rt_session.chat_ctx.copy()
            await self._rt_session.update_chat_ctx(ctx)
""",
        )
    ]

    def required_tokens(self) -> list[tuple[object, ...]]:
        return push_tokens(self.settings)

    def check(self, file: FileContext) -> Iterator[Finding]:
        module = analyse(file)
        planned = []
        for stale in stale_snapshots(module):
            first, last, held = _region(module, stale)
            plan = _lockfix.plan(module, stale.snapshot.function, first, last)
            if not held:  # a lock around no block would stay held from the snapshot to the push
                plan = dataclasses.replace(plan, applicability=None, reason=_NO_REGION)
            planned.append((stale, plan))
        shallower = _by_block(planned)
        for stale, plan in planned:
            function = stale.snapshot.function
            outer = _enclosing_fix(plan, shallower)
            if outer is not None:  # both fixes in one pass would nest the lock: a deadlock
                reason = f"the fix of the snapshot at line {outer.snapshot.node.lineno} holds the lock over it"
                plan = dataclasses.replace(plan, applicability=None, reason=reason)
            yield self.report(
                file,
                stale.snapshot.node,
                _message(stale, function, module, plan.lock_expression, plan.applicability),
                plan=plan,
                symbol=function.qualname,
            )


def _region(module: Module, stale: StaleSnapshot) -> tuple[StatementPath, StatementPath, bool]:
    """The statements from the snapshot through the last push it reaches, widened to the
    loops around them until no path from the snapshot to a push leaves them (a lock around
    the statements alone would be released and taken again on the way: a push on a later
    pass, or a snapshot only some passes take); False when no block does."""
    snapshot = stale.snapshot
    last_push = max(stale.pushes, key=lambda p: (p.stmt.lineno, p.stmt.col_offset))
    first, last = region(module.path(snapshot.stmt), module.path(last_push.stmt))
    statements = block_run(module.file.tree, first, last)
    g = graph(module.file, snapshot.function.node)
    while not _held_throughout(g, snapshot.node, [p.call for p in stale.pushes], statements):
        loop = _loop_around(module, statements[0])
        if loop is None:
            return first, last, False
        first = last = module.path(loop)
        statements = [loop]
    return first, last, True


_Planned = list[tuple[StaleSnapshot, _lockfix.LockPlan]]


def _by_block(planned: _Planned) -> dict[tuple, list[tuple[int, StaleSnapshot, _lockfix.LockPlan]]]:
    """The plans with a fix, by lock and the block their region starts in (its path but
    the last step), with their order: a plan looks up only the blocks above its own."""
    found: dict[tuple, list[tuple[int, StaleSnapshot, _lockfix.LockPlan]]] = {}
    for order, (stale, plan) in enumerate(planned):
        if plan.applicability is not None:
            found.setdefault((plan.lock_expression, plan.first[:-1]), []).append((order, stale, plan))
    return found


def _enclosing_fix(plan: _lockfix.LockPlan, by_block: dict) -> StaleSnapshot | None:
    """The finding whose fix puts the same lock around a block holding this plan's region
    deeper down (the editor lifts only an `async with` of the lock at the top of a region);
    the first such in the findings' order. Each plan looks at the blocks on its own path
    only: linear in the findings, not quadratic."""
    best = None
    for depth in range(1, len(plan.first)):
        step = plan.first[depth - 1]
        for order, stale, other in by_block.get((plan.lock_expression, plan.first[: depth - 1]), ()):
            low, high = other.first[-1], other.last[-1]
            if other is not plan and step[:-1] == low[:-1] and low[-1] <= step[-1] <= high[-1]:
                if best is None or order < best[0]:
                    best = (order, stale)
                break  # the first of this block in order; a later one cannot come first
    return None if best is None else best[1]


def _held_throughout(g: Graph, snapshot: ast.AST, pushes: list[ast.AST], statements: list[ast.stmt]) -> bool:
    """Whether every push runs after the snapshot inside `statements`, on no path that
    leaves them before the push (without taking the snapshot again)."""
    inside = {id(n) for s in statements for n in walk_function(s) if isinstance(n, ast.stmt)}

    def outside(point: Point) -> bool:
        owner = g.owner[point.unit]
        return owner is None or id(owner) not in inside

    return all(
        g.reaches_within(snapshot, push, statements) and not g.may_run_between(snapshot, push, outside)
        for push in pushes
    )


def _loop_around(module: Module, stmt: ast.stmt) -> ast.stmt | None:
    """The innermost loop of the function around `stmt`."""
    for ancestor in module.ancestors(stmt):
        if isinstance(ancestor, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return None
        if isinstance(ancestor, (ast.For, ast.AsyncFor, ast.While)):
            return ancestor
    return None


def _message(stale: StaleSnapshot, function: Function, module: Module, expression: str, applicability: object) -> str:
    lock = push_lock(module, function.cls)
    if lock and function.self_name:
        where = f"outside {function.self_name}.{lock}"
    elif applicability is not None:
        where = f"outside a push lock (the fix adds {expression})"
    else:
        where = "outside a push lock"
    push = stale.push.call
    return (
        f"snapshot of {dotted(stale.snapshot.node) or 'the session mirror'} is taken {where}; "
        f"{push.func.attr} at line {push.lineno} can delete items of a push in flight"
    )
