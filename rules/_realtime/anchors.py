"""Where a fix puts module-level lines and imports, the way isort and ruff would."""

from __future__ import annotations

import ast
import sys

from .._analysis.paths import StatementPath
from .sessions import Module


def module_anchor(module: Module) -> tuple[StatementPath, bool]:
    """Where module-level lines go: after the last import of the file's header (or after its
    docstring and `from __future__` imports), as (path, after)."""
    body = module.file.tree.body
    anchor = None
    for index, stmt in enumerate(body):
        if isinstance(stmt, (ast.Import, ast.ImportFrom)):
            anchor = index
        elif index == 0 and isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
            anchor = index
        else:
            break
    if anchor is None:
        return (("body", 0),), False
    return (("body", anchor),), True


def import_anchor(module: Module, name: str) -> tuple[StatementPath, bool]:
    """Where `import <name>` (a standard-library module) goes, the way isort and ruff sort:
    among the plain standard-library imports in alphabetical order, else before the first
    standard-library `from` import, else before the first import (after `__future__`)."""
    stdlib = getattr(sys, "stdlib_module_names", frozenset())
    body = module.file.tree.body
    plain: list[tuple[int, str]] = []
    first_from = first_import = None
    for index, stmt in enumerate(body):
        if isinstance(stmt, ast.Import):
            first_import = index if first_import is None else first_import
            top = stmt.names[0].name.split(".")[0]
            if top in stdlib:
                plain.append((index, stmt.names[0].name))
        elif isinstance(stmt, ast.ImportFrom):
            if stmt.module == "__future__":
                continue
            first_import = index if first_import is None else first_import
            if (stmt.module or "").split(".")[0] in stdlib and stmt.level == 0 and first_from is None:
                first_from = index
        elif not (index == 0 and isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant)):
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
    return module_anchor(module)


def imports_module(module: Module, name: str) -> str | None:
    """The name under which `import <name>` binds the module at top level, if it does."""
    for stmt in module.file.tree.body:
        if isinstance(stmt, ast.Import):
            for alias in stmt.names:
                if alias.name == name:
                    return alias.asname or name
    return None
