"""Shapes picked to break the text editor's equivalence with the LibCST editor: every
statement edit (insert before/after, an import before/after, remove, move anywhere, wrap a
range, widen a guard) at every statement of small adversarial files (`match`, `except*`,
`while ... else`, wide characters before a guard, module-level blank lines, a file without a
final newline, ...), then generated programs with blocks of mixed indentation. The text
editor may decline (NeedsTree); when it does not, its text must be LibCST's byte for byte,
and it must refuse (CannotFix) exactly what LibCST refuses. The explicit cases below are the
mismatches these found, reduced."""

from __future__ import annotations

import ast
import itertools
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rtlint.core.fixplan import CannotFix
from rtlint.engine.fixer import _render
from rtlint.fix import cstedit
from rtlint.fix.textedit import NeedsTree, TextEditor
from rtlint.fix.wrap import fit_region
from rules._edits import widen_guard

DEF = (("body", 0),)  # the function of a one-function module


def _paths(tree: ast.Module) -> list[tuple]:
    """The path of every statement, in every block (cases and handlers included)."""
    found: list[tuple] = []

    def walk(node: ast.AST, prefix: tuple) -> None:
        for field in ("body", "orelse", "finalbody"):
            statements = getattr(node, field, None)
            if isinstance(statements, list):
                for index, stmt in enumerate(statements):
                    found.append(prefix + ((field, index),))
                    walk(stmt, prefix + ((field, index),))
        for field in ("handlers", "cases"):
            for owner, clause in enumerate(getattr(node, field, None) or ()):
                for index, stmt in enumerate(clause.body):
                    found.append(prefix + ((field, owner, index),))
                    walk(stmt, prefix + ((field, owner, index),))

    walk(tree, ())
    return found


def _node(tree: ast.Module, path: tuple) -> ast.stmt:
    node: ast.AST = tree
    for step in path:
        node = (
            getattr(node, step[0])[step[1]].body[step[2]]
            if step[0] in ("handlers", "cases")
            else getattr(node, step[0])[step[1]]
        )
    return node  # type: ignore[return-value]


def _ops(text: str) -> list[tuple]:
    """Every single edit the editors make, at every statement of `text`."""
    tree = ast.parse(text)
    paths = _paths(tree)
    ops: list[tuple] = []
    for path in paths:
        ops += [
            ("before", path),
            ("nested", path),
            ("after", path),
            ("remove", path),
            ("import", path, False),
            ("import", path, True),
        ]
        stmt = _node(tree, path)
        if isinstance(stmt, (ast.If, ast.While)):
            for node in ast.walk(stmt.test):
                if isinstance(node, (ast.Name, ast.Attribute)):
                    ops += [("widen", path, ast.unparse(node), False), ("widen", path, ast.unparse(node), True)]
    for path, target in itertools.product(paths, paths):
        if path != target:
            ops.append(("move", path, target))
        if path[:-1] == target[:-1] and path[-1][:-1] == target[-1][:-1] and path[-1][-1] <= target[-1][-1]:
            ops.append(("wrap", path, target))
    return ops


def _one(editor, op: tuple) -> None:
    kind, at = op[0], editor.locate
    if kind == "wrap":
        editor.wrap(at(op[1]), at(op[2]), "async with self._lock")
    elif kind == "before":
        editor.insert_before(at(op[1]), [editor.statement("q = 1\n")])
    elif kind == "nested":  # a block, and a bracketed continuation
        editor.insert_before(at(op[1]), [editor.statement("if a:\n    b = (1,\n         2)\n")])
    elif kind == "after":
        editor.insert_after(at(op[1]), [editor.statement("with suppress(E):\n    r.remove(x)\n")])
    elif kind == "move":
        editor.move_before(at(op[2]), at(op[1]))
    elif kind == "remove":
        editor.remove(at(op[1]))
    elif kind == "import":
        editor.insert_import(at(op[1]), op[2], "import contextlib\n")
    elif kind == "widen":
        widen_guard(editor, at(op[1]), op[2], "flag", op[3])


def _apply(editor, ops) -> None:
    for op in ops:  # each op a fix of its own
        editor.begin()
        try:
            _one(editor, op)
        except CannotFix:
            editor.rollback()
            raise


_MISAPPLIED = (AttributeError, IndexError, TypeError, KeyError)  # e.g. `widen` on an `if` LibCST sees as elif


def _fit(limit: int | None, unit: str):
    """The fixer's line-length fit of each changed region (--line-length)."""
    return None if limit is None else lambda new, old: fit_region(old, new, limit, unit)


def by_libcst(text: str, ops, limit: int | None = None) -> str | type:
    editor = cstedit.Editor(cstedit.parse(text))
    try:
        _apply(editor, ops)
    except CannotFix:
        return CannotFix
    except _MISAPPLIED:
        return TypeError
    return _render(editor, text, ast.parse(text), _fit(limit, editor.module.default_indent))[1]


def by_text(text: str, ops, limit: int | None = None) -> str | type | None:
    try:
        editor = TextEditor(text, ast.parse(text))
        _apply(editor, ops)
        return editor.rendered(_fit(limit, editor.unit))
    except NeedsTree:
        return None
    except CannotFix:
        return CannotFix
    except _MISAPPLIED:
        return TypeError


def _agree(text: str, ops, limit: int | None = None) -> bool:
    """Asserts the two editors agree on `ops` (fitted to `limit`); whether the text editor
    made them."""
    on_text = by_text(text, ops, limit)
    if on_text is None:
        return False
    on_libcst = by_libcst(text, ops, limit)
    if TypeError in (on_text, on_libcst):
        return False
    assert on_text == on_libcst, (text, ops)
    return True


SHAPES = {
    "wide characters before a guard": 'def f():\n    if "ü" and self.ready and not self.closed:\n        a = 1\n    while x.y or "日本語" == self.ready:\n        b = 2\n',
    "match": "def f(v):\n    match v:\n        case 1:\n            a = 1\n            b = 2\n        # c\n        case _:\n            c = 3\n    d = 4\n",
    "match, 2-space": "def f(v):\n  match v:\n      case 1:\n         a = 1\n      case _:\n         c = 3\n",
    "except*": "def f():\n    try:\n        a()\n    except* ValueError:\n        b()\n        c()\n    except* TypeError:\n        d()\n    e()\n",
    "async for / while else": "async def f():\n    async for x in y:\n        a()\n        b()\n    else:\n        c()\n    while w:\n        d()\n    else:\n        e()\n        g()\n",
    "nested classes": "class A:\n    class B:\n        def g(self):\n            a = 1\n            b = 2\n\n        x = 1\n    def h(self):\n        def inner():\n            return 1\n        return inner\n",
    "decorators and comments": "class A:\n    @d1\n    # between\n    @d2\n    def f(self):\n        pass\n\n    # above\n    @d3\n    async def g(self):\n        ...\n",
    "comments by else/except": "def f():\n    if a:\n        b()\n    # before else\n    else:\n        # c\n        d()\n    try:\n        e()\n    except E:  # h\n        g()\n    finally:\n\n        k()\n",
    "module docstring, __future__": '"""Doc."""\nfrom __future__ import annotations\n\nimport os\n\nx = 1\n',
    "imports with comments": "import os\n# group\nimport sys\n\n\n# code\nx = 1\n\n\ndef f():\n    pass\n",
    "module blank lines": "@a\n\n@b\n\ndef f():\n    a = 1\n\n    b = 2\n\nx = [\n\n    1,\n]\nif a:\n    b = 1\n\nelse:\n\n    c = 2\n\ny = 1\n",
    "module comment after a block": "def f():\n    a = 1\n\n    # tail\n\n# tail0\n\nx = 1\n",
    "no final newline": "def f():\n    a = 1\n    if b:\n        c = 2",
    "no final newline, CRLF": "def f():\r\n    a = 1\r\n    b = 2  # c",
    "mixed CRLF and LF": "def f():\r\n    a = 1\n    b = 2\r\n    c = 3\n",
    "strings": 'def f():\n    a = "\\\\"\n    b = """x\n    y = 1\n"""\n    c = 3  # "\\\n    d = f"""{x}\n    {y}\n"""\n',
    "one-line suites and semicolons": "def f():\n    if a: b()\n    c = 1;\n    while x: pass\n    d = 1; e = 2\n",
    "empty blocks": 'def f():\n    pass\n\ndef g():\n    ...\n\nclass C:\n    """doc"""\n',
    "global / nonlocal": "x = 0\ndef f():\n    global x\n    x = 1\n    def g():\n        y = 1\n        def h():\n            nonlocal y\n            y = 2\n",
    "elif chains": "def f():\n    if a:\n        b()\n    elif self.c:\n        d()\n        e()\n    elif g:\n        h()\n    else:\n        k()\n",
    "dedented comments after a block": "class A:\n    def f(self):\n        a = 1\n        b = 2\n# col0\n    # col4\n\n    def g(self):\n        pass\n",
    "compound statements to move": "def f():\n    x = 0\n    try:\n        a()\n    except E:  # why\n        b()\n    else:\n        c()\n    # after try\n    y = 1\n    with m:\n        if n:\n            o()\n",
    "a line of white space": "def f():\n    a = 1\n    \n    b = 2\n",
    "mixed indentation": "def f():\n    a = 1\n    if b:\n      c = 2\n      if d:\n         e = 3\n    g = 4\n",
    "long lines": "def f():\n    a = "
    + "+".join(["x"] * 30)
    + '\n    b = "# not a comment"  # real\n    if "ü" and self.ready and not self.closed:\n        c = 1\n',
}


@pytest.mark.parametrize("limit", [None, 30], ids=["as is", "line length 30"])
@pytest.mark.parametrize("name", SHAPES)
def test_every_edit_at_every_statement(name: str, limit: int | None) -> None:
    text = SHAPES[name]
    ops = _ops(text)
    pairs = random.Random(name).sample(list(itertools.product(ops, ops)), min(40, len(ops) ** 2))
    made = sum(_agree(text, [op], limit) for op in ops) + sum(_agree(text, list(pair), limit) for pair in pairs)
    assert made  # not all declined


# -- the mismatches found, reduced --------------------------------------------------------


def test_a_case_block_is_spliced_at_its_own_indentation() -> None:
    """The splice of LibCST's code indented a `case` block's statements as the `case` line
    (the `match` holds the cases' indentation, Match.indent)."""
    text = "def f(v):\n    match v:\n        case 1:\n            a = 1\n"
    ops = [("before", DEF + (("body", 0), ("cases", 0, 0)))]
    assert by_libcst(text, ops) == "def f(v):\n    match v:\n        case 1:\n            q = 1\n            a = 1\n"
    assert _agree(text, ops)


def test_an_insertion_ending_a_block_is_not_repeated_by_a_wrap_after_it() -> None:
    """A wrap whose first statement has no leading lines read the insertion at the end of
    the block before it as its leading lines, and wrote it twice."""
    text = "class A:\n    class B:\n        x = 1\n    def h(self):\n        pass\n"
    ops = [
        ("wrap", (("body", 0), ("body", 1)), (("body", 0), ("body", 1))),
        ("import", (("body", 0), ("body", 0), ("body", 0)), True),
    ]
    expected = "class A:\n    class B:\n        x = 1\n        import contextlib\n    async with self._lock:\n        def h(self):\n            pass\n"
    assert by_libcst(text, ops) == expected
    assert by_text(text, ops) == expected


def test_an_import_inserted_before_where_one_is_inserted_after() -> None:
    """The second insertion joins the first, and LibCST still puts the blank line PEP 8
    wants before the code after it; the text editor leaves that to LibCST."""
    text = "def f():\n    a()\n    b()\n"
    ops = [("import", DEF + (("body", 0),), True), ("import", DEF + (("body", 1),), False)]
    assert by_libcst(text, ops) == "def f():\n    a()\n    import contextlib\n\n    b()\n"
    assert by_text(text, ops) is None


@pytest.mark.parametrize(
    "text, last, expected",
    [
        (
            "def f():\n    pass\n\ndef g():\n    ...\n",
            1,
            "async with self._lock:\n    def f():\n        pass\n    \n    def g():\n        ...\n",
        ),
        ("x = [\n\n    1,\n]\n", 0, "async with self._lock:\n    x = [\n    \n        1,\n    ]\n"),
        (
            "@a\n\n@b\ndef f():\n    a = 1\n\n    b = 2\n",
            0,
            "async with self._lock:\n    @a\n    \n    @b\n    def f():\n        a = 1\n\n        b = 2\n",
        ),
        (
            "if a:\n    b = 1\n\nelse:\n\n    c = 2\n",
            0,
            "async with self._lock:\n    if a:\n        b = 1\n    \n    else:\n\n        c = 2\n",
        ),
        ("x = 1\r\n\r\ny = 2\r\n", 1, "async with self._lock:\r\n    x = 1\r\n    \r\n    y = 2\r\n"),
    ],
)
def test_module_level_blank_lines_wrapped_take_the_indentation(text: str, last: int, expected: str) -> None:
    """LibCST marks a blank line "indented" when it starts with its block's indentation,
    which every module-level one does: wrapped, it is written with the new block's. A blank
    line inside a function's block stays empty."""
    ops = [("wrap", (("body", 0),), (("body", last),))]
    assert by_libcst(text, ops) == expected
    assert by_text(text, ops) == expected


def test_a_blank_line_that_may_be_a_block_footer_is_left_to_libcst() -> None:
    """Before a comment indented deeper than the code after it, a blank line may be part of
    the block above (its footer), which LibCST does not indent."""
    text = "def f():\n    a = 1\n\n    # tail\nx = 1\n"
    ops = [("wrap", (("body", 0),), (("body", 1),))]
    assert by_libcst(text, ops) == "async with self._lock:\n    def f():\n        a = 1\n\n        # tail\n    x = 1\n"
    assert by_text(text, ops) is None


def test_a_line_of_white_space_in_a_wrapped_block_is_left_to_libcst() -> None:
    text = "def f():\n    a = 1\n    \n    b = 2\n"
    ops = [("wrap", DEF + (("body", 0),), DEF + (("body", 1),))]
    assert by_libcst(text, ops) == "def f():\n    async with self._lock:\n        a = 1\n        \n        b = 2\n"
    assert by_text(text, ops) is None


@pytest.mark.parametrize(
    "ops, expected",
    [
        ([("move", DEF + (("body", 1),), DEF + (("body", 0),))], "def f():\n    b = 2\n    a = 1\n"),
        ([("move", DEF + (("body", 1),), (("body", 0),))], "b = 2\ndef f():\n    a = 1\n"),
    ],
)
def test_moving_the_last_line_of_a_file_without_a_final_newline(ops, expected: str) -> None:
    """The moved line had no line ending, and ran on into the line it was put before."""
    text = "def f():\n    a = 1\n    b = 2"
    assert by_libcst(text, ops) == expected
    assert by_text(text, ops) is None


def test_an_insertion_after_the_last_line_without_a_final_newline() -> None:
    """The splice of LibCST's code ran the inserted code on from the last line."""
    text = "def f():\n    if b:\n        c = 2"
    ops = [("after", DEF + (("body", 0), ("body", 0)))]
    assert (
        by_libcst(text, ops) == "def f():\n    if b:\n        c = 2\n        with suppress(E):\n            r.remove(x)"
    )
    assert by_text(text, ops) is None


_SAME_CODE_TWICE = "def f():\n    a = 1\n    x = 1\n    b = 2\n    x = 1\n"
_BOTH_TO_THE_TOP = [
    ("move", DEF + (("body", 1),), DEF + (("body", 0),)),
    ("move", DEF + (("body", 3),), DEF + (("body", 0),)),
]


def test_two_statements_of_the_same_code_moved_to_one_place_are_left_to_libcst() -> None:
    """LibCST takes a move as an insertion of the statement's code, which a second move of
    the same code joins; the text editor would refuse the second as overlapping."""
    assert by_text(_SAME_CODE_TWICE, _BOTH_TO_THE_TOP) is None


def test_two_statements_of_the_same_code_moved_to_one_place_are_both_kept() -> None:
    """The second fix's move waits for the next pass (its insertion was once shared with the
    first's, as an import's is, and its removal made: a statement was lost)."""
    assert by_libcst(_SAME_CODE_TWICE, _BOTH_TO_THE_TOP) is CannotFix


def test_one_fix_moves_several_statements_to_one_place_in_order() -> None:
    """RTL002 moves a commit and its `commit-companions` before one statement: one edit."""
    text = "def f():\n    a = 1\n    b = 2\n    # about c\n    c = 3\n    d = 4\n"
    expected = "def f():\n    # about c\n    c = 3\n    d = 4\n    a = 1\n    b = 2\n"
    for editor in (cstedit.Editor(cstedit.parse(text)), TextEditor(text, ast.parse(text))):
        editor.begin()
        at = lambda i: editor.locate(DEF + (("body", i),))  # noqa: E731
        editor.move_before(at(0), at(2), at(3))
        result = editor.rendered() if isinstance(editor, TextEditor) else _render(editor, text, ast.parse(text))[1]
        assert result == expected


LONG = "def f():\n    a = " + "+".join(["x"] * 12) + "\n    b = 2\n"
LONG_FITTED = "    a = (\n" + "".join(f"        {'+' if i else ''}x\n" for i in range(12)) + "    )\n"


@pytest.mark.parametrize(
    "ops, expected",
    [
        # a long statement moved before the statement after it: LibCST inserts it there,
        # so the fit breaks it, though it stands where it stood
        ([("move", DEF + (("body", 0),), DEF + (("body", 1),))], "def f():\n" + LONG_FITTED + "    b = 2\n"),
        # the short one moved before the long one: only it is new, the long one is kept
        (
            [("move", DEF + (("body", 1),), DEF + (("body", 0),))],
            "def f():\n    b = 2\n" + LONG.split("\n", 1)[1].split("    b = 2\n")[0],
        ),
        # an import before the function: LibCST's splice region is the whole function, in
        # which the moved long statement is where it was, and is kept
        (
            [("move", DEF + (("body", 0),), DEF + (("body", 1),)), ("import", (("body", 0),), False)],
            "import contextlib\n\n\n" + LONG,
        ),
    ],
)
def test_the_line_length_fit_sees_the_regions_libcst_splices(ops, expected: str) -> None:
    """The fit breaks the long lines a region's diff shows as new; the text editor's regions
    were a whole block's edits at once, and the lines a move reordered were a diff's guess."""
    assert by_libcst(LONG, ops, limit=30) == expected
    assert by_text(LONG, ops, limit=30) == expected


# -- generated programs ---------------------------------------------------------------------

SIMPLE = [
    "a{i} = {i}",
    "x{i} = 'é日{i}'  # ü",
    "await self.c{i}(\n{c}1,\n{c}'x',\n)",
    "v{i} = f(1,\n{c}# in\n{c}2)",
    's{i} = """t\n  in\n"""',
    "t{i} = 1 + \\\n{c}2",
    "pass",
    "...",
    "global g{i}",
    "return",
    "del d{i}",
    "y{i} = [\n\n{c}1]",
    "z{i} = {{'k': 1}}  # \\",
    "if self.ready and not self.closed{i}: q()",
    "a{i} = 1; b{i} = 2",
    "def h{i}(): return 1",
    'f{i} = f"""{{x}}\n{{y}}"""',
    "(p{i},\n{c}q{i}) = 1, 2",
]
COMPOUND = [
    "if self.ready{i}:",
    "if c{i}:|else:",
    "if c{i}:|elif self.d{i}:|else:",
    "for x{i} in y:|else:",
    "while self.w{i}:|else:",
    "try:|except E:|finally:",
    "try:|except* E:",
    "try:|except E as e:|else:|finally:",
    "with o{i}:",
    "async with o{i}:",
    "async for a{i} in b:",
    "def f{i}():",
    "@d\n# between\n@e(\n{c}1)\ndef g{i}():",
    "class K{i}:",
    "match m{i}:",
    "if c{i}:  # hc|else:  # ec",
    "if c{i}:|# before else\nelse:",
]
GAPS = ["", "", "", "# c", "#deep", "#shallow", "#col0", "blank", "blank2"]


def _block(rnd: random.Random, depth: int, indent: str, unit: str, counter: list[int]) -> list[str]:
    """A block of 1-4 statements at `indent`; nested blocks take 2, 3 or 4 more spaces."""
    lines: list[str] = []
    for _ in range(rnd.randint(1, 4)):
        counter[0] += 1
        i = counter[0]
        gap = rnd.choice(GAPS)
        lines += {
            "# c": [indent + "# c"],
            "#deep": [indent + unit + "# deep"],
            "#col0": ["# col0"],
            "blank": [""],
            "blank2": ["", ""],
        }.get(gap, [])
        if gap == "#shallow" and indent:
            lines.append(indent[:-1] + "# shallow")
        if depth < 3 and rnd.random() < 0.45:
            compound = rnd.choice(COMPOUND)
            inner = rnd.choice([unit, unit, "  ", "   "])
            if compound.startswith("match"):
                lines.append(indent + compound.format(i=i))
                for k in range(rnd.randint(1, 2)):
                    lines.append(indent + inner + ("case _:" if k else "case 0:"))
                    lines += _block(rnd, depth + 2, indent + inner * 2, unit, counter)
                continue
            for header in compound.split("|"):
                for line in header.format(i=i, c=indent + "    ").split("\n"):
                    lines.append(line if line.startswith(indent + "    ") else indent + line)
                if rnd.random() < 0.15:
                    lines.append(indent + inner + "# first")
                lines += _block(rnd, depth + 1, indent + inner, unit, counter)
                if rnd.random() < 0.15:
                    lines.append(indent + inner + "# trailing")
        else:
            first, *rest = rnd.choice(SIMPLE).format(i=i, c="    ").split("\n")
            lines.append(indent + first)
            lines += [indent + line if line.startswith("    ") or line == ")" else line for line in rest]
    return lines


def program(seed: int) -> tuple[str, random.Random]:
    rnd = random.Random(seed)
    unit = rnd.choice(["    ", "  "])
    head = rnd.choice(
        [[], ['"""Doc."""'], ["import os"], ['"""Doc."""', "from __future__ import annotations", "", "import os"]]
    )
    newline = rnd.choice(["\n", "\n", "\r\n"])
    text = newline.join(head + _block(rnd, 0, "", unit, [0])) + (newline if rnd.random() < 0.9 else "")
    return text, rnd


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 2**32))
def test_generated_programs(seed: int) -> None:
    text, rnd = program(seed)
    ops = _ops(text)
    for _ in range(6):
        _agree(text, rnd.sample(ops, min(len(ops), rnd.randint(1, 3))), rnd.choice([None, 30]))


def test_an_empty_range_of_the_regions_holds_no_insertion_and_overlaps_none() -> None:
    from rtlint.fix.textlayout import Regions as _Regions

    regions = _Regions(["a\n", "b\n", "c\n"])
    regions.put(1, 1, "new\n")
    assert regions.current(1, 1) == ""  # the leading lines of a statement that has none
    assert regions.current(0, 1) == "a\nnew\n"  # the end of a block holds the insertion at it
    regions.put(0, 1, regions.current(0, 1).upper())  # an outer edit takes it in
    assert regions.text(None) == "A\nNEW\nb\nc\n"
    regions.put(1, 3, "BC\n")
    with pytest.raises(NeedsTree, match="overlap"):
        regions.put(2, 2, "inside\n")  # strictly inside a region already replaced
