"""Stale writes of a Pipecat context (design.md, "When a snapshot is stale"), and the fixes
that replay them on the live list: a direct write (`set_messages(copy)`,
`transform_messages(f)` with an `f` that ignores its argument) is stale when an await can run
between the copy and the write; a frame write (an Update frame of a copy, a Transform frame
that ignores its argument) always is, since the frame is applied after everything queued
ahead of it.

Fixes (text-level statement edits only): an Update of a pure comprehension (or `map`/`filter`)
of the live list or an exact copy becomes a Transform frame computing the same of its
argument; `copy + [new]` (or `[*copy, new]`) becomes an Append of `[new]`; a direct write of
an exact copy whose edits only add (`append`, `extend`, and `insert(0, item)`, a prepend: the
front of the copy is the front of the live list, whatever was appended meanwhile) becomes
`transform_messages` of the live list with the same additions, the prepends first in the order
they leave (insert at another index: no fix, as an index into the copy names another place of
the live list once messages were added).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass

from rtlint.core.astnodes import walk
from rtlint.fix.imports import from_import_with

from ... import _appfix as fx
from ..._analysis.cfg import Point
from ..._analysis.flags import fresh, names_in
from ..._analysis.index import Function, final_name
from ..._analysis.values import COPY, AliasFlow, Copy
from . import (
    APPEND,
    DIRECT_WRITES,
    EXACT_COPIES,
    FRAMES_MODULE,
    LIST_EDITS,
    TRANSFORM,
    UPDATE,
    Module,
    frame_argument,
    frame_of,
)


@dataclass
class StaleWrite:
    call: ast.Call  # the write or the frame's constructor: where it is reported
    frame: str | None  # the frame's type, None for a direct write
    written: ast.expr  # the stale value
    copy: Copy
    awaits: list[Point]  # for a direct write: what can run in between
    plan: fx.Plan


def _writes(module: Module, function: Function) -> list[ast.Call]:
    """The function's writes (Update and Transform frames, `set_messages`, `transform_messages`)."""
    return [
        call
        for call in module.calls(function)
        if frame_of(call) in (UPDATE, TRANSFORM)
        or (isinstance(call.func, ast.Attribute) and call.func.attr in DIRECT_WRITES and call.args)
    ]


def stale_writes(module: Module, function: Function) -> Iterator[StaleWrite]:
    writes = _writes(module, function)
    if not writes:
        return  # no value flow for a function that writes nothing (most of them)
    flow = module.flow(function)
    for call in writes:
        frame = frame_of(call)
        if frame in (UPDATE, TRANSFORM):
            written = _written(call, frame)
            copies = flow.copies_in(written) if written is not None else []
            if copies:
                plan = _frame_plan(module, function, flow, call, frame, written)
                yield StaleWrite(call, frame, written, copies[0], [], plan)
        elif isinstance(call.func, ast.Attribute) and call.func.attr in DIRECT_WRITES and call.args:
            if not isinstance(function.node, ast.AsyncFunctionDef):
                continue
            receiver = call.func.value
            if not (module.is_shared_context(receiver, function) or flow.live(receiver)):
                continue
            written = call.args[0] if call.func.attr == "set_messages" else ignored_argument(call.args[0])
            for copy in flow.copies_in(written) if written is not None else []:
                awaits = _awaits(module, function, copy, call)
                if awaits:
                    plan = _direct_plan(module, function, flow, call, written, copy)
                    yield StaleWrite(call, None, written, copy, awaits, plan)
                    break


def _written(call: ast.Call, frame: str) -> ast.expr | None:
    if frame == UPDATE:
        return frame_argument(call, "messages")
    return ignored_argument(frame_argument(call, "transform"))


def ignored_argument(function: ast.AST | None) -> ast.expr | None:
    """The body of a one-argument lambda that never reads its argument (a list computed
    outside it), else None."""
    if not (isinstance(function, ast.Lambda) and len(function.args.args) == 1):
        return None
    name = function.args.args[0].arg
    if any(isinstance(n, ast.Name) and n.id == name for n in walk(function.body)):
        return None
    return function.body


def _awaits(module: Module, function: Function, copy: Copy, call: ast.Call) -> list[Point]:
    g = module.graph(function)
    found: dict[int, Point] = {}
    for read in copy.reads:
        start = g.locate(read) if id(read) in g.point_of else None
        for point in g.awaits_between(start, g.locate(call), call):
            found[id(point)] = point
    return sorted(found.values(), key=lambda p: (p.node.lineno, p.node.col_offset, p.order))


# -- the fixes ----------------------------------------------------------------------------


def _is_exact(flow: AliasFlow, node: ast.AST) -> bool:
    """The live list itself, or an exact copy of it (the same items, in order)."""
    if flow.live(node):
        return True
    keys = flow.origins(node)
    return bool(keys) and all(k[0] == COPY and flow.copy(k[1]).exact for k in keys)


def _carries(flow: AliasFlow, node: ast.AST) -> bool:
    return any(flow.origins(n) for n in walk(node) if isinstance(n, (ast.Name, ast.Attribute, ast.Call)))


def _frame_plan(module, function, flow, call, frame, written) -> fx.Plan:
    if frame == TRANSFORM:
        return fx.no_fix("the transform ignores its argument; make it compute from the messages it is given")
    keyword = next((k for k in call.keywords if k.arg == "messages"), None)
    value = written
    computed = _bound_value(flow, written)
    pure = _pure_function(flow, computed)
    if pure is not None:
        source = pure
        parameter = fresh("messages", names_in(computed))
        body = _replaced(module.file, computed, [(source, parameter)])
        new = f"{'transform=' if keyword is not None else ''}lambda {parameter}: {body}"
        if computed is written:  # the list is no longer read here
            dropped = _dead_bindings(module, function, flow, call, [source], moved=[])
        else:  # the frame's function computes the binding's value: the binding goes, its list read with it
            dropped = _dead_bindings(module, function, flow, call, [written], moved=[(computed, source)])
        return _frame_edit(module, call, TRANSFORM, keyword or value, new, dropped)
    added = _added(module, flow, written)
    if added is not None:
        text = f"{'messages=' if keyword is not None else ''}{added}"
        copied = written.left if isinstance(written, ast.BinOp) else written.elts[0].value
        dropped = _dead_bindings(module, function, flow, call, [copied], moved=[])
        return _frame_edit(module, call, APPEND, keyword or value, text, dropped)
    return fx.no_fix(
        "the messages are not a comprehension, map or filter of the context's list, nor the list plus new "
        "messages; build them in an LLMMessagesTransformFrame's function from the list it is given"
    )


def _bound_value(flow: AliasFlow, value: ast.expr) -> ast.expr:
    """What a name holds where it is used, when one plain binding reaches it (`kept = [...]`,
    then `messages=kept`): the frame's function computes that instead."""
    if isinstance(value, ast.Name):
        reaching = flow.reaching(value.id, value)
        if len(reaching) == 1 and reaching[0].kills and isinstance(reaching[0].value, ast.expr):
            if len(flow.by_name.get(value.id, ())) == 1:
                return reaching[0].value
    return value


def _pure_function(flow: AliasFlow, value: ast.expr) -> ast.expr | None:
    """The live list or exact copy a value is computed from, for `[f(m) for m in X]` with one
    generator, `list(map(f, X))`/`list(filter(f, X))` or a slice of X by constants, where nothing else in it comes from
    the context and nothing awaits."""
    source = None
    if isinstance(value, ast.ListComp) and len(value.generators) == 1 and not value.generators[0].is_async:
        source = value.generators[0].iter
    elif (
        isinstance(value, ast.Call)
        and isinstance(value.func, ast.Name)
        and value.func.id == "list"
        and len(value.args) == 1
        and isinstance(value.args[0], ast.Call)
        and isinstance(value.args[0].func, ast.Name)
        and value.args[0].func.id in ("map", "filter")
        and len(value.args[0].args) == 2
    ):
        source = value.args[0].args[1]
        if _carries(flow, value.args[0].args[0]):
            return None
    elif isinstance(value, ast.Subscript) and isinstance(value.slice, ast.Slice):  # the last N: `X[-6:]`
        bounds = [value.slice.lower, value.slice.upper, value.slice.step]
        if all(b is None or isinstance(b, (ast.Constant, ast.UnaryOp)) for b in bounds):
            source = value.value
    if source is None or not _is_exact(flow, source):
        return None
    others = [n for n in walk(value) if n is not source and not _inside(n, source)]
    if any(isinstance(n, (ast.Await, ast.Yield, ast.YieldFrom, ast.NamedExpr)) for n in others):
        return None
    if any(isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and flow.origins(n) for n in others):
        return None
    return source


def _inside(node: ast.AST, outer: ast.AST) -> bool:
    return any(n is node for n in walk(outer))


def _added(module: Module, flow: AliasFlow, value: ast.expr) -> str | None:
    """`X + [a, b]` or `[*X, a, b]` with X the live list or an exact copy and nothing else
    from the context: the text of the list it adds."""
    segment = module.file.segment
    if isinstance(value, ast.BinOp) and isinstance(value.op, ast.Add) and _is_exact(flow, value.left):
        if isinstance(value.right, ast.List) or not _carries(flow, value.right):  # new messages
            return segment(value.right)
    if isinstance(value, ast.List) and value.elts and isinstance(value.elts[0], ast.Starred):
        rest = value.elts[1:]
        if _is_exact(flow, value.elts[0].value) and rest and not any(_carries(flow, e) for e in rest):
            return "[" + ", ".join(segment(e) for e in rest) + "]"
    return None


def _dead_bindings(module, function, flow, call, gone, moved) -> list[ast.stmt]:
    """The bindings the fix leaves unused (ruff's F841), to remove with it: a name no longer
    read once `gone` (expressions the fix takes out of the frame) are, bound once by a plain
    `name = <value>` statement whose value has no effect (a name, an attribute, a slice, a
    list display, `list(...)`, `copy(...)`, `.copy()`, `get_messages(...)`, a live call),
    and read nowhere else in the function. `moved` are (a binding's value, its part the fix
    replaces) for a binding whose value the fix writes elsewhere (a Transform's function):
    only that part's reads go with it. A binding whose value may have an effect is kept."""
    removed: set[int] = {id(n) for g in gone for n in walk(g)}
    dropped: list[ast.stmt] = []
    # a `global` or `nonlocal` name is read outside the function too
    shared = {name for n in walk(function.node) if isinstance(n, (ast.Global, ast.Nonlocal)) for name in n.names}
    queue = [n for g in gone for n in walk(g) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)]
    while queue:
        name = queue.pop(0)
        if name.id in shared:
            continue
        # in-place edits of the list are no bindings (they are reads of the name, below)
        definitions = [d for d in flow.by_name.get(name.id, ()) if d.kills]
        if len(definitions) != 1 or isinstance(definitions[0].node, ast.arg):
            continue
        target = definitions[0].node
        statement = module.index.parents.get(id(target))
        if not (isinstance(statement, ast.Assign) and statement.targets == [target]):
            continue
        if statement in dropped or module.index.statement_of(call) is statement:
            continue
        reads = [
            n
            for n in walk(function.node)
            if isinstance(n, ast.Name) and n.id == name.id and id(n) not in removed and n is not target
        ]
        if reads:
            continue
        value = statement.value
        move = next((part for whole, part in moved if whole is value), None)
        if move is None and not _without_effect(module, value):
            continue  # kept: its value may do something (the page says so)
        dropped.append(statement)
        removed.update(id(n) for n in walk(statement))
        leaving = [move] if move is not None else [value]
        queue += [n for part in leaving for n in walk(part) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)]
    return dropped


def _without_effect(module: Module, value: ast.AST) -> bool:
    """A value whose computation does nothing but read and copy (`list(x)`, `x.copy()`,
    `ctx.get_messages()`, `x[-6:]`, `[*x, m]`, `x + [m]`)."""
    if isinstance(value, (ast.Name, ast.Constant)):
        return True
    if isinstance(value, ast.Attribute):
        return _without_effect(module, value.value)
    if isinstance(value, ast.Subscript):
        return _without_effect(module, value.value) and _without_effect(module, value.slice)
    if isinstance(value, ast.Slice):
        return all(p is None or _without_effect(module, p) for p in (value.lower, value.upper, value.step))
    if isinstance(value, ast.UnaryOp):
        return _without_effect(module, value.operand)
    if isinstance(value, (ast.List, ast.Tuple)):
        return all(_without_effect(module, e) for e in value.elts)
    if isinstance(value, ast.Starred):
        return _without_effect(module, value.value)
    if isinstance(value, ast.Dict):
        return all(_without_effect(module, v) for v in [*value.keys, *value.values] if v is not None)
    if isinstance(value, ast.BinOp) and isinstance(value.op, ast.Add):
        return _without_effect(module, value.left) and _without_effect(module, value.right)
    if isinstance(value, ast.Call):
        name = final_name(value.func)
        reads = EXACT_COPIES | {"get_messages"} | module.vocabulary.live_calls
        if name not in reads:
            return False
        parts = [*value.args, *(k.value for k in value.keywords)]
        if isinstance(value.func, ast.Attribute):
            parts.append(value.func.value)
        return all(_without_effect(module, p) for p in parts)
    return False


def _frame_edit(
    module: Module, call: ast.Call, frame: str, target: ast.AST, text: str, dropped: list[ast.stmt]
) -> fx.Plan:
    """The frame's constructor renamed to `frame` and `target` (its first field) written `text`,
    with the frame's import added where the file has none, and the `dropped` bindings removed."""
    file = module.file
    named = module.frame_import(frame) if isinstance(call.func, ast.Name) else (frame, None)
    if named is None:
        return fx.no_fix(f"the file does not import from pipecat.frames.frames, where {frame} is")
    name, after = named
    head = name if isinstance(call.func, ast.Name) else f"{file.segment(call.func.value)}.{frame}"
    path = file.path_of(module.index.statement_of(call))
    import_path = file.path_of(after) if after is not None else None

    replaced = call.func.id if isinstance(call.func, ast.Name) else None
    unused = replaced is not None and replaced != name and _uses(file.tree, replaced) == 1
    statement = from_import_with(after, file.segment(after), name, replaced if unused else None) if after else None

    dropped_paths = [file.path_of(statement) for statement in dropped]

    holder = _holder(file.tree, replaced) if replaced is not None and replaced != name and after is None else None
    holder_path = file.path_of(holder) if holder is not None else None
    kept_names = [a.name + (f" as {a.asname}" if a.asname else "") for a in holder.names] if holder else []
    kept_names = [n for n in kept_names if n != replaced]
    rewritten = None
    if holder is not None and unused and kept_names:
        rewritten = from_import_with(holder, file.segment(holder), kept_names[0], replaced)

    def apply(editor) -> None:
        editor.replace_segments(editor.locate(path), [(call.func, head), (target, text)])
        for dropped_path in dropped_paths:
            editor.remove(editor.locate(dropped_path))
        if holder is not None:  # the new frame is imported already: the replaced one may go
            located = editor.locate(holder_path)
            if not unused:  # other frames use it: edited unchanged, so that these fixes run one per
                editor.replace_spans(located, [])  # pass and the last one's import drops the name
            elif not kept_names:
                editor.remove(located)
            elif rewritten is not None:
                (row, column), (end_row, end_column) = editor.position(holder, "start"), editor.position(holder, "end")
                editor.replace_spans(located, [(row, column, end_row, end_column, rewritten)])
        if after is None:
            return
        if statement is not None:  # the file's import of the frames, with the name in its order
            (row, column), (end_row, end_column) = editor.position(after, "start"), editor.position(after, "end")
            editor.replace_spans(editor.locate(import_path), [(row, column, end_row, end_column, statement)])
        else:  # an import with a comment inside keeps its text: the name joins its end
            row, column = editor.position(after.names[-1], "end")
            editor.replace_spans(editor.locate(import_path), [(row, column, row, column, f", {name}")])

    return fx.Plan("safe", "", [apply])


def _holder(tree: ast.Module, name: str) -> ast.ImportFrom | None:
    """The module-level `from pipecat.frames.frames import ...` that binds `name`."""
    for stmt in tree.body:
        if isinstance(stmt, ast.ImportFrom) and stmt.module == FRAMES_MODULE:
            if any((a.asname or a.name) == name and not a.asname for a in stmt.names):
                return stmt
    return None


def _uses(tree: ast.Module, name: str) -> int:
    """How many times the module reads `name`."""
    return sum(1 for node in walk(tree) if isinstance(node, ast.Name) and node.id == name)


def _replaced(file, node: ast.AST, parts: list[tuple[ast.AST, str]]) -> str:
    """The source of `node` with each of `parts` (nodes inside it) replaced by its text."""
    text = file.segment(node)
    base = _offset(file, node.lineno, node.col_offset)
    for part, new in sorted(parts, key=lambda p: (p[0].lineno, p[0].col_offset), reverse=True):
        start = _offset(file, part.lineno, part.col_offset) - base
        end = _offset(file, part.end_lineno, part.end_col_offset) - base
        text = text[:start] + new + text[end:]
    return text


def _offset(file, line: int, column: int) -> int:
    """Character offset of (1-based line, byte column) in the file's text."""
    lines = file.lines
    before = sum(len(t) for t in lines[: line - 1])
    return before + len(lines[line - 1].encode()[:column].decode("utf-8", "replace"))


def _direct_plan(module, function, flow, call, written, copy) -> fx.Plan:
    file = module.file
    receiver = call.func.value
    extra: list[str] = []
    if call.func.attr == "set_messages" and isinstance(written, ast.BinOp) and isinstance(written.op, ast.Add):
        right = written.right
        if isinstance(written.left, ast.Name) and isinstance(right, ast.List) and right.elts:  # copy + [new]
            extra = [file.segment(e) for e in right.elts]
            written = written.left
            copy = next(iter(flow.copies_in(written)), copy)
    if call.func.attr != "set_messages" or not isinstance(written, ast.Name):
        return fx.no_fix("only a `set_messages` of a named copy can be replayed on the live list")
    if not copy.exact:
        return fx.no_fix(
            f"`{written.id}` is not a plain copy of the messages (it is filtered or transformed); take it after the "
            f"last await, or compute it in `transform_messages` from the list it is given"
        )
    source = _copied_context(module, copy)
    if source is None or fx.same_code_text(file.segment(source)) != fx.same_code_text(file.segment(receiver)):
        return fx.no_fix(f"the copy is not of {file.segment(receiver)}'s messages")
    g = module.graph(function)
    if g.precedes(call, call):
        return fx.no_fix("the write can run again (a loop), and replaying its additions would add them twice")
    items = _additions(module, function, flow, call, written, copy)
    if isinstance(items, fx.Plan):
        return items
    if not items and not extra:
        return fx.no_fix(
            f"`{written.id}` is written back unchanged: the write only removes what was added meanwhile; drop it"
        )
    # once the write replays them, the copy is read nowhere else: its edits and its binding
    # go (kept, the copy would be a list edited and never read: RTL007, or an unused name)
    receivers = [statement.value.func.value for _, statement, _ in items]
    dropped = _dead_bindings(module, function, flow, call, [written, *receivers], moved=[])
    unread = module.index.statement_of(copy.node) in dropped
    taken = names_in(function.node)
    steps, parts, front = [], [], []
    for argument, statement, kind in items:
        # an `extend` of anything but a list display is read twice (the copy's edit, then the
        # replay): an iterator (a generator, `map`, a name bound to one) would be empty the
        # second time, so what it adds is bound as a list first
        listed = kind == "extend" and not isinstance(argument, (ast.List, ast.ListComp))
        if isinstance(argument, ast.Name) and not listed:
            name = argument.id
            if unread:
                steps.append(_removal(file.path_of(statement)))
        else:
            name = fresh("added_messages" if kind == "extend" else "added_message", taken)
            taken.add(name)
            steps.append(_binding(file, argument, statement, name, listed, unread))
        if kind == "prepend":
            front.insert(0, name)  # each insert(0, ...) goes before the ones made earlier
        else:
            parts.append(f"*{name}" if kind == "extend" else name)
    parts += extra
    current = fresh("current", taken)
    elements = ", ".join([*front, f"*{current}", *parts])
    new = f"{file.segment(receiver)}.transform_messages(lambda {current}: [{elements}])"
    write_path = file.path_of(module.index.statement_of(call))

    def write(editor) -> None:
        editor.replace_segments(editor.locate(write_path), [(call, new)])

    steps.append(write)
    if unread:
        steps += [_removal(file.path_of(statement)) for statement in dropped]
    return fx.Plan("safe", "", steps)


def _additions(module, function, flow, call, written, copy) -> list[tuple[ast.expr, ast.stmt, str]] | fx.Plan:
    """(the item added, its statement, "append"|"extend"|"prepend") of each edit of the copy
    before the write, in order, or no fix: an edit that is not one addition made once on
    every path to the write."""
    g = module.graph(function)
    edits = sorted(_edits_between(module, function, flow, written.id, copy, call), key=lambda e: _position(e[0]))
    items: list[tuple[ast.expr, ast.stmt, str]] = []
    for node, statement in edits:
        method = node.func.attr if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) else None
        line = node.lineno
        if method == "insert" and len(node.args) == 2 and not node.keywords and not _is_zero(node.args[0]):
            return fx.no_fix(
                f"the edit at line {line} inserts at an index of the copy other than 0, and an index into the copy "
                f"does not name the same place in the live list; re-read the messages after the await"
            )
        if method not in ("append", "extend", "insert"):
            return fx.no_fix(
                f"the edit at line {line} removes, reorders or replaces messages of the copy, which cannot be "
                f"replayed on the live list; re-read the messages after the await"
            )
        arity = 2 if method == "insert" else 1
        if (
            len(node.args) != arity
            or any(isinstance(a, ast.Starred) for a in node.args)  # `added_message = *xs` would not compile
            or node.keywords
            or not isinstance(statement, ast.Expr)
            or statement.value is not node
        ):
            shape = "0, item" if method == "insert" else "item"
            return fx.no_fix(f"the edit at line {line} is not a statement `{written.id}.{method}({shape})`")
        if not g.dominates(node, call) or g.precedes(node, node):
            return fx.no_fix(f"the edit at line {line} does not run once on every path to the write")
        items.append((node.args[-1], statement, "prepend" if method == "insert" else method))
    return items


def _binding(file, argument: ast.expr, statement: ast.Expr, name: str, listed: bool, unread: bool):
    """The step that binds what an edit of the copy adds to `name` before the edit (as a list
    when `listed`); the edit then adds `name`, or goes when the copy is `unread`."""
    prefix = f"{name} = "
    value = file.segment(argument)
    # a generator's text starts with a parenthesis: its own, or the call's when it is the
    # call's only argument (then the name replacing it needs them)
    func = statement.value.func
    generator = isinstance(argument, ast.GeneratorExp)
    sole = generator and (argument.lineno, argument.col_offset) == (func.end_lineno, func.end_col_offset)
    if listed:
        value = f"list{value}" if generator else f"list({value})"
    code = prefix + fx.dedent_continuation(value, argument.col_offset - len(prefix)) + "\n"
    path = file.path_of(statement)
    use = f"({name})" if sole else name

    def bind(editor) -> None:
        located = editor.locate(path)
        editor.insert_before(located, [editor.statement(code)])
        if unread:  # the edit goes, the item it added is bound in its place
            editor.remove(located)
        else:
            editor.replace_segments(located, [(argument, use)])

    return bind


def _removal(path):
    def remove(editor) -> None:
        editor.remove(editor.locate(path))

    return remove


def _position(node: ast.AST) -> tuple[int, int]:
    return (node.lineno, node.col_offset)


def _is_zero(node: ast.expr) -> bool:
    """`0`, the index that names the front of the copy and of the live list alike."""
    return isinstance(node, ast.Constant) and type(node.value) is int and node.value == 0


def _copied_context(module: Module, copy: Copy) -> ast.AST | None:
    for read in copy.reads:
        for node in walk(read):
            context = module._lists(node)
            if context is not None and context is not node:
                return context
    return None


def _edits_between(module, function, flow, name, copy, call) -> Iterator[tuple[ast.AST, ast.stmt]]:
    """In-place edits of the copy (through `name`) that can run between its reads and the write."""
    g = module.graph(function)
    key = id(copy.node)

    def carries(node: ast.AST) -> bool:
        return any(k[1] == key for k in flow.origins(node))

    def between(node: ast.AST) -> bool:
        return all(g.precedes(read, node) for read in copy.reads if id(read) in g.point_of) and g.precedes(node, call)

    for node in module.index.nodes(function.node):
        if node is call:
            continue
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in LIST_EDITS:
            if carries(node.func.value) and between(node):
                yield node, module.index.statement_of(node)
        elif isinstance(node, (ast.Assign, ast.AugAssign, ast.Delete)):
            targets = node.targets if isinstance(node, (ast.Assign, ast.Delete)) else [node.target]
            for target in targets:
                inner = target.value if isinstance(target, ast.Subscript) else target
                if (isinstance(target, ast.Subscript) or isinstance(node, ast.AugAssign)) and carries(inner):
                    if between(node):
                        yield node, node


__all__ = ["StaleWrite", "ignored_argument", "stale_writes"]
