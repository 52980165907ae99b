"""Check time grows linearly with lines and findings (issue 25, item 8):
`python -m bench.scaling` (from the repository root).

Files of N lines made of classes with one snapshot and one push each (one RTL001 and its
fix per ten lines: every finding goes through the suppression mapping and RTL001's fix
plan), checked with `rtlint --no-cache` in text and in JSON (which plans every fix). Prints
seconds per size and the ratio to the smallest size per line: a linear check keeps the
ratio near 1; the target is at most 2 s at 100,000 lines on an idle 2-core machine.

    python -m bench.scaling                       # 25k, 50k, 100k lines
    python -m bench.scaling --lines 10000 20000 --formats text
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

CLASS = """class Agent{i}:
    def __init__(self, session):
        self._rt_session = session

    async def say(self, text):
        ctx = self._rt_session.chat_ctx.copy()
        ctx.add_message(role="user", content=text)
        await self._rt_session.update_chat_ctx(ctx)


"""


def source(lines: int) -> str:
    return "".join(CLASS.format(i=i) for i in range(lines // 10))


def timed(path: Path, fmt: str) -> tuple[float, int]:
    start = time.monotonic()
    process = subprocess.run(
        [sys.executable, "-m", "rtlint", "--no-cache", "--format", fmt, str(path)],
        capture_output=True,
        cwd=path.parent,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    elapsed = time.monotonic() - start
    if process.returncode not in (0, 1):
        raise SystemExit(f"rtlint failed ({process.returncode}): {process.stderr.decode()[-2000:]}")
    return elapsed, process.stdout.count(b"RTL001")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, nargs="+", default=[25_000, 50_000, 100_000])
    parser.add_argument("--formats", nargs="+", default=["text", "json"])
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        (root / "pyproject.toml").write_text("[tool.rtlint]\n")
        print(f"load average before: {os.getloadavg()[0]:.2f}")
        for fmt in args.formats:
            base = None
            for lines in args.lines:
                path = root / f"agents_{lines}.py"
                path.write_text(source(lines))
                elapsed, found = timed(path, fmt)
                per_line = elapsed / lines
                base = base or per_line
                print(f"{fmt:5} {lines:7,} lines {found:6,} findings {elapsed:7.2f} s  ratio {per_line / base:4.2f}")
        print(f"load average after: {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
