"""Parsing for detection: the standard library's `ast` (ten times cheaper than LibCST).

The linted code may use syntax newer than the interpreter rtlint runs on (3.12 type
statements and f-strings, 3.14 t-strings and unparenthesised except lists). When `ast`
rejects a file, LibCST (which knows every grammar up to 3.14) parses it, the few newer
constructs are rewritten to older equivalents on the same lines, and `ast` parses that.
A file neither parser accepts is a syntax error.
"""

from __future__ import annotations

import ast
import sys
import warnings
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rtlint.core.source import nesting_estimate

if TYPE_CHECKING:
    import libcst

# deep nesting makes the C parser and our own walkers recurse; the limit is raised in
# bounded steps around parsing only, and a file still too deep is reported, not crashed on
_PARSE_RECURSION_LIMIT = 20_000


# LibCST's native parser recurses on the C stack and kills the whole process (SIGSEGV, no
# exception) on deeply nested input: with an 8 MB stack, about 1,500 nested brackets or
# 10,000 chained operators or adjacent strings; it is also quadratic in the depth. Text whose
# estimated nesting is above this is refused before it reaches the parser.
MAX_NESTING = 1000


class TooDeeplyNested(ValueError):
    pass


def parse_cst(text: str) -> libcst.Module:
    """A LibCST module, refusing text on which LibCST's parser would crash the process."""
    import libcst

    if len(text) > MAX_NESTING and nesting_estimate(text) > MAX_NESTING:
        raise TooDeeplyNested("the file is too deeply nested for LibCST to parse safely")
    return libcst.parse_module(text)


@dataclass
class ParseError(Exception):
    line: int
    column: int
    message: str


def parse(text: str, filename: str = "<unknown>") -> ast.Module:
    try:
        return _ast_parse(text, filename)
    except SyntaxError as exc:
        error = ParseError(exc.lineno or 1, exc.offset or 1, exc.msg or "invalid syntax")
    except (RecursionError, MemoryError):
        raise ParseError(1, 1, "too deeply nested to parse") from None
    except ValueError as exc:  # e.g. null bytes on older interpreters
        raise ParseError(1, 1, str(exc)) from None
    downlevelled = _downlevel(text)
    if downlevelled is None:
        raise error
    try:
        return _ast_parse(downlevelled, filename)
    except (SyntaxError, RecursionError, MemoryError, ValueError):
        raise error from None


def _ast_parse(text: str, filename: str) -> ast.Module:
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(max(old, _PARSE_RECURSION_LIMIT))
    try:
        # the compiler's warnings about the linted code (invalid escape sequences, `1(2)`) are
        # not rtlint's to print, and under `-W error` (or a test suite's filterwarnings =
        # error) they would turn valid code into a syntax error
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return ast.parse(text, filename)
    finally:
        sys.setrecursionlimit(old)


def _downlevel(text: str) -> str | None:
    """`text` with post-3.10 syntax rewritten, or None when LibCST rejects it or nothing changed."""

    try:
        module = parse_cst(text)
    except Exception:  # ParserSyntaxError, TooDeeplyNested
        return None
    try:
        code = module.visit(_Downlevel()).code
    except RecursionError:  # the visit and the code generation recurse in Python
        return None
    return code if code != text else None


def _make_downlevel():
    import libcst as cst

    class Downlevel(cst.CSTTransformer):
        """Rewrites newer syntax to an older form with the same statements on the same lines."""

        def leave_TypeAlias(self, original, updated):  # type X[T] = ...  ->  X = ...
            return cst.Assign(targets=[cst.AssignTarget(updated.name)], value=updated.value)

        def leave_FunctionDef(self, original, updated):  # def f[T](...)
            return updated.with_changes(type_parameters=None)

        def leave_ClassDef(self, original, updated):  # class C[T]:
            return updated.with_changes(type_parameters=None)

        def leave_ExceptHandler(self, original, updated):  # except A, B:  (3.14)
            kind = updated.type
            if isinstance(kind, cst.Tuple) and not kind.lpar:
                return updated.with_changes(type=kind.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()]))
            return updated

        def leave_ExceptStarHandler(self, original, updated):  # except* (3.11) on 3.10
            return cst.ExceptHandler(
                body=updated.body,
                type=updated.type,
                name=updated.name,
                leading_lines=updated.leading_lines,
                whitespace_after_except=cst.SimpleWhitespace(" "),
                whitespace_before_colon=updated.whitespace_before_colon,
            )

        def leave_TryStar(self, original, updated):
            return cst.Try(
                body=updated.body,
                handlers=updated.handlers,
                orelse=updated.orelse,
                finalbody=updated.finalbody,
                leading_lines=updated.leading_lines,
                whitespace_before_colon=updated.whitespace_before_colon,
            )

        def leave_FormattedString(self, original, updated):  # 3.12 f-string grammar
            return _blank_string(cst, original)

        def leave_TemplatedString(self, original, updated):  # t-strings (3.14)
            return _blank_string(cst, original)

    return Downlevel


def _blank_string(cst, node):
    """A plain string spanning as many lines as `node`, so later line numbers stay put."""
    newlines = cst.Module([]).code_for_node(node).count("\n")
    if not newlines:
        return cst.SimpleString('""')
    return cst.SimpleString('"""' + "\n" * newlines + '"""')


class _LazyDownlevel:
    _cls = None

    def __call__(self):
        if _LazyDownlevel._cls is None:
            _LazyDownlevel._cls = _make_downlevel()
        return _LazyDownlevel._cls()


_Downlevel = _LazyDownlevel()
