"""Edits that can never reach a Pipecat context (design.md, RTL007 on Pipecat): an edit
method on a copy nothing keeps (`ctx.get_messages().copy().append(m)`, a context built on a
copy and edited as a statement), a scratch copy that is edited and never read, and a context
frame built and never pushed (a statement, or a name bound to it and never used)."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from rtlint.core.astnodes import walk

from ..._analysis.index import Function
from ..._analysis.values import COPY
from . import APPEND, CONTEXT_EDITS, LIST_EDITS, TRANSFORM, UPDATE, Module, frame_argument, frame_of

_BUILT = frozenset({APPEND, UPDATE, TRANSFORM})  # frames whose construction means a change


def discarded_edits(module: Module, function: Function) -> Iterator[tuple[ast.AST, str]]:
    """(where, message) of every edit of the function that never reaches the context."""
    statements = [n for n in module.index.nodes(function.node) if isinstance(n, (ast.Expr, ast.Assign))]
    reads = module.reads_messages(function)
    candidates = [s for s in statements if _interesting(module, s, reads)]
    if not candidates:
        return
    flow = module.flow(function) if reads else None  # without a read, nothing is a copy
    segment = module.file.segment
    for statement in candidates:
        value = statement.value
        if isinstance(statement, ast.Expr) and isinstance(value, ast.Call):
            if frame_of(value) in _BUILT:
                yield value, f"{frame_of(value)} is built and never pushed: its change never reaches the context"
                continue
            target, method = value.func.value, value.func.attr
            if method in LIST_EDITS and _own_copy(flow, target):
                yield value, f"`{method}` edits a copy that nothing keeps (`{_short(segment(target))}`)"
            elif method in CONTEXT_EDITS and _context_of_copy(module, flow, target):
                yield (
                    value,
                    f"`{method}` edits a context built on a copy that nothing keeps (`{_short(segment(target))}`)",
                )
        elif isinstance(statement, ast.Assign) and len(statement.targets) == 1:
            name = statement.targets[0]
            if not isinstance(name, ast.Name):
                continue
            if frame_of(value) in _BUILT and not _loads(module, function, name.id):
                yield (
                    value,
                    f"{frame_of(value)} is bound to `{name.id}` and never pushed: its change never reaches the context",
                )
            elif _own_copy(flow, value):
                edits = _scratch_edits(module, function, name.id)
                if edits:
                    yield (
                        edits[-1],
                        (
                            f"`{name.id}` is a copy of the messages that is edited and never read: the edit "
                            f"never reaches the context"
                        ),
                    )


def _interesting(module: Module, statement: ast.stmt, reads: bool) -> bool:
    """Worth a look: a frame built, or (in a function that reads messages) an edit statement
    or a binding that reads messages."""
    value = statement.value
    if isinstance(statement, ast.Assign):
        return frame_of(value) in _BUILT or (reads and any(module._lists(n) is not None for n in walk(value)))
    if not isinstance(value, ast.Call):
        return False
    if frame_of(value) in _BUILT:
        return True
    return reads and isinstance(value.func, ast.Attribute) and value.func.attr in LIST_EDITS | CONTEXT_EDITS


def _own_copy(flow, node: ast.AST) -> bool:
    """The expression itself makes a copy of the messages (not a name that holds one)."""
    return flow is not None and (COPY, id(node)) in flow.origins(node)


def _context_of_copy(module: Module, flow, node: ast.AST) -> bool:
    if not (isinstance(node, ast.Call) and module._shares(node) is not None):
        return False
    messages = frame_argument(node, "messages")
    return messages is not None and _own_copy(flow, messages)


def _loads(module: Module, function: Function, name: str) -> list[ast.Name]:
    return [
        n
        for n in module.index.nodes(function.node)
        if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load)
    ]


def _scratch_edits(module: Module, function: Function, name: str) -> list[ast.Call]:
    """The edits of `name` when every use of it is an edit statement of it, else []."""
    parents, edits = module.index.parents, []
    binds = [
        n
        for n in module.index.nodes(function.node)
        if isinstance(n, ast.Name) and n.id == name and not isinstance(n.ctx, ast.Load)
    ]
    if len(binds) != 1 or any(f.outer is function for f in module.index.functions):
        return []  # bound again, or a nested function may read it
    for use in _loads(module, function, name):
        call = parents.get(id(parents.get(id(use))))
        attribute = parents.get(id(use))
        if not (
            isinstance(attribute, ast.Attribute)
            and attribute.attr in LIST_EDITS
            and isinstance(call, ast.Call)
            and call.func is attribute
            and isinstance(parents.get(id(call)), ast.Expr)
        ):
            return []
        edits.append(call)
    return sorted(edits, key=lambda c: (c.lineno, c.col_offset))


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= 50 else text[:47] + "..."


__all__ = ["discarded_edits"]
