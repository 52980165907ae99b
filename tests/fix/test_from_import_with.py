"""rtlint.fix.imports.from_import_with: a name joins a `from` import in isort's order, a name
no longer used leaves it, a parenthesized import stays one name a line, and an import
holding a comment is left to the caller."""

from __future__ import annotations

import ast

import pytest

from rtlint.fix.imports import from_import_with


def _with(source: str, add: str, drop: str | None = None) -> str | None:
    stmt = ast.parse(source).body[0]
    assert isinstance(stmt, ast.ImportFrom)
    return from_import_with(stmt, source, add, drop)


@pytest.mark.parametrize(
    "source, add, drop, expected",
    [
        ("from m import Update", "Append", None, "from m import Append, Update"),
        ("from m import Update", "Transform", "Update", "from m import Transform"),
        ("from m import run, Update, CONST", "Append", None, "from m import CONST, Append, Update, run"),
        ("from .m import Update as U", "Append", None, "from .m import Append, Update as U"),
        ("from m import Append", "Append", None, "from m import Append"),
        (
            "from m import (\n    Run,\n    Update,\n)",
            "Transform",
            "Update",
            "from m import (\n    Run,\n    Transform,\n)",
        ),
        ("from m import (  # frames\n    Update,\n)", "Append", None, None),
    ],
)
def test_from_import_with(source: str, add: str, drop: str | None, expected: str | None) -> None:
    assert _with(source, add, drop) == expected
