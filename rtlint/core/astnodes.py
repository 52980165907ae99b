"""Child nodes of a syntax tree, faster than `ast.iter_child_nodes`.

A 5,000-line file has ~180,000 nodes, and every analysis pass walks them. The standard
helper goes through `ast.iter_fields` (a generator per node) and yields the `ctx`
singletons (`Load`, `Store`, `Del`) of every name, attribute and subscript, a third of
all nodes, which no question ever asks about. `children` reads, per node type, only the
fields that can hold nodes, and leaves `ctx` out; the order is `ast.iter_child_nodes`'s.
"""

from __future__ import annotations

import ast
from collections import deque
from collections.abc import Iterator

# fields that never hold a node (identifiers, numbers, flags, comments) and `ctx`
_NEVER_NODES = frozenset(
    {"ctx", "id", "attr", "arg", "kind", "type_comment", "level", "module", "is_async", "conversion", "simple"}
)
_CONSTANTS = (ast.Constant, getattr(ast, "MatchSingleton", ast.Constant))  # `value` is a Python value


def _node_fields(kind: type) -> tuple[str, ...]:
    if issubclass(kind, _CONSTANTS):
        return ()
    return tuple(f for f in kind._fields if f not in _NEVER_NODES)


# per node type, the fields that can hold nodes (read directly by a pass that inlines `children`)
FIELDS: dict[type, tuple[str, ...]] = {
    kind: _node_fields(kind) for kind in vars(ast).values() if isinstance(kind, type) and issubclass(kind, ast.AST)
}


def node_fields(kind: type) -> tuple[str, ...]:
    """`FIELDS[kind]`, for a node type it does not list yet too (a subclass)."""
    fields = FIELDS.get(kind)
    if fields is None:
        fields = FIELDS[kind] = _node_fields(kind)
    return fields


def children(node: ast.AST) -> list[ast.AST]:
    """The child nodes of `node` in `ast.iter_child_nodes` order, without `ctx`."""
    kind = type(node)
    fields = FIELDS.get(kind)
    if fields is None:
        fields = node_fields(kind)
    found: list[ast.AST] = []
    for name in fields:
        value = getattr(node, name, None)
        if value.__class__ is list:
            for item in value:
                if isinstance(item, ast.AST):
                    found.append(item)
        elif isinstance(value, ast.AST):
            found.append(value)
    return found


def walk(node: ast.AST) -> Iterator[ast.AST]:
    """`ast.walk` (breadth first) over `children`: every node below `node`, but no `ctx`."""
    todo = deque([node])
    while todo:
        current = todo.popleft()
        todo.extend(children(current))
        yield current
