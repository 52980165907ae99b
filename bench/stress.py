"""The robustness runs of issue 15: `python -m bench.stress` (from the repository root).

Three scenarios, each run N times (default 50) on a folder of files with a safe fix, with
`rtlint --no-cache --jobs 2 --fix`:

- kill9:   one worker process is killed with SIGKILL at a random moment (as the OOM
           killer would). The run must end, with 2 and "died" in its errors if a worker
           was on a file, and every other file reported or fixed.
- sigint:  SIGINT to the whole process group (Ctrl-C in a terminal) at a random moment.
- sigterm: SIGTERM to rtlint alone (a CI runner cancelling the job) at a random moment.

Every run is bounded (a run still going after --timeout seconds is a hang, and killed). A run
holds when it ends in time, with an expected exit status (0, 1 or 2; 130 for SIGINT, 143
for SIGTERM, or the signal itself if it came before rtlint set up its handlers), exits
within 2 s of the signal, prints no traceback, leaves every file either original or fully
fixed, and leaves no temporary file. A signal that lands while CPython itself is starting
(site and .pth files, before any code of rtlint runs) ends the interpreter with its own
"Fatal Python error: init_import_site"; those runs are counted apart.

    python -m bench.stress                     # 50 runs of each
    python -m bench.stress --runs 10 --files 120 --scenarios kill9
"""

from __future__ import annotations

import argparse
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from tests.support.samples import BUGGY  # noqa: E402  (the repository's own sample)

EXIT_DEADLINE = 2.0


def _children(pid: int) -> list[int]:
    """The processes whose parent is `pid` (Linux /proc)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as handle:
                fields = handle.read().rsplit(b")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            found.append(int(entry))
    return found


def _reset(folder: Path, files: int) -> None:
    for path in folder.iterdir():
        path.unlink()
    for i in range(files):
        (folder / f"agent_{i:03d}.py").write_text(BUGGY)


def one_run(
    scenario: str, folder: Path, fixed: str, files: int, timeout: float, rng: random.Random, span: float
) -> tuple[bool, str]:
    _reset(folder, files)
    process = subprocess.Popen(
        [sys.executable, "-m", "rtlint", "--no-cache", "--jobs", "2", "--fix", folder.name],
        cwd=folder.parent,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    signalled_at = None
    delay = rng.uniform(0.02, span)  # anywhere from start-up to the last write
    deadline = time.monotonic() + delay
    killed_worker = False
    while time.monotonic() < deadline and process.poll() is None:
        time.sleep(0.005)
    if process.poll() is None:
        if scenario == "kill9":
            # wait (briefly) for a worker to exist, then kill one
            until = time.monotonic() + 1.0
            while process.poll() is None and time.monotonic() < until:
                workers = _children(process.pid)
                if workers:
                    try:
                        os.kill(rng.choice(workers), signal.SIGKILL)
                        killed_worker = True
                    except ProcessLookupError:
                        continue
                    break
                time.sleep(0.005)
        elif scenario == "sigint":
            signalled_at = time.monotonic()
            os.killpg(process.pid, signal.SIGINT)
        else:
            signalled_at = time.monotonic()
            os.kill(process.pid, signal.SIGTERM)
    try:
        stdout, stderr = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
        return False, f"HANG after {delay:.2f}s"
    finally:
        try:
            os.killpg(process.pid, signal.SIGKILL)  # any worker left behind
        except ProcessLookupError:
            pass
    ended = time.monotonic()
    code = process.returncode
    if "init_import_site" in stderr and code == 1:
        # the signal came while CPython itself was starting (site, .pth files), before any
        # code of rtlint ran: not something rtlint can handle; counted apart
        return True, f"STARTUP: delay {delay:.2f}s, interrupted in the interpreter's own start-up"
    problems = []
    if signalled_at is not None and ended - signalled_at > EXIT_DEADLINE:
        problems.append(f"exit {ended - signalled_at:.2f}s after the signal")
    expected = {"kill9": {0, 1, 2}, "sigint": {0, 1, 130, -signal.SIGINT}, "sigterm": {0, 1, 143, -signal.SIGTERM}}[
        scenario
    ]
    if code not in expected:
        problems.append(f"exit status {code}")
    if "Traceback" in stderr:
        problems.append("traceback: " + stderr[-300:])
    if scenario == "kill9" and code == 2 and "died" not in stderr:
        problems.append("exit 2 without a dead worker: " + stderr[-300:])
    states = {"original": 0, "fixed": 0}
    for path in folder.iterdir():
        if path.name.endswith(".rtlint-tmp"):
            problems.append(f"temporary file left: {path.name}")
            continue
        content = path.read_text()
        if content == BUGGY:
            states["original"] += 1
        elif content == fixed:
            states["fixed"] += 1
        else:
            problems.append(f"{path.name} is neither original nor fixed")
    if scenario == "kill9" and code in (0, 1) and states["fixed"] != files:
        problems.append(f"exit {code} but {states['original']} files not fixed")
    what = f"delay {delay:.2f}s, exit {code}, {states['fixed']} fixed" + (", a worker killed" if killed_worker else "")
    return not problems, what + ("" if not problems else " -- " + "; ".join(problems))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.stress", description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--files", type=int, default=300)
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds before a run counts as a hang")
    parser.add_argument("--scenarios", default="kill9,sigint,sigterm")
    parser.add_argument("--seed", type=int, default=15)
    parser.add_argument("--verbose", "-v", action="store_true")
    args = parser.parse_args(argv)
    from rtlint.api import fix_source

    fixed = fix_source(BUGGY, "agent.py").text
    rng = random.Random(args.seed)
    failures = 0
    with tempfile.TemporaryDirectory(prefix="rtlint-stress-") as temporary:
        folder = Path(temporary) / "agents"
        folder.mkdir()
        # how long an undisturbed run takes: the signals are spread over all of it
        _reset(folder, args.files)
        started = time.monotonic()
        subprocess.run(
            [sys.executable, "-m", "rtlint", "--no-cache", "--jobs", "2", "--fix", folder.name],
            cwd=folder.parent,
            capture_output=True,
            timeout=args.timeout,
        )
        span = time.monotonic() - started
        print(f"an undisturbed run: {span:.1f} s; signals at random in [0.02, {span:.1f}] s", flush=True)
        for scenario in args.scenarios.split(","):
            held = hangs = startup = 0
            started = time.monotonic()
            for index in range(args.runs):
                ok, what = one_run(scenario, folder, fixed, args.files, args.timeout, rng, span)
                outside = what.startswith("STARTUP")
                held += ok and not outside
                hangs += what.startswith("HANG")
                startup += outside
                if args.verbose or not ok:
                    print(f"  {scenario} #{index + 1}: {'held' if ok else 'FAILED'}: {what}", flush=True)
            failures += args.runs - held - startup
            print(
                f"{scenario}: {args.runs} tried, {held} held, {hangs} hangs, {startup} signalled during"
                f" CPython's own start-up, before rtlint ({time.monotonic() - started:.0f} s)",
                flush=True,
            )
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
