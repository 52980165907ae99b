"""Blocks of statements, for fixes that move code: which blocks leave a region early, and
which conditions stand between a block and a statement inside it.

    leaving_blocks(file, body, region)       # first statements of blocks that return, raise,
                                             # or break/continue a loop outside the region
    conditions_between(file, path, depth)    # "if x, in a loop at line 3", as text
    in_loop(file, stmt, function_node)       # a loop of the function holds the statement
    failure_blocks(file, path, start, whole_first)   # where a failure at path leaves early
    failure_exits(file, path, start, whole_first, bound)   # those blocks as one list, and
                                             # whether one can run before a `bound` statement
    follows(file, function_node, earlier, later)   # "after", "else", "finally" or None
    ahead_in_block(earlier, later)           # earlier has run whenever later runs (paths)
    hoist_point(file, path, start, inside, after)  # where code can move to run before path
    calls_after(file, stmt, functions, names)   # the calls that directly follow stmt
    body_start(file, function_node)          # where a `nonlocal` goes
    statement_holding(file, block, node)     # the statement of a block holding a node
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from rtlint.core.astnodes import walk

from .index import FunctionNode, TryNode, final_name, index
from .loops import runs_before
from .paths import StatementPath, region, statement_at

if TYPE_CHECKING:
    from rtlint.core.context import FileContext

_LOOPS = (ast.For, ast.AsyncFor, ast.While)


def leaving_blocks(file: FileContext, body: list[ast.stmt], region: StatementPath) -> list[StatementPath]:
    """First statements of the blocks in `body` (itself included) that leave without
    reaching the statement after `region`: they return, raise, or break/continue a loop
    outside the region. Innermost blocks first, the body last."""
    found: list[StatementPath] = []
    region_stmt = statement_at(file.tree, region) if region else None
    _visit(file, region_stmt, body, found)
    return found


def _visit(file: FileContext, region_stmt: ast.stmt | None, block: list[ast.stmt], found: list[StatementPath]) -> None:
    # a module function, not a closure that calls itself: that would be a cycle holding `file`
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
                _visit(file, region_stmt, inner, found)
        for part in [*(getattr(stmt, "handlers", None) or ()), *(getattr(stmt, "cases", None) or ())]:
            _visit(file, region_stmt, part.body, found)
    if leaves_here:
        found.append(file.path_of(block[0]))


def _loop_inside(file: FileContext, stmt: ast.stmt, region: ast.stmt | None) -> bool:
    """Whether the loop that a break/continue belongs to lies inside the region (a retry)."""
    for ancestor in index(file).ancestors(stmt):
        if isinstance(ancestor, _LOOPS):
            return region is not None and any(n is ancestor for n in walk(region))
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


def body_start(file: FileContext, function: ast.AST) -> tuple[StatementPath, bool]:
    """Where a declaration (`nonlocal x`) goes in a function: (path, after it): before the
    first statement, or after the docstring when more follows."""
    body = function.body
    first = body[0]
    docstring = (
        isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str)
    )
    return file.path_of(first), docstring and len(body) > 1


def ahead_in_block(earlier: StatementPath, later: StatementPath) -> bool:
    """Whether the statement at `earlier` sits in a block holding `later`, ahead of it (so it
    has run whenever `later` runs)."""
    first, last = region(earlier, later)
    return first == earlier and last != earlier


def follows(file: FileContext, function: ast.AST, earlier: ast.AST, later: ast.stmt) -> str | None:
    """How `later` follows `earlier` in one pass (`runs_before`): "after" (a later statement
    of a block holding both), "else" or "finally" (of the try whose body holds `earlier`);
    None otherwise (another branch, a handler of `earlier`'s own failure, a loop's `else:`,
    one statement holding the other)."""
    if not runs_before(file, function, earlier, later):
        return None
    a, b = file.path_of(index(file).statement_of(earlier)), file.path_of(later)
    first, last = region(a, b)
    if first != last:
        return "after"  # two statements of one block
    depth = len(first)
    if depth in (len(a), len(b)):
        return None
    owner, fields = statement_at(file.tree, first), (a[depth][0], b[depth][0])
    if isinstance(owner, TryNode) and fields[0] == "body" and fields[1] in ("orelse", "finalbody"):
        return "else" if fields[1] == "orelse" else "finally"
    return None


def hoist_point(
    file: FileContext, path: StatementPath, start: int, inside: list[ast.stmt], after: list[ast.stmt]
) -> StatementPath | None:
    """Where code can move to run before the statement at `path`: the shallowest statement
    on the way down to it (depth `start` or deeper) that stays inside each of `inside` met
    on the way (lock regions) and has each of `after` ahead of it in its block."""
    held = {id(s) for s in inside}
    floor = max(
        [start, *(d + 1 for d in range(start, len(path)) if id(statement_at(file.tree, path[: d + 1])) in held)]
    )
    ahead = [file.path_of(s) for s in after]
    for depth in range(floor, len(path)):
        if all(ahead_in_block(p, path[: depth + 1]) for p in ahead):
            return path[: depth + 1]
    return None


def failure_blocks(
    file: FileContext, path: StatementPath, start: int, whole_first: bool
) -> list[tuple[ast.stmt, list[StatementPath]]]:
    """For a statement at `path` that may fail: the blocks (first statements) that leave
    the statement at depth `start` after that failure without reaching its end, per try or
    retry loop around it (depth `start` and deeper): handlers that return, raise or
    break/continue out, and a retry loop's `else:` (every attempt failed). With
    `whole_first`, every handler of a try at depth `start` counts, whatever it does."""
    found = []
    outer = path[: start + 1]
    for depth in range(start, len(path) - 1):
        stmt = statement_at(file.tree, path[: depth + 1])
        if path[depth + 1][0] != "body":
            continue
        if isinstance(stmt, TryNode):
            for handler in stmt.handlers:
                whole = whole_first and depth == start
                found.append(
                    (stmt, [file.path_of(handler.body[0])] if whole else leaving_blocks(file, handler.body, outer))
                )
        elif isinstance(stmt, _LOOPS) and stmt.orelse:
            found.append((stmt, leaving_blocks(file, stmt.orelse, outer)))
    return found


def failure_exits(
    file: FileContext, path: StatementPath, start: int, whole_first: bool, bound: list[ast.stmt]
) -> tuple[list[StatementPath], bool]:
    """The blocks of `failure_blocks` as one list (each once), and whether one of them is a
    handler of a try that holds a statement of `bound` (so it can run before that one has)."""
    holders = [(holder, blocks) for holder, blocks in failure_blocks(file, path, start, whole_first) if blocks]
    early = any(isinstance(h, TryNode) and h in index(file).ancestors(s) for h, _ in holders for s in bound)
    return list(dict.fromkeys(p for _, blocks in holders for p in blocks)), early


def calls_after(file: FileContext, stmt: ast.stmt, functions: set[str], names: set[str]) -> list[StatementPath]:
    """The run of calls right after `stmt` in its block to one of `functions`, each taking
    one of `names`."""
    parent = index(file).parents.get(id(stmt))
    blocks = [getattr(parent, f, None) for f in ("body", "orelse", "finalbody")]
    block = next((b for b in reversed(blocks) if isinstance(b, list) and stmt in b), None)
    found = []
    for following in block[block.index(stmt) + 1 :] if functions and block else ():
        call = following.value if isinstance(following, ast.Expr) else None
        if not (isinstance(call, ast.Call) and final_name(call.func) in functions):
            break
        if not {n.id for n in walk(call) if isinstance(n, ast.Name)} & names:
            break
        found.append(file.path_of(following))
    return found


def statement_holding(file: FileContext, block: list[ast.stmt], node: ast.AST) -> ast.stmt | None:
    """The statement of `block` that is or holds `node`."""
    chain = {id(node), *(id(a) for a in index(file).ancestors(node))}
    return next((s for s in block if id(s) in chain), None)
