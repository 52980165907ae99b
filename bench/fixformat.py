"""`python -m bench.fixformat`: what formatting the fixed lines costs (rtlint/fix/formatting.py).

`rtlint --fix` (on a fresh copy) and `rtlint --diff` on the livekit-agents 1.8.8 wheel tree,
each paired with the yardstick (`ast.parse` of every file, as `python -m bench`), in three
layouts of the copy: no formatter configuration (rtlint's own line breaking runs), a
`ruff.toml` beside it (`ruff format --range` per fixed file) and a `[tool.black]`
(black in-process). Each `--source` is a checkout whose `rtlint` is run (`python -m rtlint`
with that folder first on sys.path), so a checkout of main and this one compare side by side:

    python -m bench.fixformat --source /path/to/main --source . --runs 3
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

from bench.__main__ import YARDSTICK
from bench.timing import Command, paired

LAYOUTS = {
    "no formatter configuration": None,
    "ruff.toml (line-length 100)": ("ruff.toml", "line-length = 100\n"),
    "[tool.black] (line-length 100)": ("pyproject.toml", "[tool.black]\nline-length = 100\n"),
}


def _wheel_tree() -> Path:
    from tests.support.wheels import unpacked

    return unpacked("livekit-agents==1.8.8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.fixformat", description=__doc__)
    parser.add_argument("--source", type=Path, action="append", required=True, help="a checkout of rtlint")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args(argv)
    tree = _wheel_tree() / "livekit"
    scratch = Path(tempfile.mkdtemp(prefix="rtlint-fixformat-"))
    rows = []
    for title, layout in LAYOUTS.items():
        folder = scratch / "corpus"

        def copy(folder: Path = folder, layout=layout) -> None:
            shutil.rmtree(folder, ignore_errors=True)
            shutil.copytree(tree, folder / "livekit", symlinks=True)
            (folder / ".git").mkdir()
            if layout is not None:
                (folder / layout[0]).write_text(layout[1])

        copy()
        yardstick = Command("yardstick", "yardstick", [sys.executable, "-c", YARDSTICK, str(folder / "livekit")])
        commands = []
        for source in args.source:
            run = [
                sys.executable,
                "-c",
                f"import sys; sys.path.insert(0, {str(source.resolve())!r}); "
                "from rtlint.cli import main; sys.exit(main())",
                "check",
                "--no-cache",
            ]
            name = source.resolve().name
            commands.append(
                Command(f"fix {name}", f"--fix {name}", [*run, "--fix", str(folder / "livekit")], before=copy)
            )
            commands.append(
                Command(f"diff {name}", f"--diff {name}", [*run, "--diff", str(folder / "livekit")], before=copy)
            )
        print(f"{title}:", flush=True)
        _, results = paired(yardstick, commands, args.runs)
        for result in results.values():
            rows.append((title, result.command.label, result.wall, statistics.median(result.ratios), result.rss_mib))
    shutil.rmtree(scratch, ignore_errors=True)
    print("\n| layout | command | median wall (s) | × yardstick | peak MiB |\n|---|---|---|---|---|")
    for title, label, wall, ratio, rss in rows:
        print(f"| {title} | {label} | {wall:.3f} | {ratio:.2f} | {rss:.0f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
