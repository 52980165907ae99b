"""Adding an import, the one place that does it (as ruff's `get_or_import_symbol`): how a
module (or one of its names) is written where the file already imports it, where an
`import` a fix adds goes (isort's and ruff's order), where module-level lines go, and how
many blank lines separate an inserted import from what follows (isort's sections, PEP 8's
two blank lines before a definition).

    text, import_at = get_or_import(tree, "asyncio", "Lock")   # ("asyncio.Lock", None) ...
    if import_at is not None:                                    # ... or where to add it
        path, after = import_at
        editor.insert_import(editor.locate(path), after, "import asyncio\n")
"""

from __future__ import annotations

import ast
import re
import sys

from rtlint.core.context import StatementPath

Anchor = tuple[StatementPath, bool]  # (the statement's path, insert after it)

_IMPORTED = re.compile(r"\s*(?:from\s+(\.*)\s*([\w.]*)|import\s+([\w.]+))")


def _standard(code: str) -> bool | None:
    """Whether an import line imports from the standard library (None: not an import)."""
    found = _IMPORTED.match(code)
    if found is None:
        return None
    dots, source, plain = found.groups()
    if dots:
        return False  # a relative import: the package's own section
    top = (source or plain or "").split(".")[0]
    return top in getattr(sys, "stdlib_module_names", ()) or top == "__future__"


def blank_lines_between(new_import: str, target_code: str, target_is_definition: bool) -> int:
    """How many blank lines separate an import inserted before a statement from it: none
    within an isort section, one between sections (a standard-library import before a
    third-party one) and before code, two before a definition (PEP 8)."""
    target = _standard(target_code)
    if target is None:
        return 2 if target_is_definition else 1
    return 0 if target == _standard(new_import) else 1


def get_or_import(tree: ast.Module, module: str, member: str | None = None) -> tuple[str, Anchor | None]:
    """How to write `module.member` (or `module`) in this file, and where `import module`
    goes when the file does not import it at top level yet (None: no import is needed).
    `import module [as m]` gives `m.member`; `from module import member [as n]`, `n`."""
    for stmt in tree.body:
        if isinstance(stmt, ast.Import):
            for alias in stmt.names:
                if alias.name == module:
                    bound = alias.asname or module
                    return (f"{bound}.{member}" if member else bound), None
        elif member and isinstance(stmt, ast.ImportFrom) and stmt.module == module and stmt.level == 0:
            for alias in stmt.names:
                if alias.name == member:
                    return alias.asname or member, None
    return (f"{module}.{member}" if member else module), import_anchor(tree, module)


def _member_order(name: str) -> tuple[int, str]:
    """isort's order of the names of one `from` import (ruff's too): constants, classes, then
    the others, each group case-sensitively."""
    bare = name.split(" as ")[0]
    return (0 if len(bare) > 1 and bare.isupper() else 1 if bare[:1].isupper() else 2, bare)


def from_import_with(
    stmt: ast.ImportFrom, source: str, add: str, drop: str | None = None, unit: str = "    "
) -> str | None:
    """The text of the module-level `from M import ...` statement `stmt` (its source text:
    `source`) with `add` among its names and `drop` (a name no longer used) left out, in
    isort's order; parenthesized one name a line, as black and ruff format it, when the
    statement was. None where the statement holds a comment (the caller keeps it as it is)."""
    if "#" in source or "\\" in source:
        return None
    names = [alias.name + (f" as {alias.asname}" if alias.asname else "") for alias in stmt.names]
    names = [name for name in names if name != drop]
    if add not in names:
        names.append(add)
    names.sort(key=_member_order)
    head = f"from {'.' * stmt.level}{stmt.module or ''} import "
    if "\n" in source:
        return head + "(\n" + "".join(f"{unit}{name},\n" for name in names) + ")"
    return head + ", ".join(names)


def module_anchor(tree: ast.Module) -> Anchor:
    """Where module-level lines go: after the last import of the file's header (or after its
    docstring and `from __future__` imports)."""
    anchor = None
    for index, stmt in enumerate(tree.body):
        if isinstance(stmt, (ast.Import, ast.ImportFrom)) or (index == 0 and _is_docstring(stmt)):
            anchor = index
        else:
            break
    if anchor is None:
        return (("body", 0),), False
    return (("body", anchor),), True


def import_anchor(tree: ast.Module, name: str) -> Anchor:
    """Where `import <name>` (a standard-library module) goes, the way isort and ruff sort:
    among the plain standard-library imports in alphabetical order, else before the first
    standard-library `from` import, else before the first import (after `__future__`)."""
    stdlib = getattr(sys, "stdlib_module_names", frozenset())
    plain: list[tuple[int, str]] = []
    first_from = first_import = None
    for index, stmt in enumerate(tree.body):
        if isinstance(stmt, ast.Import):
            first_import = index if first_import is None else first_import
            if stmt.names[0].name.split(".")[0] in stdlib:
                plain.append((index, stmt.names[0].name))
        elif isinstance(stmt, ast.ImportFrom):
            if stmt.module == "__future__":
                continue
            first_import = index if first_import is None else first_import
            if (stmt.module or "").split(".")[0] in stdlib and stmt.level == 0 and first_from is None:
                first_from = index
        elif not (index == 0 and _is_docstring(stmt)):
            break
    for index, other in plain:
        if other > name:
            return (("body", index),), False
    if plain:
        return (("body", plain[-1][0]),), True
    if first_from is not None:
        return (("body", first_from),), False
    if first_import is not None:
        return (("body", first_import),), False
    return module_anchor(tree)


def _is_docstring(stmt: ast.stmt) -> bool:
    return isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant)
