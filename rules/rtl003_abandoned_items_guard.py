"""RTL003 abandoned-items-guard (the never-played message leak)."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Iterator

from rtlint.context import StatementPath
from rtlint.findings import Finding
from rtlint.rule import Invalid, Option, Rule

from ._realtime import (
    OPTIONS,
    FunctionNode,
    Module,
    Push,
    analyse,
    dotted,
    final_name,
    required_tokens,
    walk_function,
)


@dataclass(frozen=True)
class _Exit:
    path: StatementPath
    before_append: bool  # the loop's current item has not entered the list yet


@dataclass(frozen=True)
class AbandonPlan:
    flag: str  # e.g. "message_outputs_abandoned"
    ids: str | None  # e.g. "message_outputs_abandoned_ids"; None when ids cannot be known
    declare_after: StatementPath  # the list's creation
    nonlocal_in: tuple[StatementPath, ...]  # first statements of nested loop functions
    nonlocal_after_docstring: tuple[bool, ...]
    exits: tuple[_Exit, ...]
    target: str | None  # the loop variable
    id_attribute: str | None
    drain: str | None  # the stream to drain at an exit (async for over a name)
    guard: StatementPath
    guard_flag: str
    drop_before: StatementPath | None  # statement of the guard's body holding the push
    pushed: str | None  # the context the cleanup pushes (to drop abandoned items from)


@dataclass
class _Loop:
    node: ast.For | ast.AsyncFor
    function: ast.AST  # the function the loop is in
    exits: list[ast.stmt] = field(default_factory=list)
    appends: list[ast.AST] = field(default_factory=list)


class AbandonedItemsGuard(Rule):
    """
    ## What it does
    Finds a cleanup push guarded by a flag that is computed only from a list `L`, where `L`
    is filled by a loop over a stream that can leave early (`break`, `return`) and so
    abandon the stream's remaining items, which never enter `L`.

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
    (with `nonlocal` when the loop is in a nested function) and ORs it into the guard.
    The flag alone is not enough where the server's items are echoed into the local context
    as placeholders (LiveKit's `_on_remote_item_added`): the cleanup would push a context
    that still holds them and delete nothing. So the fix also records the ids of the
    abandoned items (the current item, when it had not entered `L`, and, for an `async for`
    over a stream, the rest of the stream, drained) and drops them from the pushed context
    before the cleanup push. The id attribute of the stream's items is found from the code
    (`msg.message_id`); see `abandoned-item-ids`.

    ## Fix safety
    Draining waits for the stream to end, as the loop itself would have; a stream that never
    ends after an early exit would hold the cleanup. When the ids cannot be known (no id
    attribute used on the items, a stream that is an expression), only the flag is added.

    Not a finding: a loop with no early exit; a guard that already includes a flag set at
    every early exit; a flag that is not derived from the list.
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

    def check(self, file) -> Iterator[Finding]:
        module = analyse(file)
        for function in module.functions:
            if isinstance(function.node, ast.AsyncFunctionDef):
                yield from self._check_function(file, module, function.node, function.qualname)

    def _check_function(self, file, module: Module, node: ast.AST, qualname: str) -> Iterator[Finding]:
        pushes = [p for p in module.pushes if p.function.node is node]
        if not pushes:
            return
        own = list(walk_function(node))
        for definition in own:
            name = _empty_list_target(definition)
            if name is None:
                continue
            loops = [loop for loop in _filling_loops(node, name) if loop.exits]
            if not loops:
                continue
            for flag, _ in _flags_from(own, name):
                for guard in own:
                    if not isinstance(guard, ast.If) or guard.lineno <= definition.lineno:
                        continue
                    if flag not in {n.id for n in ast.walk(guard.test) if isinstance(n, ast.Name)}:
                        continue
                    push = _push_in(guard, pushes, module)
                    if push is None:
                        continue
                    if _already_tracked(guard, loops):
                        continue
                    exit_lines = sorted(e.lineno for loop in loops for e in loop.exits)
                    plan = self._plan(module, node, definition, name, loops, guard, flag, push)
                    message = (
                        f"guard `{flag}` is computed only from `{name}`, which the items abandoned at the "
                        f"early exit{'s' * (len(exit_lines) > 1)} (line{'s' * (len(exit_lines) > 1)} "
                        f"{', '.join(map(str, exit_lines))}) never enter; the cleanup push at line "
                        f"{push.call.lineno} cannot run for them"
                    )
                    yield self.report(file, guard.test, message, fixable="safe", symbol=qualname, data=plan)

    def _plan(self, module: Module, function: ast.AST, definition: ast.stmt, name: str,
              loops: list[_Loop], guard: ast.If, flag: str, push: Push) -> AbandonPlan:
        taken = _names_in(function)
        flag_name = _fresh(f"{name}_abandoned", taken)
        loop = loops[0]
        target = loop.node.target.id if isinstance(loop.node.target, ast.Name) else None
        id_attribute = _id_attribute(function, target, self.settings.get("abandoned-item-ids", ()))
        ids_name = _fresh(f"{name}_abandoned_ids", taken) if id_attribute else None
        drain = None
        if ids_name and isinstance(loop.node, ast.AsyncFor) and dotted(loop.node.iter):
            drain = dotted(loop.node.iter)
        exits = []
        for each in loops:
            first_append = min((a.lineno for a in each.appends), default=10**9)
            for stmt in each.exits:
                exits.append(_Exit(module.path(stmt), stmt.lineno < first_append and each is loop))
        nested = []
        after_docstring = []
        for each in loops:
            if each.function is not function and module.path(each.function.body[0]) not in nested:
                nested.append(module.path(each.function.body[0]))
                first = each.function.body[0]
                after_docstring.append(
                    isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)
                    and isinstance(first.value.value, str) and len(each.function.body) > 1
                )
        drop_before = None
        pushed = None
        argument = push.argument
        if ids_name and argument is not None:
            if isinstance(argument, ast.Call) and isinstance(argument.func, ast.Attribute) and argument.func.attr == "copy":
                argument = argument.func.value
            pushed = dotted(argument)
            if pushed is not None:
                drop_before = _guard_body_statement(module, guard, push)
        return AbandonPlan(
            flag=flag_name,
            ids=ids_name,
            declare_after=module.path(definition),
            nonlocal_in=tuple(nested),
            nonlocal_after_docstring=tuple(after_docstring),
            exits=tuple(exits),
            target=target,
            id_attribute=id_attribute,
            drain=drain,
            guard=module.path(guard),
            guard_flag=flag,
            drop_before=drop_before,
            pushed=pushed if drop_before else None,
        )

    def fix(self, finding: Finding, file):
        import libcst as cst

        plan: AbandonPlan = finding.data
        editor = file.editor
        declarations = [editor.statement(f"{plan.flag} = False\n")]
        if plan.ids:
            declarations.append(editor.statement(f"{plan.ids}: list[str] = []\n"))
        editor.insert_after(editor.locate(plan.declare_after), declarations)
        for path, after_docstring in zip(plan.nonlocal_in, plan.nonlocal_after_docstring):
            located = editor.locate(path)
            statement = [editor.statement(f"nonlocal {plan.flag}\n")]
            (editor.insert_after if after_docstring else editor.insert_before)(located, statement)
        for exit in plan.exits:
            lines = [f"{plan.flag} = True\n"]
            if plan.ids and exit.before_append and plan.target:
                lines.append(f"{plan.ids}.append({plan.target}.{plan.id_attribute})\n")
            if plan.ids and plan.drain:
                lines.append(
                    f"async for _rtlint_abandoned in {plan.drain}:\n"
                    f"    {plan.ids}.append(_rtlint_abandoned.{plan.id_attribute})\n"
                )
            editor.insert_before(editor.locate(exit.path), [editor.statement(code) for code in lines])
        guard = editor.locate(plan.guard)
        widened = editor.expression(f"({plan.guard_flag} or {plan.flag})")

        class _Widen(cst.CSTTransformer):
            def leave_Name(self, original, updated):
                return widened if original.value == plan.guard_flag else updated

        editor.replace(guard, lambda updated: updated.with_changes(test=updated.test.visit(_Widen())))
        if plan.drop_before is not None and plan.pushed:
            drop = editor.statement(
                f"{plan.pushed}.items[:] = [\n"
                f"    item for item in {plan.pushed}.items if item.id not in {plan.ids}\n"
                f"]\n"
            )
            editor.insert_before(editor.locate(plan.drop_before), [drop])


def _empty_list_target(node: ast.AST) -> str | None:
    """`L` for `L = []`, `L: list[X] = []` or `L = list()`."""
    value, target = None, None
    if isinstance(node, ast.Assign) and len(node.targets) == 1:
        value, target = node.value, node.targets[0]
    elif isinstance(node, ast.AnnAssign):
        value, target = node.value, node.target
    if not isinstance(target, ast.Name) or value is None:
        return None
    if isinstance(value, ast.List) and not value.elts:
        return target.id
    if isinstance(value, ast.Call) and final_name(value.func) == "list" and not value.args:
        return target.id
    return None


def _filling_loops(function: ast.AST, name: str) -> list[_Loop]:
    """Loops (in the function or in functions nested in it that share `name`) that add to
    the list, with their early exits."""
    loops: list[_Loop] = []
    scopes = [function]
    for node in ast.walk(function):
        if isinstance(node, FunctionNode) and node is not function and not _binds(node, name):
            scopes.append(node)
    for scope in scopes:
        for node in walk_function(scope):
            if not isinstance(node, (ast.For, ast.AsyncFor)):
                continue
            loop = _Loop(node, scope)
            for inner in _loop_body(node):
                if _adds_to(inner, name):
                    loop.appends.append(inner)
            if not loop.appends:
                continue
            loop.exits = list(_early_exits(node))
            loops.append(loop)
    return loops


def _loop_body(loop: ast.AST) -> Iterator[ast.AST]:
    for stmt in loop.body:
        yield from walk_function(stmt)


def _early_exits(loop: ast.AST) -> Iterator[ast.stmt]:
    """`break` statements of this loop (not of loops inside it) and `return` statements in it."""
    stack = list(reversed(loop.body))
    depth_stack = [0] * len(stack)
    while stack:
        node = stack.pop()
        depth = depth_stack.pop()
        if isinstance(node, ast.Break) and depth == 0:
            yield node
        elif isinstance(node, ast.Return):
            yield node
        if isinstance(node, (*FunctionNode, ast.ClassDef, ast.Lambda)):
            continue
        inner = 1 if isinstance(node, (ast.For, ast.AsyncFor, ast.While)) else 0
        children = [c for c in ast.iter_child_nodes(node) if isinstance(c, ast.stmt)]
        if isinstance(node, ast.Try):
            children = [*node.body, *(s for h in node.handlers for s in h.body), *node.orelse, *node.finalbody]
        elif isinstance(node, ast.Match):
            children = [s for case in node.cases for s in case.body]
        elif isinstance(node, (ast.For, ast.AsyncFor, ast.While)):
            # a break in the loop's else clause belongs to the outer loop
            for stmt in reversed(node.orelse):
                stack.append(stmt)
                depth_stack.append(depth)
            children = list(node.body)
        for child in reversed(children):
            stack.append(child)
            depth_stack.append(depth + inner)


def _adds_to(node: ast.AST, name: str) -> bool:
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        return dotted(node.func.value) == name and node.func.attr in ("append", "extend", "insert")
    if isinstance(node, ast.AugAssign):
        return isinstance(node.target, ast.Name) and node.target.id == name
    return False


def _binds(function: ast.AST, name: str) -> bool:
    """Whether a nested function has its own `name` (a parameter or an assignment)."""
    arguments = function.args
    if any(a.arg == name for a in [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]):
        return True
    for node in walk_function(function):
        if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Store):
            return True
    return False


def _flags_from(nodes: list[ast.AST], name: str) -> Iterator[tuple[str, ast.AST]]:
    """Flags computed only from the list: a loop over it that sets the flag, or any()/all()
    (or a comprehension) over it."""
    false_flags = {
        n.targets[0].id
        for n in nodes
        if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name)
        and isinstance(n.value, ast.Constant) and n.value.value is False
    }
    for node in nodes:
        if isinstance(node, (ast.For, ast.AsyncFor)) and isinstance(node.iter, ast.Name) and node.iter.id == name:
            for inner in _loop_body(node):
                if (
                    isinstance(inner, ast.Assign) and len(inner.targets) == 1
                    and isinstance(inner.targets[0], ast.Name) and inner.targets[0].id in false_flags
                    and isinstance(inner.value, ast.Constant) and inner.value.value is True
                ):
                    yield inner.targets[0].id, node
        elif isinstance(node, (ast.Assign, ast.AnnAssign)) and isinstance(getattr(node, "value", None), ast.AST):
            target = node.targets[0] if isinstance(node, ast.Assign) else node.target
            if isinstance(target, ast.Name) and _scans(node.value, name):
                yield target.id, node


def _scans(value: ast.AST, name: str) -> bool:
    for node in ast.walk(value):
        if isinstance(node, (ast.GeneratorExp, ast.ListComp, ast.SetComp)):
            if any(isinstance(g.iter, ast.Name) and g.iter.id == name for g in node.generators):
                return True
    return False


def _push_in(guard: ast.If, pushes: list[Push], module: Module) -> Push | None:
    for push in pushes:
        if any(ancestor is guard for ancestor in module.ancestors(push.call)):
            if any(push.stmt is s or _contains(s, push.stmt) for s in guard.body):
                return push
    return None


def _contains(outer: ast.AST, inner: ast.AST) -> bool:
    return any(node is inner for node in ast.walk(outer))


def _guard_body_statement(module: Module, guard: ast.If, push: Push) -> StatementPath | None:
    for stmt in guard.body:
        if stmt is push.stmt or _contains(stmt, push.stmt):
            return module.path(stmt)
    return None


def _already_tracked(guard: ast.If, loops: list[_Loop]) -> bool:
    """Whether the guard uses a flag that every early exit sets to True."""
    in_guard = {n.id for n in ast.walk(guard.test) if isinstance(n, ast.Name)}
    exits = [e for loop in loops for e in loop.exits]
    for name in in_guard:
        if all(_set_before(loop_exit, name, loops) for loop_exit in exits):
            return True
    return False


def _set_before(exit_stmt: ast.stmt, name: str, loops: list[_Loop]) -> bool:
    for loop in loops:
        for node in ast.walk(loop.node):
            for field_name in ("body", "orelse", "finalbody"):
                block = getattr(node, field_name, None)
                if isinstance(block, list) and exit_stmt in block:
                    index = block.index(exit_stmt)
                    return any(
                        isinstance(s, ast.Assign)
                        and any(isinstance(t, ast.Name) and t.id == name for t in s.targets)
                        and isinstance(s.value, ast.Constant) and s.value.value is True
                        for s in block[:index]
                    )
            for handler in getattr(node, "handlers", None) or ():
                if exit_stmt in handler.body:
                    index = handler.body.index(exit_stmt)
                    return any(
                        isinstance(s, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in s.targets)
                        for s in handler.body[:index]
                    )
    return False


def _id_attribute(function: ast.AST, target: str | None, candidates) -> str | None:
    """The first candidate attribute the code reads from the loop's items (`msg.message_id`,
    `entry.msg.message_id`)."""
    if target is None:
        return None
    used = {
        node.attr
        for node in ast.walk(function)
        if isinstance(node, ast.Attribute) and final_name(node.value) == target
    }
    for candidate in candidates:
        if candidate in used:
            return candidate
    return None


def _names_in(function: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(function) if isinstance(n, ast.Name)} | {
        a.arg for n in ast.walk(function) if isinstance(n, FunctionNode) for a in n.args.args
    }


def _fresh(name: str, taken: set[str]) -> str:
    candidate, number = name, 2
    while candidate in taken:
        candidate = f"{name}_{number}"
        number += 1
    return candidate
