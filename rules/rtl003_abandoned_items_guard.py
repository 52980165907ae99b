"""RTL003 abandoned-items-guard (the never-played message leak)."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Iterator

from rtlint.context import FileContext, FixContext, StatementPath
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

_LIST_VIEWS = {"enumerate", "reversed", "sorted", "list", "tuple", "iter"}
_STOPS = {"StopAsyncIteration", "StopIteration"}


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


@dataclass
class _Loop:
    node: ast.For | ast.AsyncFor | ast.While
    function: ast.AST  # the function the loop is in
    target: str | None = None  # the variable holding the current item
    stream: str | None = None  # a stream that can be drained (async, a name or attribute)
    pull: ast.stmt | None = None  # `msg = await anext(stream)` in a while loop
    appends: list[ast.AST] = field(default_factory=list)
    exits: list[ast.stmt] = field(default_factory=list)


@dataclass
class _Flag:
    name: str | None  # a flag variable, or None for a scan written in the guard itself
    node: ast.AST | None  # the scanning expression, for an inline flag
    loop: ast.For | ast.AsyncFor | None = None  # a loop over the list that sets the flag
    sets: list[ast.stmt] = field(default_factory=list)  # `flag = True` / `flag |= ...` in it


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
        module = analyse(file)
        for function in module.functions:
            if isinstance(function.node, ast.AsyncFunctionDef):
                yield from self._check_function(file, module, function.node, function.qualname)

    def _check_function(self, file, module: Module, node: ast.AST, qualname: str) -> Iterator[Finding]:
        pushes = [p for p in module.pushes if p.function.node is node]
        if not pushes:
            return
        own = module.nodes(node)
        guards = [n for n in own if isinstance(n, ast.If)]
        candidates = _candidate_loops(module, node)
        for definition in own:
            name = _empty_list_target(definition)
            if name is None:
                continue
            loops = _filling_loops(module, node, name, candidates)
            for loop in loops:
                # a `return` in the guard's own function skips the guard: not this bug
                loop.exits = [e for e in loop.exits if not (isinstance(e, ast.Return) and loop.function is node)]
            loops = [loop for loop in loops if loop.exits]
            if not loops:
                continue
            flags = list(_flags_from(own, name))
            for guard in guards:
                if guard.lineno <= definition.lineno:
                    continue
                push = _push_in(guard, pushes)
                if push is None:
                    continue
                flag = _flag_in_guard(guard, name, flags)
                if flag is None or _already_tracked(guard, loops):
                    continue
                yield self._finding(file, module, node, qualname, definition, name, loops, guard, flag, push)

    def _finding(self, file, module, function, qualname, definition, name, loops, guard, flag, push) -> Finding:
        plan = self._plan(module, function, definition, name, loops, guard, flag, push)
        exit_lines = sorted({e.lineno for loop in loops for e in loop.exits})
        many = len(exit_lines) > 1
        what = f"`{flag.name}`" if flag.name else "its scan"
        message = (
            f"cleanup guard depends on {what}, computed only from `{name}`; the items abandoned at "
            f"the early exit{'s' * many} (line{'s' * many} {', '.join(map(str, exit_lines))}) never "
            f"enter `{name}`, so the cleanup push at line {push.call.lineno} cannot run for them"
        )
        if plan.ids is None:
            message += " (the fix adds the flag only: no id attribute of the items is used, so copies echoed into the pushed context are not dropped)"
        finding = self.report(file, guard, message, fixable="safe", symbol=qualname, data=plan)
        # the guard is the `if` line; it ends where its test ends
        finding.end_line, finding.end_column = file.position(guard.test.end_lineno, guard.test.end_col_offset)
        return finding

    def _plan(self, module: Module, function: ast.AST, definition: ast.stmt, name: str,
              loops: list[_Loop], guard: ast.If, flag: _Flag, push: Push) -> AbandonPlan:
        taken = _names_in(function)
        flag_name = _fresh(f"{name}_abandoned", taken)
        candidates = self.settings.get("abandoned-item-ids", ())
        id_attribute = _id_attribute(function, [loop.target for loop in loops], candidates)
        ids_name = _fresh(f"{name}_abandoned_ids", taken | {flag_name}) if id_attribute else None
        drain_variable = _fresh("_rtlint_abandoned", taken)
        exits = []
        for loop in loops:
            for stmt in loop.exits:
                record = None
                if ids_name and loop.target and not any(_may_precede(module, a, stmt) for a in loop.appends):
                    if not (loop.pull is not None and not _may_precede(module, loop.pull, stmt)):
                        record = f"{loop.target}.{id_attribute}"
                exits.append(ExitPlan(module.path(stmt), record, loop.stream if ids_name else None))
        nonlocal_at = []
        for loop in loops:
            if loop.function is function:
                continue
            body = loop.function.body
            docstring = isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) and isinstance(body[0].value.value, str)
            entry = (module.path(body[0]), docstring and len(body) > 1)
            if entry not in nonlocal_at:
                nonlocal_at.append(entry)
        skipped = []
        if ids_name and flag.loop is not None and isinstance(flag.loop.target, (ast.Name, ast.Tuple)):
            expression = _id_expression(flag.loop, id_attribute)
            if expression:
                skipped = [(module.path(stmt), expression) for stmt in flag.sets]
        drop_before, pushed = None, None
        if ids_name:
            drop_before, pushed = _drop_target(module, guard, push)
        widen_node = flag.node
        negated = False
        if flag.name is not None:
            widen_node = next(n for n in ast.walk(guard.test) if isinstance(n, ast.Name) and n.id == flag.name)
        parent = _parent_in(guard.test, widen_node)
        if isinstance(parent, ast.UnaryOp) and isinstance(parent.op, ast.Not):
            negated = True
        return AbandonPlan(
            flag=flag_name,
            ids=ids_name,
            id_attribute=id_attribute,
            drain_variable=drain_variable,
            declare_after=module.path(definition),
            nonlocal_at=tuple(nonlocal_at),
            exits=tuple(exits),
            skipped=tuple(skipped),
            guard=module.path(guard),
            widen=_squash(module.file.segment(widen_node)),
            negated=negated,
            drop_before=drop_before,
            pushed=pushed,
        )

    def fix(self, finding: Finding, file: FixContext) -> None:
        plan: AbandonPlan = finding.data
        editor = file.editor
        declarations = [editor.statement(f"{plan.flag} = False\n")]
        if plan.ids:
            declarations.append(editor.statement(f"{plan.ids}: list[str] = []\n"))
        editor.insert_after(editor.locate(plan.declare_after), declarations)
        for path, after_docstring in plan.nonlocal_at:
            located = editor.locate(path)
            statement = [editor.statement(f"nonlocal {plan.flag}\n")]
            (editor.insert_after if after_docstring else editor.insert_before)(located, statement)
        for exit in plan.exits:
            lines = [f"{plan.flag} = True\n"]
            if exit.record_current:
                lines.append(f"{plan.ids}.append({exit.record_current})\n")
            if exit.drain:
                lines.append(
                    f"async for {plan.drain_variable} in {exit.drain}:\n"
                    f"    {plan.ids}.append({plan.drain_variable}.{plan.id_attribute})\n"
                )
            editor.insert_before(editor.locate(exit.path), [editor.statement(code) for code in lines])
        for path, expression in plan.skipped:
            editor.insert_after(editor.locate(path), [editor.statement(f"{plan.ids}.append({expression})\n")])
        editor.replace(editor.locate(plan.guard), lambda updated: updated.with_changes(test=updated.test.visit(_Widen(plan, editor))))
        if plan.drop_before is not None and plan.pushed:
            drop = editor.statement(
                f"{plan.pushed}.items[:] = [\n"
                f"    item for item in {plan.pushed}.items if item.id not in {plan.ids}\n"
                f"]\n"
            )
            editor.insert_before(editor.locate(plan.drop_before), [drop])


def _Widen(plan: AbandonPlan, editor):  # noqa: N802 - builds a LibCST transformer
    """ORs the abandon flag into the guard where the flag is used (outside its `not`)."""
    import libcst as cst

    class Widen(cst.CSTTransformer):
        def _matches(self, node) -> bool:
            return _squash(editor.code(node)) == plan.widen

        def on_leave(self, original, updated):
            result = super().on_leave(original, updated)
            if plan.negated:
                if isinstance(original, cst.UnaryOperation) and isinstance(original.operator, cst.Not) and self._matches(original.expression):
                    return editor.expression(f"(not {editor.code(original.expression).strip()} or {plan.flag})")
            elif isinstance(original, cst.BaseExpression) and self._matches(original):
                return editor.expression(f"({editor.code(original).strip()} or {plan.flag})")
            return result

        # a keyword's name and an attribute's name are not uses of the flag
        def leave_Arg(self, original, updated):
            return updated.with_changes(keyword=original.keyword)

        def leave_Attribute(self, original, updated):
            return updated.with_changes(attr=original.attr)

    return Widen()


def _squash(code: str) -> str:
    """Code without white space, to compare an `ast` segment with LibCST's text of a node."""
    return "".join(code.split())


def _parent_in(root: ast.AST, target: ast.AST | None) -> ast.AST | None:
    for node in ast.walk(root):
        for child in ast.iter_child_nodes(node):
            if child is target:
                return node
    return None


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


@dataclass
class _Candidate:
    """A loop of the function (or of a function nested in it), with what it adds to."""

    node: ast.For | ast.AsyncFor | ast.While
    scope: ast.AST
    target: str | None
    stream: str | None
    pull: ast.stmt | None
    adds: dict[str, list[ast.AST]]  # list name -> the append/extend/insert/+= that add to it
    bindings: set[str]  # names the scope binds itself (a nested function's own list)


def _candidate_loops(module: Module, function: ast.AST) -> list[_Candidate]:
    """Every loop over a stream in the function and in the functions nested in it, indexed
    once per function (there are many lists to try it against)."""
    scopes = [function] + [
        f.node for f in module.functions if f.node is not function and _is_inside(module, f.node, function)
    ]
    found = []
    for scope in scopes:
        own = module.nodes(scope)
        bound = set() if scope is function else _bound_names(scope, own)
        for node in own:
            if not isinstance(node, (ast.For, ast.AsyncFor, ast.While)):
                continue
            target = stream = pull = None
            if isinstance(node, ast.While):
                pulled = _stream_pull(node)
                if pulled is None:
                    continue  # not a loop over a stream
                pull, target, stream = pulled
            else:
                target = node.target.id if isinstance(node.target, ast.Name) else None
                if isinstance(node, ast.AsyncFor) and not isinstance(node.iter, ast.Call):
                    stream = dotted(node.iter)
            adds: dict[str, list[ast.AST]] = {}
            for stmt in node.body:
                for inner in walk_function(stmt):
                    name = _added_to(inner)
                    if name:
                        adds.setdefault(name, []).append(inner)
            if adds:
                found.append(_Candidate(node, scope, target, stream, pull, adds, bound))
    return found


def _is_inside(module: Module, inner: ast.AST, outer: ast.AST) -> bool:
    return any(ancestor is outer for ancestor in module.ancestors(inner))


def _filling_loops(module: Module, function: ast.AST, name: str, candidates: list[_Candidate]) -> list[_Loop]:
    """Loops over a stream (in the function, or in functions nested in it that share the
    list) that add to the list, with their early exits."""
    loops = []
    for candidate in candidates:
        if name not in candidate.adds or name in candidate.bindings:
            continue
        loop = _Loop(candidate.node, candidate.scope, candidate.target, candidate.stream, candidate.pull)
        loop.appends = list(candidate.adds[name])
        loop.exits = list(_early_exits(candidate.node))
        loops.append(loop)
    return loops


def _bound_names(function: ast.AST, own: list[ast.AST]) -> set[str]:
    """Names a nested function binds itself (parameters, assignments): not the outer list."""
    arguments = function.args
    names = {a.arg for a in [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]}
    names |= {n.id for n in own if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    return names


def _added_to(node: ast.AST) -> str | None:
    """The list a node adds to: `L.append(x)`, `L.extend(xs)`, `L.insert(i, x)`, `L += [x]`."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        if node.func.attr in ("append", "extend", "insert") and isinstance(node.func.value, ast.Name):
            return node.func.value.id
    elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
        return node.target.id
    return None


def _stream_pull(loop: ast.While) -> tuple[ast.stmt, str | None, str | None] | None:
    """`item = await anext(stream)` (or `stream.__anext__()`) in the loop: (statement, item, stream)."""
    for stmt in loop.body:
        for inner in walk_function(stmt):
            if (
                isinstance(inner, ast.Assign)
                and len(inner.targets) == 1
                and isinstance(inner.targets[0], ast.Name)
                and isinstance(inner.value, ast.Await)
                and isinstance(inner.value.value, ast.Call)
            ):
                call = inner.value.value
                if final_name(call.func) == "anext" and call.args:
                    return inner, inner.targets[0].id, dotted(call.args[0])
                if isinstance(call.func, ast.Attribute) and call.func.attr == "__anext__":
                    return inner, inner.targets[0].id, dotted(call.func.value)
    return None


def _early_exits(loop: ast.AST) -> Iterator[ast.stmt]:
    """`break` statements of this loop (not of loops inside it) and `return` statements in it,
    except the ones that end the loop because the stream ended (`except StopAsyncIteration`)."""
    stack: list[tuple[ast.AST, int, bool]] = [(s, 0, False) for s in reversed(loop.body)]
    while stack:
        node, depth, at_end = stack.pop()
        if isinstance(node, ast.Break) and depth == 0 and not at_end:
            yield node
        elif isinstance(node, ast.Return) and not at_end:
            yield node
        if isinstance(node, (*FunctionNode, ast.ClassDef, ast.Lambda)):
            continue
        inner = 1 if isinstance(node, (ast.For, ast.AsyncFor, ast.While)) else 0
        children: list[tuple[ast.AST, int, bool]] = []
        if isinstance(node, ast.Try) or type(node).__name__ == "TryStar":
            children += [(s, depth, at_end) for s in node.body]
            for handler in node.handlers:
                stops = {final_name(t) for t in ([handler.type] if not isinstance(handler.type, ast.Tuple) else handler.type.elts)}
                children += [(s, depth, at_end or bool(stops & _STOPS)) for s in handler.body]
            children += [(s, depth, at_end) for s in [*node.orelse, *node.finalbody]]
        elif isinstance(node, ast.Match):
            children = [(s, depth, at_end) for case in node.cases for s in case.body]
        elif isinstance(node, (ast.For, ast.AsyncFor, ast.While)):
            # a break in the loop's else clause belongs to the outer loop
            children = [(s, depth + inner, at_end) for s in node.body] + [(s, depth, at_end) for s in node.orelse]
        else:
            children = [(c, depth, at_end) for c in ast.iter_child_nodes(node) if isinstance(c, ast.stmt)]
        stack.extend(reversed(children))


def _over_list(iterable: ast.AST, name: str) -> bool:
    """`L`, or a view of it such as `enumerate(L)` or `reversed(L)`."""
    if isinstance(iterable, ast.Name):
        return iterable.id == name
    if isinstance(iterable, ast.Call) and final_name(iterable.func) in _LIST_VIEWS and iterable.args:
        return _over_list(iterable.args[0], name)
    return False


def _scans(value: ast.AST, name: str) -> ast.AST | None:
    """The comprehension over the list in `value`, if any."""
    for node in ast.walk(value):
        if isinstance(node, (ast.GeneratorExp, ast.ListComp, ast.SetComp)):
            if any(_over_list(g.iter, name) for g in node.generators):
                return node
    return None


def _flags_from(nodes: list[ast.AST], name: str) -> Iterator[_Flag]:
    """Flags computed only from the list: a loop over it that sets the flag, or a scan
    (any/all/a comprehension) over it."""
    false_flags = {
        n.targets[0].id
        for n in nodes
        if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name)
        and isinstance(n.value, ast.Constant) and n.value.value is False
    }
    for node in nodes:
        if isinstance(node, (ast.For, ast.AsyncFor)) and _over_list(node.iter, name):
            found: dict[str, _Flag] = {}
            for inner in (n for stmt in node.body for n in walk_function(stmt)):
                flag = _sets_flag(inner, false_flags)
                if flag:
                    found.setdefault(flag, _Flag(flag, None, node)).sets.append(inner)
            yield from found.values()
        elif isinstance(node, (ast.Assign, ast.AnnAssign)) and isinstance(getattr(node, "value", None), ast.AST):
            target = node.targets[0] if isinstance(node, ast.Assign) else node.target
            if isinstance(target, ast.Name) and _scans(node.value, name):
                yield _Flag(target.id, None)


def _sets_flag(node: ast.AST, flags: set[str]) -> str | None:
    """The flag a statement raises: `flag = True`, `flag |= x`, `flag = flag or x`."""
    if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
        name = node.targets[0].id
        if name in flags and isinstance(node.value, ast.Constant) and node.value.value is True:
            return name
        if name in flags and isinstance(node.value, ast.BoolOp) and isinstance(node.value.op, ast.Or):
            if any(isinstance(v, ast.Name) and v.id == name for v in node.value.values):
                return name
    if isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name) and isinstance(node.op, ast.BitOr):
        if node.target.id in flags:
            return node.target.id
    return None


def _flag_in_guard(guard: ast.If, name: str, flags: list[_Flag]) -> _Flag | None:
    names = {n.id for n in ast.walk(guard.test) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    for flag in flags:
        if flag.name in names:
            return flag
    # a scan written in the guard itself: the outermost expression that holds it
    scan = _scans(guard.test, name)
    if scan is None:
        return None
    node = scan
    while True:
        parent = _parent_in(guard.test, node)
        if parent is None or isinstance(parent, (ast.BoolOp, ast.UnaryOp)) or parent is guard.test and isinstance(guard.test, ast.BoolOp):
            break
        node = parent
    return _Flag(None, node)


def _push_in(guard: ast.If, pushes: list[Push]) -> Push | None:
    for push in pushes:
        if any(push.stmt is s or _contains(s, push.stmt) for s in guard.body):
            return push
    return None


def _contains(outer: ast.AST, inner: ast.AST) -> bool:
    return any(node is inner for node in ast.walk(outer))


def _drop_target(module: Module, guard: ast.If, push: Push) -> tuple[StatementPath | None, str | None]:
    """Where to drop the abandoned ids, and from which context: the one the cleanup pushes,
    or what it was copied from when the copy is made inside the guard."""
    anchor = next((s for s in guard.body if s is push.stmt or _contains(s, push.stmt)), None)
    argument = push.argument
    if anchor is None or argument is None:
        return None, None
    for _ in range(3):
        if isinstance(argument, ast.Call) and isinstance(argument.func, ast.Attribute) and argument.func.attr == "copy":
            argument = argument.func.value
            continue
        if isinstance(argument, ast.Name):
            # bound between the drop and the push (`ctx = self._agent._chat_ctx.copy()` in the try)?
            binding = next(
                (
                    n for n in walk_function(anchor)
                    if isinstance(n, ast.Assign) and any(isinstance(t, ast.Name) and t.id == argument.id for t in n.targets)
                    and n.lineno < push.call.lineno
                ),
                None,
            )
            if binding is not None:
                argument = binding.value
                continue
        break
    text = dotted(argument)
    return (module.path(anchor), text) if text else (None, None)


def _may_precede(module: Module, earlier: ast.AST, later: ast.stmt) -> bool:
    """Whether `earlier` can run before `later` in one pass of the loop body: it comes first
    and the two are not in exclusive branches (if/else, match cases)."""
    if (earlier.lineno, earlier.col_offset) >= (later.lineno, later.col_offset):
        return False
    chain_a = [earlier, *module.ancestors(earlier)]
    chain_b = [later, *module.ancestors(later)]
    ids_b = {id(n) for n in chain_b}
    common = next(n for n in chain_a if id(n) in ids_b)
    if isinstance(common, ast.If):
        branch_a = "body" if any(_contains(s, earlier) for s in common.body) else "orelse"
        branch_b = "body" if any(_contains(s, later) for s in common.body) else "orelse"
        return branch_a == branch_b
    if isinstance(common, ast.Match):
        case_a = next(i for i, c in enumerate(common.cases) if _contains(c, earlier))
        case_b = next(i for i, c in enumerate(common.cases) if _contains(c, later))
        return case_a == case_b
    return True


def _already_tracked(guard: ast.If, loops: list[_Loop]) -> bool:
    """Whether the guard uses a variable that is set right before every early exit."""
    in_guard = {n.id for n in ast.walk(guard.test) if isinstance(n, ast.Name)}
    exits = [e for loop in loops for e in loop.exits]
    return any(all(_set_before(e, name, loops) for e in exits) for name in in_guard)


def _set_before(exit_stmt: ast.stmt, name: str, loops: list[_Loop]) -> bool:
    for loop in loops:
        for node in ast.walk(loop.node):
            blocks = [getattr(node, f, None) for f in ("body", "orelse", "finalbody")]
            blocks += [h.body for h in getattr(node, "handlers", None) or ()]
            for block in blocks:
                if isinstance(block, list) and exit_stmt in block:
                    return any(_assigns_marker(s, name) for s in block[: block.index(exit_stmt)])
    return False


def _assigns_marker(stmt: ast.stmt, name: str) -> bool:
    """`name = <something that is not False/None>` (a flag, or the id where it stopped)."""
    if isinstance(stmt, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in stmt.targets):
        return not (isinstance(stmt.value, ast.Constant) and stmt.value.value in (False, None))
    if isinstance(stmt, ast.AugAssign) and isinstance(stmt.target, ast.Name) and stmt.target.id == name:
        return True
    return False


def _id_attribute(function: ast.AST, targets: list[str | None], candidates) -> str | None:
    """The first candidate attribute the code reads from the loops' items (`msg.message_id`,
    `entry.msg.message_id`)."""
    names = {t for t in targets if t}
    if not names:
        return None
    used = {
        node.attr
        for node in ast.walk(function)
        if isinstance(node, ast.Attribute) and final_name(node.value) in names
    }
    for candidate in candidates:
        if candidate in used:
            return candidate
    return None


def _id_expression(loop: ast.For | ast.AsyncFor, attribute: str) -> str | None:
    """How the flag loop reaches an entry's id: `entry.msg.message_id` for `for entry in L`."""
    variables = {n.id for n in ast.walk(loop.target) if isinstance(n, ast.Name)}
    for node in (n for stmt in loop.body for n in walk_function(stmt)):
        if isinstance(node, ast.Attribute) and node.attr == attribute:
            root = node.value
            while isinstance(root, ast.Attribute):
                root = root.value
            if isinstance(root, ast.Name) and root.id in variables:
                return ast.unparse(node)
    return None


def _names_in(function: ast.AST) -> set[str]:
    names = {n.id for n in ast.walk(function) if isinstance(n, ast.Name)}
    for node in ast.walk(function):
        if isinstance(node, FunctionNode):
            names |= {a.arg for a in [*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs]}
    return names


def _fresh(name: str, taken: set[str]) -> str:
    candidate, number = name, 2
    while candidate in taken:
        candidate = f"{name}_{number}"
        number += 1
    return candidate
