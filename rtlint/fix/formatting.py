"""The lines a fix added or changed, formatted by the project's own formatter.

Which formatter: rtlint's `fix-formatter` option (`[tool.rtlint]`), by default "auto": the
tool of the nearest formatter configuration, found by the walk that finds the line length
(rtlint.fix.linelength: `.ruff.toml`, `ruff.toml` or `[tool.ruff]` -> ruff, `[tool.black]`
-> black); "ruff" or "black" names the tool whatever the configuration says; "none", and a
project with no formatter configuration, keep rtlint's own line breaking (rtlint.fix.wrap,
the fallback). The tool is used when it can run here: ruff as the `ruff` program on `PATH`,
else `python -m ruff` of the running interpreter; black when it can be imported. Otherwise
the fallback runs, as it does on any failure of the tool.

How: one call per fixed file, after the last pass, on the lines the fixes added or changed
(what rtlint.fix.edits.changed_lines says differs from the original):
- ruff: `ruff format --range START-END --force-exclude --stdin-filename PATH -` (ruff takes
  one range: from the first changed line to the last), run with a timeout; ruff finds the
  project's configuration from PATH, as it does for the file. rtlint's own `line-length`,
  when set, is passed as `--line-length`. A file the project excludes from formatting
  (`exclude`, `extend-exclude`, `[format] exclude`) comes back unchanged; when nothing
  changed though a fixed line is too long, a second process formats a misformatted line
  under the same name, and if ruff leaves that one too, the file is excluded and gets
  rtlint's own line breaking, as in a project without a formatter. ruff 0.17.6 refuses
  `--range` twice ("cannot be used multiple times"), so fixed regions far apart are either
  one process per region or one wide range; one wide range is kept, as cheaper: on the
  1.8.8 wheel's agent_activity.py (5,263 lines, 6 fixed regions from line 343 to 4870) one
  wide range takes 19 ms, six processes 99 ms (median of 5; ruff formats the file in a few
  ms, a process costs ~15 ms).
- black: `black.format_str(text, mode=..., lines=[(start, end), ...])` with the settings of
  the nearest `[tool.black]` (line-length, skip-string-normalization,
  skip-magic-trailing-comma, target-version, preview) and `.pyi` mode for stubs. black
  parses and formats all it is given, so it is given a window (_black_window): for each
  group of fixed regions, the statements enclosing them, inside a class its header lines
  and the changed members only (nested classes alike), with the sibling before when a
  change starts a statement and the one after when it ends one (black's blank lines there
  depend on them); `lines=` is shifted to the window, each window must come back the same
  program, and the results are spliced into the file. black infers the target versions from
  the whole file when none are configured; that is computed from the `ast`
  (_versions: 3.6+ from an f-string, 3.9+ from `match`, `except*`, a relaxed decorator or
  variadic generics). The whole file goes to black instead when a window is not sure to
  give what the whole file gives: a `fmt:` or `yapf:` comment anywhere, no f-string, a
  `with` of two or more items or `with (... as ...)` anywhere (3.9+ maybe), Python 3.12+
  (its f-string and type-parameter syntax), a window that would be the whole module, a
  statement sharing a line with the window's edge. tests/fix/test_black_window.py holds
  the windowed result equal to the whole file's on the seven releases' fixes, the fixtures
  and a wheel with lines changed in every kind of statement.

What comes back is trusted only where the fix changed lines: the tool's changes are
diffed against the fixed text, and a change wholly within lines the fix did not touch (a
misformatted line elsewhere, or between two fixed regions of ruff's one range) is not
kept; a change that spans fixed and untouched lines (a statement the fix changed in part)
means the tool's result is not used for the file (None: the fallback). The kept result
must be the same program (the same `ast`) as the fixed text; the fixer then re-lints it.
A file with `\\r` line endings is formatted with `\\n` ones and given its own back (mixed
endings: the fallback).

JSON and SARIF (`--output-format json`, the fix edits they carry) and the language
server's code actions are not formatted by the tool, only by the fallback: they are built
one finding at a time (a process per finding), their speed is held at the yardstick's, and
their cache key then holds no formatter name or version. `--fix` and `--diff` format.

Cost (bench/fixformat.md): ruff adds one process per fixed file (livekit-agents 1.8.8 wheel
with a ruff.toml: --fix 0.82 -> 1.03 s); black runs in-process on windows (agent_activity.py:
one formatted() call 2.9 s on the whole file, 0.5 s on windows, of which black 0.12 s).
"""

from __future__ import annotations

import dataclasses
import functools
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

from rtlint.core.source import split_lines
from rtlint.fix.edits import apply_edits, changed_lines, diff_edits
from rtlint.fix.linelength import line_length, nearest

TIMEOUT = 10.0  # seconds for one `ruff format` of one file


@dataclass(frozen=True)
class Formatter:
    """The formatter a file's fixed lines go through."""

    tool: str  # "ruff" or "black"
    path: Path  # the file (ruff finds the project's configuration from it)
    width: int  # the line length in effect (rtlint's own, else the configuration's, else 88)
    override: bool = False  # the width is rtlint's own `line-length`: passed to the tool
    settings: dict = field(default_factory=dict, compare=False, hash=False)  # [tool.black]
    window: bool = True  # black formats the enclosing statements only (False: the whole file)


def choose(option: str, path: Path | None, configured: int | None) -> Formatter | None:
    """The formatter for the file `path` under the `fix-formatter` option, or None: the
    fallback (no configuration names one, "none", or the tool cannot run here)."""
    if option == "none" or path is None:
        return None
    found = nearest(path)
    tool = found.tool if option == "auto" and found is not None else option
    if tool == "ruff" and _ruff_command(os.environ.get("PATH", "")) is None:
        return None
    if tool == "black" and not _black_importable():
        return None
    if tool not in ("ruff", "black"):
        return None
    settings = found.table if found is not None and found.tool == "black" and tool == "black" else {}
    return Formatter(tool, path.absolute(), line_length(configured, path), configured is not None, settings)


def describe(option: str, path: Path | None, configured: int | None) -> str:
    """What `--show-settings` says of `fix-formatter` for `path`."""
    formatter = choose(option, path, configured)
    if formatter is not None:
        return f"{option} ({formatter.tool})"
    return f"{option} (rtlint's own line breaking)"


@functools.lru_cache(maxsize=8)
def _ruff_command(search_path: str) -> tuple[str, ...] | None:
    program = shutil.which("ruff", path=search_path or None)
    if program is not None:
        return (program,)
    import importlib.util

    try:
        found = importlib.util.find_spec("ruff") is not None
    except (ImportError, ValueError):
        found = False
    return (sys.executable, "-m", "ruff") if found else None


@functools.lru_cache(maxsize=1)
def _black_importable() -> bool:
    import importlib.util

    try:
        return importlib.util.find_spec("black") is not None
    except (ImportError, ValueError):
        return False


def formatted(original: str, fixed: str, formatter: Formatter) -> str | None:
    """`fixed` with the lines the fixes added or changed (against `original`) formatted by
    the tool and every other line as in `fixed`; None when the tool cannot be trusted with
    this file (not found, failed, timed out, or its changes reach untouched lines): the
    caller falls back to rtlint's own line breaking."""
    changed = changed_lines(original, fixed)
    if not changed:
        return fixed
    ending = "\r\n" if "\r" in fixed else "\n"
    text = fixed
    if ending == "\r\n":
        lines = split_lines(fixed)
        if not all(line.endswith("\r\n") for line in lines[:-1]) or "\r" in lines[-1].rstrip("\r\n"):
            return None  # mixed line endings: the tools would even them out
        text = fixed.replace("\r\n", "\n")
    regions = _regions(sorted(changed))
    verified = False  # every window black was given came back the same program
    try:
        if formatter.tool == "ruff":
            out = _ruff(text, regions, formatter)
        else:
            out, verified = _black(text, regions, formatter)
    except Exception:  # the tool's bug or a limit (black runs in this process): the fallback
        return None
    if out is None:
        return None
    if ending == "\r\n":
        out = out.replace("\n", "\r\n")
    kept = _kept(fixed, out, changed)
    if kept is None or kept == fixed:
        return kept
    if verified and kept == out:  # whole statements replaced by the same statements
        return kept
    return kept if _same_program(fixed, kept) else None


def _regions(lines: list[int]) -> list[tuple[int, int]]:
    """Runs of consecutive 0-based line indices, as 1-based inclusive (first, last)."""
    regions: list[tuple[int, int]] = []
    for index in lines:
        if regions and regions[-1][1] == index:  # the previous run ends on the line before
            regions[-1] = (regions[-1][0], index + 1)
        else:
            regions.append((index + 1, index + 1))
    return regions


def _ruff(text: str, regions: list[tuple[int, int]], formatter: Formatter) -> str | None:
    command = _ruff_command(os.environ.get("PATH", ""))
    if command is None:
        return None
    lines = split_lines(text)
    first, last = regions[0][0], regions[-1][1]
    end_column = len(lines[last - 1].rstrip("\r\n")) + 1  # codepoints, exclusive
    out = _ruff_run([*command, "format", "--range", f"{first}:1-{last}:{end_column}"], text, formatter)
    if out != text or not any(
        len(lines[i].rstrip("\r\n").expandtabs()) > formatter.width for a, b in regions for i in range(a - 1, b)
    ):
        return out
    # nothing changed though a fixed line is too long: ruff cannot break it, or the project
    # excludes the file from formatting (`--force-exclude`: ruff echoes an excluded file).
    # A misformatted line under the same name tells which; an excluded file gets rtlint's
    # own line breaking, as a project without a formatter (None: the fallback)
    probe = "x  =  1\n"
    return None if _ruff_run([*command, "format"], probe, formatter) == probe else out


def _ruff_run(args: list[str], text: str, formatter: Formatter) -> str | None:
    """What `ruff format ARGS` makes of `text` as the file `formatter.path` (the project's
    configuration and excludes apply), or None when it fails."""
    if formatter.override:
        args = [*args, "--line-length", str(formatter.width)]
    args = [*args, "--force-exclude", "--stdin-filename", str(formatter.path), "-"]
    try:
        process = subprocess.run(
            args,
            input=text.encode("utf-8", "surrogatepass"),
            capture_output=True,
            timeout=TIMEOUT,
            cwd=formatter.path.parent if formatter.path.parent.is_dir() else None,
        )
    except (OSError, subprocess.SubprocessError, ValueError):  # not runnable, or timed out
        return None
    if process.returncode != 0:
        return None
    try:
        return process.stdout.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _black(text: str, regions: list[tuple[int, int]], formatter: Formatter) -> tuple[str | None, bool]:
    """black's result, and whether it was made on windows each checked to be the same
    program (see _black_window)."""
    import black

    settings = {key.replace("_", "-"): value for key, value in formatter.settings.items()}
    targets = settings.get("target-version", [])
    versions = {black.TargetVersion[v.upper()] for v in targets} if isinstance(targets, list) else set()
    mode = black.Mode(
        target_versions=versions,
        line_length=formatter.width,
        string_normalization=not settings.get("skip-string-normalization", False),
        magic_trailing_comma=not settings.get("skip-magic-trailing-comma", False),
        preview=bool(settings.get("preview", False)),
        is_pyi=formatter.path.suffix == ".pyi",
    )
    if formatter.window:
        windowed = _black_window(black, text, regions, mode)
        if windowed is not None:
            return windowed, True
    return black.format_str(text, mode=mode, lines=regions), False


def _spans(statements: list) -> list[tuple[int, int]]:
    """Each statement's 1-based inclusive lines, its decorators included."""
    spans = []
    for node in statements:
        first = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", ()))])
        spans.append((first, node.end_lineno))
    return spans


def _window(tree, lines: list[str], regions: list[tuple[int, int]]) -> tuple[list[str], int, int] | None:
    """The smallest standalone text black can be given for `regions`: (header, first, last)
    where `header` is the lines of the enclosing classes' headers (their decorators, the
    `class ...:` line and what follows it up to the first member) and [first, last] the
    1-based lines of the enclosing siblings, with the sibling before when a change starts
    at a sibling's first line and the one after when it reaches a sibling's last line
    (black's blank lines there depend on them; a class is not entered when the change
    reaches its last line); None when the window is the whole module or a cut would split
    a line."""
    import ast

    header: list[str] = []
    statements = tree.body
    low, high = regions[0][0], regions[-1][1]
    while True:
        spans = _spans(statements)
        touched = [i for i, (a, b) in enumerate(spans) if b >= low and a <= high]
        if not touched:  # the regions lie between two siblings: both are the window
            after = [i for i, (a, _) in enumerate(spans) if a > high]
            before = [i for i, (_, b) in enumerate(spans) if b < low]
            touched = before[-1:] + after[:1]
            if not touched:
                return None
        if len(touched) == 1:
            node = statements[touched[0]]
            if isinstance(node, ast.ClassDef) and node.body:
                body_first = _spans(node.body)[0][0]
                inside = low >= body_first and high < spans[touched[0]][1]  # not its last line
                if body_first > node.lineno and inside:  # within the members: go in
                    header += lines[spans[touched[0]][0] - 1 : body_first - 1]
                    statements = node.body
                    continue
        start, stop = touched[0], touched[-1]
        # black's blank lines above the first changed line depend on the line before it,
        # those below the last changed line on the line after: the sibling there comes too
        if low <= spans[start][0] and start > 0:
            start -= 1
        if high >= spans[stop][1] and stop < len(spans) - 1:
            stop += 1
        if start == 0 and stop == len(spans) - 1 and not header:
            return None  # the whole module
        first, last = spans[start][0], spans[stop][1]
        if start == 0 and not header:
            first = 1  # the comments above the module's first statement are its own
        if start > 0 and spans[start - 1][1] == first or stop + 1 < len(spans) and spans[stop + 1][0] == last:
            return None  # a sibling shares a line (`a; b`) with the window's edge
        if first > low or last < high:
            return None
        return header, first, last


def _versions(black, tree, lines: list[str]) -> set | None:
    """The target versions black would infer from the whole file, as far as they change
    its formatting (trailing commas when splitting: 3.5/3.6+; parenthesized context
    managers: 3.9+; 3.14's except and t-strings), found from the `ast` without black's own
    (slow) parse of the whole file; None when unsure (then the whole file is formatted).
    Under Python 3.11 `ast.parse` refuses 3.12+ syntax, so of black's 3.9+ features only
    relaxed decorators, parenthesized context managers, `match`, `except*` and variadic
    generics can be in the file."""
    import ast

    if sys.version_info >= (3, 12):
        return None  # 3.12's f-strings and type parameters are 3.12+ features for black
    nodes = list(ast.walk(tree))
    if not any(isinstance(node, ast.JoinedStr) for node in nodes):
        return None  # some other 3.6+ feature may be what black infers 3.6+ from
    at_least_39 = False
    for node in nodes:
        kind = type(node)
        if kind in (ast.Match, getattr(ast, "TryStar", ast.Match)):
            at_least_39 = True
        elif kind in (ast.With, ast.AsyncWith):
            if len(node.items) > 1:
                return None  # maybe parenthesized (3.9+), which `ast` does not tell
            if node.items[0].optional_vars is not None:
                line = (
                    lines[node.lineno - 1]
                    .encode("utf-8", "surrogatepass")[node.col_offset :]
                    .decode("utf-8", "replace")
                )
                if line.removeprefix("async").lstrip().removeprefix("with").lstrip().startswith("("):
                    return None  # maybe `with (a as b):`
        elif kind in (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef):
            for decorator in node.decorator_list:
                target = decorator.func if isinstance(decorator, ast.Call) else decorator
                while isinstance(target, ast.Attribute):
                    target = target.value
                if not isinstance(target, ast.Name):
                    at_least_39 = True  # a relaxed decorator
            vararg = getattr(node.args, "vararg", None) if kind is not ast.ClassDef else None
            if vararg is not None and isinstance(vararg.annotation, ast.Starred):
                at_least_39 = True  # `*args: *Ts`
        elif kind is ast.Subscript:
            index = node.slice
            if isinstance(index, ast.Starred) or (
                isinstance(index, ast.Tuple) and any(isinstance(item, ast.Starred) for item in index.elts)
            ):
                at_least_39 = True  # `tuple[*Ts]`
    low = 9 if at_least_39 else 6  # TargetVersion.PY39.value == 9
    return {v for v in black.TargetVersion if low <= v.value < 14}


def _black_window(black, text: str, regions: list[tuple[int, int]], mode) -> str | None:
    """black's `format_str(text, lines=regions)` computed on windows of `text` (the
    statements enclosing a group of regions, see _window), one call per window, spliced
    back; None when some region has no safe window."""
    import ast

    if "fmt:" in text or "yapf:" in text:
        return None  # a `# fmt: off` region may cross a window's edge
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    lines = split_lines(text)
    if not lines[-1].endswith("\n"):
        return None
    if not mode.target_versions:
        versions = _versions(black, tree, lines)
        if not versions:
            return None
        mode = dataclasses.replace(mode, target_versions=versions)
    groups: list[tuple[list[tuple[int, int]], tuple[list[str], int, int]]] = []
    for region in regions:
        found = _window(tree, lines, [region])
        if found is None:
            return None
        if groups and found[1] <= groups[-1][1][2]:  # overlaps the previous window: one window
            merged = [*groups[-1][0], region]
            found = _window(tree, lines, merged)
            if found is None:
                return None
            groups[-1] = (merged, found)
        else:
            groups.append(([region], found))
    for index in range(len(groups) - 1):
        if groups[index][1][2] >= groups[index + 1][1][1]:
            return None  # a merged window reached back over an earlier one
    pieces = []
    done = 0  # the lines of `text` already in `pieces`
    for group, (header, first, last) in groups:
        shift = first - 1 - len(header)
        head = "".join(header)
        window = head + "".join(lines[first - 1 : last])
        out = black.format_str(window, mode=mode, lines=[(a - shift, b - shift) for a, b in group])
        if not out.startswith(head) or not _same_program(window, out):
            return None
        pieces += [*lines[done : first - 1], out[len(head) :]]
        done = last
    return "".join(pieces + lines[done:])


def _kept(fixed: str, out: str, changed: set[int]) -> str | None:
    """`out`'s changes to `fixed` that lie within the changed lines; None when one spans
    changed and untouched lines."""
    kept = []
    for edit in diff_edits(fixed, out):
        start, stop = edit.line - 1, edit.end_line - 1  # the 0-based lines [start, stop) of `fixed`
        touched = range(start, stop) if stop > start else range(start - 1, start + 1)  # an insertion: its neighbours
        inside = [index in changed for index in touched]
        if stop > start and all(inside):
            kept.append(edit)
        elif stop == start and any(inside):
            kept.append(edit)
        elif any(inside):
            return None
    return apply_edits(fixed, kept) if kept else fixed


def _same_program(fixed: str, kept: str) -> bool:
    import ast

    try:
        return ast.dump(ast.parse(kept)) == ast.dump(ast.parse(fixed))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
