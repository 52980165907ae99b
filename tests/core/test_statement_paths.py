"""FileContext.path_of finds a statement's path by its position; it must equal the path
that iter_statement_paths gives (the fixer's LibCST side walks the same steps)."""

from __future__ import annotations

import ast
import asyncio.base_events
import textwrap
import typing

import pytest

from rtlint.core.context import FileContext, iter_statement_paths
from rtlint.core.settings import Settings

TRICKY = textwrap.dedent(
    """
    import os; x = 1; y = 2
    @decorator(
        arg,
    )
    class A:
        a = 1; b = 2
        @property
        def f(self):
            if x: return 1
            elif y:
                pass
            else: z = 3
        async def g(self):
            async with l: await h()
            async for i in j: pass
            try:
                pass
            except E as e: log(e)
            except (F, G):
                raise
            else: ok()
            finally: done()
    match command:
        case [x, y]: pass
        case {"k": v} if v:
            while v:
                v -= 1
            else: w = 0
        case _:
            for i in r: print(i); continue
    try:
        pass
    except* ValueError:
        pass
    with a as b, c as d: pass
    """
)


def _sources() -> list[str]:
    return [TRICKY, *(open(m.__file__, encoding="utf-8").read() for m in (ast, asyncio.base_events, typing))]


@pytest.mark.parametrize("source", _sources(), ids=["tricky", "ast", "base_events", "typing"])
def test_path_of_equals_the_full_walk(source: str) -> None:
    tree = ast.parse(source)
    expected = list(iter_statement_paths(tree))
    assert len(expected) > 20
    file = FileContext("x.py", source, tree, Settings({}))
    for stmt, path in reversed(expected):  # inner ones first: nothing is cached ahead
        assert file.path_of(stmt) == path


def test_a_statement_of_another_tree_is_not_found() -> None:
    tree = ast.parse("def f():\n    return 1\n")
    other = ast.parse("def f():\n    return 1\n").body[0].body[0]
    with pytest.raises(KeyError):
        FileContext("x.py", "", tree, Settings({})).path_of(other)
