"""Blocks of statements, for fixes that move code: which blocks leave a region early, and
which conditions stand between a block and a statement inside it.

    leaving_blocks(file, body, region)       # first statements of blocks that return, raise,
                                             # or break/continue a loop outside the region
    conditions_between(file, path, depth)    # "if x, in a loop at line 3", as text
    in_loop(file, stmt, function_node)       # a loop of the function holds the statement
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from .index import FunctionNode, index
from .paths import StatementPath, statement_at

if TYPE_CHECKING:
    from rtlint.context import FileContext

_LOOPS = (ast.For, ast.AsyncFor, ast.While)


def leaving_blocks(file: FileContext, body: list[ast.stmt], region: StatementPath) -> list[StatementPath]:
    """First statements of the blocks in `body` (itself included) that leave without
    reaching the statement after `region`: they return, raise, or break/continue a loop
    outside the region. Innermost blocks first, the body last."""
    found: list[StatementPath] = []
    region_stmt = statement_at(file.tree, region) if region else None

    def visit(block: list[ast.stmt]) -> None:
        leaves_here = False
        for stmt in block:
            if isinstance(stmt, (ast.Return, ast.Raise)):
                leaves_here = True
            elif isinstance(stmt, (ast.Continue, ast.Break)) and not _loop_inside(file, stmt, region_stmt):
                leaves_here = True
            if isinstance(stmt, (*FunctionNode, ast.ClassDef)):
                continue
            for field in ("body", "orelse", "finalbody"):
                inner = getattr(stmt, field, None)
                if isinstance(inner, list) and inner and isinstance(inner[0], ast.stmt):
                    visit(inner)
            for part in [*(getattr(stmt, "handlers", None) or ()), *(getattr(stmt, "cases", None) or ())]:
                visit(part.body)
        if leaves_here:
            found.append(file.path_of(block[0]))

    visit(body)
    return found


def _loop_inside(file: FileContext, stmt: ast.stmt, region: ast.stmt | None) -> bool:
    """Whether the loop that a break/continue belongs to lies inside the region (a retry)."""
    for ancestor in index(file).ancestors(stmt):
        if isinstance(ancestor, _LOOPS):
            return region is not None and any(n is ancestor for n in ast.walk(region))
        if isinstance(ancestor, FunctionNode):
            return False
    return False


def in_loop(file: FileContext, stmt: ast.AST, function: ast.AST) -> bool:
    """Whether a loop of `function` holds `stmt`."""
    for ancestor in index(file).ancestors(stmt):
        if ancestor is function:
            return False
        if isinstance(ancestor, _LOOPS):
            return True
    return False


def conditions_between(file: FileContext, path: StatementPath, depth: int) -> str:
    """The `if`/loop/`with`/`match` headers from `depth` down to the statement at `path`, as text."""
    parts = []
    for d in range(depth, len(path)):
        holder = statement_at(file.tree, path[:d])
        if isinstance(holder, ast.If):
            parts.append(f"if {file.segment(holder.test)}")
        elif isinstance(holder, _LOOPS):
            parts.append(f"in a loop at line {holder.lineno}")
        elif isinstance(holder, (ast.With, ast.AsyncWith)):
            parts.append(f"inside `with {', '.join(file.segment(i.context_expr) for i in holder.items)}`")
        elif isinstance(holder, ast.Match):
            parts.append(f"in a match case at line {holder.lineno}")
    return ", ".join(parts)
