"""How close rtlint's own line breaking (rtlint/fix/wrap.py, the fallback when a project has
no formatter rtlint can run) comes to ruff's and black's, statement by statement.

    python -m bench.formatters            # writes bench/formatters.md

Every simple statement (not a compound statement's header) of the seven LiveKit releases of
bench.compare_releases and of every fixture, written on one line (`ast.unparse`, so magic
trailing commas and the original breaks are gone; statements with a multi-line string are
left out), is placed at an 8-space indent and broken at widths 40, 60, 88 and 100 by
`wrap.fit`, by ruff 0.17.6 and by black 26.10.1 (tests/support/formatters.py installs them;
quotes are preserved, so string normalisation is not counted). Where ruff and black
disagree, ruff is the reference. A statement that ruff changes although it fits (spacing
such as `x**2`, parentheses it removes) counts as "differs" too: the table says what of the
difference is line breaking and what is not.
"""

from __future__ import annotations

import ast
import collections
import subprocess
import sys
import tempfile
from pathlib import Path

from bench.compare_releases import VERSIONS, unpack
from rtlint.fix.wrap import fit
from tests.support.formatters import formatter_bin

ROOT = Path(__file__).resolve().parents[1]
WIDTHS = (40, 60, 88, 100)
INDENT, UNIT = "        ", "    "
MARK = "# @@"


def statements() -> list[str]:
    """Unique one-line simple statements of the corpora, in a stable order."""
    files = [p for version in VERSIONS for p in sorted(unpack(version).rglob("*.py"))]
    files += sorted((ROOT / "fixtures").rglob("*.py"))
    found: dict[str, None] = {}
    for path in files:
        try:
            tree = ast.parse(path.read_text(encoding="utf-8"))
        except (SyntaxError, UnicodeDecodeError, ValueError):
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.stmt) and not hasattr(node, "body") and not isinstance(node, ast.Pass):
                try:
                    text = ast.unparse(node)
                except (RecursionError, ValueError):
                    continue
                if "\n" not in text and not text.startswith(("global ", "nonlocal ")):
                    found.setdefault(text)
    return list(found)


def _formatted(tool: str, sources: list[str], width: int) -> list[str]:
    """`sources` as `tool` breaks them at `width`, one entry a statement."""
    lines = ["class A:", "    async def f(self):"]
    for index, source in enumerate(sources):
        lines += [f"{INDENT}{MARK} {index}", INDENT + source]
    text = "\n".join(lines) + "\n"
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "statements.py"
        path.write_text(text)
        if tool == "ruff":
            command = [str(formatter_bin("ruff")), "format", "--no-cache", "--isolated", "--line-length", str(width)]
            command += ["--config", "format.quote-style='preserve'", str(path)]
        else:
            command = [str(formatter_bin("black")), "-q", "-S", "-l", str(width), str(path)]
        subprocess.run(command, check=True, capture_output=True, text=True)
        out = path.read_text()
    pieces: list[list[str]] = []
    for line in out.splitlines()[2:]:
        if line.strip().startswith(MARK):
            pieces.append([])
        elif line.strip():
            pieces[-1].append(line)
    assert len(pieces) == len(sources), (tool, width, len(pieces), len(sources))
    return ["\n".join(piece) for piece in pieces]


def _kind(source: str, mine: str, ruff: str, width: int) -> str:
    """What differs, in a few words."""
    if "\n" not in ruff:
        return "ruff keeps it on one line (changing only spacing or parentheses)"
    if "\n" not in mine:
        longest = len(mine)
        return "the fallback leaves it on one line" + (" (too long)" if longest > width else "")
    if len(mine.splitlines()) != len(ruff.splitlines()):
        return "split at other brackets or delimiters (a different number of lines)"
    return "the same number of lines, broken elsewhere or spaced otherwise"


def main() -> int:
    sources = statements()
    print(f"{len(sources)} unique statements", file=sys.stderr)
    rows, kinds, examples = [], {}, {}
    for width in WIDTHS:
        ruff, black = _formatted("ruff", sources, width), _formatted("black", sources, width)
        counts = collections.Counter()
        kinds[width] = collections.Counter()
        for source, r, b in zip(sources, ruff, black):
            mine = fit(source, INDENT, UNIT, width) or INDENT + source
            counts["ruff"] += mine == r
            counts["black"] += mine == b
            counts["agree"] += r == b
            if mine != r:
                counts["differs"] += 1
                kind = _kind(source, mine, r, width)
                kinds[width][kind] += 1
                examples.setdefault(kind, (width, source, mine, r))
        rows.append((width, counts))
    lines = [
        "# The fallback line breaking against ruff and black",
        "",
        "`python -m bench.formatters` (this file is its output): every simple statement of the",
        f"seven LiveKit releases ({', '.join(VERSIONS)}) and of fixtures/, on one line",
        f"(`ast.unparse`, unique: {len(sources)}), at an 8-space indent; rtlint's `wrap.fit` against",
        "ruff 0.17.6 and black 26.10.1 (quotes preserved). Where ruff and black disagree, ruff is the",
        'reference: "differs" counts statements where the fallback is not ruff\'s output.',
        "",
        "| width | fallback = ruff | fallback = black | ruff = black | differs from ruff |",
        "| ---: | ---: | ---: | ---: | ---: |",
    ]
    for width, counts in rows:
        lines.append(f"| {width} | {counts['ruff']} | {counts['black']} | {counts['agree']} | {counts['differs']} |")
    lines += ["", "## What the fallback still does differently (statements, per width)", ""]
    lines += ["| difference | " + " | ".join(str(w) for w in WIDTHS) + " |", "| --- |" + " ---: |" * len(WIDTHS)]
    every = sorted({k for c in kinds.values() for k in c})
    for kind in every:
        lines.append(f"| {kind} | " + " | ".join(str(kinds[w][kind]) for w in WIDTHS) + " |")
    lines += ["", "An example of each (the first met):", ""]
    for kind in every:
        width, source, mine, r = examples[kind]
        lines += [f"- {kind} (width {width}):", "", "```python", "# the fallback", mine, "# ruff", r, "```", ""]
    (ROOT / "bench" / "formatters.md").write_text("\n".join(lines).rstrip("\n") + "\n")
    print("\n".join(lines[8:14]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
