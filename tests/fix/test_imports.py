"""rtlint.fix.imports: the one place that adds imports (as ruff's get_or_import_symbol)."""

from __future__ import annotations

import ast

from rtlint.fix.imports import get_or_import, import_anchor, module_anchor


def _tree(code: str) -> ast.Module:
    return ast.parse(code)


def test_a_module_imported_under_an_alias_is_written_with_it() -> None:
    assert get_or_import(_tree("import asyncio as aio\n"), "asyncio", "Lock") == ("aio.Lock", None)
    assert get_or_import(_tree("import contextlib\n"), "contextlib") == ("contextlib", None)


def test_a_member_imported_from_the_module_is_written_bare() -> None:
    assert get_or_import(_tree("from asyncio import Lock as L\n"), "asyncio", "Lock") == ("L", None)
    # another member of the module does not bind the one asked for
    text, anchor = get_or_import(_tree("from asyncio import Event\n"), "asyncio", "Lock")
    assert (text, anchor) == ("asyncio.Lock", ((("body", 0),), False))


def test_a_missing_import_goes_in_isort_order() -> None:
    tree = _tree('"""Doc."""\nfrom __future__ import annotations\n\nimport json\nimport sys\n\nx = 1\n')
    assert get_or_import(tree, "os") == ("os", ((("body", 3),), False))  # before sys
    assert import_anchor(tree, "zlib") == ((("body", 3),), True)  # after the last plain one
    assert import_anchor(_tree('"""Doc."""\nx = 1\n'), "os") == ((("body", 0),), True)  # after the docstring
    assert module_anchor(_tree("x = 1\n")) == ((("body", 0),), False)


def test_only_top_level_imports_count() -> None:
    text, anchor = get_or_import(_tree("def f():\n    import asyncio\n"), "asyncio", "Lock")
    assert text == "asyncio.Lock" and anchor is not None
