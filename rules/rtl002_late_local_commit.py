"""RTL002 late-local-commit (LiveKit Agents issue 7906)."""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Iterator

from rtlint.context import FileContext, FixContext, StatementPath
from rtlint.findings import Finding
from rtlint.rule import Invalid, Option, Rule

from ._realtime import (
    OPTIONS,
    Function,
    FunctionNode,
    Module,
    Push,
    analyse,
    body_statements,
    dotted,
    final_name,
    flow,
    import_anchor,
    imports_module,
    required_tokens,
    walk_function,
)

_ADDERS = {"insert", "_upsert_item"}  # ctx.<adder>(item) / ctx.items.append(item)
_COMMITS = {"_upsert_item", "insert", "append", "extend", "add_message"}
_TRY = ("Try", "TryStar")


@dataclass(frozen=True)
class _Item:
    name: str
    is_list: bool  # a list of items (items.extend(xs), insert([...]))
    fresh: bool  # made here (add_message, a constructor): removing it undoes exactly the commit


@dataclass(frozen=True)
class OrderingPlan:
    commit: StatementPath  # the late commit, to move
    before: StatementPath  # the statement to put it before
    companions: tuple[StatementPath, ...]  # calls that move with it (opted in)
    rollbacks: tuple[StatementPath, ...]  # first statements of the blocks that undo it
    undo: str  # code that removes the items from the local context again
    add_import: bool
    import_at: tuple[StatementPath, bool]


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
        module = analyse(file)
        reported: set[int] = set()  # one finding per commit, whichever push it follows
        for push in module.pushes:
            for finding, commit in self._check_push(file, module, push):
                if id(commit) not in reported:
                    reported.add(id(commit))
                    yield finding

    def _check_push(self, file, module: Module, push: Push) -> Iterator[tuple[Finding, ast.stmt]]:
        function = push.function
        contexts = _pushed_contexts(function, push)
        if not contexts:
            return
        items = _pushed_items(function, push, contexts)
        if not items:
            return
        carried = flow(module, function)
        for stmt in module.nodes(function.node):
            if not isinstance(stmt, ast.Expr) or (stmt.lineno, stmt.col_offset) <= (push.stmt.lineno, push.stmt.col_offset):
                continue
            commit = _commit_call(stmt)
            if commit is None:
                continue
            target, committed = commit
            pushed = [items[name] for name in committed if name in items]
            if not pushed or len(pushed) != len(committed):
                continue
            local = dotted(target)
            if local is None or local.split(".")[0] in contexts or carried.origins(target):
                continue  # building a pushed context or a mirror copy, not committing
            rebound = _names_bound_between(function, push, stmt)
            if any(item.name in rebound for item in pushed):
                continue  # the name now holds another item, not the one pushed
            if _committed_before(function, push, local, committed):
                continue  # already in the local context while the push is in flight
            order = _after_push(module, push, stmt)
            if order is None:
                continue
            plan, unsafe, never = _plan(module, function, push, stmt, local, pushed, order, self.settings)
            names = ", ".join(f"`{item.name}`" for item in pushed)
            message = (
                f"{names} {'is' if len(pushed) == 1 else 'are'} committed to {local} only after the push at "
                f"line {push.call.lineno} is awaited; a copy of {local} made during the push lacks "
                f"{'it' if len(pushed) == 1 else 'them'}, and pushing that copy deletes "
                f"{'it' if len(pushed) == 1 else 'them'} server-side"
            )
            if never:
                message += f" (not fixable: {never})"
            elif unsafe:
                message += f" (fix is unsafe: {unsafe})"
            applicability = None if plan is None else ("unsafe" if unsafe else "safe")
            finding = self.report(
                file, stmt.value if isinstance(stmt, ast.Expr) else stmt, message,
                fixable=applicability, symbol=function.qualname, data=plan,
            )
            yield finding, stmt

    def fix(self, finding: Finding, file: FixContext) -> None:
        plan: OrderingPlan = finding.data
        editor = file.editor
        target = editor.locate(plan.before)
        for path in (plan.commit, *plan.companions):
            editor.move_before(editor.locate(path), target)
        undo = editor.statement(plan.undo)
        for path in plan.rollbacks:
            editor.insert_before(editor.locate(path), [undo])
        if plan.add_import:
            path, after = plan.import_at
            editor.insert_import(editor.locate(path), after, "import contextlib\n")


# -- what is pushed, and what is committed --------------------------------------------------


def _pushed_contexts(function: Function, push: Push) -> set[str]:
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


def _bindings(function: Function) -> dict[str, list[ast.AST]]:
    found: dict[str, list[ast.AST]] = {}
    for node in walk_function(function.node):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            found.setdefault(node.targets[0].id, []).append(node.value)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value is not None:
            found.setdefault(node.target.id, []).append(node.value)
    return found


def _is_fresh(values: list[ast.AST]) -> bool:
    """Whether every binding makes a new item: `ctx.add_message(...)`, `ChatMessage(...)`,
    or a list of such items."""
    def fresh(value: ast.AST) -> bool:
        if isinstance(value, ast.Call):
            name = final_name(value.func) or ""
            return name == "add_message" or (name[:1].isupper() and isinstance(value.func, (ast.Name, ast.Attribute)))
        if isinstance(value, (ast.List, ast.Tuple)):
            return all(fresh(e) for e in value.elts)
        return False

    return bool(values) and all(fresh(v) for v in values)


def _pushed_items(function: Function, push: Push, contexts: set[str]) -> dict[str, _Item]:
    """Items added to a pushed context before the push, by name."""
    items: dict[str, _Item] = {}
    bindings = _bindings(function)
    before = (push.call.lineno, push.call.col_offset)
    for node in walk_function(function.node):
        if not hasattr(node, "lineno") or (node.lineno, node.col_offset) >= before:
            continue
        target = value = None
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target, value = node.targets[0], node.value
        elif isinstance(node, ast.AnnAssign):
            target, value = node.target, node.value
        if isinstance(target, ast.Name) and isinstance(value, ast.Call):
            func = value.func
            if isinstance(func, ast.Attribute) and func.attr == "add_message" and dotted(func.value) in contexts:
                items[target.id] = _Item(target.id, False, True)
                continue
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.args:
            receiver, method, argument = dotted(node.func.value), node.func.attr, node.args[0]
            if receiver is None:
                continue
            base = receiver[: -len(".items")] if receiver.endswith(".items") else None
            if receiver in contexts and method in _ADDERS or base in contexts and method == "append":
                listed = False
            elif base in contexts and method == "extend":
                listed = True
            else:
                continue
            for name, is_list in _item_names(argument, listed):
                items[name] = _Item(name, is_list, _is_fresh(bindings.get(name, [])))
    return items


def _item_names(argument: ast.AST, listed: bool = False) -> Iterator[tuple[str, bool]]:
    if isinstance(argument, ast.Name):
        yield argument.id, listed
    elif isinstance(argument, (ast.List, ast.Tuple)):
        for element in argument.elts:
            if isinstance(element, ast.Name):
                yield element.id, False


def _commit_call(stmt: ast.stmt) -> tuple[ast.AST, list[str]] | None:
    """(the local context, the committed names) for a commit statement such as
    `ctx._upsert_item(msg)`, `ctx.insert([call, output])`, `ctx.items.append(msg)`."""
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
        return (target, names[:1]) if names else None
    if not call.args:
        return None
    argument = call.args[0]
    if isinstance(argument, ast.Name):
        return target, [argument.id]
    if isinstance(argument, (ast.List, ast.Tuple)) and argument.elts and all(isinstance(e, ast.Name) for e in argument.elts):
        return target, [e.id for e in argument.elts]
    return None


# -- where the commit is, relative to the push ----------------------------------------------


def _divergence(a: StatementPath, b: StatementPath) -> int:
    k = 0
    while k < min(len(a), len(b)) and a[k] == b[k]:
        k += 1
    return k


def _after_push(module: Module, push: Push, commit: ast.stmt) -> str | None:
    """How the commit follows the awaited push: "after" (a later statement), "else" or
    "finally" (of the try around the push); None if it is not on a path after the push."""
    push_path, commit_path = module.path(push.stmt), module.path(commit)
    k = _divergence(push_path, commit_path)
    if k == len(push_path) or k == len(commit_path):
        return None
    step_push, step_commit = push_path[k], commit_path[k]
    if step_push[:-1] == step_commit[:-1]:
        return "after" if step_commit[-1] > step_push[-1] else None
    holder = module.statement_at(push_path[:k])
    if type(holder).__name__ in _TRY and step_push[0] == "body" and step_commit[0] in ("orelse", "finalbody"):
        return "else" if step_commit[0] == "orelse" else "finally"
    return None  # another branch of an if, a handler of the push's own failure


def _precedes(earlier: StatementPath, later: StatementPath) -> bool:
    """Whether the statement at `earlier` runs before the one at `later` whenever that one
    runs: it sits earlier in the same block or in an enclosing block (not in a branch)."""
    k = _divergence(earlier, later)
    if k == len(earlier) or k == len(later):
        return False
    a, b = earlier[k], later[k]
    return a[:-1] == b[:-1] and a[-1] < b[-1] and len(earlier) == k + 1


# -- the fix ----------------------------------------------------------------------------


def _plan(module, function, push, commit, local, items, order, settings):
    """(plan or None, why the fix is unsafe, why there is no fix)."""
    push_path = module.path(push.stmt)
    commit_path = module.path(commit)
    k = _divergence(push_path, commit_path)
    start = k if order == "after" else k - 1
    unsafe: list[str] = []
    if order == "after" and k > 0:
        # commit and push in one try body: the commit goes before that try
        parent = module.statement_at(push_path[:k])
        if type(parent).__name__ in _TRY and push_path[k][0] == "body":
            start = k - 1
            if commit_path[-1][-1] < len(parent.body) - 1 and len(commit_path) == k + 1:
                unsafe.append(
                    "the try around the push also covers statements after the commit, whose failure would now undo it"
                )
    late_names = _names_bound_between(function, push, commit)
    used = {n.id for n in ast.walk(commit) if isinstance(n, ast.Name)}
    if used & late_names:
        return None, "", f"the commit uses {', '.join(sorted(used & late_names))}, computed after the push"
    # the shallowest place on the way down to the push that is under every lock taken
    # around the push and after the items exist
    locked = max(
        (d for d in range(start, len(push_path)) if _takes_push_lock(module, module.statement_at(push_path[: d + 1]), push, function)),
        default=start - 1,
    )
    definitions = [_definition_path(module, function, item.name, push) for item in items]
    if any(d is None for d in definitions):
        return None, "", "no place before the push where the item exists"
    anchor = None
    for depth in range(max(start, locked + 1), len(push_path)):
        candidate = push_path[: depth + 1]
        if all(_precedes(d, candidate) for d in definitions):
            anchor = candidate
            break
    if anchor is None:
        return None, "", "no place before the push where the item exists"
    # the commit must stay unconditional
    conditions = _conditions_between(module, commit_path, k + 1)
    if conditions:
        unsafe.append(f"the commit is conditional ({conditions}); hoisting it makes it unconditional")
    rollbacks, maybe_unbound = _rollback_points(module, push_path, commit_path, anchor, start, order, definitions)
    # `_upsert_item` replaces an item with the same id, so removing it would not bring the
    # old one back; `insert`/`append` of an item that was there already only duplicate it
    replaces = commit.value.func.attr == "_upsert_item"  # type: ignore[attr-defined]
    if rollbacks and replaces and not all(item.fresh for item in items):
        unsafe.append(
            f"{local} may already hold the item (it is not made in this function), so undoing the commit "
            "by removal could delete an older version"
        )
    if maybe_unbound and _in_loop(module, push.stmt, function):
        unsafe.append("the item is bound inside a loop's try, so an early failure could undo an older item")
    remove = settings.get("remove-method", "remove")
    target = local + ".items" if commit.value.func.attr in ("append", "extend") else local  # type: ignore[attr-defined]
    alias = imports_module(module, "contextlib")
    suppress = f"{alias}.suppress" if alias else "contextlib.suppress"
    # the item may be gone already (the context was replaced meanwhile), or not bound yet
    # (the failure came before it was made): undo only what is there
    errors = "ValueError, NameError" if maybe_unbound else "ValueError"
    lines = []
    for item in items:
        if item.is_list:
            lines += [
                f"for _rtlint_item in {item.name}:",
                f"    with {suppress}({errors}):",
                f"        {target}.{remove}(_rtlint_item)",
            ]
        else:
            lines.append(f"{target}.{remove}({item.name})")
    if all(not item.is_list for item in items):
        undo = f"with {suppress}({errors}):\n" + "".join(f"    {line}\n" for line in lines)
    else:
        undo = "".join(f"{line}\n" for line in lines) if len(items) == 1 else _each_guarded(items, target, remove, suppress, errors)
    plan = OrderingPlan(
        commit=commit_path,
        before=anchor,
        companions=tuple(_companions(module, commit, items, settings)),
        rollbacks=tuple(rollbacks),
        undo=undo,
        add_import=bool(rollbacks) and alias is None,
        import_at=import_anchor(module, "contextlib"),
    )
    return plan, "; ".join(unsafe), ""


def _each_guarded(items, target, remove, suppress, errors) -> str:
    lines = []
    for item in items:
        if item.is_list:
            lines += [f"for _rtlint_item in {item.name}:", f"    with {suppress}({errors}):", f"        {target}.{remove}(_rtlint_item)"]
        else:
            lines += [f"with {suppress}({errors}):", f"    {target}.{remove}({item.name})"]
    return "if True:\n" + "".join(f"    {line}\n" for line in lines)


def _conditions_between(module: Module, commit_path: StatementPath, depth: int) -> str:
    """The `if`/loop/`with` headers between the shared block and the commit, as text."""
    parts = []
    for d in range(depth, len(commit_path)):
        holder = module.statement_at(commit_path[:d])
        if isinstance(holder, ast.If):
            parts.append(f"if {module.file.segment(holder.test)}")
        elif isinstance(holder, (ast.For, ast.AsyncFor, ast.While)):
            parts.append(f"in a loop at line {holder.lineno}")
        elif isinstance(holder, (ast.With, ast.AsyncWith)):
            parts.append(f"inside `with {', '.join(module.file.segment(i.context_expr) for i in holder.items)}`")
        elif isinstance(holder, ast.Match):
            parts.append(f"in a match case at line {holder.lineno}")
    return ", ".join(parts)


def _takes_push_lock(module: Module, stmt: ast.stmt, push: Push, function: Function) -> bool:
    return isinstance(stmt, ast.AsyncWith) and any(b.stmt is stmt for b in module.lock_blocks(push.call, function))


def _rollback_points(module, push_path, commit_path, anchor, start, order, definitions):
    """First statements of the blocks that must undo the commit: where a failure of the push
    leaves without reaching the original commit. Also whether one can run before an item
    is bound."""
    if order == "finally":
        return [], False
    points: list[StatementPath] = []
    maybe_unbound = False
    for depth in range(start, len(push_path) - 1):
        path = push_path[: depth + 1]
        stmt = module.statement_at(path)
        if push_path[depth + 1][0] == "body" and type(stmt).__name__ in _TRY:
            for index, handler in enumerate(stmt.handlers):
                handler_path = path + (("handlers", index, 0),)
                if order == "else" and depth == start:
                    blocks = [handler_path]
                else:
                    blocks = _leaving_blocks(module, handler.body, handler_path, path[: start + 1])
                if blocks:
                    points.extend(blocks)
                    maybe_unbound |= any(d[: len(path)] == path for d in definitions)
        elif push_path[depth + 1][0] == "body" and isinstance(stmt, (ast.For, ast.AsyncFor, ast.While)) and stmt.orelse:
            # a retry loop's else: every attempt failed
            else_path = path + (("orelse", 0),)
            points.extend(_leaving_blocks(module, stmt.orelse, else_path, path[: start + 1]))
    return list(dict.fromkeys(points)), maybe_unbound


def _leaving_blocks(module: Module, body: list[ast.stmt], body_path: StatementPath, region: StatementPath) -> list[StatementPath]:
    """First statements of the blocks in `body` that leave without reaching the statement
    after `region`: they return, raise, or break/continue a loop outside the region."""
    found = []
    base = body_path[:-1]
    step = body_path[-1]

    def visit(block: list[ast.stmt], block_path_of) -> None:
        leaves_here = False
        for stmt in block:
            if isinstance(stmt, (ast.Return, ast.Raise)) or isinstance(stmt, (ast.Continue, ast.Break)) and not _loop_inside(module, stmt, region):
                leaves_here = True
            for field in ("body", "orelse", "finalbody"):
                inner = getattr(stmt, field, None)
                if isinstance(inner, list) and inner and isinstance(inner[0], ast.stmt) and not isinstance(stmt, (*FunctionNode, ast.ClassDef)):
                    path = module.path(inner[0])
                    visit(inner, path)
            for handler in getattr(stmt, "handlers", None) or ():
                visit(handler.body, module.path(handler.body[0]))
            for case in getattr(stmt, "cases", None) or ():
                visit(case.body, module.path(case.body[0]))
        if leaves_here:
            found.append(block_path_of)

    visit(body, base + (step,))
    return found


def _loop_inside(module: Module, stmt: ast.stmt, region: StatementPath) -> bool:
    """Whether the loop that a break/continue belongs to lies inside the region (a retry)."""
    region_stmt = module.statement_at(region) if region else None
    for ancestor in module.ancestors(stmt):
        if isinstance(ancestor, (ast.For, ast.AsyncFor, ast.While)):
            return region_stmt is not None and any(n is ancestor for n in ast.walk(region_stmt))
        if isinstance(ancestor, FunctionNode):
            return False
    return False


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


def _committed_before(function: Function, push: Push, local: str, names: list[str]) -> bool:
    """Whether the same items were committed to the same local context before the push."""
    for stmt in body_statements(function.node):
        if (stmt.lineno, stmt.col_offset) >= (push.stmt.lineno, push.stmt.col_offset):
            continue
        commit = _commit_call(stmt)
        if commit is not None and dotted(commit[0]) == local and set(names) <= set(commit[1]):
            return True
    return False


def _names_bound_between(function: Function, push: Push, commit: ast.stmt) -> set[str]:
    names: set[str] = set()
    start = (push.call.lineno, push.call.col_offset)
    end = (commit.lineno, commit.col_offset)
    for node in walk_function(function.node):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            if start <= (node.lineno, node.col_offset) < end:
                names.add(node.id)
    return names


def _companions(module: Module, commit: ast.stmt, items, settings) -> list[StatementPath]:
    """Opted-in calls right after the commit that take the same item (they move with it)."""
    wanted = set(settings.get("commit-companions", ()))
    if not wanted:
        return []
    path = module.path(commit)
    parent = module.parents.get(id(commit))
    block = None
    for field in ("body", "orelse", "finalbody"):
        candidate = getattr(parent, field, None)
        if isinstance(candidate, list) and commit in candidate:
            block = candidate
    if block is None:
        return []
    found = []
    names = {item.name for item in items}
    for offset, stmt in enumerate(block[block.index(commit) + 1 :], start=1):
        if (
            isinstance(stmt, ast.Expr)
            and isinstance(stmt.value, ast.Call)
            and final_name(stmt.value.func) in wanted
            and {n.id for n in ast.walk(stmt.value) if isinstance(n, ast.Name)} & names
        ):
            found.append(path[:-1] + (path[-1][:-1] + (path[-1][-1] + offset,),))
        else:
            break
    return found
