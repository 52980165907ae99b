"""The long fuzz run of issue 8: `python -m bench.fuzz` (from the repository root) runs 10,000
examples of the strategies tests/engine/test_fuzz.py runs a few of, checks the same properties
(tests/support/fuzzing.py), and prints what it saw.

    python -m bench.fuzz                       # 10,000 examples over the CPUs
    python -m bench.fuzz --examples 500 --jobs 1 --seed 7

Needs the test extras (hypothesis, hypothesmith). A property that fails is shrunk by
hypothesis to a minimal program, printed, and counted; the run goes on with the rest.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import traceback
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

# the share of the examples each strategy gets
SHARES = {"realtime": 0.40, "spliced": 0.20, "grammar": 0.20, "bytes": 0.10, "text": 0.10}


def _strategy(name: str):
    from hypothesis import strategies as st

    from tests.support.programs import hypothesmith_programs, realtime_module, spliced_module

    return {
        "realtime": realtime_module(),
        "spliced": spliced_module(),
        "grammar": hypothesmith_programs(),
        "bytes": st.binary(max_size=2000),
        "text": st.text(max_size=400),
    }[name]


def _work(name: str, examples: int, seed: int) -> dict:
    """Run `examples` examples of one strategy in this process; return the tally."""
    import warnings

    from hypothesis import HealthCheck, given, settings
    from hypothesis import seed as hypothesis_seed

    from tests.support.fuzzing import Tally, check_bytes, check_program

    warnings.simplefilter("ignore", SyntaxWarning)  # hypothesmith compiles what it generates
    tally = Tally()
    failures: list[str] = []
    check = check_bytes if name in ("bytes", "text") else check_program

    @hypothesis_seed(seed)
    @settings(
        max_examples=examples,
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
        report_multiple_bugs=False,
    )
    @given(_strategy(name))
    def run(value) -> None:
        if name == "text":
            value = value.encode("utf-8")
        check(value, tally)
        tally.examples[name] += 1

    started = time.monotonic()
    try:
        run()
    except Exception:  # hypothesis re-raises the shrunk failure: keep it, print it later
        failures.append(traceback.format_exc(limit=-6))
    return {
        "name": name,
        "examples": tally.examples[name],
        "findings": dict(tally.findings),
        "fixes": dict(tally.fixes_applied),
        "files_fixed": tally.files_fixed,
        "unreadable": tally.unreadable,
        "failures": failures,
        "seconds": time.monotonic() - started,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.fuzz", description=__doc__.split("\n\n")[0])
    parser.add_argument("--examples", type=int, default=10_000, help="examples in all (default 10,000)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="worker processes")
    parser.add_argument("--seed", type=int, default=int(time.time()) % 100_000, help="seed of the first worker")
    args = parser.parse_args(argv)

    # each strategy's share, split into chunks so the workers stay busy to the end
    work = []
    for name, share in SHARES.items():
        total = max(1, round(args.examples * share))
        chunks = max(1, min(total // 50, args.jobs * 4))
        for index in range(chunks):
            work.append((name, total // chunks + (index < total % chunks), args.seed + len(work)))
    print(f"fuzzing: {args.examples} examples, {args.jobs} processes, seed {args.seed}", flush=True)
    started = time.monotonic()
    results = []
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        for result in pool.map(_work, *zip(*work)):
            results.append(result)
            print(
                f"  {result['name']:<9} {result['examples']:>6} examples in {result['seconds']:6.1f}s"
                f"{'  FAILED' if result['failures'] else ''}",
                flush=True,
            )

    examples, findings, fixes = Counter(), Counter(), Counter()
    files_fixed = unreadable = 0
    failures = []
    for result in results:
        examples[result["name"]] += result["examples"]
        findings.update(result["findings"])
        fixes.update(result["fixes"])
        files_fixed += result["files_fixed"]
        unreadable += result["unreadable"]
        failures += result["failures"]
    print(f"\nexamples run: {sum(examples.values())} in {time.monotonic() - started:.0f}s")
    for name in SHARES:
        print(f"  {name:<9} {examples[name]:>6}")
    print("findings reported: " + (", ".join(f"{code} {n}" for code, n in sorted(findings.items())) or "none"))
    print(
        "fixes applied and verified: "
        + (", ".join(f"{code} {n}" for code, n in sorted(fixes.items())) or "none")
        + f" (in {files_fixed} fix runs)"
    )
    print(f"unreadable inputs (RTL901's reasons): {unreadable}")
    print(f"property failures: {len(failures)}")
    for failure in failures:
        print("\n" + failure)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
