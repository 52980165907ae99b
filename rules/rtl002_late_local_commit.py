"""RTL002 late-local-commit (LiveKit Agents issue 7906)."""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Iterator

from rtlint.context import StatementPath
from rtlint.findings import Finding
from rtlint.rule import Invalid, Option, Rule

from ._realtime import (
    OPTIONS,
    Function,
    Module,
    Push,
    analyse,
    body_statements,
    dotted,
    flow,
    import_anchor,
    imports_module,
    required_tokens,
    walk_function,
)

_ADDERS = {"insert", "_upsert_item"}  # ctx.<adder>(item) / ctx.items.append(item)
_COMMITS = {"_upsert_item", "insert", "append", "extend", "add_message"}


@dataclass(frozen=True)
class _Item:
    name: str
    is_list: bool  # a list of items (items.extend(xs), insert([...]))


@dataclass(frozen=True)
class OrderingPlan:
    commit: StatementPath  # the late commit, to move
    before: StatementPath  # the statement to put it before
    rollback_handlers: tuple[StatementPath, ...]  # first statements of handlers to undo it in
    undo: str  # code that removes the item from the local context again
    add_import: bool
    module_anchor: tuple[StatementPath, bool]


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
    local context keeps it, the server loses it: the reply is generated without the user's
    turn (issue 7906). The tool-output paths of LiveKit Agents commit first and push second;
    the text turn did it the other way round.

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
    when there is one). On every handler of the push that abandons the turn (it returns or
    raises), the item is removed from the local context again, so a failed turn leaves no
    item behind; a best-effort handler that carries on keeps it, as the original code did.
    A commit that was in the `try`'s `else:` is undone in every handler; one in `finally:`
    is never undone. Calls beside the commit (`_conversation_item_added(msg)`) stay where
    they are.

    ## Fix safety
    Unsafe (only with `--unsafe-fixes`) when the commit is conditional (inside an `if` or a
    loop after the push) or uses a value computed after the push: hoisting it commits the
    item unconditionally. An exception that escapes every handler (cancellation included)
    leaves the item committed, like the commit-then-push tool-output paths.

    Not a finding: a commit before the push; a commit of an item that was not pushed.
    """

    code = "RTL002"
    name = "late-local-commit"
    summary = "a pushed item is committed to the local context only after the push is awaited"
    fix_availability = "sometimes"
    options = OPTIONS + (
        Option("remove-method", "remove", "method of a local context that removes an item (the rollback)"),
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

    def check(self, file) -> Iterator[Finding]:
        module = analyse(file)
        for push in module.pushes:
            yield from self._check_push(file, module, push)

    def _check_push(self, file, module: Module, push: Push) -> Iterator[Finding]:
        function = push.function
        contexts = _pushed_contexts(module, function, push)
        if not contexts:
            return
        items = _pushed_items(function, push, contexts)
        if not items:
            return
        carried = flow(module, function)
        for stmt in body_statements(function.node):
            commit = _commit_call(stmt)
            if commit is None or (stmt.lineno, stmt.col_offset) <= (push.stmt.lineno, push.stmt.col_offset):
                continue
            target, committed = commit
            item = items.get(committed)
            if item is None:
                continue
            local = dotted(target)
            if local is None or local.split(".")[0] in contexts or carried.origins(target):
                continue  # building a pushed context or a mirror copy, not committing
            order = _after_push(module, push, stmt)
            if order is None:
                continue
            plan, unsafe_reason = _plan(module, function, push, stmt, local, item, order, self.settings)
            applicability = None if plan is None else ("unsafe" if unsafe_reason else "safe")
            message = (
                f"`{item.name}` is committed to {local} only after the push at line {push.call.lineno} "
                f"is awaited; a copy of {local} made during the push lacks it, and pushing that copy "
                f"deletes it server-side"
            )
            if unsafe_reason:
                message += f" (fix is unsafe: {unsafe_reason})"
            elif plan is None:
                message += " (not fixable: no place before the push where the item exists)"
            yield self.report(
                file, stmt.value if isinstance(stmt, ast.Expr) else stmt, message,
                fixable=applicability, symbol=function.qualname, data=plan,
            )

    def fix(self, finding: Finding, file):
        plan: OrderingPlan = finding.data
        editor = file.editor
        commit = editor.locate(plan.commit)
        editor.move_before(commit, editor.locate(plan.before))
        undo = editor.statement(plan.undo)
        for handler in plan.rollback_handlers:
            editor.insert_before(editor.locate(handler), [undo])
        if plan.add_import:
            path, after = plan.module_anchor
            anchor = editor.locate(path)
            editor.insert_import(anchor, after, "import contextlib\n")


def _pushed_contexts(module: Module, function: Function, push: Push) -> set[str]:
    """Names whose context is what the push sends: its argument, and what that was copied from."""
    if not isinstance(push.argument, ast.Name):
        return set()
    names = {push.argument.id}
    changed = True
    while changed:
        changed = False
        for node in walk_function(function.node):
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                if node.targets[0].id in names and node.lineno < push.call.lineno:
                    source = node.value
                    if isinstance(source, ast.Call) and isinstance(source.func, ast.Attribute) and source.func.attr == "copy":
                        source = source.func.value
                    if isinstance(source, ast.Name) and source.id not in names:
                        names.add(source.id)
                        changed = True
    return names


def _pushed_items(function: Function, push: Push, contexts: set[str]) -> dict[str, _Item]:
    """Items added to a pushed context before the push, by name."""
    items: dict[str, _Item] = {}
    for node in walk_function(function.node):
        if not hasattr(node, "lineno") or (node.lineno, node.col_offset) >= (push.call.lineno, push.call.col_offset):
            continue
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            value = node.value
            if (
                isinstance(value, ast.Call)
                and isinstance(value.func, ast.Attribute)
                and value.func.attr == "add_message"
                and dotted(value.func.value) in contexts
            ):
                items[node.targets[0].id] = _Item(node.targets[0].id, False)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.args:
            receiver, method, argument = dotted(node.func.value), node.func.attr, node.args[0]
            if receiver is None:
                continue
            base = receiver[: -len(".items")] if receiver.endswith(".items") else None
            if receiver in contexts and method in _ADDERS or base in contexts and method == "append":
                for name, is_list in _item_names(argument):
                    items[name] = _Item(name, is_list)
            elif base in contexts and method == "extend":
                for name, is_list in _item_names(argument, listed=True):
                    items[name] = _Item(name, is_list)
    return items


def _item_names(argument: ast.AST, listed: bool = False) -> Iterator[tuple[str, bool]]:
    if isinstance(argument, ast.Name):
        yield argument.id, listed
    elif isinstance(argument, (ast.List, ast.Tuple)):
        for element in argument.elts:
            if isinstance(element, ast.Name):
                yield element.id, False


def _commit_call(stmt: ast.stmt) -> tuple[ast.AST, str] | None:
    """(the local context, the committed name) for a commit statement such as
    `ctx._upsert_item(msg)`, `ctx.insert(msg)`, `ctx.items.append(msg)`."""
    if not isinstance(stmt, ast.Expr) or not isinstance(stmt.value, ast.Call):
        return None
    call = stmt.value
    func = call.func
    if not isinstance(func, ast.Attribute) or func.attr not in _COMMITS:
        return None
    target = func.value
    if func.attr in ("append", "extend"):
        if not (isinstance(target, ast.Attribute) and target.attr == "items"):
            return None
        target = target.value
    if func.attr == "add_message":  # add_message(id=msg.id, content=msg.content, ...)
        arguments = [*call.args, *(k.value for k in call.keywords)]
        names = [n.id for a in arguments for n in ast.walk(a) if isinstance(n, ast.Name)]
        return (target, names[0]) if names else None
    if call.args and isinstance(call.args[0], ast.Name):
        return target, call.args[0].id
    return None


def _after_push(module: Module, push: Push, commit: ast.stmt) -> str | None:
    """How the commit follows the awaited push: "after" (a later statement), "else" or
    "finally" (of the try around the push); None if it is not on a path after the push."""
    push_path = module.path(push.stmt)
    commit_path = module.path(commit)
    k = 0
    while k < min(len(push_path), len(commit_path)) and push_path[k] == commit_path[k]:
        k += 1
    if k == len(push_path) or k == len(commit_path):
        return None
    step_push, step_commit = push_path[k], commit_path[k]
    if step_push[:-1] == step_commit[:-1]:
        return "after" if step_commit[-1] > step_push[-1] else None
    holder = _statement(module, push_path[:k])
    if isinstance(holder, ast.Try) or type(holder).__name__ == "TryStar":
        if step_push[0] == "body" and step_commit[0] in ("orelse", "finalbody"):
            return "else" if step_commit[0] == "orelse" else "finally"
    return None  # another branch of an if, a handler of the push's own failure


def _statement(module: Module, path: StatementPath) -> ast.stmt:
    node = module.file.tree
    for step in path:
        if step[0] == "handlers":
            node = node.handlers[step[1]].body[step[2]]
        elif step[0] == "cases":
            node = node.cases[step[1]].body[step[2]]
        else:
            node = getattr(node, step[0])[step[1]]
    return node


def _plan(
    module: Module,
    function: Function,
    push: Push,
    commit: ast.stmt,
    local: str,
    item: _Item,
    order: str,
    settings,
) -> tuple[OrderingPlan | None, str]:
    push_path = module.path(push.stmt)
    commit_path = module.path(commit)
    k = 0
    while push_path[k] == commit_path[k]:
        k += 1
    # where the commit can go: before one of the statements on the way down to the push,
    # starting from the one that shares a block with the commit (for a commit in the try's
    # else/finally, the try itself); the shallowest place that is under every lock taken
    # around the push and after the item exists wins
    start = k if order == "after" else k - 1
    locked_depth = max(
        (d for d in range(start, len(push_path)) if _takes_push_lock(module, _statement(module, push_path[: d + 1]), push, function)),
        default=start - 1,
    )
    definition = _definition_path(module, function, item.name, push)
    anchor = None
    for depth in range(max(start, locked_depth + 1), len(push_path)):
        candidate = push_path[: depth + 1]
        if definition is not None and _precedes(definition, candidate):
            anchor = candidate
            break
    if anchor is None:
        return None, ""
    # the commit must stay unconditional and use nothing computed after the push
    unsafe = ""
    if order == "after" and len(commit_path) > k + 1:
        unsafe = "the commit is conditional (it sits in a block after the push); hoisting it makes it unconditional"
    late_names = _names_bound_between(function, push, commit)
    used = {n.id for n in ast.walk(commit) if isinstance(n, ast.Name)}
    if used & late_names:
        unsafe = f"the commit uses {', '.join(sorted(used & late_names))}, computed after the push"
    tries = _rollback_tries(module, push_path, start, order)
    handlers = []
    maybe_unbound = False
    for try_path, try_stmt in tries:
        for index, handler in enumerate(try_stmt.handlers):
            if order == "else" or _abandons(handler.body):
                handlers.append(try_path + (("handlers", index, 0),))
                # a handler of a try whose body binds the item can run before it is bound
                maybe_unbound |= definition[: len(try_path)] == try_path
    if maybe_unbound and _in_loop(module, push.stmt, function):
        unsafe = unsafe or "the item is bound inside a loop's try, so an early failure could undo an older item"
    remove = settings.get("remove-method", "remove")
    target = local + ".items" if _commit_method(commit) in ("append", "extend") else local
    alias = imports_module(module, "contextlib")
    suppress = f"{alias}.suppress" if alias else "contextlib.suppress"
    # the item may be gone already (the context was replaced meanwhile), or not bound yet
    # (the handler caught a failure before it was made): undo only what is there
    errors = "ValueError, NameError" if maybe_unbound else "ValueError"
    if item.is_list:
        undo = (
            f"for _rtlint_item in {item.name}:\n"
            f"    with {suppress}({errors}):\n"
            f"        {target}.{remove}(_rtlint_item)\n"
        )
    else:
        undo = f"with {suppress}({errors}):\n    {target}.{remove}({item.name})\n"
    plan = OrderingPlan(
        commit=commit_path,
        before=anchor,
        rollback_handlers=tuple(handlers),
        undo=undo,
        add_import=bool(handlers) and alias is None,
        module_anchor=import_anchor(module, "contextlib"),
    )
    return plan, unsafe


def _takes_push_lock(module: Module, stmt: ast.stmt, push: Push, function: Function) -> bool:
    return isinstance(stmt, ast.AsyncWith) and any(b.stmt is stmt for b in module.lock_blocks(push.call, function))


def _precedes(earlier: StatementPath, later: StatementPath) -> bool:
    """Whether the statement at `earlier` runs before the one at `later` whenever that one
    runs: it sits earlier in the same block or in an enclosing block (not in a branch)."""
    k = 0
    while k < min(len(earlier), len(later)) and earlier[k] == later[k]:
        k += 1
    if k == len(earlier) or k == len(later):
        return False
    a, b = earlier[k], later[k]
    return a[:-1] == b[:-1] and a[-1] < b[-1] and len(earlier) == k + 1


def _in_loop(module: Module, stmt: ast.stmt, function: Function) -> bool:
    for ancestor in module.ancestors(stmt):
        if ancestor is function.node:
            return False
        if isinstance(ancestor, (ast.For, ast.AsyncFor, ast.While)):
            return True
    return False


def _definition_path(module: Module, function: Function, name: str, push: Push) -> StatementPath | None:
    """The path of the last statement before the push that binds `name` (a parameter
    counts as bound before the body)."""
    found = None
    for stmt in body_statements(function.node):
        if (stmt.lineno, stmt.col_offset) >= (push.stmt.lineno, push.stmt.col_offset):
            continue
        if isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            if any(isinstance(n, ast.Name) and n.id == name for t in targets for n in ast.walk(t)):
                found = stmt
    if found is not None:
        return module.path(found)
    arguments = function.node.args
    if any(a.arg == name for a in [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]):
        return module.path(function.node) + (("body", -1),)
    return None


def _rollback_tries(module: Module, push_path: StatementPath, start: int, order: str) -> list[tuple[StatementPath, ast.Try]]:
    """The try statements whose handlers run when the push fails and whose body does not
    hold the original commit: from the shared block down to the push."""
    if order == "finally":
        return []
    tries = []
    for depth in range(start, len(push_path) - 1):
        path = push_path[: depth + 1]
        stmt = _statement(module, path)
        if isinstance(stmt, ast.Try) and push_path[depth + 1][0] == "body":
            tries.append((path, stmt))
    return tries


def _commit_method(stmt: ast.stmt) -> str:
    return stmt.value.func.attr  # type: ignore[attr-defined]


def _names_bound_between(function: Function, push: Push, commit: ast.stmt) -> set[str]:
    names: set[str] = set()
    start = (push.call.lineno, push.call.col_offset)
    end = (commit.lineno, commit.col_offset)
    for node in walk_function(function.node):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            if start <= (node.lineno, node.col_offset) < end:
                names.add(node.id)
    # the push's own result, e.g. `result = await session.update_chat_ctx(ctx)`
    return names


def _abandons(body: list[ast.stmt]) -> bool:
    """Whether a handler leaves the turn: it returns or raises at its top level."""
    return any(isinstance(stmt, (ast.Return, ast.Raise)) for stmt in body)
