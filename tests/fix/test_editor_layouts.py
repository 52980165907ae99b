"""The editor on generated layouts: a method body built of statements with comments at
every indentation, bracketed continuations, strings over several lines, backslashes,
nested blocks with trailing comments, decorators, CRLF and 2-space files; then random edits
(wrap a range, insert, move, remove, an import). The editor may refuse (CannotFix); when it
does not, its text must parse, keep every comment it was not asked to move or remove, and
keep the file's line ending."""

from __future__ import annotations

import ast

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from rtlint.core.fixplan import CannotFix
from rtlint.fix.editor import Editor
from tests.fix.test_editor_shapes import _comments

# statements of the method body, as lines relative to its indentation ("{i}" numbers them)
ENTRIES = [
    ["a{i} = {i}"],
    ["a{i} = {i}  # trailing"],
    ["await self.call{i}(", "    {i},", "    'x',", ")"],
    ["value{i} = compute(1,", "  2)"],
    ["value{i} = compute(1,", "    # inside the brackets", "    2)"],
    ['text{i} = """first', "  inside the string", '"""'],
    ["total{i} = 1 + \\", "    2"],
    ["if cond{i}:", "    b{i} = 1", "    # deeper, after the block"],
    ["if cond{i}:", "    b{i} = 1", "else:", "    c{i} = 2"],
    ["for x{i} in y:", "    pass", "else:", "    z{i} = 2"],
    ["try:", "    a{i}()", "except ValueError:", "    b{i}()", "finally:", "    c{i}()"],
    ["while w{i}:", "    # first comment", "    step{i}()", "", "    step{i}b()"],
    ["@decorator", "def inner{i}():", "    return {i}"],
    ["x{i} = (  # a comment in brackets", "    1", ")"],
    ["async with other{i}:", "    inside{i}()"],
    ["with open(f{i}) as handle:", "    handle.read()"],
]
GAPS = ["", "# a comment", "    # deeper comment", "@col0# column 0", "  # shallower", "   ", "@blank"]


def _module(entries: list[int], gaps: list[int], unit: str, newline: str) -> str:
    body_indent = unit * 2
    lines = [
        "import asyncio",
        "",
        "",
        "class Agent:",
        unit + "def __init__(self):",
        unit * 2 + "self.x = 1",
        "",
        unit + "async def push(self, y):",
    ]
    for number, (entry, gap) in enumerate(zip(entries, gaps)):
        kind = GAPS[gap]
        if kind == "@col0# column 0":
            lines.append("# column 0")
        elif kind == "@blank":
            lines.append("")
        elif kind:
            lines.append(body_indent + kind.replace("    ", unit) if kind.strip() else kind)
        for line in ENTRIES[entry]:
            line = line.replace("{i}", str(number))
            relative = len(line) - len(line.lstrip(" "))
            lines.append(body_indent + unit * (relative // 4) + " " * (relative % 4) + line.lstrip(" ") if line else "")
    lines.append("")
    lines.append("")
    lines.append("def tail():")
    lines.append(unit + "return 0")
    return newline.join(lines) + newline


BODY = (("body", 1), ("body", 1))  # class Agent, then its method


def _apply(editor, ops) -> None:
    for op in ops:  # each op a fix of its own
        editor.begin()
        try:
            _one(editor, op)
        except CannotFix:
            editor.rollback()
            raise


def _one(editor, op) -> None:
    kind = op[0]
    here = lambda i: editor.locate(BODY + (("body", i),))  # noqa: E731
    if kind == "wrap":
        editor.wrap(here(op[1]), here(op[2]), "async with self._lock")
    elif kind == "before":
        editor.insert_before(here(op[1]), [editor.statement("q = 1\n")])
    elif kind == "after":
        editor.insert_after(here(op[1]), [editor.statement("with suppress(E):\n    r.remove(x)\n")])
    elif kind == "move":
        editor.move_before(here(op[2]), here(op[1]))
    elif kind == "remove":
        editor.remove(here(op[1]))
    elif kind == "import":
        editor.insert_import(editor.locate((("body", 0),)), op[1], "import contextlib\n")
    elif kind == "inner":  # the first statement of a nested block
        editor.insert_before(editor.locate(BODY + (("body", op[1]), ("body", 0))), [editor.statement("inner = 1\n")])


def _ops(count: int):
    index = st.integers(0, count - 1)
    return st.lists(
        st.one_of(
            st.tuples(st.just("wrap"), index, index).map(lambda t: (t[0], min(t[1:]), max(t[1:]))),
            st.tuples(st.just("before"), index),
            st.tuples(st.just("after"), index),
            st.tuples(st.just("move"), index, index).filter(lambda t: t[1] != t[2]),
            st.tuples(st.just("remove"), index),
            st.tuples(st.just("import"), st.booleans()),
            st.tuples(st.just("inner"), index),
        ),
        min_size=1,
        max_size=3,
    )


def _by_editor(text: str, tree, ops) -> str | type:
    try:
        editor = Editor(text, tree)
        _apply(editor, ops)
        return editor.rendered()
    except CannotFix:
        return CannotFix
    except (AttributeError, IndexError, TypeError):  # "inner" on a simple statement
        return TypeError


@st.composite
def layouts(draw):
    count = draw(st.integers(2, 6))
    entries = draw(st.lists(st.integers(0, len(ENTRIES) - 1), min_size=count, max_size=count))
    gaps = draw(st.lists(st.integers(0, len(GAPS) - 1), min_size=count, max_size=count))
    unit = draw(st.sampled_from(["    ", "  "]))
    newline = draw(st.sampled_from(["\n", "\r\n"]))
    return _module(entries, gaps, unit, newline), draw(_ops(count))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(layouts())
@example((_module([0, 7, 0], [0, 0, 1], "    ", "\n"), [("wrap", 0, 1)]))
@example((_module([2, 5, 0], [1, 0, 0], "  ", "\r\n"), [("wrap", 0, 2), ("import", False)]))
@example((_module([0, 11, 0], [0, 1, 0], "    ", "\n"), [("move", 2, 0)]))
def test_the_editor_keeps_the_layouts_sound(case) -> None:
    text, ops = case
    tree = ast.parse(text)
    result = _by_editor(text, tree, ops)
    if result in (CannotFix, TypeError):
        return
    ast.parse(result)
    if not {op[0] for op in ops} & {"remove", "move"}:
        assert sorted(_comments(result)) >= sorted(_comments(text))
        assert set(_comments(text)) <= set(_comments(result))
    newline = "\r\n" if "\r\n" in text else "\n"
    assert result.count(newline) == result.count("\n")  # one line ending throughout


def test_the_layouts_are_mostly_made() -> None:
    """The property above would pass vacuously if the editor refused everything."""
    made = 0
    for entries in ([0, 1, 2], [3, 7, 0], [8, 9, 10], [12, 13, 0]):
        text = _module(entries, [0, 1, 4], "    ", "\n")
        for ops in ([("wrap", 0, 2)], [("before", 1), ("move", 2, 0)]):
            made += isinstance(_by_editor(text, ast.parse(text), ops), str)
    assert made >= 6


@pytest.mark.parametrize(
    "text, path, expected",
    [
        ("def f():\n\tif x:\n\t\ty = 1\n", (("body", 0), ("body", 0)), "def f():\n\tq = 1\n\tif x:\n\t\ty = 1\n"),
        ("x = 1\r\ny = 2\rz = 3\n", (("body", 1),), "x = 1\r\nq = 1\r\ny = 2\rz = 3\n"),
        ("def f():\n    a = 1; b = 2\n", (("body", 0), ("body", 0)), "statements share a line"),
        ("def f():\n\f    a = 1\n", (("body", 0), ("body", 0)), "form feed"),
    ],
)
def test_tabs_and_line_endings_are_edited_and_what_is_refused(text: str, path, expected: str) -> None:
    """Tab indentation takes the file's unit, the first line ending found is the one
    inserted; statements sharing a line and form feeds are refused with the reason."""
    editor = Editor(text, ast.parse(text))
    editor.begin()
    try:
        editor.insert_before(editor.locate(path), [editor.statement("q = 1\n")])
        result = editor.rendered()
    except CannotFix as refused:
        result = str(refused)
    assert expected in result
