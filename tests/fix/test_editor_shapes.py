"""Shapes picked to break the editor: every statement edit (insert before/after, an import
before/after, remove, move anywhere, wrap a range, widen a guard) at every statement of
small adversarial files (`match`, `except*`, `while ... else`, wide characters before a
guard, module-level blank lines, a file without a final newline, ...), then generated
programs with blocks of mixed indentation. The editor may refuse (CannotFix, with its
reason); when it does not, its text must parse to the tree the same edit makes on the `ast`
tree itself (the oracle below), keep every comment it did not move or remove, and keep its
line endings."""

from __future__ import annotations

import ast
import copy
import io
import itertools
import random
import tokenize
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rtlint.core.fixplan import CannotFix
from rtlint.fix.editor import Editor
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


def _slot(tree: ast.AST, path: tuple) -> tuple[ast.AST, list[ast.stmt], int]:
    """(owner, the statement list, index) of the statement at `path`."""
    node: ast.AST = tree
    owner, statements, index = node, [], 0
    for step in path:
        owner = getattr(node, step[0])[step[1]] if step[0] in ("handlers", "cases") else node
        statements = owner.body if step[0] in ("handlers", "cases") else getattr(node, step[0])
        index = step[-1]
        node = statements[index]
    return owner, statements, index


def _node(tree: ast.Module, path: tuple) -> ast.stmt:
    _, statements, index = _slot(tree, path)
    return statements[index]


def _ops(text: str) -> list[tuple]:
    """Every single edit the editor makes, at every statement of `text`."""
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
        if path != target and target[: len(path)] != path:
            ops.append(("move", path, target))
        if path[:-1] == target[:-1] and path[-1][:-1] == target[-1][:-1] and path[-1][-1] <= target[-1][-1]:
            ops.append(("wrap", path, target))
    return ops


BEFORE, NESTED = "q = 1\n", "if a:\n    b = (1,\n         2)\n"
AFTER = "with suppress(E):\n    r.remove(x)\n"


def _one(editor, op: tuple) -> None:
    kind, at = op[0], editor.locate
    if kind == "wrap":
        editor.wrap(at(op[1]), at(op[2]), "async with self._lock")
    elif kind == "before":
        editor.insert_before(at(op[1]), [editor.statement(BEFORE)])
    elif kind == "nested":  # a block, and a bracketed continuation
        editor.insert_before(at(op[1]), [editor.statement(NESTED)])
    elif kind == "after":
        editor.insert_after(at(op[1]), [editor.statement(AFTER)])
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


_MISAPPLIED = (AttributeError, IndexError, TypeError, KeyError)  # e.g. `widen` on an `if` that is an elif


def _fit(limit: int | None, unit: str):
    """The fixer's line-length fit of each changed region (--line-length)."""
    return None if limit is None else lambda new, old: fit_region(old, new, limit, unit)


def by_editor(text: str, ops, limit: int | None = None) -> str | type:
    try:
        editor = Editor(text, ast.parse(text))
        _apply(editor, ops)
        return editor.rendered(_fit(limit, editor.unit))
    except CannotFix:
        return CannotFix
    except _MISAPPLIED:
        return TypeError


# -- the oracle: the same edits made on the `ast` tree ---------------------------------------

_DROPPABLE = (ast.Try, ast.For, ast.AsyncFor, ast.While, ast.If, *((ast.TryStar,) if hasattr(ast, "TryStar") else ()))


class _Widen(ast.NodeTransformer):
    def __init__(self, expression: str, negated: bool) -> None:
        self.expression, self.negated = expression, negated

    def _is(self, node: ast.AST) -> bool:
        return isinstance(node, (ast.Name, ast.Attribute)) and ast.unparse(node) == self.expression

    def visit_UnaryOp(self, node: ast.UnaryOp) -> ast.AST:
        if self.negated and isinstance(node.op, ast.Not) and self._is(node.operand):
            return ast.BoolOp(ast.Or(), [node, ast.Name("flag", ast.Load())])
        return self.generic_visit(node)

    def generic_visit(self, node: ast.AST) -> ast.AST:
        if not self.negated and self._is(node):
            return ast.BoolOp(ast.Or(), [node, ast.Name("flag", ast.Load())])
        return super().generic_visit(node)


def expected_tree(text: str, ops) -> str:
    """ast.dump of `text` after `ops`, made on its tree (statement lists; removal may leave
    a block empty: `pass`, or an `else:`/`finally:` dropped)."""
    tree = ast.parse(text)
    marks: list[tuple[list, int, list]] = []  # (list, index, new statements) to splice
    for op in ops:
        kind = op[0]
        owner, statements, index = _slot(tree, op[1])
        if kind in ("before", "nested", "after"):
            code = {"before": BEFORE, "nested": NESTED, "after": AFTER}[kind]
            marks.append((statements, index + (kind == "after"), ast.parse(code).body))
        elif kind == "import":
            marks.append((statements, index + op[2], ast.parse("import contextlib").body))
        elif kind == "remove":
            marks.append((statements, -1, [statements[index]]))
        elif kind == "move":
            moved = statements[index]
            _, target_list, target_index = _slot(tree, op[2])
            marks.append((statements, -1, [moved]))
            marks.append((target_list, target_index, [copy.deepcopy(moved)]))
        elif kind == "wrap":
            _, _, last = _slot(tree, op[2])
            lock = ast.parse("self._lock", mode="eval").body
            wrapped = ast.AsyncWith([ast.withitem(lock)], statements[index : last + 1])
            marks.append((statements, -2, [index, last, wrapped]))
        elif kind == "widen":
            statements[index].test = _Widen(op[2], op[3]).visit(statements[index].test)
    # insertions by identity of the statement they go before, then the removals and wraps
    anchors, seen = [], set()
    for statements, index, new in marks:
        before = statements[index] if 0 <= index < len(statements) else None
        key = (id(statements), id(before), ast.dump(ast.Module(new, [])))
        if index >= 0 and key not in seen:  # the same code inserted at one place twice is shared
            seen.add(key)
            anchors.append((statements, before, new))
    for statements, _, new in sorted((m for m in marks if m[1] == -2), key=lambda m: -m[2][0]):
        first, last, wrapped = new  # from the end of the block, so earlier indexes stay valid
        statements[first : last + 1] = [wrapped]
    for statements, index, new in marks:
        if index == -1:
            for node in list(statements):
                if node is new[0]:
                    statements.remove(node)
    for statements, before, new in anchors:
        if before is None:
            statements.extend(new)
        else:
            at = next(i for i, node in enumerate(statements) if node is before)
            statements[at:at] = new
    for node in ast.walk(tree):
        for field in ("body", "orelse", "finalbody"):
            block = getattr(node, field, None)
            if isinstance(block, list) and not block and not isinstance(node, ast.Module):
                original = _slot_of_field(node, field)
                if original and (field == "orelse" and isinstance(node, _DROPPABLE) or field == "finalbody"):
                    continue
                setattr(node, field, [ast.Pass()])
    return ast.dump(tree)


def _slot_of_field(node: ast.AST, field: str) -> bool:
    """Whether the emptied `field` of `node` is a clause that goes (else / finally beside handlers)."""
    return field == "orelse" or field == "finalbody" and bool(getattr(node, "handlers", None))


def _comments(text: str) -> list[str]:
    tokens = tokenize.generate_tokens(io.StringIO(text).readline)
    return [token.string for token in tokens if token.type == tokenize.COMMENT]


def _checked(text: str, ops, limit: int | None = None) -> bool:
    """Asserts that the editor's result means what `ops` mean; whether it made them."""
    result = by_editor(text, ops, limit)
    if result in (CannotFix, TypeError):
        return False
    assert isinstance(result, str)
    kinds = {op[0] for op in ops}
    if limit is None or not kinds & {"before", "nested", "after", "move", "wrap", "import"}:
        assert ast.dump(ast.parse(result)) == expected_tree(text, ops), (text, ops, result)
    else:  # the fit may only add brackets around what it breaks
        ast.parse(result)
    if not kinds & {"remove", "move"}:  # nothing went: every comment is kept
        assert not Counter(_comments(text)) - Counter(_comments(result)), (text, ops, result)
    if "\r\n" in text and "\n" not in text.replace("\r\n", ""):
        assert "\n" not in result.replace("\r\n", "")  # the file's line ending throughout
    if not text.endswith(("\n", "\r")):
        assert not result.endswith(("\n", "\r"))  # no final line ending, none added
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
    made = sum(_checked(text, [op], limit) for op in ops) + sum(_checked(text, list(pair), limit) for pair in pairs)
    assert made  # not all refused


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
        _checked(text, rnd.sample(ops, min(len(ops), rnd.randint(1, 3))), rnd.choice([None, 30]))
