"""Statement paths: a statement's address, the same in the `ast` and the LibCST tree of one
source, so a check can name what its fix edits.

A path is a tuple of steps from the module down: ("body", 3), ("orelse", 0),
("handlers", 1, 0) (statement 0 of handler 1), ("cases", 2, 0) (statement 0 of case 2).
`FileContext.path_of(stmt)` gives a statement's path; `statement_at` is its inverse.
"""

from __future__ import annotations

import ast
from typing import Any

# the engine owns the path type (its fixer locates LibCST nodes by it); rules extend it here
from rtlint.core.context import StatementPath, iter_statement_paths

__all__ = ["StatementPath", "iter_statement_paths", "statement_at", "region", "block_run"]


def statement_at(tree: ast.AST, path: StatementPath) -> ast.stmt:
    """The statement a path names (the inverse of `iter_statement_paths`)."""
    node: Any = tree
    for step in path:
        if step[0] == "handlers":
            node = node.handlers[step[1]].body[step[2]]
        elif step[0] == "cases":
            node = node.cases[step[1]].body[step[2]]
        else:
            node = getattr(node, step[0])[step[1]]
    return node


def region(a: StatementPath, b: StatementPath) -> tuple[StatementPath, StatementPath]:
    """The statements of one block that hold both `a` and `b`, as (first, last) paths: the
    run between them when they share a block, else the compound statement holding both."""
    k = 0
    while k < min(len(a), len(b)) and a[k] == b[k]:
        k += 1
    if k == len(a) or k == len(b):  # one statement holds the other
        enclosing = a[:k] if k == len(a) else b[:k]
        return enclosing, enclosing
    step_a, step_b = a[k], b[k]
    if step_a[:-1] == step_b[:-1]:  # same block: the statements between them
        lower, upper = sorted((a[: k + 1], b[: k + 1]), key=lambda path: path[-1][-1])
        return lower, upper
    return a[:k], a[:k]  # different branches of one compound statement: all of it


def block_run(tree: ast.AST, first: StatementPath, last: StatementPath) -> list[ast.stmt]:
    """The statements from `first` through `last`, two paths into one block."""
    parent, step = first[:-1], first[-1]
    return [statement_at(tree, parent + (step[:-1] + (i,),)) for i in range(step[-1], last[-1][-1] + 1)]
