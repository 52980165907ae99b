"""The body of the pull-request comment: the fixes `rtlint --diff` makes, in a fenced diff
block, or a note that none are left (when an earlier comment is updated).

    python3 action/comment.py FIXES.diff > body.md

The first line is the marker action/comment.sh finds the comment by. The fence is longer
than any run of backticks in the diff; a diff too long for a comment is cut at a file
boundary where one fits, with a note. Standard library only (it runs before anything else
is installed, with whatever python3 the runner has).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

MARKER = "<!-- rtlint-fixes -->"
LIMIT = 60_000  # GitHub's comment limit is 65,536 characters


def body(diff: str) -> str:
    if not diff.strip():
        return f"{MARKER}\n### rtlint\n\nNo fixes left to suggest: `rtlint check --diff` changes nothing.\n"
    files = re.findall(r"^\+\+\+ b/(.+)$", diff, re.M)
    shown, cut = diff, False
    if len(diff) > LIMIT:
        starts = [m.start() for m in re.finditer(r"^--- a/", diff, re.M)] + [len(diff)]
        fitting = [s for s in starts if s <= LIMIT]
        shown, cut = diff[: fitting[-1] if fitting and fitting[-1] > 0 else LIMIT], True
    fence = "`" * max(3, 1 + max((len(run) for run in re.findall(r"`+", shown)), default=0))
    count = len(files)
    lines = [
        MARKER,
        f"### rtlint: fixes for {count} file{'s' * (count != 1)}",
        "",
        "`rtlint check --fix` makes these changes (safe fixes only; review them, then run it and commit):",
        "",
        f"{fence}diff",
        shown.rstrip("\n"),
        fence,
    ]
    if cut:
        lines += ["", "The diff is too long for a comment: run `rtlint check --diff` for the rest."]
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python3 action/comment.py FIXES.diff", file=sys.stderr)
        return 2
    sys.stdout.write(body(Path(argv[0]).read_text(encoding="utf-8", errors="replace")))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
