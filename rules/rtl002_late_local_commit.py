"""RTL002 late-local-commit (LiveKit Agents issue 7906)."""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import TYPE_CHECKING, Iterator

from rtlint.astnodes import walk
from rtlint.context import FileContext, StatementPath
from rtlint.findings import Applicability, Finding
from rtlint.rule import Invalid, Option, Rule
from rtlint.settings import Settings

from ._analysis.blocks import ahead_in_block, calls_after, conditions_between, failure_blocks, in_loop
from ._analysis.index import dotted, index
from ._analysis.loops import assignments_reaching, runs_before, runs_between
from ._analysis.paths import region, statement_at
from ._realtime import OPTIONS, Push, analyse, flow, import_anchor, imports_module, required_tokens
from ._realtime.contexts import Item, commit_call, pushed_contexts, pushed_items

if TYPE_CHECKING:
    from rtlint.cstedit import Editor

_TRY = (ast.Try, getattr(ast, "TryStar", ast.Try))

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
    for push in analyse(file).pushes:
        for late in _after(file, push):
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
        commit = commit_call(stmt)
        if commit is None:
            continue
        target, committed = commit
        pushed = [items[name] for name in committed if name in items]
        local = dotted(target)
        if not pushed or len(pushed) != len(committed) or local is None:
            continue
        if local.split(".")[0] in contexts or carried.origins(target):
            continue  # building a pushed context or a mirror copy, not committing
        order = _order(file, push, stmt)
        if order is None:
            continue
        stores = [n for n in index(file).nodes(function) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)]
        rebound = {n.id for n in runs_between(file, function, push.call, stmt, stores)}
        if any(item.name in rebound for item in pushed):
            continue  # the name now holds another item, not the one pushed
        if not _committed_before(file, push, local, committed):
            yield _Late(push, stmt, local, pushed, order, rebound)


def _order(file: FileContext, push: Push, commit: ast.stmt) -> str | None:
    """How the commit follows the awaited push in one pass: "after", or in the "else" or
    "finally" of the try whose body holds the push; None if not (another branch, a handler
    of the push's own failure, a loop's `else:`)."""
    if not runs_before(file, push.function.node, push.call, commit):
        return None
    push_path, commit_path = file.path_of(push.stmt), file.path_of(commit)
    first, last = region(push_path, commit_path)
    if first != last:
        return "after"  # two statements of one block
    depth = len(first)
    if depth in (len(push_path), len(commit_path)):
        return None  # one holds the other
    owner, fields = statement_at(file.tree, first), (push_path[depth][0], commit_path[depth][0])
    if isinstance(owner, _TRY) and fields[0] == "body" and fields[1] in ("orelse", "finalbody"):
        return "else" if fields[1] == "orelse" else "finally"
    return None


def _committed_before(file: FileContext, push: Push, local: str, names: list[str]) -> bool:
    """Whether the same items were committed to the same local context before the push."""
    function = push.function.node
    for stmt in index(file).nodes(function):
        commit = commit_call(stmt)
        if commit is not None and dotted(commit[0]) == local and set(names) <= set(commit[1]):
            if runs_before(file, function, stmt, push.stmt):
                return True
    return False


# -- the fix --------------------------------------------------------------------------------


@dataclass(frozen=True)
class OrderingPlan:
    applicability: Applicability | None  # None: no sound fix
    reason: str  # why it is unsafe or not fixable ("" when safe)
    commit: StatementPath = ()  # the late commit, to move
    before: StatementPath = ()  # the statement to put it before
    companions: tuple[StatementPath, ...] = ()  # calls that move with it (opted in)
    rollbacks: tuple[StatementPath, ...] = ()  # first statements of the blocks that undo it
    undo: str = ""  # code that removes the items from the local context again
    add_import: bool = False
    import_at: tuple[StatementPath, bool] = ((), False)

    def apply(self, editor: Editor) -> None:
        target = editor.locate(self.before)
        for path in (self.commit, *self.companions):
            editor.move_before(editor.locate(path), target)
        undo = editor.statement(self.undo)
        for path in self.rollbacks:
            editor.insert_before(editor.locate(path), [undo])
        if self.add_import:
            path, after = self.import_at
            editor.insert_import(editor.locate(path), after, "import contextlib\n")


def _plan(file: FileContext, late: _Late, settings: Settings) -> OrderingPlan:
    """Move the commit before the push; undo it where the push fails and leaves."""
    push, commit, items = late.push, late.commit, late.items
    push_path, commit_path = file.path_of(push.stmt), file.path_of(commit)
    start = len(region(push_path, commit_path)[0]) - 1  # the statement holding the push in the shared block
    used = {n.id for n in walk(commit) if isinstance(n, ast.Name)} & late.rebound
    if used:
        return OrderingPlan(None, f"the commit uses {', '.join(sorted(used))}, computed after the push")
    unsafe = []
    if late.order == "after" and start > 0:  # commit and push in one try body: the commit goes before that try
        parent = statement_at(file.tree, push_path[:start])
        if isinstance(parent, _TRY) and push_path[start][0] == "body":
            if commit_path[-1][-1] < len(parent.body) - 1 and len(commit_path) == start + 1:
                unsafe.append("the try around the push also covers statements after the commit, whose failure would now undo it")
            start -= 1
    anchor, definitions = _anchor(file, push, items, push_path, start)
    if anchor is None:
        return OrderingPlan(None, "no place before the push where the item exists")
    conditions = conditions_between(file, commit_path, len(region(push_path, commit_path)[0]) + (late.order != "after"))
    if conditions:
        unsafe.append(f"the commit is conditional ({conditions}); hoisting it makes it unconditional")
    rollbacks, maybe_unbound = _rollback_points(file, push_path, start, late.order, definitions)
    # `_upsert_item` replaces an item with the same id, so removing it would not bring the
    # old one back; `insert`/`append` of an item that was there already only duplicate it
    if rollbacks and commit.value.func.attr == "_upsert_item" and not all(item.fresh for item in items):
        unsafe.append(
            f"{late.local} may already hold the item (it is not made in this function), so undoing the commit "
            "by removal could delete an older version"
        )
    if maybe_unbound and in_loop(file, push.stmt, push.function.node):
        unsafe.append("the item is bound inside a loop's try, so an early failure could undo an older item")
    alias = imports_module(analyse(file), "contextlib")
    companions = calls_after(file, commit, set(settings.get("commit-companions", ())), {i.name for i in items})
    return OrderingPlan(
        "unsafe" if unsafe else "safe", "; ".join(unsafe), commit=commit_path, before=anchor, companions=tuple(companions),
        rollbacks=tuple(rollbacks), undo=_undo(late, settings, alias, maybe_unbound),
        add_import=bool(rollbacks) and alias is None, import_at=import_anchor(analyse(file), "contextlib"),
    )


def _anchor(file: FileContext, push: Push, items: list[Item], push_path: StatementPath, start: int) -> tuple[StatementPath | None, list[ast.stmt]]:
    """The shallowest statement on the way down to the push that is under every lock taken
    around the push and after the items exist, with the items' definitions (None: a
    parameter)."""
    locked = {id(r.stmt) for r in analyse(file).locks.regions(push.call, push.function)}
    depths = [d for d in range(start, len(push_path)) if id(statement_at(file.tree, push_path[: d + 1])) in locked]
    definitions = [assignments_reaching(file, push.function.node, item.name, push.call) for item in items]
    if not all(definitions):
        return None, []  # an item with no assignment before the push
    definitions = [d for found in definitions for d in found]
    for depth in range(max([start, *(d + 1 for d in depths)]), len(push_path)):
        candidate = push_path[: depth + 1]
        if all(d is None or ahead_in_block(file.path_of(d), candidate) for d in definitions):
            return candidate, [d for d in definitions if d is not None]
    return None, []


def _rollback_points(file: FileContext, push_path: StatementPath, start: int, order: str, definitions: list[ast.stmt]) -> tuple[list[StatementPath], bool]:
    """First statements of the blocks that must undo the commit (where a failure of the push
    leaves without reaching the original commit; none for a commit in `finally:`), and
    whether one can run before an item is bound (it is bound inside that try)."""
    if order == "finally":
        return [], False
    holders = [(holder, blocks) for holder, blocks in failure_blocks(file, push_path, start, order == "else") if blocks]
    tries = [holder for holder, _ in holders if isinstance(holder, _TRY)]
    maybe_unbound = any(t in index(file).ancestors(d) for t in tries for d in definitions)
    return list(dict.fromkeys(p for _, blocks in holders for p in blocks)), maybe_unbound


def _undo(late: _Late, settings: Settings, alias: str | None, maybe_unbound: bool) -> str:
    """Code that removes the committed items again, where they are (the context may have
    been replaced meanwhile, or, when `maybe_unbound`, the item not made yet)."""
    items, remove = late.items, settings.get("remove-method", "remove")
    target = late.local + ".items" if late.commit.value.func.attr in ("append", "extend") else late.local
    suppress = f"{alias}.suppress" if alias else "contextlib.suppress"
    errors = "ValueError, NameError" if maybe_unbound else "ValueError"
    loop = ["for _rtlint_item in {}:", f"    with {suppress}({errors}):", f"        {target}.{remove}(_rtlint_item)"]
    if all(not item.is_list for item in items):
        return f"with {suppress}({errors}):\n" + "".join(f"    {target}.{remove}({item.name})\n" for item in items)
    if len(items) == 1:
        return "".join(line.format(items[0].name) + "\n" for line in loop)
    lines = []
    for item in items:
        if item.is_list:
            lines += [line.format(item.name) for line in loop]
        else:
            lines += [f"with {suppress}({errors}):", f"    {target}.{remove}({item.name})"]
    return "if True:\n" + "".join(f"    {line}\n" for line in lines)


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
    While the push awaits its acknowledgement, the local context does not contain the item.
    Anything that copies it meanwhile (an application's
    `session.update_chat_ctx(agent.chat_ctx.copy())`) builds a context without the item,
    and when that copy is pushed, the item, which the server has by then, is deleted. The
    reply is generated without the user's turn (issue 7906). The tool-output paths of
    LiveKit Agents commit first and push second; the text turn did it the other way round.

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
    when there is one, before the `try` that holds the push). Every path on which the push
    fails and the original commit would not have run (a handler, or a retry loop's `else:`,
    that returns, raises, or continues an outer loop) removes the item again, so a failed
    turn leaves no item behind; a best-effort handler that carries on keeps it, as the
    original code did. A commit that was in the `try`'s `else:` is undone in every handler;
    one in `finally:` is never undone. Calls beside the commit (`_conversation_item_added`)
    stay where they are, unless named in `commit-companions`.

    ## Fix safety
    Unsafe (only with `--unsafe-fixes`) when the commit is conditional (inside an `if`, a
    loop or a `with` after the push), when the `try` around the push also covers statements
    after the commit (their failure would now undo it), or when the item may already be in
    the local context (it is not created in this function), so undoing by removal could
    delete an older version. Not fixed at all when the commit uses a value computed after
    the push. An exception that escapes every handler (cancellation included) leaves the
    item committed, like the commit-then-push tool-output paths.

    Not a finding: a commit before the push; a commit of an item that was not pushed (a
    name rebound after the push holds another item).
    """

    code = "RTL002"
    name = "late-local-commit"
    summary = "a pushed item is committed to the local context only after the push is awaited"
    fix_availability = "sometimes"
    options = OPTIONS + (
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
        return required_tokens(self.settings)

    def check(self, file: FileContext) -> Iterator[Finding]:
        for late in _late_commits(file):
            plan = _plan(file, late, self.settings)
            one = len(late.items) == 1
            names = ", ".join(f"`{item.name}`" for item in late.items)
            message = (
                f"{names} {'is' if one else 'are'} committed to {late.local} only after the push at "
                f"line {late.push.call.lineno} is awaited; a copy of {late.local} made during the push lacks "
                f"{'it' if one else 'them'}, and pushing that copy deletes {'it' if one else 'them'} server-side"
            )
            yield self.report(file, late.commit.value, message, plan=plan, symbol=late.push.function.qualname)
