"""RTL002 late-local-commit (LiveKit Agents issue 7906)."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rtlint.core.astnodes import walk
from rtlint.core.context import FileContext, StatementPath
from rtlint.core.findings import Applicability, Finding
from rtlint.core.rule import Invalid, Option, Rule
from rtlint.core.settings import Settings
from rtlint.fix.imports import get_or_import

from ._analysis.blocks import (
    calls_after,
    conditions_between,
    failure_blocks,
    failure_exits,
    follows,
    hoist_point,
    in_loop,
)
from ._analysis.index import TryNode, dotted, index
from ._analysis.loops import assignments_reaching, names_bound_between
from ._analysis.paths import region, statement_at
from ._edits import removal_code
from ._frameworks.livekit import REALTIME_OPTIONS, Push, analyse, flow, push_tokens
from ._frameworks.livekit.realtime.contexts import Item, commit_call, committed_before, pushed_contexts, pushed_items
from ._frameworks.livekit.vocabulary import ADDITIVE_ITEM_EDITS, ITEMS, UPSERT_METHOD

if TYPE_CHECKING:
    from rtlint.fix.editor import Editor


# -- detection ------------------------------------------------------------------------------
@dataclass
class _Late:
    push: Push
    commit: ast.Expr
    local: str  # the local context committed to
    items: list[Item]
    order: str  # "after" (a later statement), "else" or "finally" (of the try around the push)
    rebound: set[str]  # names bound after the push and before the commit


def _late_commits(file: FileContext) -> Iterator[_Late]:
    reported: set[int] = set()  # one finding per commit, whichever push it follows
    for late in (late for push in analyse(file).pushes for late in _after(file, push)):
        if id(late.commit) not in reported:
            reported.add(id(late.commit))
            yield late


def _after(file: FileContext, push: Push) -> Iterator[_Late]:
    function = push.function.node
    contexts = pushed_contexts(file, function, push)
    items = pushed_items(file, function, push, contexts) if contexts else {}
    if not items:
        return
    carried = flow(analyse(file), push.function)
    for stmt in index(file).nodes(function):
        target, committed = commit_call(stmt) or (None, [])
        pushed = [items[name] for name in committed if name in items]
        local = dotted(target) if pushed and len(pushed) == len(committed) else None
        if local is None or local.split(".")[0] in contexts or carried.origins(target):
            continue  # not (only) pushed items; or building a pushed context or a mirror copy
        order = follows(file, function, push.call, stmt)
        rebound = names_bound_between(file, function, push.call, stmt) if order else set()
        if order is None or any(item.name in rebound for item in pushed):
            continue  # a rebound name holds another item, not the one pushed
        if not committed_before(file, function, local, committed, push.stmt):
            yield _Late(push, stmt, local, pushed, order, rebound)


# -- the fix --------------------------------------------------------------------------------
@dataclass(frozen=True)
class OrderingPlan:
    applicability: Applicability | None  # None: no sound fix
    reason: str  # why it is unsafe or not fixable ("" when safe)
    moves: tuple[StatementPath, ...] = ()  # the late commit, and calls that move with it (opted in)
    before: StatementPath = ()  # the statement to put them before
    rollbacks: tuple[StatementPath, ...] = ()  # first statements of the blocks that undo it
    undo: tuple[str, ...] = ()  # statements that remove the items from the local context again
    # `name = None` for items a rollback can meet unbound, before the try that binds them
    unset: tuple[StatementPath, tuple[str, ...]] | None = None
    import_at: tuple[StatementPath, bool] | None = None  # where `import contextlib` goes

    def apply(self, editor: Editor) -> None:
        editor.move_before(editor.locate(self.before), *(editor.locate(path) for path in self.moves))
        for path in self.rollbacks:
            editor.insert_before(editor.locate(path), [editor.statement(code) for code in self.undo])
        if self.unset is not None:
            path, names = self.unset
            editor.insert_before(editor.locate(path), [editor.statement(f"{name} = None\n") for name in names])
        if self.import_at is not None:
            path, after = self.import_at
            editor.insert_import(editor.locate(path), after, "import contextlib\n")


def _plan(file: FileContext, late: _Late, settings: Settings) -> OrderingPlan:
    """Move the commit before the push (under its lock, after the items exist); undo it where the push fails."""
    push, commit, items = late.push, late.commit, late.items
    push_path, commit_path = file.path_of(push.stmt), file.path_of(commit)
    shared = len(region(push_path, commit_path)[0])
    start = shared - 1  # the statement holding the push in the shared block
    used = {n.id for n in walk(commit) if isinstance(n, ast.Name)} & late.rebound
    if used:
        return OrderingPlan(None, f"the commit uses {', '.join(sorted(used))}, computed after the push")
    unsafe = []
    if late.order == "after" and start > 0:  # commit and push in one try body: the commit goes before that try
        parent = statement_at(file.tree, push_path[:start])
        if isinstance(parent, TryNode) and push_path[start][0] == "body":
            if commit_path[-1][-1] < len(parent.body) - 1 and len(commit_path) == start + 1:
                unsafe.append(
                    "the try around the push also covers statements after the commit, whose failure would now undo it"
                )
            start -= 1
    definitions = [assignments_reaching(file, push.function.node, item.name, push.call) for item in items]
    defined = [d for found in definitions for d in found if d is not None]  # None: a parameter
    locks = [r.stmt for r in analyse(file).locks.regions(push.call, push.function)]
    anchor = hoist_point(file, push_path, start, locks, defined) if all(definitions) else None
    if anchor is None:
        return OrderingPlan(None, "no place before the push where the item exists")
    for item, at_push in zip(items, definitions):
        # a value of the name that reaches the commit but not the push: the commit moved
        # before the push would be lost on that value's paths
        if any(d not in at_push for d in assignments_reaching(file, push.function.node, item.name, commit.value)):
            return OrderingPlan(
                None,
                f"`{item.name}` reaches the commit also from where it is not pushed; "
                "moved before the push, the commit would be lost there",
            )
    conditions = conditions_between(file, commit_path, shared + (late.order != "after"))
    if conditions:
        unsafe.append(f"the commit is conditional ({conditions}); hoisting it makes it unconditional")
    # a commit in `finally:` ran whatever the push did: nothing to undo
    rollbacks, maybe_unbound = (
        ([], False) if late.order == "finally" else failure_exits(file, push_path, start, late.order == "else", defined)
    )
    # `_upsert_item` replaces an item of the same id: removal would not bring the old one back
    if rollbacks and commit.value.func.attr == UPSERT_METHOD and not all(item.fresh for item in items):
        unsafe.append(
            f"{late.local} may already hold the item (it is not made in this function), so undoing the commit "
            "by removal could delete an older version"
        )
    companions = calls_after(file, commit, set(settings.get("commit-companions", ())), {i.name for i in items})
    unset = _unset(file, late, push_path, start, definitions) if rollbacks and maybe_unbound else None
    if unset is not None:
        moved = [commit, *(statement_at(file.tree, path) for path in companions)]  # they go into the try
        unsafe += _seen_unset(file, late, *unset, moved)
    suppress, import_at = get_or_import(file.tree, "contextlib", "suppress")
    # the context may have been replaced meanwhile (or the item removed): ValueError
    target = f"{late.local}.{ITEMS}" if commit.value.func.attr in ADDITIVE_ITEM_EDITS else late.local
    undo = removal_code(
        target,
        settings.get("remove-method", "remove"),
        [(i.name, i.is_list) for i in items],
        suppress,
        "ValueError",
        unset=unset[1] if unset is not None else (),
    )
    return OrderingPlan(
        "unsafe" if unsafe else "safe",
        "; ".join(unsafe),
        moves=(commit_path, *companions),
        before=anchor,
        rollbacks=tuple(rollbacks),
        undo=tuple(undo),
        unset=(file.path_of(unset[0]), unset[1]) if unset is not None else None,
        import_at=import_at if rollbacks else None,
    )


def _unset(
    file: FileContext, late: _Late, push_path: StatementPath, start: int, definitions: list[list[ast.stmt | None]]
) -> tuple[ast.stmt, tuple[str, ...]] | None:
    """The outermost try around the push whose rollback handlers can run before an item is
    bound in it, and the names of those items: binding them to None before that try lets
    the rollback test them, instead of meeting an unbound name (a NameError, which no
    rollback may hide: it hides typos too)."""
    ancestors = index(file).ancestors
    holders = [
        holder
        for holder, blocks in failure_blocks(file, push_path, start, late.order == "else")
        if blocks and isinstance(holder, TryNode)
    ]
    for holder in holders:  # outermost first: failure_blocks goes down from `start`
        names = tuple(
            item.name
            for item, found in zip(late.items, definitions)
            if any(d is not None and holder in ancestors(d) for d in found)
        )
        if names:
            return holder, names
    return None


def _seen_unset(file: FileContext, late: _Late, try_stmt: TryNode, names: tuple[str, ...], moved: list) -> list[str]:
    """Why binding `names` to None before `try_stmt` is unsafe ([] when it is not): a name
    may hold an older item there, and code that runs after an early failure reads it."""
    function = late.push.function.node
    looped = in_loop(file, try_stmt, function)
    seen = [
        n
        for n in names
        if (looped or _bound_outside(file, function, try_stmt, n))
        and _read_after_failure(file, function, try_stmt, n, moved)
    ]
    if not seen:
        return []
    return [
        f"{', '.join(f'`{n}`' for n in seen)} may hold an older item when the try starts (bound before it, or in "
        "an earlier pass of the loop), and code that runs after an early failure reads it: bound to None before "
        "the try, it would see None there"
    ]


def _bound_outside(file: FileContext, function: ast.AST, stmt: ast.stmt, name: str) -> bool:
    """Whether `function` binds `name` (a parameter, an assignment, a loop or `with`
    target, ...) anywhere outside `stmt`: it may hold a value when `stmt` starts."""
    arguments = function.args
    parameters = (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs, arguments.vararg, arguments.kwarg)
    if name in {a.arg for a in parameters if a is not None}:
        return True
    inside = {id(n) for n in walk(stmt)}
    return any(
        isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store) and id(n) not in inside
        for n in index(file).nodes(function)
    )


def _read_after_failure(file: FileContext, function: ast.AST, stmt: TryNode, name: str, moved: list[ast.stmt]) -> bool:
    """Whether code other than the rollback may read `name` after `stmt` failed before
    binding it: a handler or the `finally:` reads it, or the function reads it anywhere
    outside the try (after it, past a handler that carries on, or in a later pass of a loop
    that a handler continues; conservatively, wherever that is), but for the statements the
    fix moves into the try."""

    def reads(nodes: Iterator[ast.AST]) -> bool:
        return any(isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load) for n in nodes)

    if reads(n for s in (*(s for h in stmt.handlers for s in h.body), *stmt.finalbody) for n in walk(s)):
        return True
    inside = {id(n) for s in (stmt, *moved) for n in walk(s)}
    return reads(n for n in index(file).nodes(function) if id(n) not in inside)


# -- the rule and its documentation -----------------------------------------------------------
class LateLocalCommit(Rule):
    """
    ## What it does
    Finds an item that is part of a push (returned by `add_message` on the pushed context,
    or added to it with `insert`, `items.append`, `items.extend`) and is committed to the
    local context (`_upsert_item`, `insert`, `items.append`, `add_message`) only after the
    awaited push, on some path: after the `await`, after the `try` that holds the push, or
    in its `else:` or `finally:`.

    ## Why is this bad?
    While the push awaits its acknowledgement, the local context lacks the item. A copy made
    meanwhile (an application's `session.update_chat_ctx(agent.chat_ctx.copy())`) lacks it
    too, and pushing that copy deletes the item, which the server has by then: the reply is
    generated without the user's turn (issue 7906). The tool-output paths of LiveKit Agents
    commit first and push second; the text turn did it the other way round.

    ## Example
    ```python
    msg = chat_ctx.add_message(role="user", content=text)
    try:
        await self._rt_session.update_chat_ctx(chat_ctx)
    except Exception:
        return
    self._agent._chat_ctx._upsert_item(msg)
    ```

    Use instead:
    ```python
    msg = chat_ctx.add_message(role="user", content=text)
    self._agent._chat_ctx._upsert_item(msg)
    try:
        await self._rt_session.update_chat_ctx(chat_ctx)
    except Exception:
        with contextlib.suppress(ValueError):
            self._agent._chat_ctx.remove(msg)
        return
    ```

    ## Fix
    Moves the commit to just before the push, after the item exists (inside the push lock
    when there is one, before the `try` holding the push). Every path on which the push
    fails and the original commit would not have run (a handler, or a retry loop's `else:`,
    that returns, raises or continues an outer loop) removes the item again; a best-effort
    handler that carries on keeps it, as the original code did. A commit in the `try`'s
    `else:` is undone in every handler, one in `finally:` never. Calls beside the commit
    (`_conversation_item_added`) stay where they are, unless named in `commit-companions`.

    Where the item is made inside the `try` whose handler undoes the commit, that handler
    can run before the item exists. The fix then binds the name to `None` before the `try`
    and removes the item only if it is set; it never suppresses `NameError` (that would
    hide a typo too):
    ```python
    msg = None
    try:
        async with self._rt_chat_ctx_lock:
            chat_ctx = self._rt_session.chat_ctx.copy()
            msg = chat_ctx.add_message(role="user", content=text)
            self._agent._chat_ctx._upsert_item(msg)
            await self._rt_session.update_chat_ctx(chat_ctx)
    except Exception:
        if msg is not None:
            with contextlib.suppress(ValueError):
                self._agent._chat_ctx.remove(msg)
        return
    ```

    ## Fix safety
    Unsafe (only with `--unsafe-fixes`) when the commit is conditional (under an `if`, a loop
    or a `with` after the push); when the `try` around the push also covers statements after
    the commit (their failure would now undo it); when the item may already be in the local
    context (not made in this function: removing it could delete an older version); when
    the name bound to `None` before the `try` may hold an older item there (bound earlier in
    the function, or in an earlier pass of a loop) and code that runs after an early failure
    reads it (a handler, the `finally:`, or code outside the `try`): it would see `None`
    instead. Not fixed when the commit uses a value computed after the push, or when the
    name also reaches the commit with a value that was not pushed (bound in a branch the
    push is not in: moved before the push, the commit would be lost on that path). An
    exception that escapes every handler (cancellation included) leaves the item committed,
    like the tool-output paths.

    Not a finding: a commit before the push; a commit of an item that was not pushed (a
    name rebound after the push holds another item).
    """

    code = "RTL002"
    name = "late-local-commit"
    summary = "a pushed item is committed to the local context only after the push is awaited"
    fix_availability = "sometimes"
    options = REALTIME_OPTIONS + (
        Option("remove-method", "remove", "method of a local context that removes an item (the rollback)"),
        Option(
            "commit-companions",
            [],
            "calls that directly follow a late commit with the same item and move with it "
            '(e.g. "_conversation_item_added"); by default they stay where they are',
        ),
    )

    VALID = [
        """
class A:
    async def f(self, text):
        ctx = self._rt_session.chat_ctx.copy()
        msg = ctx.add_message(role="user", content=text)
        self._agent._chat_ctx._upsert_item(msg)
        await self._rt_session.update_chat_ctx(ctx)
""",
    ]
    INVALID = [
        Invalid(
            """
import contextlib

class A:
    async def f(self, ctx, text):
        msg = ctx.add_message(role="user", content=text)
        try:
            await self._rt_session.update_chat_ctx(ctx)
        except Exception:
            return
        self._agent._chat_ctx._upsert_item(msg)
""",
            lines=(11,),
            expected_fix="""
import contextlib

class A:
    async def f(self, ctx, text):
        msg = ctx.add_message(role="user", content=text)
        self._agent._chat_ctx._upsert_item(msg)
        try:
            await self._rt_session.update_chat_ctx(ctx)
        except Exception:
            with contextlib.suppress(ValueError):
                self._agent._chat_ctx.remove(msg)
            return
""",
        )
    ]

    def required_tokens(self) -> list[tuple[str, ...]]:
        return push_tokens(self.settings)

    def check(self, file: FileContext) -> Iterator[Finding]:
        for late in _late_commits(file):
            one = len(late.items) == 1
            names, it = ", ".join(f"`{item.name}`" for item in late.items), "it" if one else "them"
            message = (
                f"{names} {'is' if one else 'are'} committed to {late.local} only after the push at "
                f"line {late.push.call.lineno} is awaited; a copy of {late.local} made during the push lacks "
                f"{it}, and pushing that copy deletes {it} server-side"
            )
            yield self.report(
                file,
                late.commit.value,
                message,
                plan=_plan(file, late, self.settings),
                symbol=late.push.function.qualname,
            )
