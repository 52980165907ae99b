"""A LibCST tree of only what the fixes need. LibCST parses a big file in about the time of
everything else the fix costs together, and most of it is function bodies no fix touches:
those are parsed as a one-line stub. The `ast` tree says where each function is; the
statements outside the stubs are the file's own, at the same paths.

A fix that reaches into a stub (`editor.locate`), or a splice that would generate one,
raises NeedsDefinitions; the fixer then parses again with those functions kept."""

from __future__ import annotations

import ast
import re
import secrets
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from rtlint.core.source import split_lines

if TYPE_CHECKING:  # imported where a skeleton is built: a fix made on the text needs none
    import libcst as cst

# a body this short costs less to parse than to stub
MIN_STUBBED_LINES = 8


class NeedsDefinitions(Exception):
    """The fix needs these functions (qualified names) parsed in full."""

    def __init__(self, names: Iterable[str]) -> None:
        super().__init__(", ".join(sorted(set(names))))
        self.names = set(names)


@dataclass
class Skeleton:
    module: cst.Module
    keep: frozenset[str] | None  # the functions parsed in full; None: the whole file is
    stubs: dict[int, str] = field(default_factory=dict)  # id of a stub's block -> its function
    names: list[str] = field(default_factory=list)  # stub number -> function
    token: str = ""

    def check_code(self, code: str) -> None:
        """Raise NeedsDefinitions when generated code holds a stub."""
        if self.token and self.token in code:
            numbers = re.findall(rf"{self.token}-(\d+)", code)
            raise NeedsDefinitions(self.names[int(n)] for n in numbers)

    def check_chain(self, chain: Iterable[object]) -> None:
        """Raise NeedsDefinitions when a located statement is inside a stub."""
        if self.stubs:
            needed = [self.stubs[id(node)] for node in chain if id(node) in self.stubs]
            if needed:
                raise NeedsDefinitions(needed)


def outer_functions(tree: ast.Module) -> Iterator[tuple[str, ast.stmt]]:
    """Module functions and the methods of module classes, with their qualified names."""
    for stmt in tree.body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield stmt.name, stmt
        elif isinstance(stmt, ast.ClassDef):
            for inner in stmt.body:
                if isinstance(inner, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    yield f"{stmt.name}.{inner.name}", inner


def needed_for(tree: ast.Module, lines: Iterable[int]) -> set[str]:
    """The functions holding these lines, and the `__init__` of their classes (where a fix
    creates what the class needs)."""
    wanted = set(lines)
    names: set[str] = set()
    for name, node in outer_functions(tree):
        first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
        if any(first <= line <= (node.end_lineno or node.lineno) for line in wanted):
            names.add(name)
            if "." in name:
                names.add(name.split(".", 1)[0] + ".__init__")
    return names


def build(text: str, tree: ast.Module | None, keep: Iterable[str] | None, parse) -> Skeleton:
    """The skeleton of `text` with every function outside `keep` stubbed (`parse` is the
    LibCST parser to use); keep=None or tree=None parses the whole file."""
    if keep is None or tree is None:
        return Skeleton(parse(text), None)
    keep = frozenset(keep)
    lines = split_lines(text)
    token = f"rtlint-stub-{secrets.token_hex(6)}"
    replacements: list[tuple[int, int, str]] = []
    names: list[str] = []
    for name, node in outer_functions(tree):
        if name in keep or node.body[0].lineno == node.lineno:
            continue
        first_body = node.body[0].lineno - 1
        header = first_body - 1  # the header's last line: comments before the body are the body's
        while header > node.lineno - 1 and (not lines[header].strip() or lines[header].lstrip().startswith("#")):
            header -= 1
        start, end = header + 1, node.end_lineno or node.lineno
        if end - start < MIN_STUBBED_LINES:
            continue
        body_line = lines[first_body]
        indent = body_line[: len(body_line) - len(body_line.lstrip(" \t"))]
        ending = lines[end - 1][len(lines[end - 1].rstrip("\r\n")) :] or "\n"
        replacements.append((start, end, f"{indent}pass  # {token}-{len(names)}{ending}"))
        names.append(name)
    if not replacements:
        return Skeleton(parse(text), None)
    parts: list[str] = []
    at = 0
    for start, end, stub in replacements:
        parts.append("".join(lines[at:start]))
        parts.append(stub)
        at = end
    parts.append("".join(lines[at:]))
    module = parse("".join(parts))
    import libcst as cst

    skeleton = Skeleton(module, keep, names=names, token=token)
    for entry in _outer_function_nodes(module):
        body = entry.body
        if isinstance(body, cst.IndentedBlock) and len(body.body) == 1:
            comment = getattr(getattr(body.body[0], "trailing_whitespace", None), "comment", None)
            if comment is not None and token in comment.value:
                skeleton.stubs[id(body)] = names[int(comment.value.rsplit("-", 1)[1])]
    return skeleton


def _outer_function_nodes(module: cst.Module) -> Iterator[cst.FunctionDef]:
    import libcst as cst

    for entry in module.body:
        if isinstance(entry, cst.FunctionDef):
            yield entry
        elif isinstance(entry, cst.ClassDef) and isinstance(entry.body, cst.IndentedBlock):
            for inner in entry.body.body:
                if isinstance(inner, cst.FunctionDef):
                    yield inner


def graft(skeleton: Skeleton, text: str, tree: ast.Module, names: set[str], parse) -> bool:
    """Parse the stubbed functions `names` of `text` alone and put them in the skeleton's
    tree in place of their stubs (far cheaper than parsing the skeleton again). False when
    one cannot be grafted (then the caller parses again)."""
    lines = split_lines(text)
    found = {name: node for name, node in outer_functions(tree) if name in names}
    module = skeleton.module
    body = list(module.body)
    classes: dict[int, list] = {}
    for name in names:
        node = found.get(name)
        if node is None:
            return False
        first = min([node.lineno, *(d.lineno for d in node.decorator_list)]) - 1
        source = "".join(lines[first : node.end_lineno or node.lineno])
        if "." in name:  # a method: parsed inside a class of the same indentation
            wrapped = parse("class _rtlint_graft:\n" + source)
            new = wrapped.body[0].body.body[0]
        else:
            new = parse(source).body[0]
        if not _replace_stub(skeleton, body, classes, name, new):
            return False
    for index, entries in classes.items():
        body[index] = body[index].with_changes(body=body[index].body.with_changes(body=entries))
    skeleton.module = module.with_changes(body=body)
    skeleton.keep = (skeleton.keep or frozenset()) | frozenset(names)
    return True


def _replace_stub(skeleton: Skeleton, body: list, classes: dict[int, list], name: str, new: cst.FunctionDef) -> bool:
    import libcst as cst

    for index, entry in enumerate(body):
        if isinstance(entry, cst.FunctionDef) and skeleton.stubs.get(id(entry.body)) == name:
            body[index] = new.with_changes(leading_lines=entry.leading_lines)
            del skeleton.stubs[id(entry.body)]
            return True
        if isinstance(entry, cst.ClassDef) and isinstance(entry.body, cst.IndentedBlock):
            entries = classes.get(index, list(entry.body.body))
            for position, inner in enumerate(entries):
                if isinstance(inner, cst.FunctionDef) and skeleton.stubs.get(id(inner.body)) == name:
                    entries[position] = new.with_changes(leading_lines=inner.leading_lines)
                    del skeleton.stubs[id(inner.body)]
                    classes[index] = entries
                    return True
    return False
