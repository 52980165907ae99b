"""Flags computed from a list, and markers set before a loop's exits.

empty_list_target(stmt)              # "L" for `L = []`, `L: list[X] = []`, `L = list()`
flags_from(nodes, "L")               # Flag: a loop over L raising it, or any/all over L
flag_in_guard(guard, "L", flags)     # the list-derived flag an `if` tests, else None
marked_before(file, function, exit, name)  # `name = <truthy>` dominates the exit in its block
marks_every_exit(file, test, exits)  # the test uses a name marked before each exit
flag_operand(guard, flag)            # (the flag's expression in the test, under a `not`?)
fresh("x", taken); names_in(function); attribute_read(function, names, candidates)
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from rtlint.core.astnodes import walk

from .cfg import graph
from .index import final_name, index, walk_function

if TYPE_CHECKING:
    from rtlint.core.context import FileContext

_LIST_VIEWS = {"enumerate", "reversed", "sorted", "list", "tuple", "iter"}


@dataclass
class Flag:
    name: str | None  # a flag variable, or None for a scan written in the guard itself
    node: ast.AST | None  # the scanning expression, for an inline flag
    loop: ast.For | ast.AsyncFor | None = None  # a loop over the list that sets the flag
    sets: list[ast.stmt] = field(default_factory=list)  # `flag = True` / `flag |= ...` in it


def empty_list_target(node: ast.AST) -> str | None:
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


def over_list(iterable: ast.AST, name: str) -> bool:
    """`L`, or a view of it such as `enumerate(L)` or `reversed(L)`."""
    if isinstance(iterable, ast.Name):
        return iterable.id == name
    if isinstance(iterable, ast.Call) and final_name(iterable.func) in _LIST_VIEWS and iterable.args:
        return over_list(iterable.args[0], name)
    return False


def scans(value: ast.AST, name: str) -> ast.AST | None:
    """The comprehension over the list in `value`, if any."""
    for node in walk(value):
        if isinstance(node, (ast.GeneratorExp, ast.ListComp, ast.SetComp)):
            if any(over_list(g.iter, name) for g in node.generators):
                return node
    return None


def flags_from(nodes: list[ast.AST], name: str) -> Iterator[Flag]:
    """Flags computed only from the list: a loop over it that sets the flag, or a scan
    (any/all/a comprehension) over it."""
    false_flags = {
        n.targets[0].id
        for n in nodes
        if isinstance(n, ast.Assign)
        and len(n.targets) == 1
        and isinstance(n.targets[0], ast.Name)
        and isinstance(n.value, ast.Constant)
        and n.value.value is False
    }
    for node in nodes:
        if isinstance(node, (ast.For, ast.AsyncFor)) and over_list(node.iter, name):
            found: dict[str, Flag] = {}
            for inner in (n for stmt in node.body for n in walk_function(stmt)):
                flag = sets_flag(inner, false_flags)
                if flag:
                    found.setdefault(flag, Flag(flag, None, node)).sets.append(inner)
            yield from found.values()
        elif isinstance(node, (ast.Assign, ast.AnnAssign)) and isinstance(getattr(node, "value", None), ast.AST):
            target = node.targets[0] if isinstance(node, ast.Assign) else node.target
            if isinstance(target, ast.Name) and scans(node.value, name):
                yield Flag(target.id, None)


def sets_flag(node: ast.AST, flags: set[str]) -> str | None:
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


def parent_in(root: ast.AST, target: ast.AST | None) -> ast.AST | None:
    """The parent of `target` inside the expression `root`."""
    for node in walk(root):
        for child in ast.iter_child_nodes(node):
            if child is target:
                return node
    return None


def flag_in_guard(guard: ast.If, name: str, flags: list[Flag]) -> Flag | None:
    """The list-derived flag the guard tests: a flag variable, or a scan written in the
    test (the outermost expression holding it below a `not`/`and`/`or`)."""
    names = {n.id for n in walk(guard.test) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    for flag in flags:
        if flag.name in names:
            return flag
    scan = scans(guard.test, name)
    if scan is None:
        return None
    node = scan
    while True:
        parent = parent_in(guard.test, node)
        if (
            parent is None
            or isinstance(parent, (ast.BoolOp, ast.UnaryOp))
            or parent is guard.test
            and isinstance(guard.test, ast.BoolOp)
        ):
            break
        node = parent
    return Flag(None, node)


def assigns_marker(stmt: ast.stmt, name: str) -> bool:
    """`name = <something that is not False/None>` (a flag, or the id where it stopped)."""
    if isinstance(stmt, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in stmt.targets):
        return not (isinstance(stmt.value, ast.Constant) and stmt.value.value in (False, None))
    return isinstance(stmt, ast.AugAssign) and isinstance(stmt.target, ast.Name) and stmt.target.id == name


def marked_before(file: FileContext, function: ast.AST, exit_stmt: ast.stmt, name: str) -> bool:
    """Whether a statement of the exit's own block assigns `name` a marker on every path
    to the exit (it dominates the exit)."""
    parent = index(file).parents.get(id(exit_stmt))
    blocks = [getattr(parent, f, None) for f in ("body", "orelse", "finalbody")]
    block = next((b for b in blocks if isinstance(b, list) and exit_stmt in b), [])
    g = graph(file, function)
    return any(assigns_marker(s, name) and g.dominates(s, exit_stmt) for s in block if s is not exit_stmt)


def marks_every_exit(file: FileContext, test: ast.AST, exits: list[tuple[ast.AST, ast.stmt]]) -> bool:
    """Whether `test` uses a name that is marked before every exit (a (function, exit
    statement) pair): the exits are tracked already."""
    used = {n.id for n in walk(test) if isinstance(n, ast.Name)}
    return any(all(marked_before(file, f, e, name) for f, e in exits) for name in used)


def flag_operand(guard: ast.If, flag: Flag) -> tuple[ast.AST, bool]:
    """The expression of the guard's test that stands for the flag (its name, or the inline
    scan), and whether it is negated (`not flag`)."""
    node = (
        flag.node
        if flag.name is None
        else next(n for n in walk(guard.test) if isinstance(n, ast.Name) and n.id == flag.name)
    )
    parent = parent_in(guard.test, node)
    return node, isinstance(parent, ast.UnaryOp) and isinstance(parent.op, ast.Not)


def names_in(function: ast.AST) -> set[str]:
    """Every name a function binds or reads, the parameters of it and of what it nests
    (lambdas, `*args` and `**kwargs` included): what a fresh local name must avoid."""
    return {n.id if isinstance(n, ast.Name) else n.arg for n in walk(function) if isinstance(n, (ast.Name, ast.arg))}


def fresh(name: str, taken: set[str]) -> str:
    """`name`, or `name_2`, `name_3`, ... : the first that is not taken."""
    candidate, number = name, 2
    while candidate in taken:
        candidate = f"{name}_{number}"
        number += 1
    return candidate


def attribute_read(function: ast.AST, names: Iterable[str | None], candidates: Iterable[str]) -> str | None:
    """The first candidate attribute the code reads from one of `names` (`msg.message_id`,
    `entry.msg.message_id`)."""
    wanted = {n for n in names if n}
    if not wanted:
        return None
    used = {n.attr for n in walk(function) if isinstance(n, ast.Attribute) and final_name(n.value) in wanted}
    return next((c for c in candidates if c in used), None)


def attribute_path(loop: ast.For | ast.AsyncFor, attribute: str) -> str | None:
    """How a loop's body reaches an entry's attribute: `entry.msg.message_id` for `for entry in L`."""
    variables = {n.id for n in walk(loop.target) if isinstance(n, ast.Name)}
    for node in (n for stmt in loop.body for n in walk_function(stmt)):
        if isinstance(node, ast.Attribute) and node.attr == attribute:
            root = node.value
            while isinstance(root, ast.Attribute):
                root = root.value
            if isinstance(root, ast.Name) and root.id in variables:
                return ast.unparse(node)
    return None
