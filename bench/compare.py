"""`python -m bench.compare BASE [ROUNDS]`: the fixing commands of issue 13 (and the checks)
of commit BASE against this checkout, alternated, on the 1.8.8 wheel prepared by
`python -m bench` (run it once first): median wall and largest peak memory per version."""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

from bench.corpora import ACTIVITY, CORPORA
from bench.peers import REPO


def _snapshot(name: str, commit: str | None) -> Path:
    folder = CORPORA / "compare" / name
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    if commit is None:
        shutil.copytree(REPO / "rtlint", folder / "rtlint", ignore=shutil.ignore_patterns("__pycache__"))
        shutil.copytree(REPO / "rules", folder / "rtlint" / "rules", ignore=shutil.ignore_patterns("__pycache__"))
    else:
        archive = subprocess.run(
            ["git", "-C", str(REPO), "archive", commit, "rtlint", "rules"], capture_output=True, check=True
        ).stdout
        subprocess.run(["tar", "-x", "-C", str(folder)], input=archive, check=True)
        (folder / "rules").rename(folder / "rtlint" / "rules")
    return folder


def _run(argv: list[str], env: dict | None = None) -> tuple[float, float]:
    start = time.perf_counter()
    process = subprocess.Popen(
        argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env={**os.environ, **(env or {})}, cwd=CORPORA
    )
    _, _, usage = os.wait4(process.pid, 0)
    return time.perf_counter() - start, usage.ru_maxrss / 1024


def main() -> None:
    base, rounds = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 3
    python = str(CORPORA / "venv-rtlint" / "bin" / "python")
    wheel, scratch = CORPORA / "wheel", CORPORA / "compare" / "scratch"
    versions = {"before": _snapshot("before", base), "after": _snapshot("after", None)}

    def copy(source: Path):
        def make() -> None:
            shutil.rmtree(scratch, ignore_errors=True)
            if source.is_dir():
                shutil.copytree(source, scratch, symlinks=True)
            else:
                scratch.mkdir(parents=True)
                shutil.copy(source, scratch)
            (scratch / ".git").mkdir(exist_ok=True)

        return make

    commands = [
        ("check (text)", [str(wheel)], None),
        ("--format github", [str(wheel), "--format", "github"], None),
        ("--format json", [str(wheel), "--format", "json"], None),
        ("--format sarif", [str(wheel), "--format", "sarif"], None),
        ("--diff", [str(wheel), "--diff"], None),
        ("--fix (copy)", [str(scratch), "--fix"], copy(wheel)),
        ("--fix agent_activity.py alone", [str(scratch / "agent_activity.py"), "--fix"], copy(wheel / ACTIVITY)),
    ]
    results: dict = {}
    for _ in range(rounds):
        for name, args, before in commands:
            for version, folder in versions.items():
                if before:
                    before()
                results.setdefault((name, version), []).append(
                    _run([python, "-m", "rtlint", "check", "--no-cache", *args], {"PYTHONPATH": str(folder)})
                )
    print("| command | before wall (s) | before peak (MiB) | after wall (s) | after peak (MiB) | after / before |")
    print("|---|---:|---:|---:|---:|---:|")
    for name, _, _ in commands:
        b, a = results[(name, "before")], results[(name, "after")]
        bw, aw = statistics.median(s[0] for s in b), statistics.median(s[0] for s in a)
        print(
            f"| `{name}` | {bw:.2f} | {max(s[1] for s in b):.0f} "
            f"| {aw:.2f} | {max(s[1] for s in a):.0f} | {aw / bw:.2f} |"
        )


if __name__ == "__main__":
    main()
