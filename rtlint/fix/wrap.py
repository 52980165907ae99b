"""Breaking one too-long logical line the way black and `ruff format` do: the right-hand
split at the last bracket (optional parentheses around a condition, a returned value or the
right side of an assignment), then a split at the delimiters of highest priority inside the
brackets (commas first, with a trailing comma; then `for`/`if` of a comprehension, `and`/`or`,
comparisons, arithmetic), recursively until every line fits or nothing more can be split.

It handles what fixes add or move (calls, conditions, comprehensions, assignments); a line
with a comment inside it, a multi-line string, a backslash continuation or a definition is
left as it is (None)."""

from __future__ import annotations

import sys
import tokenize
from dataclasses import dataclass, replace

from rtlint.core.source import generate_tokens

OPENING = {"(": ")", "[": "]", "{": "}"}
CLOSING = {")", "]", "}"}
COMPREHENSION, COMMA, TERNARY, LOGIC, STRING, COMPARATOR, DOT = 20, 18, 16, 14, 12, 10, 1
MATH = {"|": 9, "^": 8, "&": 7, "<<": 6, ">>": 6, "+": 5, "-": 5, "*": 4, "/": 4, "//": 4, "%": 4, "@": 4, "**": 1}
COMPARATORS = {"<", ">", "==", "!=", "<=", ">=", "in", "is"}
# after these a `-`, `+`, `*` or `**` is unary (or unpacking), not an operator
_OPERAND_START = {
    "(",
    "[",
    "{",
    ",",
    "=",
    ":",
    "return",
    "in",
    "and",
    "or",
    "not",
    "if",
    "else",
    "for",
    "is",
    "lambda",
    "yield",
    "await",
    "assert",
    "del",
    *MATH,
    *COMPARATORS,
    "+=",
    "-=",
    "*=",
    "/=",
    "->",
    "**=",
}
_ASSIGN = {"=", "+=", "-=", "*=", "/=", "//=", "%=", "@=", "&=", "|=", "^=", ">>=", "<<=", "**=", ":="}


@dataclass
class Leaf:
    value: str
    kind: int  # tokenize type
    before: str = ""  # the whitespace before it when it is not the first of a line
    depth: int = 0  # bracket depth (optional parentheses count)
    invisible: bool = False  # an optional parenthesis, shown only when split at
    match: int = -1  # the index of the matching bracket
    priority: int = 0  # a line may break after this leaf, with this priority
    magic: bool = False  # an opening bracket whose content ends with a comma


@dataclass
class Line:
    leaves: list[Leaf]
    depth: int  # indentation level, in units of `indent`
    inside: bool = False  # the body of a bracket split
    comment: str = ""  # a trailing comment, kept on the last line
    force: bool = False  # the body of brackets with a magic trailing comma: one item a line

    def __post_init__(self) -> None:
        # `match` indexes this line's own leaves: a split's parts are slices of a longer
        # line, whose indices would send a nested split to the wrong bracket (the leaves
        # are copied, so the line that was split keeps its own)
        self.leaves = _rematched(self.leaves)


def _rematched(leaves: list[Leaf]) -> list[Leaf]:
    """Copies of `leaves` whose brackets' `match` is an index into this list."""
    out = [replace(leaf, match=-1) if leaf.value in OPENING or leaf.value in CLOSING else leaf for leaf in leaves]
    stack: list[int] = []
    for index, leaf in enumerate(out):
        if leaf.value in OPENING:
            stack.append(index)
        elif leaf.value in CLOSING and stack:
            opening = stack.pop()
            out[opening].match, leaf.match = index, opening
    return out


class CannotSplit(Exception):
    pass


def fit(source: str, indent: str, unit: str, limit: int, header: bool = False) -> str | None:
    """`source` (one logical line: a simple statement or a compound statement's header, with
    `indent` before its first line) broken to fit `limit`, or None when it is left as it is.
    `unit` is one level of indentation."""
    leaves, comment = _leaves(source.strip())
    if leaves is None or (header and leaves[-1].value != ":"):
        return None
    if leaves[0].value in ("def", "class", "@", "async") and any(leaf.value == "def" for leaf in leaves[:2]):
        return None
    if leaves[0].value == "from" and not header:
        return _fit_import(leaves, comment, indent, unit, limit)
    _optional_parentheses(leaves, header)
    return _broken(leaves, comment, indent, unit, limit)


def _fit_import(leaves: list[Leaf], comment: str, indent: str, unit: str, limit: int) -> str | None:
    """`from M import a, b` that does not fit: parenthesized, one name a line with a trailing
    comma, as black and ruff format it (a parenthesized one is split like any bracket)."""
    at = next((i for i, leaf in enumerate(leaves) if leaf.value == "import"), None)
    if at is None or at + 1 >= len(leaves) or leaves[at + 1].value == "(":
        return None if at is None else _broken(leaves, comment, indent, unit, limit)
    text = indent + _render(leaves) + (f"  {comment}" if comment else "")
    if len(text.expandtabs()) <= limit:
        return text
    if comment:
        return None
    names: list[list[Leaf]] = [[]]
    for leaf in leaves[at + 1 :]:
        if leaf.value == ",":
            names.append([])
        else:
            names[-1].append(leaf)
    body = "".join(f"{indent}{unit}{_render(name)},\n" for name in names if name)
    return f"{indent}{_render(leaves[: at + 1])} (\n{body}{indent})"


def _broken(leaves: list[Leaf], comment: str, indent: str, unit: str, limit: int) -> str:
    _link(leaves)
    line = Line(leaves, 0, comment=comment)
    width = limit - len(indent.expandtabs())
    return "\n".join(indent + unit * part.depth + text for part, text in _transform(line, width, unit))


# -- tokens ---------------------------------------------------------------------------------
def _leaves(source: str) -> tuple[list[Leaf] | None, str]:
    try:
        tokens = list(generate_tokens(source + "\n"))
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return None, ""
    leaves: list[Leaf] = []
    comment = ""
    previous_end: tuple[int, int] | None = None
    lines = source.split("\n")
    for token in tokens:
        kind = token.type
        if kind in (tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT, tokenize.ENDMARKER):
            continue
        if kind == tokenize.COMMENT:
            comment = token.string
            continue
        if comment:  # a comment before the end of the line
            return None, ""
        if kind == tokenize.STRING and "\n" in token.string:
            return None, ""
        before = ""
        if previous_end is not None:
            if token.start[0] == previous_end[0]:
                before = lines[token.start[0] - 1][previous_end[1] : token.start[1]]
            else:
                between = lines[previous_end[0] - 1][previous_end[1] :]
                if between.rstrip().endswith("\\"):
                    return None, ""
                before = "\n"  # decided when joined
        leaves.append(Leaf(token.string, kind, before))
        previous_end = token.end
    if not leaves:
        return None, ""
    return _merge_fstrings(leaves), comment


def _merge_fstrings(leaves: list[Leaf]) -> list[Leaf]:
    """Python 3.12 tokenizes f-strings into parts: one leaf again."""
    start = getattr(tokenize, "FSTRING_START", None)
    if start is None:
        return leaves
    merged: list[Leaf] = []
    depth = 0
    for leaf in leaves:
        if leaf.kind == start:
            if depth == 0:
                merged.append(Leaf(leaf.value, tokenize.STRING, leaf.before))
            else:
                merged[-1].value += leaf.before + leaf.value
            depth += 1
        elif depth:
            merged[-1].value += leaf.before + leaf.value if leaf.before != "\n" else leaf.value
            if leaf.kind == tokenize.FSTRING_END:
                depth -= 1
        else:
            merged.append(leaf)
    return merged


def _optional_parentheses(leaves: list[Leaf], header: bool) -> None:
    """Invisible parentheses where black puts them: around the condition of `if`, `elif`,
    `while`, the iterable of `for`, the value of `return`, the right side of an assignment."""
    first = leaves[0].value
    start = end = None
    if header and first in ("if", "elif", "while"):
        start, end = 1, len(leaves) - 1
    elif header and first in ("for", "async"):
        depth = 0
        for index, leaf in enumerate(leaves):
            depth += leaf.value in OPENING
            depth -= leaf.value in CLOSING
            if depth == 0 and leaf.value == "in":
                start, end = index + 1, len(leaves) - 1
                break
    elif not header and first == "return" and len(leaves) > 1:
        start, end = 1, len(leaves)
    elif not header:
        depth = 0
        for index, leaf in enumerate(leaves):
            depth += leaf.value in OPENING
            depth -= leaf.value in CLOSING
            if depth == 0 and leaf.value in _ASSIGN and leaf.value != ":=":
                start, end = index + 1, len(leaves)
    if start is None or start >= end:
        return
    inner = leaves[start:end]
    if inner[0].value == "(" and _closing(inner, 0) == len(inner) - 1:
        return  # already parenthesised
    leaves.insert(end, Leaf(")", tokenize.OP, "", invisible=True))
    leaves.insert(start, Leaf("(", tokenize.OP, leaves[start].before, invisible=True))
    leaves[start + 1].before = ""


def _closing(leaves: list[Leaf], at: int) -> int:
    depth = 0
    for index in range(at, len(leaves)):
        if leaves[index].value in OPENING:
            depth += 1
        elif leaves[index].value in CLOSING:
            depth -= 1
            if depth == 0:
                return index
    return -1


def _link(leaves: list[Leaf]) -> None:
    """Match brackets, and mark magic trailing commas."""
    stack: list[int] = []
    for index, leaf in enumerate(leaves):
        if leaf.value in OPENING:
            stack.append(index)
        elif leaf.value in CLOSING and stack:
            opening = stack.pop()
            leaves[opening].match, leaf.match = index, opening
            if index - opening > 1 and leaves[index - 1].value == "," and not leaf.invisible:
                single = sum(
                    1
                    for inner in leaves[opening + 1 : index]
                    if inner.value == "," and _depth_between(leaves, opening, inner) == 0
                )
                one_tuple = leaves[opening].value == "(" and single == 1
                subscript = (
                    leaves[opening].value == "["
                    and opening > 0
                    and _is_operand_end(leaves[opening - 1])
                    and single == 1
                )
                leaves[opening].magic = not (one_tuple or subscript)


def _depth_between(leaves: list[Leaf], opening: int, target: Leaf) -> int:
    depth = 0
    for leaf in leaves[opening + 1 :]:
        if leaf is target:
            return depth
        depth += leaf.value in OPENING
        depth -= leaf.value in CLOSING
    return depth


def _is_operand_end(leaf: Leaf) -> bool:
    return (
        leaf.kind in (tokenize.NAME, tokenize.STRING, tokenize.NUMBER)
        and leaf.value not in _OPERAND_START
        or leaf.value in CLOSING
    )


# -- rendering --------------------------------------------------------------------------------
def _render(leaves: list[Leaf]) -> str:
    out: list[str] = []
    previous: Leaf | None = None
    pending: str | None = None  # the space before an optional parenthesis goes to what follows
    for leaf in leaves:
        if leaf.invisible:
            if previous is not None and pending is None:
                pending = _space(previous, leaf)
            continue
        if previous is not None:
            out.append(pending if pending is not None else _space(previous, leaf))
        pending = None
        out.append(leaf.value)
        previous = leaf
    return "".join(out).strip()


def _space(previous: Leaf, leaf: Leaf) -> str:
    if leaf.before != "\n":
        return leaf.before
    # the two were on separate lines: black's spacing for what is joined
    if previous.value in OPENING or leaf.value in CLOSING or leaf.value in (",", ":", ".") or previous.value == ".":
        return ""
    if leaf.value in OPENING and _is_operand_end(previous):
        return ""
    return " "


# -- the transforms ----------------------------------------------------------------------------
def _transform(line: Line, width: int, unit: str) -> list[tuple[Line, str]]:
    text = _render(line.leaves) + (f"  {line.comment}" if line.comment else "")
    if _fits(line, text, width, unit) and not _has_magic(line) and not line.force:
        return [(line, text)]
    splits = (lambda: _delimiter_split(line), lambda: _rhs(line, width, unit))
    for split in splits if line.inside else splits[1:]:
        try:
            parts = split()
        except CannotSplit:
            continue
        if len(parts) == 1 and _render(parts[0].leaves) == _render(line.leaves):
            continue
        out: list[tuple[Line, str]] = []
        for part in parts:
            out.extend(_transform(part, width, unit))
        return out
    return [(line, text)]


def _fits(line: Line, text: str, width: int, unit: str) -> bool:
    return len(unit.expandtabs()) * line.depth + len(text) <= width and "\n" not in text


def _has_magic(line: Line) -> bool:
    return any(leaf.magic for leaf in line.leaves)


def _rhs(line: Line, width: int, unit: str) -> list[Line]:
    """black's `_rhs`: the right-hand split whose first line fits, leaving out trailers
    (`.b(c)`, `[d]`) at the end one after the other; else the plain right-hand split."""
    for omit in _trailers_to_omit(line, width, unit):
        try:
            parts = _right_hand_split(line, width, unit, omit)
        except CannotSplit:
            continue
        if _fits(parts[0], _render(parts[0].leaves), width, unit):
            return parts
    return _right_hand_split(line, width, unit)


def _trailers_to_omit(line: Line, width: int, unit: str):
    leaves = line.leaves
    omit: set[int] = set()
    if not _has_magic(line):
        yield frozenset(omit)
    length = len(unit.expandtabs()) * line.depth
    opening = closing = None
    inner: set[int] = set()
    for index in range(len(leaves) - 1, -1, -1):
        leaf = leaves[index]
        length += len(leaf.value) + (len(leaf.before) if leaf.before != "\n" else 1)
        if length > width:
            break
        if opening is not None:
            if index == opening:
                opening = None
            elif leaf.value in CLOSING:
                inner.add(index)
        elif leaf.value in CLOSING:
            if index > 0 and leaves[index - 1].value in OPENING:
                inner.add(index)
                continue
            if closing is not None:
                omit.add(closing)
                omit.update(inner)
                inner.clear()
                yield frozenset(omit)
            if index > 0 and leaves[index - 1].value == "," and leaves[leaf.match].magic:
                break
            if not leaf.invisible:
                opening, closing = leaf.match, index


def _right_hand_split(line: Line, width: int, unit: str, omit: frozenset[int] = frozenset()) -> list[Line]:
    leaves = line.leaves
    closing = None
    for index in range(len(leaves) - 1, -1, -1):
        leaf = leaves[index]
        if leaf.value in CLOSING and index not in omit and leaf.match >= 0:
            closing = index
            break
    if closing is None:
        raise CannotSplit("no brackets")
    opening = leaves[closing].match
    head, body, tail = leaves[: opening + 1], leaves[opening + 1 : closing], leaves[closing:]
    if not body:
        raise CannotSplit("empty brackets")
    if leaves[opening].invisible and _can_omit(body, opening + 1, width, line, unit):
        try:
            parts = _right_hand_split(line, width, unit, omit | {closing})
            rest = parts[1] if len(parts) > 1 else None
            if rest is not None and (_splittable(rest) or _fits(rest, _render(rest.leaves), width, unit)):
                return parts
        except CannotSplit:
            pass
    return _bracket_lines(line, head, body, tail)


def _bracket_lines(line: Line, head: list[Leaf], body: list[Leaf], tail: list[Leaf]) -> list[Line]:
    if head[-1].invisible:  # the optional parentheses are split at: they are shown
        head = [*head[:-1], _visible(head[-1])]
        tail = [_visible(tail[0]), *tail[1:]]
    parts = [Line(head, line.depth, line.inside)]
    body = list(body)
    body[0] = _first(body[0])
    parts.append(Line(body, line.depth + 1, True, force=head[-1].magic))
    parts.append(Line([_first(tail[0]), *tail[1:]], line.depth, line.inside, comment=line.comment))
    return [p for p in parts if p.leaves]


def _visible(leaf: Leaf) -> Leaf:
    return Leaf(leaf.value, leaf.kind, leaf.before, leaf.depth, False, leaf.match, leaf.priority, leaf.magic)


def _first(leaf: Leaf) -> Leaf:
    return Leaf(leaf.value, leaf.kind, "", leaf.depth, leaf.invisible, leaf.match, leaf.priority, leaf.magic)


def _splittable(line: Line) -> bool:
    return any(leaf.value in OPENING for leaf in line.leaves) or bool(_delimiters(line.leaves))


def _can_omit(body: list[Leaf], offset: int, width: int, line: Line, unit: str) -> bool:
    """black's `can_omit_invisible_parens`: split at the last real bracket instead of showing
    the optional parentheses, unless the content has several delimiters of its top priority."""
    delimiters = _delimiters(body)
    if not delimiters:
        return True
    top = max(delimiters.values())
    if sum(1 for p in delimiters.values() if p == top) > 1:
        return False
    if top == DOT:
        return True
    last = body[-1]
    if last.value in (")", "}", "]") and last.match - offset > 0:
        opening = last.match - offset
        # where the content's last bracket opens: before the width, or other brackets first
        length = len(unit.expandtabs()) * (line.depth + 1)
        seen_other = False
        rendered = ""
        for index, leaf in enumerate(body):
            rendered += ("" if not rendered else _space(body[index - 1], leaf)) + ("" if leaf.invisible else leaf.value)
            if index == opening:
                return seen_other or length + len(rendered) <= width
            if leaf.value in OPENING:
                seen_other = True
    return False


def _delimiters(leaves: list[Leaf]) -> dict[int, int]:
    """index of a leaf -> the priority of a break after it, at depth 0 of `leaves`."""
    found: dict[int, int] = {}
    depth = 0
    in_comprehension = False
    previous: Leaf | None = None
    for index, leaf in enumerate(leaves):
        value = leaf.value
        if value in CLOSING:
            depth -= 1
        if depth == 0 and previous is not None and index > 0:
            priority = 0
            keyword = leaf.kind == tokenize.NAME
            if value == ",":
                found[index] = COMMA
            elif (
                keyword
                and value in ("for",)
                or (keyword and value == "async" and index + 1 < len(leaves) and leaves[index + 1].value == "for")
            ):
                if not (value == "for" and previous.value == "async"):
                    priority = COMPREHENSION
                    in_comprehension = True
            elif keyword and value == "if":
                priority = COMPREHENSION if in_comprehension else TERNARY
            elif keyword and value == "else":
                priority = TERNARY
            elif keyword and value in ("and", "or"):
                priority = LOGIC
            elif value in COMPARATORS and not (value == "in" and in_comprehension and _after_for(leaves, index)):
                if value == "in" and previous.value == "not":
                    pass  # the break goes before `not`
                else:
                    priority = COMPARATOR
            elif keyword and value == "not" and index + 1 < len(leaves) and leaves[index + 1].value == "in":
                priority = COMPARATOR
            elif value in MATH and not (previous.value in _OPERAND_START or previous.value in OPENING):
                priority = MATH[value]
            elif leaf.kind == tokenize.STRING and previous.kind == tokenize.STRING:
                priority = STRING
            elif value == "." and previous.value in CLOSING and index > 1:
                priority = DOT
            if value == "is" and previous.value == "not":
                priority = 0
            if priority and index - 1 not in found:
                found[index - 1] = priority
        if value in OPENING:
            depth += 1
        previous = leaf
    return found


def _after_for(leaves: list[Leaf], index: int) -> bool:
    """Whether the `in` at `index` ends the target of a comprehension's `for`."""
    depth = 0
    for back in range(index - 1, -1, -1):
        value = leaves[back].value
        if value in CLOSING:
            depth += 1
        elif value in OPENING:
            depth -= 1
        elif depth == 0 and value == "for":
            return True
        elif depth == 0 and value in ("in", "if"):
            return False
    return False


def _delimiter_split(line: Line) -> list[Line]:
    leaves = line.leaves
    delimiters = _delimiters(leaves)
    if not delimiters:
        raise CannotSplit("no delimiters")
    top = max(delimiters.values())
    if top == DOT and sum(1 for p in delimiters.values() if p == DOT) == 1:
        raise CannotSplit("a single attribute")
    parts: list[Line] = []
    current: list[Leaf] = []
    for index, leaf in enumerate(leaves):
        current.append(leaf if current else _first(leaf))
        if delimiters.get(index) == top:
            parts.append(Line(current, line.depth, True))
            current = []
    if current:
        parts.append(Line(current, line.depth, True))
    if top == COMMA and parts[-1].leaves[-1].value != "," and not _no_trailing_comma(leaves):
        last = parts[-1]
        last.leaves = [*last.leaves, Leaf(",", tokenize.OP, "")]
    parts[-1].comment = line.comment
    return parts


def _no_trailing_comma(leaves: list[Leaf]) -> bool:
    """No comma after `*args`/`**kwargs` unpacking alone is needed; a lambda's or a
    subscript's content gets none either."""
    return leaves[0].value == "lambda"


# -- the lines a fix added or moved, in a whole text ---------------------------------------------
def fit_region(old: str, new: str, limit: int, unit: str) -> str:
    """`new`, the code of whole statements that replaced `old` (a region the splice
    generated), with the statements the fix added or moved broken to `limit`: the same
    breaks as fit_changed on the whole text, but only the region is parsed (a fix's edits
    for JSON are fitted one finding at a time; parsing a big file for each cost ~0.05 s)."""
    try:
        return fit_changed(old, new, limit, unit, parse=_parse_region)[0]
    except (SyntaxError, RecursionError, ValueError):  # left as the fix made it
        return new


def _parse_region(code: str):
    """The `ast` tree of statements at any indentation, with their own line numbers."""
    import ast

    first = next((line for line in code.splitlines() if line.strip() and not line.lstrip().startswith("#")), "")
    if first[:1] not in (" ", "\t"):
        return ast.parse(code)
    tree = ast.parse("if 1:\n" + code)
    ast.increment_lineno(tree, -1)
    tree.body = tree.body[0].body
    return tree


def fit_changed(
    original: str, fixed: str, limit: int, unit: str, tree=None, parse=None
) -> tuple[str, list[tuple[int, int]]]:
    """`fixed` with every statement that has a line the fix added, moved or changed (it
    differs from `original`) longer than `limit` broken as black would break it, the whole
    statement (a fix inside a multi-line call); statements the fix did not touch are kept.
    Returns the text and, for each broken statement, (the 1-based line after it in `fixed`,
    how many lines it grew by), to move findings.
    `tree` is the `ast` tree of `fixed` if known (it is parsed, by `parse`, only when a line
    is too long)."""
    import ast

    from rtlint.core.source import split_lines
    from rtlint.fix.edits import changed_lines

    lines = split_lines(fixed)
    changed = changed_lines(original, fixed)
    long = sorted(i for i in changed if len(lines[i].rstrip("\r\n").expandtabs()) > limit)
    if not long:
        return fixed, []
    if tree is None:
        tree = (parse or ast.parse)(fixed)
    spans = _logical_lines(tree, lines)
    done: dict[int, tuple[int, list[str]]] = {}
    for index in long:
        span = max((s for s in spans if s[0] <= index <= s[1]), default=None, key=lambda s: s[0])
        if span is None or span[0] in done:
            continue  # a statement the fix changed in part is broken whole, as a formatter would
        start, end, header = span
        source = "".join(lines[start : end + 1])
        first = lines[start]
        indent = first[: len(first) - len(first.lstrip(" \t"))]
        ending = first[len(first.rstrip("\r\n")) :] or "\n"
        new = fit(source.rstrip("\r\n"), indent, unit, limit, header)
        if new is None or new == source.rstrip("\r\n") or not _same_code(source, new, header):
            continue
        done[start] = (end, [line + ending for line in new.split("\n")])
    if not done:
        return fixed, []
    out: list[str] = []
    shifts: list[tuple[int, int]] = []
    at = 0
    for start in sorted(done):
        end, new_lines = done[start]
        out.extend(lines[at:start])
        out.extend(new_lines)
        if lines[end].endswith(("\n", "\r")) is False:  # the last line of the file had no ending
            out[-1] = out[-1].rstrip("\r\n")
        shifts.append((end + 2, len(new_lines) - (end + 1 - start)))
        at = end + 1
    out.extend(lines[at:])
    return "".join(out), shifts


def _logical_lines(tree, lines: list[str]) -> list[tuple[int, int, bool]]:
    """(first, last line, 0-based; is a compound statement's header) of every simple
    statement and of the headers of `if`, `elif`, `while`, `for` and `with`."""
    import ast

    spans = []
    stack = list(tree.body)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.If, ast.While, ast.For, ast.AsyncFor, ast.With, ast.AsyncWith)):
            last = node.body[0].lineno - 2 if node.body else node.lineno - 1
            # the header ends at the last line before the body that is not blank or a comment
            while last > node.lineno - 1 and (not lines[last].strip() or lines[last].lstrip().startswith("#")):
                last -= 1
            spans.append((node.lineno - 1, max(last, node.lineno - 1), True))
        elif (
            isinstance(node, ast.stmt)
            and not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Try, ast.Match))
            and not (sys.version_info >= (3, 11) and isinstance(node, ast.TryStar))
        ):
            spans.append((node.lineno - 1, (node.end_lineno or node.lineno) - 1, False))
        for field in ("body", "orelse", "finalbody"):
            stack.extend(getattr(node, field, ()) or ())
        for handler in getattr(node, "handlers", ()) or ():
            stack.extend(handler.body)
        for case in getattr(node, "cases", ()) or ():
            stack.extend(case.body)
    return spans


def _same_code(old: str, new: str, header: bool) -> bool:
    """Whether the broken statement is the same code (the same `ast`)."""
    import ast

    def tree(source: str):
        source = source.strip()
        if header:
            prefix = "if 1:\n    pass\n" if source.startswith("elif") else ""
            source = prefix + source + "\n    pass\n"
        return ast.dump(ast.parse(source))

    try:
        return tree(old) == tree(new)
    except SyntaxError:
        return False
